//! The all-pairs visibility matrix.

use crate::los::line_of_sight;
use crate::map::Map;
use rayon::prelude::*;

/// Who sees whom: a square bit matrix over the map's hexes in index order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitMatrix {
    n: usize,
    words_per_row: usize,
    bits: Vec<u64>,
}

impl BitMatrix {
    /// An all-zero `n` x `n` matrix.
    pub fn new(n: usize) -> Self {
        let words_per_row = n.div_ceil(64);
        BitMatrix {
            n,
            words_per_row,
            bits: vec![0; n * words_per_row],
        }
    }

    /// Side length.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True for a 0 x 0 matrix.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether observer `i` sees target `j`.
    pub fn get(&self, i: usize, j: usize) -> bool {
        self.bits[i * self.words_per_row + j / 64] >> (j % 64) & 1 == 1
    }

    /// One observer's row as words.
    pub fn row(&self, i: usize) -> &[u64] {
        &self.bits[i * self.words_per_row..(i + 1) * self.words_per_row]
    }

    /// Mutable rows, for parallel filling.
    pub fn rows_mut(&mut self) -> std::slice::ChunksMut<'_, u64> {
        self.bits.chunks_mut(self.words_per_row)
    }
}

/// The matrix computed the plain way: one full LOS query per ordered pair.
pub fn matrix_plain(map: &Map) -> BitMatrix {
    let mut m = BitMatrix::new(map.len());
    m.rows_mut().enumerate().par_bridge().for_each(|(i, row)| {
        let from = map.hex_of(i);
        for j in 0..map.len() {
            if line_of_sight(map, from, map.hex_of(j)).verdict.sees() {
                row[j / 64] |= 1 << (j % 64);
            }
        }
    });
    m
}

/// Writes the matrix as CSV: a header of labels, then one row per observer of 0/1.
pub fn write_csv(map: &Map, m: &BitMatrix, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let labels: Vec<String> = map.hexes().map(|h| map.label(h)).collect();
    writeln!(out, ",{}", labels.join(","))?;
    let mut line = String::new();
    for (i, label) in labels.iter().enumerate() {
        line.clear();
        line.push_str(label);
        for j in 0..m.len() {
            line.push_str(if m.get(i, j) { ",1" } else { ",0" });
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}
