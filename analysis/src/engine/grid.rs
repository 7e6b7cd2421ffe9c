//! The map laid into a padded axial grid, and a kernel's cells and sides laid into it.
//!
//! A walk's stretch is then one add and one load away from its observer: cell
//! `q * stride + r` of the grid, with two cells of padding all round so that a
//! line's off-map stretches (on the concave edges of staggered maps) land on
//! default cells, which never act. Other [`Axes`] lay the grid along other lines
//! of hexes (cell `u * stride + v`, `(u, v)` a linear function of `(q, r)`), so
//! that a zone along a map's rows is runs of consecutive cells too.

use crate::hex::{Hex, Layout};
use crate::map::Map;
use crate::rules::kernel::Kernel;
use std::collections::HashMap;
use std::sync::OnceLock;

/// How a grid lines up hexes: grid coordinates `(u, v) = (a q + b r, c q + d r)`
/// from axial `(q, r)`, `[a, b, c, d]` of determinant 1 or -1 (so that each
/// hex has its own grid coordinates, and back). The hexes of one `u` (a grid
/// line) are consecutive cells; a walk's stretch is still one fixed index step
/// from its observer, as the map is linear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axes([i32; 4]);

impl Axes {
    /// Lines along the axial columns (`u = q`): a flat-top map's columns. Every
    /// request but a zone's runs on these.
    pub const COLUMNS: Axes = Axes([1, 0, 0, 1]);
    /// Lines along the axial rows (`u = r`): a pointy-top map's rows.
    pub const ROWS: Axes = Axes([0, 1, 1, 0]);
    /// A flat-top map's rows, each two lines by the parity of its columns
    /// (`u = q + 2r`, twice the row plus or minus the parity).
    pub const FLAT_ROWS: Axes = Axes([1, 2, 0, 1]);
    /// A pointy-top map's columns, each two lines by the parity of its rows
    /// (`u = 2q + r`).
    pub const POINTY_COLUMNS: Axes = Axes([2, 1, 1, 0]);
    /// Every layout a request may choose.
    pub const ALL: [Axes; 4] = [
        Axes::COLUMNS,
        Axes::ROWS,
        Axes::FLAT_ROWS,
        Axes::POINTY_COLUMNS,
    ];

    /// The grid coordinates `(u, v)` of axial `h`, as a `Hex` (`q` = `u`).
    #[inline]
    pub fn apply(self, h: Hex) -> Hex {
        let [a, b, c, d] = self.0;
        Hex::new(a * h.q + b * h.r, c * h.q + d * h.r)
    }

    /// The axial hex at grid coordinates `uv` (the inverse of [`Axes::apply`]).
    #[inline]
    pub fn invert(self, uv: Hex) -> Hex {
        let [a, b, c, d] = self.0;
        let det = a * d - b * c;
        Hex::new(det * (d * uv.q - b * uv.r), det * (a * uv.r - c * uv.q))
    }

    /// Cells of padding on each side: two hex steps in grid coordinates, so that
    /// whatever a walk reads next to the map lands inside the grid.
    fn pad(self) -> i32 {
        let step = crate::hex::DIRECTIONS
            .iter()
            .map(|&d| {
                let g = self.apply(d);
                g.q.abs().max(g.r.abs())
            })
            .max()
            .unwrap_or(1);
        2 * step
    }
}

