//! NumPy `.npy` (format 1.0) output of a matrix as `uint8`, readable by `numpy.load`,
//! with the labels in a JSON sidecar (`NAME.labels.json` beside `NAME.npy`).

use crate::engine::matrix::{Matrix, Selection};
use crate::map::Map;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes the `.npy` bytes: 1 where the observer (row) sees the target (column), else 0.
///
/// Rows are expanded from bits to bytes in parallel, a batch of about 16 MiB at
/// a time, and each batch is written in order, so the file costs little more than
/// its writing.
pub fn write(m: &Matrix, out: &mut dyn Write) -> std::io::Result<()> {
    use rayon::prelude::*;
    let (rows, cols) = (m.bits.len(), m.bits.cols());
    header(rows, cols, out)?;
    if cols == 0 {
        return Ok(());
    }
    // Byte `b` of a word as eight 0/1 bytes, little end first.
    let spread: Vec<u64> = (0..256u64)
        .map(|b| (0..8).fold(0, |v, k| v | (b >> k & 1) << (8 * k)))
        .collect();
    let batch_rows = ((16 << 20) / cols).clamp(1, rows.max(1));
    let mut buf = vec![0u8; batch_rows * cols];
    for first in (0..rows).step_by(batch_rows) {
        let n = batch_rows.min(rows - first);
        buf[..n * cols]
            .par_chunks_mut(cols)
            .enumerate()
            .for_each(|(k, line)| {
                let words = m.bits.row(first + k);
                let mut eights = line.chunks_exact_mut(8);
                for (c, chunk) in (&mut eights).enumerate() {
                    let byte = words[c / 8] >> (8 * (c % 8)) & 0xff;
                    chunk.copy_from_slice(&spread[byte as usize].to_le_bytes());
                }
                let done = cols - eights.into_remainder().len();
                for (c, b) in line.iter_mut().enumerate().skip(done) {
                    *b = (words[c / 64] >> (c % 64) & 1) as u8;
                }
            });
        out.write_all(&buf[..n * cols])?;
    }
    Ok(())
}

/// Writes a `rows` x `cols` uint8 array given row by row in `data`.
pub fn write_bytes(
    rows: usize,
    cols: usize,
    data: &[u8],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    header(rows, cols, out)?;
    out.write_all(data)
}

fn header(rows: usize, cols: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let dict = format!("{{'descr': '|u1', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    // Magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
    let unpadded = 10 + dict.len() + 1;
    let pad = (64 - unpadded % 64) % 64;
    let header = format!("{dict}{}\n", " ".repeat(pad));
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&(header.len() as u16).to_le_bytes())?;
    out.write_all(header.as_bytes())
}

/// The sidecar path for a `.npy` file: `out.npy` -> `out.labels.json`.
pub fn sidecar_path(npy: &Path) -> PathBuf {
    npy.with_extension("labels.json")
}

/// The sidecar's JSON: map, ruleset, row and column labels, and what the values mean.
pub fn sidecar(map: &Map, m: &Matrix) -> String {
    sidecar_for(
        map,
        &m.sel,
        "1 = the row's observer sees the column's target (clear or hindered), 0 = blocked",
    )
}

/// The sidecar for a selection with a description of the values.
pub fn sidecar_for(map: &Map, sel: &Selection, values: &str) -> String {
    let labels = |v: &[usize]| {
        v.iter()
            .map(|&i| map.label(map.hex_of(i)))
            .collect::<Vec<_>>()
    };
    let v = json!({
        "map": map.name,
        "ruleset": map.ruleset.name,
        "shape": [sel.from.len(), sel.to.len()],
        "values": values,
        "rows": labels(&sel.from),
        "cols": labels(&sel.to),
    });
    serde_json::to_string_pretty(&v).expect("JSON") + "\n"
}
