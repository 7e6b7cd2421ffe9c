//! Most of a viewshed settled from bounds on the sight lines' slopes, without walks.
//!
//! In a family whose one rule is a top strictly above the straight sight line
//! ([`Kernel::blocks_above_line`]), a hex with top `s` that a line to a target meets
//! at distance `a` from the observer's eye `E` blocks it exactly when its slope
//! `(s - E) / a` is above the line's own, `(h - E) / D` for a target point `h` at
//! distance `D`. Taking the hexes outward from the observer, tables over wedges of
//! direction keep the highest slope
//! - of the hexes a line in the wedge *may* meet (within a hex's circumradius of its
//!   centre, `a` taken at the worst): a target whose slope is at or above it is clear;
//! - of the hexes every line in the wedge *must* cross (through the inscribed circle,
//!   `a` at the worst): a target whose slope is below it is blocked.
//!
//! Each is kept again for the hexes at or above the eye alone, to tell blind hexes
//! (hidden only by lower blockers). Only targets near a silhouette, where the two
//! bounds disagree, are left to a walk. Every bound is widened by a margin far above
//! rounding error, so no target is settled wrongly; the engine's tests check every
//! viewshed against the explained query.

use super::grid::{Grid, Padded};
use super::plane::{CIRCUMRADIUS, INRADIUS, distance2, point, pseudo_angle};
use super::shadow::Need;
use super::vector::{self, Isa};
use crate::hex::Hex;
use crate::rules::kernel::Kernel;
use rayon::prelude::*;

/// Widening of every direction (in buckets), far above rounding error.
const ANGLE_MARGIN: f64 = 1e-6;
/// Widening of every slope comparison, relative to the slope: far above the
/// rounding of slopes to `f32`.
const SLOPE_MARGIN: f64 = 1e-5;
/// Fewest and most direction buckets.
const BUCKETS: (usize, usize) = (1 << 10, 1 << 16);

/// The directions within the angle whose sine and cosine are in the ratio
/// `sin : cos` of `(x, y)`'s, in pseudo-angle (the second unwrapped past the first):
/// the pseudo-angle does not change with length, so neither need be normalised.
fn around(x: f64, y: f64, sin: f64, cos: f64) -> (f64, f64) {
    let lo = pseudo_angle(x * cos + y * sin, y * cos - x * sin);
    let hi = pseudo_angle(x * cos - y * sin, y * cos + x * sin);
    (lo, if hi < lo { hi + 4.0 } else { hi })
}

/// One hex of the map as seen from the observer: what the sweep reads of it, as a
/// target and as an obstacle. Slopes are kept as `f32` (rounding well inside
/// [`SLOPE_MARGIN`]) so that a large map's hexes stay few cache lines.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Seen {
    /// The bucket of its direction.
    bucket: u32,
    /// The first bucket (unwrapped) in which a line may meet it, and how many.
    touch: (i32, u16),
    /// The first bucket (unwrapped) in which every line crosses its inside, and how
    /// many (maybe none).
    core: (i32, u16),
    /// Its top is at or above the eye.
    high: bool,
    /// The highest slope at which a line may meet it.
    may: f32,
    /// A slope below which every line crossing its inside is blocked.
    must: f32,
    /// The slope of the line to its target point.
    slope: f32,
}

/// Per direction bucket (a power of two of them), the highest slope entered; rising
/// only.
struct Wedges(Vec<f32>);

impl Wedges {
    /// Raises `len` buckets from `first` (unwrapped) to at least `v`.
    fn raise(&mut self, (first, len): (i32, u16), v: f32) {
        let n = self.0.len();
        if len == 0 {
            return;
        }
        debug_assert!(n.is_power_of_two());
        let first = (first & (n as i32 - 1)) as usize;
        let len = usize::from(len).min(n);
        // A plain comparison (no slope is NaN), which runs as a vector max.
        let up = |s: &mut [f32]| s.iter_mut().for_each(|x| *x = if v > *x { v } else { *x });
        if first + len <= n {
            up(&mut self.0[first..first + len]);
        } else {
            up(&mut self.0[first..]);
            up(&mut self.0[..first + len - n]);
        }
    }
}

