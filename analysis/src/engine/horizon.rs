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
use super::needs::Need;
use super::plane::{CIRCUMRADIUS, INRADIUS, distance2, point, pseudo_angle, pseudo_angle_over};
use super::vector::{self, Isa};
use crate::hex::Hex;
use crate::map::Map;
use crate::rules::kernel::Kernel;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};

/// Widening of every direction (in buckets), far above rounding error.
const ANGLE_MARGIN: f64 = 1e-6;
/// Widening of every slope comparison, relative to the slope: far above the
/// rounding of slopes to `f32`.
const SLOPE_MARGIN: f64 = 1e-5;
/// Fewest and most direction buckets.
const BUCKETS: (usize, usize) = (1 << 10, 1 << 16);

/// The two directions within the angle whose sine and cosine are in the ratio
/// `sin : cos` of `(x, y)`'s, turned clockwise and anticlockwise: the pseudo-angle
/// does not change with length, so neither need be normalised.
fn around(x: f64, y: f64, sin: f64, cos: f64) -> [(f64, f64); 2] {
    [
        (x * cos + y * sin, y * cos - x * sin),
        (x * cos - y * sin, y * cos + x * sin),
    ]
}

/// The denominator of `(x, y)`'s [pseudo-angle](pseudo_angle_over).
fn pseudo_denominator((x, y): (f64, f64)) -> f64 {
    x.abs() + y.abs()
}

/// The reciprocals of the positive `v`, from one division (in vector lanes a
/// division costs a dozen multiplications, and the eight of each hex bound its
/// laying out): each is the product of the others over the product of all, a few
/// roundings more than a division, far inside every margin.
#[inline(always)]
fn reciprocals<const N: usize>(v: [f64; N]) -> [f64; N] {
    let mut before = [1.0; N];
    for k in 1..N {
        before[k] = before[k - 1] * v[k - 1];
    }
    let mut inv = 1.0 / (before[N - 1] * v[N - 1]);
    let mut out = [0.0; N];
    for k in (0..N).rev() {
        out[k] = inv * before[k];
        inv *= v[k];
    }
    out
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
    /// Raises `len` buckets from `first` (unwrapped) to at least `v`; with `MASKED`,
    /// sixteen at a time under a mask (a span is a few buckets: the plain loop ran
    /// them one by one).
    ///
    /// # Safety
    /// With `MASKED`, the CPU runs AVX-512F.
    #[inline(always)]
    unsafe fn raise<const MASKED: bool>(&mut self, (first, len): (i32, u16), v: f32) {
        let n = self.0.len();
        if len == 0 {
            return;
        }
        debug_assert!(n.is_power_of_two());
        let first = (first & (n as i32 - 1)) as usize;
        let len = usize::from(len).min(n);
        let up = |s: &mut [f32]| {
            if MASKED {
                // SAFETY: the caller's.
                unsafe { raise16(s, v) }
            } else {
                // A plain comparison (no slope is NaN), which runs as a vector max.
                s.iter_mut().for_each(|x| *x = if v > *x { v } else { *x })
            }
        };
        if first + len <= n {
            up(&mut self.0[first..first + len]);
        } else {
            up(&mut self.0[first..]);
            up(&mut self.0[..first + len - n]);
        }
    }
}

/// Raises every value of `s` to at least `v`, sixteen at a time, the last under a
/// mask (whose lanes outside `s` are neither read nor written).
///
/// # Safety
/// The CPU runs AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn raise16(s: &mut [f32], v: f32) {
    use std::arch::x86_64::*;
    let (n, p) = (s.len(), s.as_mut_ptr());
    let mut k = 0;
    while k < n {
        let m = if n - k >= 16 {
            u16::MAX
        } else {
            (1 << (n - k)) - 1
        };
        // SAFETY: the lanes the mask keeps are `s[k..k + 16]` within `s`; the caller
        // vouches for the instructions.
        unsafe {
            let x = _mm512_maskz_loadu_ps(m, p.add(k));
            _mm512_mask_storeu_ps(p.add(k), m, _mm512_max_ps(x, _mm512_set1_ps(v)));
        }
        k += 16;
    }
}

/// Elsewhere [`Wedges::raise`] never asks for the mask.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn raise16(_: &mut [f32], _: f32) {
    unreachable!("masked raises run on x86-64 only")
}

/// The four tables.
struct Tables {
    may: Wedges,
    may_high: Wedges,
    must: Wedges,
    must_high: Wedges,
}

impl Tables {
    fn new(buckets: usize) -> Tables {
        let wedges = || Wedges(vec![f32::NEG_INFINITY; buckets]);
        Tables {
            may: wedges(),
            may_high: wedges(),
            must: wedges(),
            must_high: wedges(),
        }
    }

    /// Judges the hexes of each band of `bands` whose bucket is in `owned` into `out`
    /// (by grid index), then enters them all; on `isa`'s masks where it is AVX-512.
    fn sweep(&mut self, bands: &Bands, owned: (u32, u32), out: &[AtomicU8], isa: Option<Isa>) {
        #[cfg(target_arch = "x86_64")]
        if isa == Some(Isa::Avx512) {
            // SAFETY: an `Isa` comes from `vector::best` or `every`, which found its
            // instructions.
            return unsafe { sweep_avx512(self, bands, owned, out) };
        }
        let _ = isa;
        // SAFETY: no mask asked for.
        unsafe { self.sweep_in::<false>(bands, owned, out) }
    }

    /// [`Tables::sweep`].
    ///
    /// # Safety
    /// With `MASKED`, the CPU runs AVX-512F.
    #[inline(always)]
    unsafe fn sweep_in<const MASKED: bool>(
        &mut self,
        bands: &Bands,
        owned: (u32, u32),
        out: &[AtomicU8],
    ) {
        let mut start = 0;
        for &end in &bands.ends {
            let band = start..end;
            for (&(x, _), s) in bands.cells[band.clone()]
                .iter()
                .zip(&bands.seen[band.clone()])
            {
                if owned.0 <= s.bucket && s.bucket < owned.1 {
                    out[x as usize].store(code(decide(self, s)), Ordering::Relaxed);
                }
            }
            for s in &bands.seen[band] {
                // SAFETY: the caller's.
                unsafe { self.enter::<MASKED>(s) };
            }
            start = end;
        }
    }

    /// Enters a hex.
    ///
    /// # Safety
    /// With `MASKED`, the CPU runs AVX-512F.
    #[inline(always)]
    unsafe fn enter<const MASKED: bool>(&mut self, s: &Seen) {
        // SAFETY: the caller's.
        unsafe {
            self.may.raise::<MASKED>(s.touch, s.may);
            self.must.raise::<MASKED>(s.core, s.must);
            if s.high {
                self.may_high.raise::<MASKED>(s.touch, s.may);
                self.must_high.raise::<MASKED>(s.core, s.must);
            }
        }
    }
}