/// The padded grid of a map: its hexes in the grid coordinates of its [`Axes`]
/// (axial on [`Axes::COLUMNS`]), `(q0, r0)` to `(q1, r1)` in those.
#[derive(Clone, Debug)]
pub struct Padded {
    axes: Axes,
    q0: i32,
    r0: i32,
    q1: i32,
    r1: i32,
    /// Cells per grid line (an axial column on [`Axes::COLUMNS`]).
    pub stride: i64,
    /// Cells in all.
    pub size: usize,
    /// The map's layout and rows, from which a map index gives its hex.
    layout: Layout,
    rows: usize,
    /// Map hexes.
    hexes: usize,
    /// Axial coordinates and grid index of each map hex, by map index: laid out on
    /// first use ([`Padded::axial`], [`Padded::cell`]), as one viewshed asks for a
    /// few ([`Padded::place`]).
    laid: OnceLock<(Vec<Hex>, Vec<u32>)>,
    /// Map index of each grid cell, or `u32::MAX` off the map: built on first use
    /// ([`Padded::index`]), as one viewshed never asks.
    index: OnceLock<Vec<u32>>,
    /// Per grid line, the first and last `v` of its map hexes (first above last
    /// where it has none). A map is a rectangle of offset coordinates, whose hexes in
    /// one axial column, axial row, or half of an offset row or column (split by
    /// parity) are one unbroken run.
    pub spans: Vec<(i32, i32)>,
    /// The map's first and last columns and rows ([`rim`]).
    pub rim: Vec<Hex>,
}

/// The hexes of a map's first and last columns and rows: every extreme of the map
/// lies among them. A hex off them lies midway between two map hexes (its
/// neighbours along its offset column, or along its offset row), so no linear or
/// convex function of the position (an axial bound, a squared distance) is
/// greater there than at both; and the first and last hexes of an axial column
/// are on the rim, as the next hex beyond either leaves the map through its first
/// or last column or row.
fn rim(map: &Map) -> Vec<Hex> {
    let (cols, rows) = (map.cols as usize, map.rows as usize);
    let ends = |n: usize| [0, n.saturating_sub(1)];
    let columns = ends(cols)
        .into_iter()
        .flat_map(|c| (0..rows).map(move |r| (c, r)));
    let lines = ends(rows)
        .into_iter()
        .flat_map(|r| (0..cols).map(move |c| (c, r)));
    let mut rim: Vec<Hex> = columns
        .chain(lines)
        .map(|(c, r)| map.layout.hex_at(c as i32, r as i32))
        .collect();
    rim.sort_unstable();
    rim.dedup();
    rim
}

impl Padded {
    /// The grid's bounds and each column's span, from the map's rim; each hex's
    /// coordinates and grid index are laid out when first asked for.
    #[cfg(test)]
    pub fn of(map: &Map) -> Padded {
        Padded::with_axes(map, Axes::COLUMNS)
    }

    /// [`Padded::of`] along the lines of `axes`. The bounds come from the rim (the
    /// grid coordinates are linear); the spans too on [`Axes::COLUMNS`], whose lines'
    /// ends lie on it, else from every hex (a half-row's last hex may be one column
    /// in from the edge).
    pub fn with_axes(map: &Map, axes: Axes) -> Padded {
        let pad = axes.pad();
        let rim = rim(map);
        let (q0, q1, r0, r1) = rim.iter().map(|&h| axes.apply(h)).fold(
            (i32::MAX, i32::MIN, i32::MAX, i32::MIN),
            |(q0, q1, r0, r1), h| (q0.min(h.q), q1.max(h.q), r0.min(h.r), r1.max(h.r)),
        );
        let (q0, q1, r0, r1) = if rim.is_empty() {
            (-pad, pad, -pad, pad)
        } else {
            (q0 - pad, q1 + pad, r0 - pad, r1 + pad)
        };
        let stride = (r1 - r0 + 1) as i64;
        let size = (q1 - q0 + 1) as usize * stride as usize;
        let mut spans = vec![(r1 + 1, r0 - 1); (q1 - q0 + 1) as usize];
        let mut widen = |h: Hex| {
            let g = axes.apply(h);
            let span = &mut spans[(g.q - q0) as usize];
            *span = (span.0.min(g.r), span.1.max(g.r));
        };
        if axes == Axes::COLUMNS {
            rim.iter().for_each(|&h| widen(h));
        } else {
            (0..map.len()).for_each(|i| widen(map.hex_of(i)));
        }
        Padded {
            axes,
            q0,
            r0,
            q1,
            r1,
            stride,
            size,
            layout: map.layout,
            rows: map.rows as usize,
            hexes: map.len(),
            laid: OnceLock::new(),
            index: OnceLock::new(),
            spans,
            rim,
        }
    }

    /// The lines the grid is laid along.
    pub fn axes(&self) -> Axes {
        self.axes
    }

