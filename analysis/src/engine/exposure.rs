//! Exposure: for every hex, how many hexes it sees and how many see it,
//! optionally between zones: "where can I stand unseen by the enemy's start
//! area, and where do I see most?".

use super::fast::Engine;
use super::matrix::{Control, Matrix, Selection, cancelled};
use crate::error::Result;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counts per map hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exposure {
    /// Observers counted in `seen_by` (map indices).
    pub from: Vec<usize>,
    /// Targets counted in `sees`.
    pub to: Vec<usize>,
    /// For each hex, how many of the `to` hexes it sees.
    pub sees: Vec<u32>,
    /// For each hex, how many of the `from` hexes see it.
    pub seen_by: Vec<u32>,
}

/// Counts from a full, square matrix of the map.
pub fn from_matrix(m: &Matrix, from: &[usize], to: &[usize]) -> Exposure {
    let n = m.bits.len();
    assert_eq!(
        m.sel.from.len(),
        m.bits.cols(),
        "exposure needs the whole-map matrix"
    );
    let mut mask = vec![0u64; n.div_ceil(64)];
    for &t in to {
        mask[t / 64] |= 1 << (t % 64);
    }
    let sees: Vec<u32> = (0..n)
        .into_par_iter()
        .map(|i| {
            m.bits
                .row(i)
                .iter()
                .zip(&mask)
                .map(|(a, b)| (a & b).count_ones())
                .sum()
        })
        .collect();
    let mut seen_by = vec![0u32; n];
    for &o in from {
        for (w, word) in m.bits.row(o).iter().enumerate() {
            let mut x = *word;
            while x != 0 {
                let b = x.trailing_zeros() as usize;
                seen_by[w * 64 + b] += 1;
                x &= x - 1;
            }
        }
    }
    Exposure {
        from: from.to_vec(),
        to: to.to_vec(),
        sees,
        seen_by,
    }
}

/// Counts without holding a matrix: one pass over every hex against the zones.
pub fn streaming(engine: &Engine, sel: &Selection, ctl: &Control) -> Result<Exposure> {
    let n = engine.map().len();
    let total = n as u64 * (sel.from.len() + sel.to.len()) as u64;
    let done = AtomicU64::new(0);
    let counts: Vec<Option<(u32, u32)>> = (0..n)
        .into_par_iter()
        .map(|h| {
            if ctl.cancel.load(Ordering::Relaxed) {
                return None;
            }
            let sees = sel.to.iter().filter(|&&t| engine.sees(h, t)).count() as u32;
            let seen_by = if engine.is_reciprocal() {
                sel.from.iter().filter(|&&o| engine.sees(h, o)).count() as u32
            } else {
                sel.from.iter().filter(|&&o| engine.sees(o, h)).count() as u32
            };
            let k = (sel.from.len() + sel.to.len()) as u64;
            (ctl.progress)(done.fetch_add(k, Ordering::Relaxed) + k, total);
            Some((sees, seen_by))
        })
        .collect();
    if counts.iter().any(Option::is_none) {
        return Err(cancelled());
    }
    let (sees, seen_by) = counts.into_iter().map(|c| c.expect("checked")).unzip();
    Ok(Exposure {
        from: sel.from.clone(),
        to: sel.to.clone(),
        sees,
        seen_by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generate::{Generator, generate};
    use crate::engine::matrix::matrix;
    use crate::hex::Layout;

    #[test]
    fn streaming_and_matrix_counts_agree_with_zones() {
        let g = Generator {
            cols: 12,
            rows: 10,
            seed: 9,
            ruleset: "combat-commander".into(),
            layout: Layout::default(),
            dense: false,
        };
        let map = generate(&g).unwrap();
        let e = Engine::new(&map);
        let m = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
        let sel = Selection {
            from: (0..20).collect(),
            to: (50..90).collect(),
        };
        let a = from_matrix(&m, &sel.from, &sel.to);
        let b = streaming(&e, &sel, &Control::default()).unwrap();
        assert_eq!(a, b);
        for h in 0..map.len() {
            assert_eq!(
                a.sees[h] as usize,
                sel.to.iter().filter(|&&t| m.bits.get(h, t)).count()
            );
            assert_eq!(
                a.seen_by[h] as usize,
                sel.from.iter().filter(|&&o| m.bits.get(o, h)).count()
            );
        }
    }
}