/// The directions (buckets) in which every target from some distance `d` on is
/// hidden by what the tables hold already: each one's `must_high` is above the
/// highest slope a target can have that far out (the map's highest target point
/// over `d`), so [`decide`] hides such a target, not blind, however the tables
/// rise later. A run of hexes whose buckets all lie in shut directions, with every
/// bucket their lines may meet, is settled hidden and never entered: its targets
/// need no judging, and no target judged later reads a bucket it reaches (those
/// in shut buckets are hidden by the tables as they already stand).
///
/// The tables only rise and `d` only grows, so a bucket once shut stays shut: each
/// [`Shut::update`] looks again only at the words still open.
struct Shut {
    /// The open buckets, a bit each, 64 to a word; empty where none can be shut.
    open: Vec<u64>,
    /// How many words before each hold an open bucket (then the count of all).
    open_before: Vec<u32>,
    /// The words of the buckets the half owns (the others stay open).
    owned: std::ops::Range<usize>,
    /// Buckets per unit of pseudo-angle.
    scale: f64,
    /// How far past its centre's direction a line may meet a hex from `d` on, in
    /// pseudo-angle; none is hidden while this is infinite.
    widen: f64,
    /// The lower half, whose pseudo-angles run from 2 to 4 (0 taken as 4).
    lower: bool,
}

impl Shut {
    /// Nothing shut, ever.
    fn none() -> Shut {
        Shut {
            open: Vec::new(),
            open_before: Vec::new(),
            owned: 0..0,
            scale: 0.0,
            widen: f64::INFINITY,
            lower: false,
        }
    }

    /// Every bucket of `half` open, in tables of `buckets` (at least 1024).
    fn new(half: Half, buckets: usize) -> Shut {
        let words = buckets / 64;
        // A half owns whole words.
        let (first, end) = half.owned(buckets);
        Shut {
            open: vec![u64::MAX; words],
            open_before: (0..=words as u32).collect(),
            owned: first as usize / 64..end as usize / 64,
            scale: buckets as f64 / 4.0,
            widen: f64::INFINITY,
            lower: matches!(half, Half::Lower),
        }
    }

    /// Shuts the buckets that `must_high` shuts for hexes at distance `d` or more,
    /// on a map whose farthest hex is at most `far` away and whose highest target
    /// point is `lift` above the eye.
    fn update(&mut self, must_high: &Wedges, lift: f64, d: f64, far: f64) {
        // Nearer, a hex's lines spread over a quarter turn: hardly worth a look.
        if self.open.is_empty() || d < 2.0 {
            return;
        }
        // The highest slope of a target, `lift / distance`, with room for its
        // rounding to `f32` and the reciprocals' few ulps; and the bar a bucket's
        // table must pass to hide it in `decide`.
        let slope = if lift > 0.0 { lift / d } else { lift / far };
        let slope = slope + 1e-6 * (1.0 + slope.abs());
        let bar = slope + margin(slope);
        // `m > bar` exactly where `m` is above the highest `f32` at or under `bar`.
        let bar = match bar as f32 {
            b if f64::from(b) > bar => b.next_down(),
            b => b,
        };
        for w in self.owned.clone() {
            if self.open[w] != 0 {
                let table = &must_high.0[64 * w..64 * (w + 1)];
                self.open[w] = open_bits(table, bar);
            }
        }
        for (w, &bits) in self.open.iter().enumerate() {
            self.open_before[w + 1] = self.open_before[w] + u32::from(bits != 0);
        }
        // Where nothing is shut yet, no run is looked at.
        if self.open[self.owned.clone()].iter().all(|&w| w == u64::MAX) {
            return;
        }
        // A line meets a hex within its circumradius, an angle `asin(R / d)` off its
        // centre's, at most `1.23 R / d` for `R / d` under 0.58; a pseudo-angle
        // turns no faster than the angle.
        self.widen = 1.23 * CIRCUMRADIUS / d;
    }

    /// True where every hex of the straight run from offset `a` to offset `b` (the
    /// observer not among them) lies in shut directions, with every bucket its
    /// lines may meet.
    fn hides(&self, a: Hex, b: Hex) -> bool {
        if self.widen.is_infinite() {
            return false;
        }
        // Along a straight run the direction turns one way, between its ends'.
        let angle = |o: Hex| {
            let (x, y) = point(o);
            let p = pseudo_angle(x, y);
            if self.lower && p < 1.0 { p + 4.0 } else { p }
        };
        let (pa, pb) = (angle(a), angle(b));
        // Two buckets more on each side, for the rounding of directions and spans.
        let first = floor((pa.min(pb) - self.widen) * self.scale) - 2;
        let last = floor((pa.max(pb) + self.widen) * self.scale) + 2;
        self.shut(first, last)
    }

    /// True where buckets `first..=last` (unwrapped) are all shut.
    fn shut(&self, first: i64, last: i64) -> bool {
        let n = 64 * self.open.len() as i64;
        if last - first + 1 > n {
            return false;
        }
        let (f, l) = (first.rem_euclid(n) as usize, last.rem_euclid(n) as usize);
        if f <= l {
            self.shut_within(f, l)
        } else {
            self.shut_within(f, n as usize - 1) && self.shut_within(0, l)
        }
    }

    /// True where buckets `f..=l` (`f <= l`) are all shut.
    fn shut_within(&self, f: usize, l: usize) -> bool {
        let (wf, wl) = (f / 64, l / 64);
        let (from, to) = (u64::MAX << (f % 64), u64::MAX >> (63 - l % 64));
        if wf == wl {
            return self.open[wf] & from & to == 0;
        }
        self.open[wf] & from == 0
            && self.open[wl] & to == 0
            && self.open_before[wl] == self.open_before[wf + 1]
    }
}

/// A bit for each of the 64 slopes of `table` at or under `bar`.
fn open_bits(table: &[f32], bar: f32) -> u64 {
    // Eight at a time, which the compiler turns into vector compares and a mask.
    (table.chunks_exact(8).enumerate()).fold(0, |bits, (k, eight)| {
        let byte = (eight.iter().enumerate()).fold(0u8, |b, (j, &m)| b | u8::from(m <= bar) << j);
        bits | u64::from(byte) << (8 * k)
    })
}

/// The integer square root of `v >= 0`, from the floating one (exact within one
/// below `2^52`, then stepped; the integer one is a loop in software).
fn isqrt(v: i64) -> i64 {
    let mut m = (v as f64).sqrt() as i64;
    while m * m > v {
        m -= 1;
    }
    while (m + 1) * (m + 1) <= v {
        m += 1;
    }
    m
}