/// The four tables.
struct Tables {
    may: Wedges,
    may_high: Wedges,
    must: Wedges,
    must_high: Wedges,
}

impl Tables {
    /// Judges the hexes of each band of `bands` into `out` (by grid index), then
    /// enters them.
    fn sweep(&mut self, bands: &Bands, out: &mut [Need]) {
        let mut start = 0;
        for &end in &bands.ends {
            let band = start..end;
            for (&(x, _), s) in bands.cells[band.clone()]
                .iter()
                .zip(&bands.seen[band.clone()])
            {
                out[x as usize] = decide(self, s);
            }
            for s in &bands.seen[band] {
                self.enter(s);
            }
            start = end;
        }
    }

    /// Enters a hex.
    fn enter(&mut self, s: &Seen) {
        self.may.raise(s.touch, s.may);
        self.must.raise(s.core, s.must);
        if s.high {
            self.may_high.raise(s.touch, s.may);
            self.must_high.raise(s.core, s.must);
        }
    }
}

/// The highest slope at which a line may meet a hex `d` away whose top is `rise`
/// above the eye: where the line is nearest to the observer for a rise, farthest for
/// a fall.
fn may_slope(rise: f64, d: f64) -> f64 {
    rise / if rise > 0.0 {
        d - CIRCUMRADIUS
    } else {
        d + CIRCUMRADIUS
    }
}

/// Buckets for a map `reach` across: a few per hex at the far edge.
fn buckets_for(reach: f64) -> usize {
    ((reach * 8.0) as usize)
        .next_power_of_two()
        .clamp(BUCKETS.0, BUCKETS.1)
}

/// Bytes [`needs`] holds for a map: per grid cell its rises and answer, per map hex
/// its answer, two batches of bands (each at most `LAID_OUT` hexes and a ring of
/// the grid), and the tables.
pub fn estimate_bytes(padded: &Padded) -> u64 {
    let (q0, q1, r0, r1) = padded.bounds();
    let ring = 8 * (q1 - q0 + r1 - r0 + 2) as usize;
    let batch = (LAID_OUT + ring) * (size_of::<Seen>() + size_of::<(u32, Hex)>() + 8);
    (Tiles::of(padded).size * 10 + padded.axial.len() * 2 + 2 * batch) as u64
        + 4 * 4 * BUCKETS.1 as u64
}

/// Per map hex, what the line from map hex `i` to it needs in a viewshed, for a
/// kernel that [blocks above the line](Kernel::blocks_above_line): settled clear
/// ([`Need::Nothing`]) or hidden ([`Need::Hidden`]) here, or left to a walk.
///
/// The hexes are taken in bands half a hex wide of distance from the observer: every
/// hex of a band is judged before any is entered, so a band goes in grid order (runs
/// along the axial columns, near each other in memory) and needs no sort. No hex a
/// line meets lies in its target's band or beyond: the last half hex of a line is
/// inside its target's inscribed circle, so a hex `h` it meets is met within
/// `d - 1/2` of the observer (`d` the target's distance) and lies within
/// `d - 1/2 + CIRCUMRADIUS`; lying at `d - 1/2` or beyond, it would be a neighbour of
/// the target within `CIRCUMRADIUS` of the line, at an angle `phi` from it with
/// `cos phi >= 0.816`, so at most `sqrt(d^2 - 1.633 d + 1)` away, under `d - 1/2`
/// for every `d` beyond 1.19; at `d = 1` the line crosses only the hexside between
/// the ends. While one band is swept the next is laid out, on another thread when
/// there is one.
pub fn needs<K: Kernel>(
    kernel: &K,
    grid: &Grid<K::Cell, K::Side>,
    padded: &Padded,
    i: usize,
) -> Vec<Need> {
    let origin = padded.axial[i];
    let far2 = padded
        .axial
        .par_iter()
        .map(|&h| distance2(h - origin))
        .max()
        .unwrap_or(0);
    let buckets = buckets_for(2.0 * (far2 as f64).sqrt() + 2.0);
    let view = View::new(kernel, grid, padded, i, buckets);
    let wedges = || Wedges(vec![f32::NEG_INFINITY; buckets]);
    let mut t = Tables {
        may: wedges(),
        may_high: wedges(),
        must: wedges(),
        must_high: wedges(),
    };
    // In the view's order while sweeping, which keeps a band's writes near each other.
    let mut out = vec![Need::Walk; view.tiles.size];
    let mut rings = Rings::new(padded, origin);
    let (mut bands, mut next) = (Bands::default(), Bands::default());
    // Band `b` holds the hexes whose distance `d` has `b <= 2 d < b + 1`.
    let last = (4 * far2).isqrt() + 1;
    let mut b = view.lay_out(&mut rings, 0, last, &mut bands);
    // On one of the pool's threads, so that each join is cheap.
    rayon::scope(|_| {
        while !bands.ends.is_empty() {
            let sweep = || t.sweep(&bands, &mut out);
            let (_, after) = rayon::join(sweep, || view.lay_out(&mut rings, b, last, &mut next));
            b = after;
            std::mem::swap(&mut bands, &mut next);
        }
    });
    padded
        .axial
        .iter()
        .map(|&h| out[view.tiles.at(h)])
        .collect()
}