    /// The grid index step from a hex to the hex `d` (axial) away: the same
    /// wherever the hex lies.
    #[inline]
    pub fn delta(&self, d: Hex) -> i64 {
        let g = self.axes.apply(d);
        g.q as i64 * self.stride + g.r as i64
    }

    /// The grid index steps of one axial `q` and one axial `r`.
    pub fn factors(&self) -> (i64, i64) {
        (self.delta(Hex::new(1, 0)), self.delta(Hex::new(0, 1)))
    }

    /// Grid coordinates (`u` as `q`, `v` as `r`) of map hex `i`: where the sweeps
    /// group hexes into lines.
    #[inline]
    pub fn line_of(&self, i: usize) -> Hex {
        self.axes.apply(self.hex(i))
    }

    /// Axial coordinates of each map hex, by map index.
    pub fn axial(&self) -> &[Hex] {
        &self.laid().0
    }

    /// Grid index of each map hex, by map index.
    pub fn cell(&self) -> &[u32] {
        &self.laid().1
    }

    /// Map hexes.
    pub fn hexes(&self) -> usize {
        self.hexes
    }

    /// Axial coordinates and grid index of map hex `i`: read from the tables where
    /// they are laid out (a sweep that reads them has asked), else worked out with
    /// one 32-bit division (map indices and rows fit `u32`) without laying out
    /// every hex's.
    #[inline]
    pub fn place(&self, i: usize) -> (Hex, usize) {
        self.place_in(self.laid_out(), i)
    }

    /// [`Padded::place`] from `laid`, the tables as [`Padded::laid_out`] gave them
    /// earlier (a caller that places many hexes keeps them as a plain value).
    #[inline]
    pub fn place_in(&self, laid: Option<(&[Hex], &[u32])>, i: usize) -> (Hex, usize) {
        match laid {
            Some((axial, cell)) => (axial[i], cell[i] as usize),
            None => self.work_out(i),
        }
    }

    /// [`Padded::place`] without the tables (kept out of line: the hot callers read
    /// the tables).
    #[inline(never)]
    fn work_out(&self, i: usize) -> (Hex, usize) {
        let (k, rows) = (i as u32, self.rows as u32);
        let h = self.layout.hex_at((k / rows) as i32, (k % rows) as i32);
        (h, self.at(h).expect("a map hex is inside"))
    }

    /// The laid-out tables of [`Padded::axial`] and [`Padded::cell`], if a sweep has
    /// asked for them (for [`Padded::place_in`]).
    pub fn laid_out(&self) -> Option<(&[Hex], &[u32])> {
        self.laid.get().map(|(a, c)| (&a[..], &c[..]))
    }

    /// Axial coordinates of map hex `i` ([`Padded::place`]).
    #[inline]
    pub fn hex(&self, i: usize) -> Hex {
        self.place(i).0
    }

    /// Grid index of map hex `i` ([`Padded::place`]).
    #[inline]
    pub fn grid_index(&self, i: usize) -> usize {
        self.place(i).1
    }

    fn laid(&self) -> &(Vec<Hex>, Vec<u32>) {
        self.laid.get_or_init(|| self.lay_out())
    }

    /// The map index of each grid cell, or `u32::MAX` off the map. `map` is the map
    /// this grid was laid out for.
    pub fn index(&self, map: &Map) -> &[u32] {
        self.index.get_or_init(|| {
            self.each_cell(|h, on| {
                on.then(|| map.index(h))
                    .flatten()
                    .map_or(u32::MAX, |i| i as u32)
            })
        })
    }