/// The floor of `v`, for `v` well within `i64` (without a library call).
fn floor(v: f64) -> i64 {
    let t = v as i64;
    t - i64::from((t as f64) > v)
}

/// [`Tables::sweep`] compiled for AVX-512F, raising under masks.
///
/// # Safety
/// The CPU runs AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn sweep_avx512(t: &mut Tables, bands: &Bands, owned: (u32, u32), out: &[AtomicU8]) {
    // SAFETY: compiled for AVX-512F, which the caller vouches for.
    unsafe { t.sweep_in::<true>(bands, owned, out) }
}

/// Buckets for a map `reach` across: a few per hex at the far edge.
fn buckets_for(reach: f64) -> usize {
    ((reach * 8.0) as usize)
        .next_power_of_two()
        .clamp(BUCKETS.0, BUCKETS.1)
}

/// Bytes [`needs`] holds for a map: per grid cell its [`Ground`] (once per engine,
/// counted here as a viewshed's) and answer, per map hex its answer, and per half
/// two batches of bands (each at most `LAID_OUT` hexes, twice as many where
/// most are hidden, and a ring of the grid) and the tables.
pub fn estimate_bytes(padded: &Padded) -> u64 {
    let (q0, q1, r0, r1) = padded.bounds();
    let ring = 8 * (q1 - q0 + r1 - r0 + 2) as usize;
    let batch = (2 * LAID_OUT + ring) * (size_of::<Seen>() + size_of::<(u32, Hex)>() + 8);
    (Tiles::of(padded).size * 18 + padded.hexes() * 2 + 4 * batch) as u64
        + 2 * 4 * 4 * BUCKETS.1 as u64
}

/// Per map hex (by grid cell), what the line from map hex `i` to it needs in a
/// viewshed, for a kernel that [blocks above the line](Kernel::blocks_above_line): settled clear
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
/// the ends.
///
/// The two halves of the plane are swept apart, each on its own thread where there
/// are two ([`Half`]); within a half, while one batch of bands is swept the next is
/// laid out.
pub fn needs<K: Kernel>(
    kernel: &K,
    grid: &Grid<K::Cell, K::Side>,
    padded: &Padded,
    ground: &Ground,
    i: usize,
) -> Swept {
    needs_in(kernel, grid, padded, ground, i, (LAID_OUT, true))
}

/// [`needs`], about `batch` hexes laid out at once, hiding runs in [`Shut`]
/// directions where `shutting`.
fn needs_in<K: Kernel>(
    kernel: &K,
    grid: &Grid<K::Cell, K::Side>,
    padded: &Padded,
    ground: &Ground,
    i: usize,
    (batch, shutting): (usize, bool),
) -> Swept {
    // The tables read the grid by axial columns.
    assert_eq!(
        padded.axes(),
        super::grid::Axes::COLUMNS,
        "a viewshed's grid lies along axial columns"
    );
    let origin = padded.hex(i);
    // The farthest hex lies on the rim (a squared distance is convex).
    let far2 = padded
        .rim
        .iter()
        .map(|&h| distance2(h - origin))
        .max()
        .unwrap_or(0);
    let buckets = buckets_for(2.0 * (far2 as f64).sqrt() + 2.0);
    let view = View {
        batch,
        ..View::new(ground, kernel, grid, padded, i, buckets)
    };
    // In the view's order while sweeping, which keeps a band's writes near each other.
    let out: Vec<AtomicU8> = (0..view.tiles.size)
        .into_par_iter()
        .with_min_len(super::RUN)
        .map(|_| AtomicU8::new(code(Need::Walk)))
        .collect();
    // Band `b` holds the hexes whose distance `d` has `b <= 2 d < b + 1`.
    let last = (4 * far2).isqrt() + 1;
    let half = |h| Half::sweep_shutting(h, &view, padded, origin, last, &out, shutting);
    let (up, down) = rayon::join(|| half(Half::Upper), || half(Half::Lower));
    Swept {
        codes: out,
        tiles: view.tiles,
        hidden: up + down,
    }
}

/// A sweep's answers: a [`code`] per cell of the padded grid, by [`Tiles`].
pub struct Swept {
    codes: Vec<AtomicU8>,
    tiles: Tiles,
    /// How many map hexes shut directions hid, unjudged.
    pub(crate) hidden: usize,
}

impl Swept {
    /// Calls `f(row, need)` for each hex of map column `col`, row by row: its hexes'
    /// coordinates one from the next, where reading them would bring in 8 bytes a hex.
    #[inline]
    pub fn column(&self, map: &Map, col: usize, mut f: impl FnMut(usize, Need)) {
        if map.layout.orientation == crate::hex::Orientation::Flat {
            // Down a flat map's column `q` stays and `r` rises by one: the column's
            // slots lie eight apart, from its first hex's.
            let first = self.tiles.at(map.layout.hex_at(col as i32, 0));
            let slots = self.codes[first..].iter().step_by(8);
            for (row, c) in slots.take(map.rows as usize).enumerate() {
                f(row, need_of(c.load(Ordering::Relaxed)));
            }
            return;
        }
        for row in 0..map.rows as usize {
            let h = map.layout.hex_at(col as i32, row as i32);
            f(
                row,
                need_of(self.codes[self.tiles.at(h)].load(Ordering::Relaxed)),
            );
        }
    }
}

/// A half of the plane about the observer, swept on its own: its hexes and the
/// directions whose targets it judges. The upper half judges the pseudo-angles
/// `[0, 2)` (`y > 0`, or `y = 0` and `x > 0`), and its line to any of them stays in
/// `y >= 0`, so it meets no hex of the rows below the observer's (their centres lie
/// `0.866` below, beyond any hex's circumradius of the line): entering the rows at
/// and above the observer's is entering every hex such a line may meet. The lower
/// half is the mirror image. The observer's row is entered by both.
#[derive(Clone, Copy)]
enum Half {
    Upper,
    Lower,
}

impl Half {
    /// The rows (first and last axial `r`) whose hexes the half enters: from the
    /// observer's up, or up to it.
    fn rows(self, origin: Hex) -> (i32, i32) {
        match self {
            Half::Upper => (origin.r, i32::MAX),
            Half::Lower => (i32::MIN, origin.r),
        }
    }

    /// The buckets, `first..end`, whose targets the half judges.
    fn owned(self, buckets: usize) -> (u32, u32) {
        let mid = (buckets / 2) as u32;
        match self {
            Half::Upper => (0, mid),
            Half::Lower => (mid, buckets as u32),
        }
    }

