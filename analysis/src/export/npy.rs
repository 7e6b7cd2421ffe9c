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
/// a time, and each batch is written in order while the next is expanded, so the
/// file costs little more than its writing.
pub fn write(m: &Matrix, out: &mut dyn Write) -> std::io::Result<()> {
    write_batched(m, out, 16 << 20)
}

/// [`write`] in batches of about `batch_bytes`.
fn write_batched(m: &Matrix, out: &mut dyn Write, batch_bytes: usize) -> std::io::Result<()> {
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
    let batch_rows = (batch_bytes / cols).clamp(1, rows.max(1));
    // Rows `first..` of the matrix as bytes into `buf`, in parallel; returns the bytes filled.
    let fill = |buf: &mut [u8], first: usize| -> usize {
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
        n * cols
    };
    let mut buf = vec![0u8; batch_rows * cols];
    let mut filled = fill(&mut buf, 0);
    // With more than one worker, the next batch is filled while this one is written.
    let mut next = if rayon::current_num_threads() > 1 && rows > batch_rows {
        vec![0u8; batch_rows * cols]
    } else {
        Vec::new()
    };
    for first in (batch_rows..rows).step_by(batch_rows) {
        if next.is_empty() {
            out.write_all(&buf[..filled])?;
            filled = fill(&mut buf, first);
            continue;
        }
        let written = std::thread::scope(|s| {
            let filling = s.spawn(|| fill(&mut next, first));
            let written = out.write_all(&buf[..filled]);
            (
                written,
                filling.join().expect("filling a batch does not panic"),
            )
        });
        written.0?;
        filled = written.1;
        std::mem::swap(&mut buf, &mut next);
    }
    out.write_all(&buf[..filled])
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::matrix::BitMatrix;

    /// Batches of a few rows, written while the next is filled by two workers, give
    /// the bytes of the matrix bit by bit, whatever the batch size.
    #[test]
    fn batches_written_while_the_next_fills_keep_every_byte() {
        let (rows, cols) = (37, 75);
        let mut bits = BitMatrix::with_shape(rows, cols);
        for (i, row) in bits.rows_mut().enumerate() {
            for j in 0..cols {
                if (i * 7 + j * 3) % 5 < 2 {
                    row[j / 64] |= 1 << (j % 64);
                }
            }
        }
        let m = Matrix {
            sel: Selection {
                from: (0..rows).collect(),
                to: (0..cols).collect(),
            },
            bits,
        };
        let mut want = Vec::new();
        header(rows, cols, &mut want).unwrap();
        for i in 0..rows {
            want.extend((0..cols).map(|j| u8::from(m.bits.get(i, j))));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for batch in [1, cols, 3 * cols + 5, 16 << 20] {
            let mut got = Vec::new();
            pool.install(|| write_batched(&m, &mut got, batch)).unwrap();
            assert_eq!(got, want, "batches of {batch} bytes");
        }
    }
}