    /// `f(hex, on the map)` of every grid cell, in grid order, a grid column on each
    /// thread (written once, straight into place, so that each thread touches its
    /// pages first), the map's hexes told from the column's span.
    pub fn each_cell<T: Send>(&self, f: impl Fn(Hex, bool) -> T + Sync) -> Vec<T> {
        use rayon::prelude::*;
        let down = self.axes.invert(Hex::new(0, 1));
        let mut out = Vec::with_capacity(self.size);
        out.spare_capacity_mut()[..self.size]
            .par_chunks_mut(self.stride as usize)
            .zip(&self.spans)
            .enumerate()
            .for_each(|(k, (slots, &(lo, hi)))| {
                // Down a grid line one hex step at a time (the layout is linear).
                let mut h = self.axes.invert(Hex::new(self.q0 + k as i32, self.r0));
                for (v, slot) in (self.r0..).zip(slots) {
                    slot.write(f(h, lo <= v && v <= hi));
                    h = h + down;
                }
            });
        // SAFETY: the columns cover the first `size` slots, each written above.
        unsafe { out.set_len(self.size) };
        out
    }

    /// The axial coordinates and grid index of each map hex, a map column on each
    /// thread (written straight into place, where each thread touches its pages
    /// first; one index from the next costs no division).
    fn lay_out(&self) -> (Vec<Hex>, Vec<u32>) {
        use rayon::prelude::*;
        let (n, rows) = (self.hexes, self.rows);
        let (mut axial, mut cell) = (Vec::with_capacity(n), Vec::with_capacity(n));
        if n > 0 {
            axial.spare_capacity_mut()[..n]
                .par_chunks_mut(rows)
                .zip(cell.spare_capacity_mut()[..n].par_chunks_mut(rows))
                .enumerate()
                .for_each(|(col, (a, c))| {
                    for (row, (a, c)) in a.iter_mut().zip(c).enumerate() {
                        let h = self.layout.hex_at(col as i32, row as i32);
                        a.write(h);
                        c.write(self.at(h).expect("inside") as u32);
                    }
                });
        }
        // SAFETY: the chunks cover the first `n` slots of both, and each slot of each
        // chunk was written above.
        unsafe {
            axial.set_len(n);
            cell.set_len(n);
        }
        (axial, cell)
    }

    /// The grid index of hex `h`, if inside the grid.
    #[inline]
    pub fn at(&self, h: Hex) -> Option<usize> {
        let h = self.axes.apply(h);
        let inside = h.q >= self.q0 && h.q <= self.q1 && h.r >= self.r0 && h.r <= self.r1;
        inside.then(|| (h.q - self.q0) as usize * self.stride as usize + (h.r - self.r0) as usize)
    }