    /// Judges the half's targets into `out`, band by band up to band `last`.
    #[cfg(test)]
    fn sweep(self, view: &View, padded: &Padded, origin: Hex, last: i64, out: &[AtomicU8]) {
        self.sweep_shutting(view, padded, origin, last, out, true);
    }

    /// [`Half::sweep`], hiding runs of hexes in [`Shut`] directions where `shutting`
    /// (the same answers either way); returns how many it hid.
    fn sweep_shutting(
        self,
        view: &View,
        padded: &Padded,
        origin: Hex,
        last: i64,
        out: &[AtomicU8],
        shutting: bool,
    ) -> usize {
        let mut t = Tables::new(view.buckets);
        let owned = self.owned(view.buckets);
        let isa = vector::best();
        let mut rings = Rings::new(padded, origin, self.rows(origin));
        let (mut bands, mut next) = (Bands::default(), Bands::default());
        let plain = (&Shut::none(), 1.0);
        let (mut b, mut hidden) = view.lay_out(&mut rings, (0, last), plain, out, &mut bands);
        // No hex lies beyond `last / 2`: the highest slope of a target there bounds
        // that of any target with no lift.
        let far = last as f64 / 2.0;
        let mut shut = match shutting {
            true => Shut::new(self, view.buckets),
            false => Shut::none(),
        };
        let mut spread = 1.0;
        while !bands.ends.is_empty() {
            // What the tables hold before this batch is entered hides the hexes of
            // the next from band `b` on, so the next batch is laid out beside this
            // one's sweep.
            shut.update(&t.must_high, view.lift, b as f64 / 2.0, far);
            let sweep = || t.sweep(&bands, owned, out, isa);
            let lay_out = || view.lay_out(&mut rings, (b, last), (&shut, spread), out, &mut next);
            let (_, (after, more)) = rayon::join(sweep, lay_out);
            (b, hidden) = (after, hidden + more);
            // As many hexes laid out at once where most are hidden: wider batches
            // (up to twice as wide; wider ones leave more to the tables, whose
            // shut directions are a batch behind).
            let laid = next.cells.len() as f64;
            spread = ((laid + more as f64) / laid.max(1.0)).clamp(1.0, 2.0);
            std::mem::swap(&mut bands, &mut next);
        }
        hidden
    }
}

/// A [`Need`] as a byte, for a slot either half may fill.
fn code(need: Need) -> u8 {
    match need {
        Need::Nothing => 0,
        Need::FirstBlock => 1,
        Need::Walk => 2,
        Need::Hidden { blind } => 3 + u8::from(blind),
    }
}

/// The [`Need`] of a [`code`].
fn need_of(code: u8) -> Need {
    match code {
        0 => Need::Nothing,
        1 => Need::FirstBlock,
        2 => Need::Walk,
        c => Need::Hidden { blind: c == 4 },
    }
}

/// Hexes laid out at once, in bands: enough that handing them between threads costs
/// little beside sweeping them.
const LAID_OUT: usize = 1 << 13;

/// Consecutive bands of hexes: their indices in the view's [`Tiles`] and offsets from
/// the observer, how each is seen, and where each band ends.
#[derive(Default)]
struct Bands {
    cells: Vec<(u32, Hex)>,
    seen: Vec<Seen>,
    ends: Vec<usize>,
    /// The hexes as the columns gave them, and each one's band.
    taken: Vec<(u32, Hex)>,
    band: Vec<u32>,
}

impl Bands {
    /// Puts the hexes `taken`, of bands `b..end`, in order of band into `cells` (in
    /// the order taken within each), and where each band ends into `ends`.
    fn order(&mut self, b: i64, end: i64) {
        self.band.clear();
        self.ends.clear();
        self.ends.resize((end - b) as usize, 0);
        for &(_, o) in &self.taken {
            let k = (band_of(o) - b) as usize;
            self.band.push(k as u32);
            self.ends[k] += 1;
        }
        // Each band's start, then (as its hexes are placed) its end.
        let mut start = 0;
        for e in &mut self.ends {
            (start, *e) = (start + *e, start);
        }
        // Every slot is written below: what the last batch left needs no clearing.
        self.cells.resize(self.taken.len(), (0, Hex::new(0, 0)));
        for (&c, &k) in self.taken.iter().zip(&self.band) {
            let at = &mut self.ends[k as usize];
            self.cells[*at] = c;
            *at += 1;
        }
    }
}

/// The band of a hex at offset `o` from the observer: `floor(2 d)` for its distance
/// `d`, the floor of the square root of `4 d^2`, which a correctly rounded square root
/// gives exactly below `2^52` (the root of `k^2 - 1` lies `1 / 2k` below `k`, far
/// above the rounding).
fn band_of(o: Hex) -> i64 {
    ((4 * distance2(o)) as f64).sqrt() as i64
}

/// One axial column's map hexes within some rows, walked outward both ways from its
/// point nearest the observer, along which the distance only grows: the next `r`
/// upward (to `top`) and downward (to `bottom`).
struct Column {
    q: i32,
    up: i32,
    top: i32,
    down: i32,
    bottom: i32,
}

impl Column {
    /// The rows of the column within reach of `o`, where any is: those whose
    /// squared distance is under `limit4 / 4`. `4 (dq^2 + dq dr + dr^2) < limit4`
    /// is `(2 dr + dq)^2 < limit4 - 3 dq^2`, so `|2 dr + dq| <= m` for the largest
    /// `m` whose square is under that.
    fn within(&self, o: Hex, limit4: i64) -> Option<(i64, i64)> {
        let dq = i64::from(self.q - o.q);
        let room = limit4 - 3 * dq * dq;
        if room <= 0 {
            return None;
        }
        let (m, r) = (isqrt(room - 1), i64::from(o.r));
        Some((r - (m + dq).div_euclid(2), r + (m - dq).div_euclid(2)))
    }
}

/// The map's hexes within some rows in order of distance from one hex, band by band.
struct Rings {
    origin: Hex,
    columns: Vec<Column>,
}

impl Rings {
    /// The hexes of `padded`'s map in `rows` (`r` from `rows.0` to `rows.1`).
    fn new(padded: &Padded, origin: Hex, rows: (i32, i32)) -> Rings {
        let (q0, ..) = padded.bounds();
        let columns = (q0..)
            .zip(&padded.spans)
            .map(|(q, &(lo, hi))| {
                let (bottom, top) = (lo.max(rows.0), hi.min(rows.1));
                // The squared distance along the column is least at `dr = -dq / 2`.
                let mid = origin.r + (origin.q - q).div_euclid(2);
                Column {
                    q,
                    up: (mid + 1).max(bottom),
                    top,
                    down: mid.min(top),
                    bottom,
                }
            })
            .collect();
        Rings { origin, columns }
    }

