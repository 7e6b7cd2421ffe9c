//! NumPy `.npy` (format 1.0) output of a matrix as `uint8`, readable by `numpy.load`,
//! with the labels in a JSON sidecar (`NAME.labels.json` beside `NAME.npy`).

use crate::engine::matrix::Matrix;
use crate::map::Map;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes the `.npy` bytes: 1 where the observer (row) sees the target (column), else 0.
pub fn write(m: &Matrix, out: &mut dyn Write) -> std::io::Result<()> {
    let (rows, cols) = (m.bits.len(), m.bits.cols());
    let dict = format!("{{'descr': '|u1', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    // Magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
    let unpadded = 10 + dict.len() + 1;
    let pad = (64 - unpadded % 64) % 64;
    let header = format!("{dict}{}\n", " ".repeat(pad));
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&(header.len() as u16).to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    let mut line = vec![0u8; cols];
    for r in 0..rows {
        let words = m.bits.row(r);
        for (c, b) in line.iter_mut().enumerate() {
            *b = (words[c / 64] >> (c % 64) & 1) as u8;
        }
        out.write_all(&line)?;
    }
    Ok(())
}

/// The sidecar path for a `.npy` file: `out.npy` -> `out.labels.json`.
pub fn sidecar_path(npy: &Path) -> PathBuf {
    npy.with_extension("labels.json")
}

/// The sidecar's JSON: map, ruleset, row and column labels, and what the values mean.
pub fn sidecar(map: &Map, m: &Matrix) -> String {
    let labels = |v: &[usize]| {
        v.iter()
            .map(|&i| map.label(map.hex_of(i)))
            .collect::<Vec<_>>()
    };
    let v = json!({
        "map": map.name,
        "ruleset": map.ruleset.name,
        "shape": [m.bits.len(), m.bits.cols()],
        "values": "1 = the row's observer sees the column's target (clear or hindered), 0 = blocked",
        "rows": labels(&m.sel.from),
        "cols": labels(&m.sel.to),
    });
    serde_json::to_string_pretty(&v).expect("JSON") + "\n"
}