/// Hexes laid out at once, in bands: enough that handing them between threads costs
/// little beside sweeping them.
const LAID_OUT: usize = 1 << 15;

/// Consecutive bands of hexes: their indices in the view's [`Tiles`] and offsets from
/// the observer, how each is seen, and where each band ends.
#[derive(Default)]
struct Bands {
    cells: Vec<(u32, Hex)>,
    seen: Vec<Seen>,
    ends: Vec<usize>,
}

/// The map's hexes in order of distance from one hex, band by band: each axial
/// column of the grid is walked outward both ways from its point nearest the hex,
/// along which the distance only grows.
struct Rings<'a> {
    padded: &'a Padded,
    origin: Hex,
    /// Per column: its `q`, and the next `r` upward and downward.
    columns: Vec<(i32, i32, i32)>,
}

impl<'a> Rings<'a> {
    fn new(padded: &'a Padded, origin: Hex) -> Rings<'a> {
        let (q0, q1, r0, r1) = padded.bounds();
        let columns = (q0..=q1)
            .map(|q| {
                // The squared distance along the column is least at `dr = -dq / 2`.
                let mid = origin.r + (origin.q - q).div_euclid(2);
                (q, (mid + 1).clamp(r0, r1 + 1), mid.clamp(r0 - 1, r1))
            })
            .collect();
        Rings {
            padded,
            origin,
            columns,
        }
    }

    /// Calls `visit(x, o)` for the index in `view`'s tiles and offset from the
    /// observer of each map hex not yet taken (but the observer's) whose squared
    /// distance is under `limit4 / 4`, in runs along the columns.
    fn take(&mut self, view: &View, limit4: i64, mut visit: impl FnMut(usize, Hex)) {
        let (_, _, r0, r1) = self.padded.bounds();
        let o = self.origin;
        let mut push = |h: Hex| {
            let x = view.tiles.at(h);
            if !view.ground[x].0.is_nan() && h != o {
                visit(x, h - o);
            }
        };
        for (q, up, down) in &mut self.columns {
            while *up <= r1 {
                let h = Hex::new(*q, *up);
                let d2 = distance2(h - o);
                if 4 * d2 >= limit4 {
                    break;
                }
                push(h);
                *up += 1;
            }
            while *down >= r0 {
                let h = Hex::new(*q, *down);
                let d2 = distance2(h - o);
                if 4 * d2 >= limit4 {
                    break;
                }
                push(h);
                *down -= 1;
            }
        }
    }
}

/// What the sweep reads: per cell of the padded grid, in the order of `tiles`, how far
/// its top stands above the observer's eye and its target point (`NaN` off the map),
/// in `buckets` directions.
struct View {
    ground: Vec<(f32, f32)>,
    tiles: Tiles,
    buckets: usize,
}

/// The padded grid's cells in groups of eight axial columns, each row of a group side
/// by side. A band of hexes crosses the columns: in the grid's own order each column
/// is a page away from the next, here eight columns share a cache line.
struct Tiles {
    q0: i32,
    r0: i32,
    rows: usize,
    size: usize,
}

impl Tiles {
    fn of(padded: &Padded) -> Tiles {
        let (q0, q1, r0, r1) = padded.bounds();
        let rows = (r1 - r0 + 1) as usize;
        let size = ((q1 - q0 + 1) as usize).div_ceil(8) * 8 * rows;
        Tiles { q0, r0, rows, size }
    }