    /// Calls `visit(x, o)` for the index in `view`'s tiles and offset from the
    /// observer of each hex not yet taken (but the observer's) whose squared distance
    /// is under `limit4 / 4`, in runs along the columns; for the hexes of a run that
    /// `shut` hides, `hide(x)` instead, and for the rest of its column too where
    /// `shut` hides that (taken with it); returns how many it hid.
    fn take(
        &mut self,
        view: &View,
        limit4: i64,
        shut: &Shut,
        mut visit: impl FnMut(usize, Hex),
        mut hide: impl FnMut(usize),
    ) -> usize {
        let o = self.origin;
        let mut hidden = 0;
        // Rows `a..=b` of column `q` all shut (the observer's own hex among them
        // is two directions, none shut).
        let shut_rows = |q: i32, (a, b): (i32, i32)| {
            a <= b
                && !(q == o.q && a <= o.r && o.r <= b)
                && shut.hides(Hex::new(q, a) - o, Hex::new(q, b) - o)
        };
        let mut hide_rows = |q: i32, (a, b): (i32, i32)| {
            // A column's tiles lie eight apart, row after row.
            let first = view.tiles.at(Hex::new(q, a));
            (0..=(b - a) as usize).for_each(|k| hide(first + 8 * k));
            hidden += (b - a + 1) as usize;
        };
        let mut visit_rows = |q: i32, rows: &mut dyn Iterator<Item = i32>| {
            for r in rows {
                let h = Hex::new(q, r);
                if h != o {
                    visit(view.tiles.at(h), h - o);
                }
            }
        };
        for c in &mut self.columns {
            if c.up > c.top && c.down < c.bottom {
                continue;
            }
            let Some((lo, hi)) = c.within(o, limit4) else {
                continue;
            };
            // Upward: this batch's run; where it is hidden, the rest of the column
            // too where it can be (every hex left is at least as far as this
            // batch's), and the column's upper part is done.
            let start = c.up;
            if i64::from(c.up) <= hi {
                c.up = (hi.min(i64::from(c.top)) + 1).max(i64::from(c.up)) as i32;
            }
            if shut_rows(c.q, (start, c.up - 1)) {
                hide_rows(c.q, (start, c.up - 1));
                if shut_rows(c.q, (c.up, c.top)) {
                    hide_rows(c.q, (c.up, c.top));
                    c.up = c.top + 1;
                }
            } else {
                visit_rows(c.q, &mut (start..c.up));
            }
            // Downward, the same.
            let start = c.down;
            if i64::from(c.down) >= lo {
                c.down = (lo.max(i64::from(c.bottom)) - 1).min(i64::from(c.down)) as i32;
            }
            if shut_rows(c.q, (c.down + 1, start)) {
                hide_rows(c.q, (c.down + 1, start));
                if shut_rows(c.q, (c.bottom, c.down)) {
                    hide_rows(c.q, (c.bottom, c.down));
                    c.down = c.bottom - 1;
                }
            } else {
                visit_rows(c.q, &mut (c.down + 1..=start).rev());
            }
        }
        hidden
    }
}

/// A map's ground as every viewshed's sweep reads it, laid out once per engine:
/// per cell of the padded grid, in the order of [`Tiles`], its top and its target
/// point (0 off the map, where no sweep looks), in thousandths of a level. As
/// `f64`, which holds every height a kernel gives exactly (levels are `i32`), so
/// that a height less an eye is the exact difference.
pub(crate) struct Ground {
    heights: Vec<[f64; 2]>,
    tiles: Tiles,
    /// The highest target point on the map.
    highest: f64,
}

impl Ground {
    /// The ground of `grid`'s map.
    pub(crate) fn of<K: Kernel>(
        kernel: &K,
        grid: &Grid<K::Cell, K::Side>,
        padded: &Padded,
    ) -> Ground {
        let tiles = Tiles::of(padded);
        // Every slot written here, on every thread: zeroed memory would be zeroed
        // on one.
        let mut heights = Vec::with_capacity(tiles.size);
        let stride = padded.stride as usize;
        let highest = heights.spare_capacity_mut()[..tiles.size]
            .par_chunks_mut(8 * tiles.rows)
            .zip(padded.spans.par_chunks(8))
            .enumerate()
            .map(|(g, (slots, spans))| {
                let mut highest = f64::NEG_INFINITY;
                // Row by row, each row's eight columns side by side: the writes run
                // in order, one cache line a row.
                for (row, slots) in slots.chunks_mut(8).enumerate() {
                    let r = row as i32 + tiles.r0;
                    for (k, slot) in slots.iter_mut().enumerate() {
                        let on = spans.get(k).is_some_and(|&(lo, hi)| lo <= r && r <= hi);
                        slot.write(if on {
                            let c = &grid.cells[(8 * g + k) * stride + row];
                            let target = kernel.target_eye(c) as f64;
                            highest = highest.max(target);
                            [kernel.top(c) as f64, target]
                        } else {
                            [0.0; 2]
                        });
                    }
                }
                highest
            })
            .reduce(|| f64::NEG_INFINITY, f64::max);
        // SAFETY: the groups cover the first `tiles.size` slots, each written above.
        unsafe { heights.set_len(tiles.size) };
        Ground {
            heights,
            tiles,
            highest,
        }
    }

    /// Bytes it holds.
    pub(crate) fn bytes(&self) -> usize {
        self.heights.len() * size_of::<[f64; 2]>()
    }
}

/// What the sweep reads: the map's [`Ground`] seen from an eye, in `buckets`
/// directions.
struct View<'g> {
    ground: &'g [[f64; 2]],
    /// The observer's eye, taken off every height as it is read.
    eye: f64,
    tiles: Tiles,
    buckets: usize,
    /// The highest target point of the map above the eye.
    lift: f64,
    /// About how many hexes are laid out at once ([`LAID_OUT`]; fewer in tests).
    batch: usize,
}

/// The padded grid's cells in groups of eight axial columns, each row of a group side
/// by side. A band of hexes crosses the columns: in the grid's own order each column
/// is a page away from the next, here eight columns share a cache line.
#[derive(Clone, Copy)]
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

