//! The compact bit-packed matrix format (`.bin`), version 1.
//!
//! Layout, all integers little-endian:
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `HXSMTX01` |
//! | 8 | 4 | `rows`: number of observers (u32) |
//! | 12 | 4 | `cols`: number of targets (u32) |
//! | 16 | 8 | `label_bytes`: length of the label block (u64) |
//! | 24 | `label_bytes` | the `rows` observer labels then the `cols` target labels, each UTF-8 and ended by `\n` |
//! | … | 0–7 | zero padding to a multiple of 8 |
//! | … | `rows * ceil(cols / 64) * 8` | the bits: row by row, `ceil(cols / 64)` u64 words per row; bit `j % 64` of word `j / 64` of row `i` is 1 when observer `i` sees target `j` (clear or hindered) |
//!
//! In numpy: `np.unpackbits(words.view(np.uint8), bitorder='little')` gives each row's targets in order.

use crate::engine::matrix::{BitMatrix, Matrix};
use crate::error::{Error, ErrorKind, Result};
use crate::map::Map;
use std::io::{Read, Write};
use std::path::Path;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"HXSMTX01";

/// Writes `m` in the `.bin` format.
pub fn write(map: &Map, m: &Matrix, out: &mut dyn Write) -> std::io::Result<()> {
    let mut labels = String::new();
    for &i in m.sel.from.iter().chain(&m.sel.to) {
        labels.push_str(&map.label(map.hex_of(i)));
        labels.push('\n');
    }
    out.write_all(MAGIC)?;
    out.write_all(&(m.bits.len() as u32).to_le_bytes())?;
    out.write_all(&(m.bits.cols() as u32).to_le_bytes())?;
    out.write_all(&(labels.len() as u64).to_le_bytes())?;
    out.write_all(labels.as_bytes())?;
    out.write_all(&[0u8; 8][..(8 - labels.len() % 8) % 8])?;
    let mut buf = Vec::new();
    for r in 0..m.bits.len() {
        buf.clear();
        for w in m.bits.row(r) {
            buf.extend_from_slice(&w.to_le_bytes());
        }
        out.write_all(&buf)?;
    }
    Ok(())
}

/// A `.bin` file read back: observer labels, target labels and the bits.
pub struct BinMatrix {
    /// Observer labels.
    pub from: Vec<String>,
    /// Target labels.
    pub to: Vec<String>,
    /// The bits.
    pub bits: BitMatrix,
}

/// Reads a `.bin` file.
pub fn read(path: &Path) -> Result<BinMatrix> {
    let bad = |m: &str| Error::new(ErrorKind::Syntax, m.to_string()).in_file(path);
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(&e, path))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).map_err(|e| Error::io(&e, path))?;
    if bytes.len() < 24 || &bytes[..8] != MAGIC {
        return Err(bad("not a hexsight .bin matrix (bad magic)"));
    }
    let rows = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
    let cols = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let lb = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes")) as usize;
    let text = bytes
        .get(24..24 + lb)
        .ok_or_else(|| bad("truncated label block"))?;
    let text = std::str::from_utf8(text).map_err(|_| bad("labels are not UTF-8"))?;
    let labels: Vec<String> = text.lines().map(str::to_string).collect();
    if labels.len() != rows + cols {
        return Err(bad("label count does not match the shape"));
    }
    let start = (24 + lb).div_ceil(8) * 8;
    let mut bits = BitMatrix::with_shape(rows, cols);
    let wpr = cols.div_ceil(64);
    let data = bytes
        .get(start..start + rows * wpr * 8)
        .ok_or_else(|| bad("truncated bit block"))?;
    for (r, row) in bits.rows_mut().enumerate() {
        for (k, w) in row.iter_mut().enumerate() {
            let o = (r * wpr + k) * 8;
            *w = u64::from_le_bytes(data[o..o + 8].try_into().expect("8 bytes"));
        }
    }
    Ok(BinMatrix {
        from: labels[..rows].to_vec(),
        to: labels[rows..].to_vec(),
        bits,
    })
}