    /// The index of the grid cell of `h`, which lies inside the grid.
    fn at(&self, h: Hex) -> usize {
        let (q, r) = ((h.q - self.q0) as usize, (h.r - self.r0) as usize);
        (q >> 3) * 8 * self.rows + r * 8 + (q & 7)
    }
}

impl View {
    fn new<K: Kernel>(
        kernel: &K,
        grid: &Grid<K::Cell, K::Side>,
        padded: &Padded,
        i: usize,
        buckets: usize,
    ) -> View {
        let eye = kernel.eye(&grid.cells[padded.cell[i] as usize]);
        let tiles = Tiles::of(padded);
        let mut ground = vec![(f32::NAN, f32::NAN); tiles.size];
        let group = 8 * tiles.rows;
        ground
            .par_chunks_mut(group)
            .enumerate()
            .for_each(|(g, slots)| {
                for (k, slot) in slots.iter_mut().enumerate() {
                    let h = Hex::new(tiles.q0 + (8 * g + k % 8) as i32, tiles.r0 + (k / 8) as i32);
                    let Some(x) = padded.at(h).filter(|&x| padded.index[x] != u32::MAX) else {
                        continue;
                    };
                    let c = &grid.cells[x];
                    *slot = (
                        (kernel.top(c) - eye) as f32,
                        (kernel.target_eye(c) - eye) as f32,
                    );
                }
            });
        View {
            ground,
            tiles,
            buckets,
        }
    }

    /// Lays out in `bands` the hexes of `rings` from band `b` on, up to [`LAID_OUT`]
    /// of them or band `last`; returns the band after the last laid out.
    fn lay_out(&self, rings: &mut Rings, mut b: i64, last: i64, bands: &mut Bands) -> i64 {
        bands.cells.clear();
        bands.ends.clear();
        while b <= last && bands.cells.len() < LAID_OUT {
            rings.take(self, (b + 1) * (b + 1), |x, o| {
                bands.cells.push((x as u32, o))
            });
            bands.ends.push(bands.cells.len());
            b += 1;
        }
        let isa = vector::best();
        bands.seen.clear();
        bands.seen.resize(bands.cells.len(), Seen::default());
        bands
            .seen
            .par_chunks_mut(1024)
            .zip(bands.cells.par_chunks(1024))
            .for_each(|(out, cells)| self.see(cells, out, isa));
        b
    }