impl<'g> View<'g> {
    /// `ground` seen from map hex `i`.
    fn new<K: Kernel>(
        ground: &'g Ground,
        kernel: &K,
        grid: &Grid<K::Cell, K::Side>,
        padded: &Padded,
        i: usize,
        buckets: usize,
    ) -> View<'g> {
        let eye = kernel.eye(&grid.cells[padded.grid_index(i)]) as f64;
        View {
            ground: &ground.heights,
            eye,
            tiles: ground.tiles,
            buckets,
            lift: ground.highest - eye,
            batch: LAID_OUT,
        }
    }

    /// How far height `h` stands above the eye, rounded to `f32` (as the tables
    /// keep it) and back.
    #[inline(always)]
    fn above(&self, h: f64) -> f64 {
        f64::from((h - self.eye) as f32)
    }

    /// Lays out in `bands` the hexes of `rings` from band `b` on, about `batch`
    /// of them (where one hex in `spread` was hidden; fewer where the map ends) up
    /// to band `last`; returns the band after the last laid out. Each column gives
    /// its hexes of all those bands in one run (asked band by band, every column's
    /// walk stopped at every band, and mostly on a branch it could not predict),
    /// then they are put in order of band.
    /// The hexes `shut` hides are settled hidden in `out` and not laid out; the
    /// second number is how many.
    fn lay_out(
        &self,
        rings: &mut Rings,
        (b, last): (i64, i64),
        (shut, spread): (&Shut, f64),
        out: &[AtomicU8],
        bands: &mut Bands,
    ) -> (i64, usize) {
        bands.cells.clear();
        bands.ends.clear();
        if b > last {
            return (b, 0);
        }
        // A half plane holds about `0.45 (e^2 - b^2)` hexes in bands `b..e`, of
        // which one in `spread` is laid out (the rest hidden).
        let end = ((b as f64).powi(2) + self.batch as f64 * spread / 0.45).sqrt() as i64;
        let end = end.clamp(b + 1, last + 1);
        bands.taken.clear();
        let hidden_code = code(Need::Hidden { blind: false });
        let hidden = rings.take(
            self,
            end * end,
            shut,
            |x, o| bands.taken.push((x as u32, o)),
            |x| out[x].store(hidden_code, Ordering::Relaxed),
        );
        bands.order(b, end);
        let isa = vector::best();
        // Every slot is written by `see`: what the last batch left needs no clearing.
        bands.seen.resize(bands.cells.len(), Seen::default());
        bands
            .seen
            .par_chunks_mut(1024)
            .zip(bands.cells.par_chunks(1024))
            .for_each(|(out, cells)| self.see(cells, out, isa));
        (end, hidden)
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
/// How many hexes ahead [`see_columns`] asks for a hex's ground: a view of a big map
/// is several times the caches, and its cells, one a cache line, are read in band
/// order. Fetched when first read, the reads stalled for a sixth of the laying out.
const AHEAD: usize = 96;

/// [`View::see`], a column of hexes at a time: their inputs gathered (each hex's
/// ground fetched [`AHEAD`] hexes early), then one loop of straight arithmetic over
/// them (which the compiler runs in vector lanes), then the answers assembled.
#[inline(always)]
fn see_columns(view: &View, all: &[(u32, Hex)], out: &mut [Seen]) {
    for (c, out) in out.chunks_mut(COLUMN).enumerate() {
        let cells = &all[c * COLUMN..];
        let n = out.len();
        let (mut px, mut py, mut d2) = ([0.0; COLUMN], [0.0; COLUMN], [0.0; COLUMN]);
        let (mut rise, mut lift) = ([0.0; COLUMN], [0.0; COLUMN]);
        for (k, &(x, o)) in cells[..n].iter().enumerate() {
            #[cfg(target_arch = "x86_64")]
            if let Some(&(ahead, _)) = cells.get(k + AHEAD) {
                // SAFETY: a prefetch reads nothing; the address is within `ground`.
                unsafe {
                    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
                    _mm_prefetch::<_MM_HINT_T0>(view.ground.as_ptr().add(ahead as usize).cast());
                }
            }
            (px[k], py[k]) = point(o);
            d2[k] = distance2(o) as f64;
            let [r, l] = view.ground[x as usize];
            (rise[k], lift[k]) = (view.above(r), view.above(l));
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
        // Every line within the circumradius of the centre may meet the hex; every
        // line through its inscribed circle crosses its inside, entering before the
        // point nearest the centre (at `far`) and leaving after it. Each is an angle
        // whose sine is the radius over `d`, its cosine the leg over `d`.
        let far = (d2 - INRADIUS * INRADIUS).sqrt();
        let leg = (d2 - CIRCUMRADIUS * CIRCUMRADIUS).max(0.0).sqrt();
        let [t0, t1] = around(x, y, CIRCUMRADIUS, leg);
        let [c0, c1] = around(x, y, INRADIUS, far);
        // The highest slope at which a line may meet the hex: where the line is
        // nearest to the observer for a rise, farthest for a fall.
        let may = if rise > 0.0 {
            d - CIRCUMRADIUS
        } else {
            d + CIRCUMRADIUS
        };
        let must = if rise >= 0.0 { d } else { far };
        let [by_d, by_may, by_must, on, t0s, t1s, c0s, c1s] = reciprocals([
            d,
            may,
            must,
            pseudo_denominator((x, y)),
            pseudo_denominator(t0),
            pseudo_denominator(t1),
            pseudo_denominator(c0),
            pseudo_denominator(c1),
        ]);
        let angle = |(x, y): (f64, f64), by: f64| pseudo_angle_over(x, y, by);
        self.slope[k] = (lift * by_d) as f32;
        self.bucket[k] = trunc(angle((x, y), on) * scale).min(buckets as i32 - 1);
        self.must[k] = (rise * by_must) as f32;
        self.may[k] = (rise * by_may) as f32;
        (self.touch[k], self.touch_len[k]) =
            span(scale, unwrap(angle(t0, t0s), angle(t1, t1s)), true);
        (self.core[k], self.core_len[k]) =
            span(scale, unwrap(angle(c0, c0s), angle(c1, c1s)), false);
    }
}

/// Directions `lo` to `hi` in pseudo-angle, the second unwrapped past the first.
#[inline(always)]
fn unwrap(lo: f64, hi: f64) -> (f64, f64) {
    (lo, if hi < lo { hi + 4.0 } else { hi })
}

/// `v` truncated toward zero, for `v` within `±1e9` (0 for any other, which no
/// caller passes): a saturating `as` ran lane by lane, this runs in the vector lanes.
#[inline(always)]
fn trunc(v: f64) -> i32 {
    let v = if v.abs() < 1e9 { v } else { 0.0 };
    // SAFETY: `v` is finite and within `i32` (NaN fails the comparison).
    unsafe { v.to_int_unchecked() }
}

/// The buckets (`scale` per unit of pseudo-angle) of pseudo-angles `lo..hi`, widened
/// (`grow`) or narrowed to those wholly inside: the first (unwrapped) and how many.
#[inline(always)]
fn span(scale: f64, (lo, hi): (f64, f64), grow: bool) -> (i32, i32) {
    // `floor` and `ceil` by truncating from a whole offset above every value (the
    // library calls cost more than the rest of the span): the values lie within
    // `3 * 4 * scale` of 0, the offset is `8 * 4 * scale`, at most 2^19.
    let off = 32.0 * scale;
    let floor = |v: f64| trunc(v + off) - off as i32;
    let ceil = |v: f64| off as i32 - trunc(off - v);
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
    use crate::engine::needs::Needs;
    use crate::engine::testmaps::random_map;
    use crate::engine::viewshed::is_blind;
    use crate::los::line_of_sight;
    use crate::map::Map;
    use crate::rules::Verdict;

    /// Checks every target the tables settle from map hex `i` against the explained
    /// query; returns how many they settle.
    /// Also sweeps in small batches, with and without [`Shut`] directions, which
    /// must give the same answers; the second number is how many hexes the shut
    /// directions hid.
    fn check(map: &Map, i: usize, what: &str) -> (usize, usize) {
        let e = Engine::new(map);
        let needs = e.viewshed_needs(i).to_vec(map);
        let k = crate::rules::geometric::Kernel::new(map);
        let padded = &Padded::of(map);
        let grid = &Grid::of(&k, padded);
        let small = |shutting| {
            let ground = &Ground::of(&k, grid, padded);
            let swept = needs_in(&k, grid, padded, ground, i, (16, shutting));
            let hidden = swept.hidden;
            (Needs::Swept(swept).to_vec(map), hidden)
        };
        let ((shut, hidden), (open, none)) = (small(true), small(false));
        assert_eq!(none, 0);
        assert_eq!(
            open, needs,
            "{what}: the engine's answers are not the plain sweep's"
        );
        assert_eq!(shut, needs, "{what}: shut directions changed an answer");
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
        (settled, hidden)
    }

    /// The two halves' rings take every map hex but the observer's once each, in
    /// its band: the upper half the rows at and above the observer's, the lower at
    /// and below; from observers inside, at the edges and in the corners of flat and
    /// pointy maps, odd and even.
    #[test]
    fn rings_take_every_hex_once_in_its_band() {
        use crate::hex::{Orientation, Stagger};
        let shapes = [
            (1, 23, 17, false, false),
            (2, 9, 31, true, true),
            (3, 40, 3, true, false),
        ];
        for (seed, cols, rows, pointy, even) in shapes {
            let mut map = random_map("geometric", seed, cols, rows);
            if pointy {
                map.layout.orientation = Orientation::Pointy;
            }
            if even {
                map.layout.stagger = Stagger::Even;
            }
            let k = crate::rules::geometric::Kernel::new(&map);
            let padded = &Padded::of(&map);
            let grid = &Grid::of(&k, padded);
            for from in [0, cols as usize, map.len() / 2, map.len() - 1] {
                let ground = &Ground::of(&k, grid, padded);
                let view = View::new(ground, &k, grid, padded, from, 1024);
                let origin = padded.axial()[from];
                let mut taken = vec![0; view.tiles.size];
                for half in [Half::Upper, Half::Lower] {
                    let mut rings = Rings::new(padded, origin, half.rows(origin));
                    for b in 0..=4 * (cols + rows) as i64 {
                        let visit = |x, o| {
                            assert_eq!(view.tiles.at(origin + o), x);
                            let d4 = 4 * distance2(o);
                            assert!(b * b <= d4 && d4 < (b + 1) * (b + 1), "{o:?} in band {b}");
                            taken[x] += 1;
                        };
                        let hide = |_| unreachable!("nothing is shut");
                        rings.take(&view, (b + 1) * (b + 1), &Shut::none(), visit, hide);
                    }
                }
                let mut wanted = 0;
                for (j, &h) in padded.axial().iter().enumerate() {
                    let want = if j == from {
                        0
                    } else if h.r == origin.r {
                        2
                    } else {
                        1
                    };
                    assert_eq!(taken[view.tiles.at(h)], want, "{h:?}");
                    wanted += want;
                }
                // And nothing off the map.
                assert_eq!(taken.iter().sum::<usize>(), wanted);
            }
        }
    }

    /// The square root from the floating one is the integer one, near every square
    /// and far out.
    #[test]
    fn square_roots_are_exact() {
        let near = (0..3000_i64).flat_map(|k| [k * k - 1, k * k, k * k + 1]);
        let far = (0..3000_i64).map(|k| (1 << 40) + k * 999_983);
        for v in near.chain(far).filter(|&v| v >= 0) {
            assert_eq!(isqrt(v), v.isqrt(), "{v}");
        }
    }

    /// A hex's band is the floor of the square root of four times its squared
    /// distance, near every square and far out.
    #[test]
    fn bands_are_exact() {
        let near = (-60..60).flat_map(|q| (-60..60).map(move |r| Hex::new(q, r)));
        let far = (0..2000).map(|k| Hex::new(40_000 + k, k * 7 - 3000));
        for o in near.chain(far) {
            assert_eq!(band_of(o), (4 * distance2(o)).isqrt(), "{o:?}");
        }
    }

    /// Bands laid out in batches hold each hex of the half once, in its band.
    #[test]
    fn laid_out_bands_hold_each_hex_in_its_band() {
        let map = random_map("geometric", 5, 61, 53);
        let k = crate::rules::geometric::Kernel::new(&map);
        let padded = &Padded::of(&map);
        let grid = &Grid::of(&k, padded);
        let from = map.len() / 3;
        let origin = padded.axial()[from];
        let ground = &Ground::of(&k, grid, padded);
        let view = View::new(ground, &k, grid, padded, from, 1024);
        let mut taken = 0;
        for half in [Half::Upper, Half::Lower] {
            let mut rings = Rings::new(padded, origin, half.rows(origin));
            let (mut b, mut bands) = (0, Bands::default());
            loop {
                let plain = (&Shut::none(), 1.0);
                let (next, _) = view.lay_out(&mut rings, (b, 200), plain, &[], &mut bands);
                if bands.ends.is_empty() {
                    break;
                }
                assert_eq!(bands.ends.len() as i64, next - b);
                let mut start = 0;
                for (band, &end) in (b..).zip(&bands.ends) {
                    for &(x, o) in &bands.cells[start..end] {
                        assert_eq!((band_of(o), x), (band, view.tiles.at(origin + o) as u32));
                    }
                    start = end;
                }
                taken += bands.cells.len();
                b = next;
            }
        }
        let row = (0..map.len())
            .filter(|&j| padded.axial()[j].r == origin.r)
            .count();
        assert_eq!(taken, map.len() - 1 + row - 1);
    }

    /// Each map hex but the observer's is judged by exactly one half, from observers
    /// inside, on the edges and in the corners.
    #[test]
    fn each_target_is_judged_by_one_half() {
        let map = random_map("geometric", 6, 31, 27);
        let k = crate::rules::geometric::Kernel::new(&map);
        let padded = &Padded::of(&map);
        let grid = &Grid::of(&k, padded);
        for from in [0, 30, map.len() / 2, map.len() - 1] {
            let origin = padded.axial()[from];
            let ground = &Ground::of(&k, grid, padded);
            let view = View::new(ground, &k, grid, padded, from, 1024);
            let judged = |half: Half| {
                let out: Vec<AtomicU8> = (0..view.tiles.size)
                    .map(|_| AtomicU8::new(u8::MAX))
                    .collect();
                half.sweep(&view, padded, origin, 200, &out);
                out.iter()
                    .map(|c| c.load(Ordering::Relaxed) != u8::MAX)
                    .collect::<Vec<_>>()
            };
            let (up, down) = (judged(Half::Upper), judged(Half::Lower));
            for (j, &h) in padded.axial().iter().enumerate() {
                let x = view.tiles.at(h);
                let by = usize::from(up[x]) + usize::from(down[x]);
                assert_eq!(by, usize::from(j != from), "{h:?} from {origin:?}");
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
            let origin = padded.axial()[from];
            let ground = &Ground::of(&k, grid, padded);
            let view = View::new(ground, &k, grid, padded, from, 4096);
            let cells: Vec<(u32, Hex)> = (0..map.len())
                .filter(|&j| j != from)
                .map(|j| {
                    (
                        view.tiles.at(padded.axial()[j]) as u32,
                        padded.axial()[j] - origin,
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
        let (mut settled, mut all, mut hidden) = (0, 0, 0);
        for seed in 0..6 {
            let map = random_map("geometric", seed, 17, 15);
            for i in 0..map.len() {
                let (s, h) = check(&map, i, &format!("seed {seed}"));
                (settled, hidden) = (settled + s, hidden + h);
                all += map.len();
            }
        }
        assert!(settled * 10 > all * 7, "only {settled} of {all} settled");
        // And shut directions hid some (so the comparison bites).
        assert!(
            hidden * 50 > all,
            "only {hidden} of {all} hidden by shut directions"
        );
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
                    assert!(check(&map, i, &what).0 > 0, "{what}: nothing settled");
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
            assert!(check(&map, i, "crest").0 > 0);
        }
    }

    /// A run that [`Shut::hides`] lies in shut buckets, and so does every bucket in
    /// which a line may meet one of its hexes (the span [`Lanes::work`] gives it):
    /// runs down columns near and far, in both halves, against tables shut whole, in
    /// blocks and at random (fails when the run's directions are not widened).
    #[test]
    fn hidden_runs_lie_in_shut_buckets_with_their_spans() {
        let mut seed = 7_u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let (mut hidden, mut tried) = (0, 0);
        for buckets in [1024, 4096] {
            for pattern in 0..6 {
                // Shut everywhere, in blocks of 2^pattern buckets, or at random.
                let shut_at: Vec<bool> = match pattern {
                    0 => vec![true; buckets],
                    5 => (0..buckets).map(|_| next(8) != 0).collect(),
                    p => (0..buckets).map(|k| (k >> (p + 3)) % 3 != 0).collect(),
                };
                let table = Wedges(
                    shut_at
                        .iter()
                        .map(|&s| if s { 1e9 } else { f32::NEG_INFINITY })
                        .collect(),
                );
                for half in [Half::Upper, Half::Lower] {
                    let (first, end) = half.owned(buckets);
                    let is_shut = |k: i64| {
                        let k = k.rem_euclid(buckets as i64) as usize;
                        shut_at[k] && first as usize <= k && k < end as usize
                    };
                    for d in [2.0, 3.5, 9.0, 40.0] {
                        let mut shut = Shut::new(half, buckets);
                        shut.update(&table, 1000.0, d, 500.0);
                        for _ in 0..400 {
                            let q = next(161) as i32 - 80;
                            let (a, len) = (next(90) as i32, next(12) as i32);
                            let (a, b) = match half {
                                Half::Upper => (a, a + len),
                                Half::Lower => (-a - len, -a),
                            };
                            let run: Vec<Hex> = (a..=b).map(|r| Hex::new(q, r)).collect();
                            if run.iter().any(|&o| (distance2(o) as f64) < d * d) {
                                continue;
                            }
                            tried += 1;
                            if !shut.hides(run[0], run[run.len() - 1]) {
                                continue;
                            }
                            hidden += 1;
                            for &o in &run {
                                let (x, y) = point(o);
                                let mut lanes = Lanes::default();
                                lanes.work(buckets, 0, (x, y, distance2(o) as f64, 1.0, 0.0));
                                let (t, n) = (lanes.touch[0], lanes.touch_len[0]);
                                let bucket = i64::from(lanes.bucket[0]);
                                assert!(is_shut(bucket), "{o:?} in bucket {bucket}");
                                for k in t..t + n {
                                    assert!(is_shut(i64::from(k)), "{o:?} meets bucket {k}");
                                }
                            }
                        }
                    }
                }
            }
        }
        // Both ways, often (so the check bites).
        assert!(
            hidden * 5 > tried && hidden * 5 < tried * 4,
            "{hidden} of {tried}"
        );
    }

    proptest::proptest! {
        /// The reciprocals taken from one division are each within a few roundings
        /// of a division's, over the magnitudes a hex's denominators take (fails
        /// when a product skips or repeats a value).
        #[test]
        fn reciprocals_from_one_division_match_dividing(
            v in proptest::array::uniform8(0.4f64..4e7),
        ) {
            let got = reciprocals(v);
            for (g, x) in got.iter().zip(v) {
                let want = 1.0 / x;
                proptest::prop_assert!((g - want).abs() <= 1e-14 * want, "{x}: {g} against {want}");
            }
        }

        /// The pseudo-angle over a reciprocal is the pseudo-angle, within rounding.
        #[test]
        fn the_pseudo_angle_over_a_reciprocal_is_the_pseudo_angle(
            x in -1e4f64..1e4,
            y in -1e4f64..1e4,
        ) {
            let s = x.abs() + y.abs();
            proptest::prop_assume!(s > 1e-3);
            let want = crate::engine::plane::pseudo_angle(x, y);
            let got = pseudo_angle_over(x, y, reciprocals([s])[0]);
            // The wrap at 4 may meet either side of the positive `x` axis.
            let diff = (got - want).abs();
            proptest::prop_assert!(diff.min(4.0 - diff) < 1e-14, "{got} against {want}");
        }
    }
}
