//! The map laid into a padded axial grid, and a kernel's cells and sides laid into it.
//!
//! A walk's stretch is then one add and one load away from its observer: cell
//! `q * stride + r` of the grid, with two cells of padding all round so that a
//! line's off-map stretches (on the concave edges of staggered maps) land on
//! default cells, which never act.

use crate::hex::Hex;
use crate::map::Map;
use crate::rules::kernel::Kernel;
use std::collections::HashMap;

/// The padded axial grid of a map.
#[derive(Clone, Debug)]
pub struct Padded {
    q0: i32,
    r0: i32,
    q1: i32,
    r1: i32,
    /// Cells per axial column.
    pub stride: i64,
    /// Cells in all.
    pub size: usize,
    /// Grid index of each map hex, by map index.
    pub cell: Vec<u32>,
    /// Map index of each grid cell, or `u32::MAX` off the map.
    pub index: Vec<u32>,
    /// Axial coordinates of each map hex, by map index.
    pub axial: Vec<Hex>,
    /// Per grid column, the first and last `r` of its map hexes (first above last
    /// where it has none). A map is a rectangle of offset coordinates, whose hexes in
    /// one axial column are one unbroken run.
    pub spans: Vec<(i32, i32)>,
}

impl Padded {
    /// Lays out the map's hexes, a map column at a time on every thread (a big map's
    /// viewshed waited for them on one: 10 ms of a million hexes' pages).
    pub fn of(map: &Map) -> Padded {
        use rayon::prelude::*;
        // Collected straight into place, each thread writing (and first touching) its
        // own part.
        let axial: Vec<Hex> = (0..map.len())
            .into_par_iter()
            .with_min_len(super::RUN)
            .map(|i| map.hex_of(i))
            .collect();
        let pad = 2;
        let (q0, q1, r0, r1) = axial
            .par_iter()
            .fold(
                || (i32::MAX, i32::MIN, i32::MAX, i32::MIN),
                |(q0, q1, r0, r1), h| (q0.min(h.q), q1.max(h.q), r0.min(h.r), r1.max(h.r)),
            )
            .reduce(
                || (i32::MAX, i32::MIN, i32::MAX, i32::MIN),
                |a, b| (a.0.min(b.0), a.1.max(b.1), a.2.min(b.2), a.3.max(b.3)),
            );
        let (q0, q1, r0, r1) = if axial.is_empty() {
            (-pad, pad, -pad, pad)
        } else {
            (q0 - pad, q1 + pad, r0 - pad, r1 + pad)
        };
        let stride = (r1 - r0 + 1) as i64;
        let size = (q1 - q0 + 1) as usize * stride as usize;
        let mut p = Padded {
            q0,
            r0,
            q1,
            r1,
            stride,
            size,
            cell: Vec::new(),
            index: Vec::new(),
            axial: Vec::new(),
            spans: Vec::new(),
        };
        p.cell = axial
            .par_iter()
            .with_min_len(super::RUN)
            .map(|&h| p.at(h).expect("inside") as u32)
            .collect();
        // Each grid column asks the map which of its cells are map hexes (zeroed
        // pages, all overwritten: the first touches fall on the threads).
        p.index = vec![0; size];
        p.spans = p
            .index
            .par_chunks_mut(stride as usize)
            .enumerate()
            .map(|(k, slots)| {
                let mut span = (r1 + 1, r0 - 1);
                for (r, slot) in (r0..).zip(slots) {
                    let h = Hex::new(q0 + k as i32, r);
                    *slot = map.index(h).map_or(u32::MAX, |i| i as u32);
                    if *slot != u32::MAX {
                        span = (span.0.min(r), r);
                    }
                }
                span
            })
            .collect();
        p.axial = axial;
        p
    }

    /// The grid index of hex `h`, if inside the grid.
    #[inline]
    pub fn at(&self, h: Hex) -> Option<usize> {
        let inside = h.q >= self.q0 && h.q <= self.q1 && h.r >= self.r0 && h.r <= self.r1;
        inside.then(|| (h.q - self.q0) as usize * self.stride as usize + (h.r - self.r0) as usize)
    }

    /// The axial box the grid spans, padding included: `(q0, q1, r0, r1)`.
    pub fn bounds(&self) -> (i32, i32, i32, i32) {
        (self.q0, self.q1, self.r0, self.r1)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.size * 4 + self.cell.len() * 12
    }
}

/// A kernel's cells and hexsides laid into the padded grid (defaults off the map).
pub struct Grid<C, S> {
    /// The cell of each grid index.
    pub cells: Vec<C>,
    /// Per grid index, bit `d` set when the side towards direction `d` has a feature.
    pub side_mask: Vec<u8>,
    /// The sides with a feature, by `index * 6 + direction` (few, so kept sparse).
    sides: HashMap<u32, S>,
}

impl<C: Copy + Default, S: Copy + Default> Grid<C, S> {
    /// Reads every hex and hexside of the kernel's map (the hexes column by column of
    /// the grid, in parallel: a big map's viewshed waited for them on one thread).
    pub fn of<K: Kernel<Cell = C, Side = S>>(k: &K, p: &Padded) -> Self
    where
        C: Send,
    {
        use rayon::prelude::*;
        let map = k.map();
        // Written once, in parallel (so are the pages' first touches).
        let cells: Vec<C> = p
            .index
            .par_iter()
            .with_min_len(super::RUN)
            .map(|&i| match i {
                u32::MAX => C::default(),
                i => k.cell(p.axial[i as usize]),
            })
            .collect();
        let mut side_mask = vec![0u8; p.size];
        let mut sides = HashMap::new();
        for side in map.hexsides.keys() {
            for (x, y) in [(side.a, side.b), (side.b, side.a)] {
                if let (Some(at), Some(d)) = (p.at(x), x.direction_to(y)) {
                    side_mask[at] |= 1 << d;
                    sides.insert((at * 6 + d) as u32, k.side(x, y));
                }
            }
        }
        Grid {
            cells,
            side_mask,
            sides,
        }
    }

    /// The side of grid cell `at` towards direction `d`, if it has a feature.
    #[inline]
    pub fn side(&self, at: usize, d: u8) -> Option<&S> {
        if self.side_mask[at] >> d & 1 == 0 {
            return None;
        }
        self.sides.get(&(at as u32 * 6 + d as u32))
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.cells.len() * (size_of::<C>() + 1) + self.sides.len() * (size_of::<S>() + 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testmaps::random_map;
    use crate::hex::{Orientation, Stagger};

    /// Each grid column's span holds exactly its map hexes, on flat and pointy maps,
    /// odd and even, tall and wide.
    #[test]
    fn spans_hold_each_columns_map_hexes() {
        for (cols, rows) in [(7, 12), (12, 7), (1, 5), (5, 1)] {
            for orientation in [Orientation::Flat, Orientation::Pointy] {
                for stagger in [Stagger::Odd, Stagger::Even] {
                    let mut map = random_map("geometric", 1, cols, rows);
                    map.layout.orientation = orientation;
                    map.layout.stagger = stagger;
                    let p = Padded::of(&map);
                    let (q0, q1, r0, r1) = p.bounds();
                    assert_eq!(p.spans.len(), (q1 - q0 + 1) as usize);
                    for (q, &(lo, hi)) in (q0..).zip(&p.spans) {
                        for r in r0..=r1 {
                            let on = map.contains(Hex::new(q, r));
                            assert_eq!(on, lo <= r && r <= hi, "{q},{r} in {lo}..={hi}");
                        }
                    }
                }
            }
        }
    }
}