    /// How each hex of `cells` (grid index and offset from the observer) is seen, into
    /// `out`, eight or four at a time on `isa` where given: the same operations in
    /// every lane, so the same answers on every path.
    fn see(&self, cells: &[(u32, Hex)], out: &mut [Seen], isa: Option<Isa>) {
        #[cfg(target_arch = "x86_64")]
        match isa {
            // SAFETY: an `Isa` comes from `vector::best` or `every`, which found its
            // instructions.
            Some(Isa::Avx512) => return unsafe { see_avx512(self, cells, out) },
            // SAFETY: as above.
            Some(Isa::Avx2) => return unsafe { see_avx2(self, cells, out) },
            None => {}
        }
        let _ = isa;
        see_columns(self, cells, out)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn see_avx512(view: &View, cells: &[(u32, Hex)], out: &mut [Seen]) {
    see_columns(view, cells, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn see_avx2(view: &View, cells: &[(u32, Hex)], out: &mut [Seen]) {
    see_columns(view, cells, out)
}

/// Hexes whose inputs are gathered into columns at once, for [`see_columns`].
const COLUMN: usize = 256;

/// [`View::see`], a column of hexes at a time: their inputs gathered, then one loop
/// of straight arithmetic over them (which the compiler runs in vector lanes), then
/// the answers assembled.
#[inline(always)]
fn see_columns(view: &View, cells: &[(u32, Hex)], out: &mut [Seen]) {
    for (cells, out) in cells.chunks(COLUMN).zip(out.chunks_mut(COLUMN)) {
        let n = cells.len();
        let (mut px, mut py, mut d2) = ([0.0; COLUMN], [0.0; COLUMN], [0.0; COLUMN]);
        let (mut rise, mut lift) = ([0.0; COLUMN], [0.0; COLUMN]);
        for (k, &(x, o)) in cells.iter().enumerate() {
            (px[k], py[k]) = point(o);
            d2[k] = distance2(o) as f64;
            let (r, l) = view.ground[x as usize];
            (rise[k], lift[k]) = (f64::from(r), f64::from(l));
        }
        let mut lanes = Lanes::default();
        for k in 0..n {
            lanes.work(view.buckets, k, (px[k], py[k], d2[k], rise[k], lift[k]));
        }
        for (k, s) in out.iter_mut().enumerate() {
            *s = Seen {
                bucket: lanes.bucket[k] as u32,
                touch: (lanes.touch[k], lanes.touch_len[k] as u16),
                core: (lanes.core[k], lanes.core_len[k] as u16),
                high: rise[k] >= 0.0,
                may: lanes.may[k],
                must: lanes.must[k],
                slope: lanes.slope[k],
            };
        }
    }
}

/// A column's answers, one array per field of [`Seen`].
struct Lanes {
    bucket: [i32; COLUMN],
    touch: [i32; COLUMN],
    touch_len: [i32; COLUMN],
    core: [i32; COLUMN],
    core_len: [i32; COLUMN],
    may: [f32; COLUMN],
    must: [f32; COLUMN],
    slope: [f32; COLUMN],
}

impl Default for Lanes {
    fn default() -> Lanes {
        Lanes {
            bucket: [0; COLUMN],
            touch: [0; COLUMN],
            touch_len: [0; COLUMN],
            core: [0; COLUMN],
            core_len: [0; COLUMN],
            may: [0.0; COLUMN],
            must: [0.0; COLUMN],
            slope: [0.0; COLUMN],
        }
    }
}

impl Lanes {
    /// How hex `k` of the column is seen, `(x, y)` from the observer at squared
    /// distance `d2`, its top `rise` above the eye and its target point `lift`.
    #[inline(always)]
    fn work(
        &mut self,
        buckets: usize,
        k: usize,
        (x, y, d2, rise, lift): (f64, f64, f64, f64, f64),
    ) {
        let scale = buckets as f64 / 4.0;
        let d = d2.sqrt();
        let inv = 1.0 / d;
        self.slope[k] = (lift * inv) as f32;
        self.bucket[k] = ((pseudo_angle(x, y) * scale) as i32).min(buckets as i32 - 1);
        // Every line within the circumradius of the centre may meet the hex; every
        // line through its inscribed circle crosses its inside, entering before the
        // point nearest the centre (at `far`) and leaving after it. Each is an angle
        // whose sine is the radius over `d`, its cosine the leg over `d`.
        let far = (d2 - INRADIUS * INRADIUS).sqrt();
        let leg = (d2 - CIRCUMRADIUS * CIRCUMRADIUS).max(0.0).sqrt();
        self.must[k] = (rise / if rise >= 0.0 { d } else { far }) as f32;
        self.may[k] = may_slope(rise, d) as f32;
        (self.touch[k], self.touch_len[k]) = span(scale, around(x, y, CIRCUMRADIUS, leg), true);
        (self.core[k], self.core_len[k]) = span(scale, around(x, y, INRADIUS, far), false);
    }
}

/// The buckets (`scale` per unit of pseudo-angle) of pseudo-angles `lo..hi`, widened
/// (`grow`) or narrowed to those wholly inside: the first (unwrapped) and how many.
#[inline(always)]
fn span(scale: f64, (lo, hi): (f64, f64), grow: bool) -> (i32, i32) {
    // `floor` and `ceil` by truncating from a whole offset above every value (the
    // library calls cost more than the rest of the span): the values lie within
    // `3 * 4 * scale` of 0, the offset is `8 * 4 * scale`, at most 2^19.
    let off = 32.0 * scale;
    let floor = |v: f64| (v + off) as i32 - off as i32;
    let ceil = |v: f64| off as i32 - (off - v) as i32;
    let (first, last) = if grow {
        (
            floor(lo * scale - ANGLE_MARGIN),
            floor(hi * scale + ANGLE_MARGIN),
        )
    } else {
        (
            ceil(lo * scale + ANGLE_MARGIN),
            floor(hi * scale - ANGLE_MARGIN) - 1,
        )
    };
    (first, (last - first + 1).clamp(0, i32::from(u16::MAX)))
}

/// The margin of a slope comparison.
fn margin(slope: f64) -> f64 {
    SLOPE_MARGIN * (1.0 + slope.abs())
}

/// What a target needs, from the tables of the hexes entered before it.
fn decide(t: &Tables, s: &Seen) -> Need {
    let (b, slope) = (s.bucket as usize, f64::from(s.slope));
    let m = margin(slope);
    let clear = |table: &Wedges| f64::from(table.0[b]) <= slope - m;
    if clear(&t.may) {
        Need::Nothing
    } else if f64::from(t.must_high.0[b]) > slope + m {
        Need::Hidden { blind: false }
    } else if clear(&t.may_high) {
        if f64::from(t.must.0[b]) > slope + m {
            Need::Hidden { blind: true }
        } else {
            Need::FirstBlock
        }
    } else {
        Need::Walk
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::fast::Engine;
    use crate::engine::testmaps::random_map;
    use crate::engine::viewshed::is_blind;
    use crate::los::line_of_sight;
    use crate::map::Map;
    use crate::rules::Verdict;

    /// Checks every target the tables settle from map hex `i` against the explained
    /// query; returns how many they settle.
    fn check(map: &Map, i: usize, what: &str) -> usize {
        let e = Engine::new(map);
        let needs = e.viewshed_needs(i);
        let mut settled = 0;
        for (j, &need) in needs.iter().enumerate() {
            let want = match need {
                Need::Nothing => (Verdict::Clear, false),
                Need::Hidden { blind } => (Verdict::Blocked, blind),
                Need::FirstBlock | Need::Walk => continue,
            };
            let r = line_of_sight(map, map.hex_of(i), map.hex_of(j));
            let got = (r.verdict, is_blind(map, &r));
            assert_eq!(
                want,
                got,
                "{what}: {} -> {}: {}",
                map.label(map.hex_of(i)),
                map.label(map.hex_of(j)),
                r.reason
            );
            settled += 1;
        }
        settled
    }

    /// The rings take every map hex but the observer's once, each in its band,
    /// from observers inside, at the edges and in the corners of flat and pointy
    /// maps.
    #[test]
    fn rings_take_every_hex_once_in_its_band() {
        for (seed, cols, rows, pointy) in [(1, 23, 17, false), (2, 9, 31, true), (3, 40, 3, true)] {
            let mut map = random_map("geometric", seed, cols, rows);
            if pointy {
                map.layout.orientation = crate::hex::Orientation::Pointy;
            }
            let k = crate::rules::geometric::Kernel::new(&map);
            let padded = &Padded::of(&map);
            let grid = &Grid::of(&k, padded);
            for from in [0, cols as usize, map.len() / 2, map.len() - 1] {
                let view = View::new(&k, grid, padded, from, 1024);
                let origin = padded.axial[from];
                let mut rings = Rings::new(padded, origin);
                let mut taken = vec![0; view.tiles.size];
                for b in 0..=4 * (cols + rows) as i64 {
                    rings.take(&view, (b + 1) * (b + 1), |x, o| {
                        assert_eq!(view.tiles.at(origin + o), x);
                        let d4 = 4 * distance2(o);
                        assert!(b * b <= d4 && d4 < (b + 1) * (b + 1), "{o:?} in band {b}");
                        taken[x] += 1;
                    });
                }
                for (j, &h) in padded.axial.iter().enumerate() {
                    assert_eq!(taken[view.tiles.at(h)], usize::from(j != from), "{h:?}");
                }
            }
        }
    }

    /// Every vector path works out how each hex is seen exactly as one hex at a time
    /// does, bit for bit, on a random map from a corner and from inside.
    #[test]
    fn every_vector_path_sees_as_one_lane_does() {
        let map = random_map("geometric", 4, 47, 41);
        let k = crate::rules::geometric::Kernel::new(&map);
        let padded = &Padded::of(&map);
        let grid = &Grid::of(&k, padded);
        for from in [0, map.len() / 2 + 7] {
            let origin = padded.axial[from];
            let view = View::new(&k, grid, padded, from, 4096);
            let cells: Vec<(u32, Hex)> = (0..map.len())
                .filter(|&j| j != from)
                .map(|j| {
                    (
                        view.tiles.at(padded.axial[j]) as u32,
                        padded.axial[j] - origin,
                    )
                })
                .collect();
            let mut want = vec![Seen::default(); cells.len()];
            view.see(&cells, &mut want, None);
            assert!(want.iter().any(|s| s.core.1 > 0) && want.iter().any(|s| !s.high));
            for isa in crate::engine::vector::every() {
                let mut got = vec![Seen::default(); cells.len()];
                view.see(&cells, &mut got, Some(isa));
                assert_eq!(got, want, "{isa:?}");
            }
        }
    }

    /// On random hilly maps of every shape, from every hex: what the tables settle
    /// equals the explained query, and they settle most targets (so the check bites).
    #[test]
    fn settled_targets_equal_the_explained_query() {
        let (mut settled, mut all) = (0, 0);
        for seed in 0..6 {
            let map = random_map("geometric", seed, 17, 15);
            for i in 0..map.len() {
                settled += check(&map, i, &format!("seed {seed}"));
                all += map.len();
            }
        }
        assert!(settled * 10 > all * 7, "only {settled} of {all} settled");
    }

    /// Eyes above and below the target point, a cliff, a pit and woods, flat and
    /// pointy, the observer in a corner, beside the cliff and in the pit: still exact.
    #[test]
    fn unusual_eyes_and_ground_are_exact() {
        for orientation in ["flat", "pointy"] {
            for (eye, target) in [(0.25, 0.25), (1.5, 0.0), (0.0, 2.0)] {
                let json = format!(
                    r#"{{"hexsight":1,"name":"t","ruleset":"geometric",
                        "grid":{{"cols":21,"rows":18,"orientation":"{orientation}"}},
                        "hexes":{{"E5":{{"level":3}},"F5":{{"level":3}},"F6":{{"level":3}},"J9":{{"level":-2}},
                        "K9":{{"level":1}},"L3":{{"terrain":"woods"}},"P12":{{"level":2,"terrain":"woods"}}}}}}"#
                );
                let mut map = Map::from_json(&json, std::path::Path::new("t.json")).unwrap();
                let mut rs = (*map.ruleset).clone();
                rs.params.insert("observer_eye".into(), eye);
                rs.params.insert("target_eye".into(), target);
                map.ruleset = rs.into();
                for from in ["A1", "E6", "J9", "K9", "U18", "D11"] {
                    let i = map.index(map.parse_hex(from).unwrap()).unwrap();
                    let what = format!("{orientation}, eye {eye}, target {target}");
                    assert!(check(&map, i, &what) > 0, "{what}: nothing settled");
                }
            }
        }
    }

    /// The widening is what keeps the tables safe: a 1000x1 corridor whose far
    /// targets lie a hair above or below a crest, with `f32` slopes.
    #[test]
    fn long_lines_near_a_crest_are_exact() {
        let mut map = random_map("geometric", 3, 2, 400);
        let open = map.default;
        for i in 0..map.len() {
            let h = map.hex_of(i);
            let row = map.layout.offset_of(h).1;
            let c = map.cell_mut(h).unwrap();
            *c = open;
            c.level = i32::from(row == 40) + row / 40;
        }
        for from in ["A1", "B1", "A2"] {
            let i = map.index(map.parse_hex(from).unwrap()).unwrap();
            assert!(check(&map, i, "crest") > 0);
        }
    }
}