    /// The box the grid spans in its coordinates, padding included: `(q0, q1, r0,
    /// r1)`, the axial box on [`Axes::COLUMNS`].
    pub fn bounds(&self) -> (i32, i32, i32, i32) {
        (self.q0, self.q1, self.r0, self.r1)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.size * 4 + self.hexes * 12
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
        let map = k.map();
        let cells = p.each_cell(|h, on| match on {
            true => k.cell(h),
            false => C::default(),
        });
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
    use crate::engine::plane::distance2;
    use crate::engine::testmaps::random_map;
    use crate::hex::{Orientation, Stagger};

    /// On every layout, flat and pointy maps, odd and even, tall and wide: each hex
    /// has its own grid coordinates and back, each grid line's span holds exactly its
    /// map hexes, a hex's index step is the same everywhere, and every hex within
    /// two steps of the map lies inside the grid.
    #[test]
    fn every_layout_gives_each_hex_its_own_cell() {
        for (cols, rows) in [(7, 12), (12, 7), (1, 5), (5, 1), (2, 2)] {
            for orientation in [Orientation::Flat, Orientation::Pointy] {
                for stagger in [Stagger::Odd, Stagger::Even] {
                    let mut map = random_map("geometric", 1, cols, rows);
                    map.layout.orientation = orientation;
                    map.layout.stagger = stagger;
                    for axes in Axes::ALL {
                        let p = Padded::with_axes(&map, axes);
                        let near: Vec<Hex> = (0..map.len())
                            .flat_map(|i| {
                                let h = map.hex_of(i);
                                (-2..=2).flat_map(move |dq| {
                                    (-2..=2).map(move |dr| h + Hex::new(dq, dr))
                                })
                            })
                            .filter(|&h| (0..map.len()).any(|i| h.distance(map.hex_of(i)) <= 2))
                            .collect();
                        for &h in &near {
                            assert_eq!(axes.invert(axes.apply(h)), h, "{axes:?}");
                            let at = p.at(h).expect("within two steps of the map: inside");
                            for d in crate::hex::DIRECTIONS {
                                if let Some(b) = p.at(h + d) {
                                    assert_eq!(b as i64 - at as i64, p.delta(d), "{axes:?}");
                                }
                            }
                        }
                        let mut cells: Vec<usize> =
                            (0..map.len()).map(|i| p.grid_index(i)).collect();
                        cells.sort_unstable();
                        cells.dedup();
                        assert_eq!(cells.len(), map.len(), "{axes:?}: one cell a hex");
                        let on: Vec<(Hex, bool)> = p.each_cell(|h, on| (h, on));
                        assert_eq!(on.len(), p.size);
                        for (x, &(h, on)) in on.iter().enumerate() {
                            assert_eq!(
                                on,
                                map.contains(h),
                                "{axes:?} {orientation:?} {cols}x{rows}: {h:?}"
                            );
                            if on {
                                assert_eq!(p.at(h), Some(x));
                            }
                        }
                        assert_eq!(
                            p.factors(),
                            (p.delta(Hex::new(1, 0)), p.delta(Hex::new(0, 1)))
                        );
                    }
                }
            }
        }
    }

    /// The bounds are the map's, each map hex's grid index is where it lies, each grid
    /// column's span holds exactly its map hexes, and the rim holds the farthest hex
    /// from anywhere, on flat and pointy maps, odd and even, tall and wide.
    #[test]
    fn bounds_cells_spans_and_rim_are_the_maps() {
        for (cols, rows) in [(7, 12), (12, 7), (1, 5), (5, 1)] {
            for orientation in [Orientation::Flat, Orientation::Pointy] {
                for stagger in [Stagger::Odd, Stagger::Even] {
                    let mut map = random_map("geometric", 1, cols, rows);
                    map.layout.orientation = orientation;
                    map.layout.stagger = stagger;
                    let p = Padded::of(&map);
                    let (q0, q1, r0, r1) = p.bounds();
                    assert_eq!(p.spans.len(), (q1 - q0 + 1) as usize);
                    // The bounds are the map's, padded; the farthest hex from any
                    // point is on the rim.
                    let all = |f: &dyn Fn(Hex) -> i32| {
                        let v = p.axial().iter().map(|&h| f(h));
                        (v.clone().min().unwrap(), v.max().unwrap())
                    };
                    assert_eq!(
                        (all(&|h| h.q), all(&|h| h.r)),
                        ((q0 + 2, q1 - 2), (r0 + 2, r1 - 2))
                    );
                    for o in [Hex::new(-3, 9), Hex::new(4, 2), Hex::new(20, -14)] {
                        let far = |hs: &[Hex]| hs.iter().map(|&h| distance2(h - o)).max();
                        assert_eq!(far(&p.rim), far(p.axial()), "from {o:?}");
                    }
                    assert_eq!(
                        p.cell(),
                        p.axial()
                            .iter()
                            .map(|&h| p.at(h).unwrap() as u32)
                            .collect::<Vec<_>>()
                    );
                    assert_eq!(p.hexes(), map.len());
                    // Worked out before the tables are laid out, and read from them after.
                    let fresh = Padded::of(&map);
                    for i in 0..map.len() {
                        let want = (map.hex_of(i), p.cell()[i] as usize);
                        assert_eq!((fresh.place(i), p.place(i)), (want, want));
                        assert_eq!((fresh.hex(i), fresh.grid_index(i)), want);
                    }
                    assert!(fresh.laid.get().is_none());
                    for (q, &(lo, hi)) in (q0..).zip(&p.spans) {
                        for r in r0..=r1 {
                            let h = Hex::new(q, r);
                            let on = map.contains(h);
                            assert_eq!(on, lo <= r && r <= hi, "{q},{r} in {lo}..={hi}");
                            let i = p.index(&map)[p.at(h).unwrap()];
                            assert_eq!((i != u32::MAX).then_some(i as usize), map.index(h));
                        }
                    }
                }
            }
        }
    }
}
