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
#[derive(Clone, Copy)]
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

/// Per direction bucket, the highest slope entered; rising only.
struct Wedges(Vec<f32>);

impl Wedges {
    /// Raises `len` buckets from `first` (unwrapped) to at least `v`.
    fn raise(&mut self, (first, len): (i32, u16), v: f32) {
        let n = self.0.len();
        if len == 0 {
            return;
        }
        let first = first.rem_euclid(n as i32) as usize;
        let len = usize::from(len).min(n);
        let up = |s: &mut [f32]| s.iter_mut().for_each(|x| *x = x.max(v));
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
    (padded.size * 10 + padded.axial.len() * 2 + 2 * batch) as u64 + 4 * 4 * BUCKETS.1 as u64
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
    // In grid order while sweeping, which keeps a band's writes near each other.
    let mut out = vec![Need::Walk; padded.size];
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
    padded.cell.iter().map(|&x| out[x as usize]).collect()
}

/// Hexes laid out at once, in bands: enough that handing them between threads costs
/// little beside sweeping them.
const LAID_OUT: usize = 1 << 15;

/// Consecutive bands of hexes: their grid indices and offsets from the observer, how
/// each is seen, and where each band ends.
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

    /// Calls `visit(x, o)` for the grid index and offset from the observer of each map
    /// hex not yet taken (but the observer's) whose squared distance is under
    /// `limit4 / 4`, in runs along the columns.
    fn take(&mut self, limit4: i64, mut visit: impl FnMut(usize, Hex)) {
        let (_, _, r0, r1) = self.padded.bounds();
        let (p, o) = (self.padded, self.origin);
        let mut push = |h: Hex| {
            let x = p.at(h).expect("inside the grid");
            if p.index[x] != u32::MAX && h != o {
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

/// What the sweep reads: per grid cell, how far its top stands above the observer's
/// eye and its target point (`NaN` off the map), in `buckets` directions.
struct View {
    ground: Vec<(f32, f32)>,
    buckets: usize,
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
        let ground = (0..padded.size)
            .into_par_iter()
            .map(|x| {
                if padded.index[x] == u32::MAX {
                    return (f32::NAN, f32::NAN);
                }
                let c = &grid.cells[x];
                (
                    (kernel.top(c) - eye) as f32,
                    (kernel.target_eye(c) - eye) as f32,
                )
            })
            .collect();
        View { ground, buckets }
    }

    /// Lays out in `bands` the hexes of `rings` from band `b` on, up to [`LAID_OUT`]
    /// of them or band `last`; returns the band after the last laid out.
    fn lay_out(&self, rings: &mut Rings, mut b: i64, last: i64, bands: &mut Bands) -> i64 {
        bands.cells.clear();
        bands.ends.clear();
        while b <= last && bands.cells.len() < LAID_OUT {
            rings.take((b + 1) * (b + 1), |x, o| bands.cells.push((x as u32, o)));
            bands.ends.push(bands.cells.len());
            b += 1;
        }
        bands
            .cells
            .par_iter()
            .with_min_len(1024)
            .map(|&(x, o)| self.seen(x as usize, o))
            .collect_into_vec(&mut bands.seen);
        b
    }

    /// The buckets of pseudo-angles `lo..hi`, widened (`grow`) or narrowed to those
    /// wholly inside: the first (unwrapped) and how many.
    fn span(&self, (lo, hi): (f64, f64), grow: bool) -> (i32, u16) {
        let scale = self.buckets as f64 / 4.0;
        // `floor` and `ceil` by truncating from a whole offset above every value: the
        // library calls cost more than the rest of the span.
        let off = 8 * self.buckets as i64;
        let floor = |v: f64| (v + off as f64) as i64 - off;
        let ceil = |v: f64| off - (off as f64 - v) as i64;
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
        let len = (last - first + 1).clamp(0, i64::from(u16::MAX));
        (first as i32, len as u16)
    }

    /// How the hex of grid index `x`, `o` from the observer, is seen.
    fn seen(&self, x: usize, o: Hex) -> Seen {
        let (px, py) = point(o);
        let d2 = distance2(o) as f64;
        let d = d2.sqrt();
        let inv = 1.0 / d;
        let (rise, lift) = self.ground[x];
        let (rise, slope) = (f64::from(rise), f64::from(lift) * inv);
        let scale = self.buckets as f64 / 4.0;
        let bucket = ((pseudo_angle(px, py) * scale) as usize).min(self.buckets - 1) as u32;
        // Every line within the circumradius of the centre may meet the hex; every
        // line through its inscribed circle crosses its inside, entering before the
        // point nearest the centre (at `far`) and leaving after it. Each is an angle
        // whose sine is the radius over `d`, its cosine the leg over `d`.
        let far = (d2 - INRADIUS * INRADIUS).sqrt();
        let leg = (d2 - CIRCUMRADIUS * CIRCUMRADIUS).max(0.0).sqrt();
        let must = rise / if rise >= 0.0 { d } else { far };
        Seen {
            bucket,
            touch: self.span(around(px, py, CIRCUMRADIUS, leg), true),
            core: self.span(around(px, py, INRADIUS, far), false),
            high: rise >= 0.0,
            may: may_slope(rise, d) as f32,
            must: must as f32,
            slope: slope as f32,
        }
    }
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
