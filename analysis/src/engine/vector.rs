//! The vector paths of the fast engine, on AVX-512 (F and BW) or AVX2, taken only
//! where the CPU has them ([`available`]); everywhere else the engine runs the same
//! tests one line at a time. All give the same answers: the engine's tests compare them.

use crate::rules::kernel::MILLI;
use std::ops::{BitAnd, BitOr, Not};

mod lattice;
use lattice::Coarse;
pub use lattice::Heights;

/// The instructions a vector path here runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// AVX-512F with BW (every AVX-512 CPU but the first Xeon Phi): 16 lanes of
    /// `i32` or 32 of `i16`, 8 of `f64`.
    Avx512,
    /// AVX2: 8 lanes of `i32`, 4 of `f64`.
    Avx2,
}

/// The widest instructions this CPU has for the paths here, if any.
pub(crate) fn best() -> Option<Isa> {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx512() {
            return Some(Isa::Avx512);
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Isa::Avx2);
        }
    }
    None
}

/// True when the CPU has the AVX-512 the paths here use (F and BW).
#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
}

/// Every set of instructions this CPU has for the paths here, for the tests.
#[cfg(test)]
pub(crate) fn every() -> Vec<Isa> {
    let mut all = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx512() {
            all.push(Isa::Avx512);
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            all.push(Isa::Avx2);
        }
    }
    all
}

/// True when the CPU has vector instructions used here.
pub fn available() -> bool {
    best().is_some()
}

/// Bit `l` set where `a[l] == b[l]`, for the first 64 values of each;
/// with `simd` (which callers set only where [`available`]) 8 or 16 at a time.
pub fn equal_lanes(a: &[i32], b: &[i32], simd: bool) -> u64 {
    equal_lanes_on(a, b, if simd { best() } else { None })
}

/// [`equal_lanes`] on `isa`, or one lane at a time.
fn equal_lanes_on(a: &[i32], b: &[i32], isa: Option<Isa>) -> u64 {
    let (a, b): (&[i32; 64], &[i32; 64]) = (
        a[..64].try_into().expect("64 lanes"),
        b[..64].try_into().expect("64 lanes"),
    );
    #[cfg(target_arch = "x86_64")]
    match isa {
        // SAFETY: an `Isa` comes from `best` or `every`, which found its instructions.
        Some(Isa::Avx512) => return unsafe { equal_lanes_avx512(a, b) },
        // SAFETY: as above.
        Some(Isa::Avx2) => return unsafe { equal_lanes_avx2(a, b) },
        None => {}
    }
    let _ = isa;
    (0..64).fold(0, |m, l| m | ((a[l] == b[l]) as u64) << l)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn equal_lanes_avx2(a: &[i32; 64], b: &[i32; 64]) -> u64 {
    use std::arch::x86_64::*;
    let mut m = 0u64;
    for c in 0..8 {
        let (x, y): (&[i32; 8], &[i32; 8]) = (
            a[8 * c..][..8].try_into().expect("8 lanes"),
            b[8 * c..][..8].try_into().expect("8 lanes"),
        );
        // SAFETY: reads the 8 values of `x` and of `y`, unaligned.
        let eq = unsafe {
            _mm256_cmpeq_epi32(
                _mm256_loadu_si256(x.as_ptr().cast()),
                _mm256_loadu_si256(y.as_ptr().cast()),
            )
        };
        m |= (_mm256_movemask_ps(_mm256_castsi256_ps(eq)) as u8 as u64) << (8 * c);
    }
    m
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn equal_lanes_avx512(a: &[i32; 64], b: &[i32; 64]) -> u64 {
    use std::arch::x86_64::*;
    let mut m = 0u64;
    for c in 0..4 {
        let (x, y): (&[i32; 16], &[i32; 16]) = (
            a[16 * c..][..16].try_into().expect("16 lanes"),
            b[16 * c..][..16].try_into().expect("16 lanes"),
        );
        // SAFETY: reads the 16 values of `x` and of `y`, unaligned.
        let eq = unsafe {
            _mm512_cmpeq_epi32_mask(
                _mm512_loadu_si512(x.as_ptr().cast()),
                _mm512_loadu_si512(y.as_ptr().cast()),
            )
        };
        m |= (eq as u64) << (16 * c);
    }
    m
}

/// Heights whose spread times a walk's denominator stays below this are compared
/// exactly in `f64` by [`clear_lanes`]: every product is an integer below 2^53.
pub const F64_EXACT: i128 = 1 << 53;

/// The lanes of `open` whose line no hex stretch of `steps` cuts, eight lines at a
/// time in `f64` on AVX-512: lane `l` runs from cell `a + l` (eye `eye[a + l]`) to
/// cell `b + l` (point `target[b + l]`), and a stretch `(index delta, k0, k1)`
/// cuts it where `(surface[a + l + delta] - e0) * den > (e1 - e0) * k`, `k` the
/// entry `k0` on a rising line and the exit `k1` on a falling one (as in
/// `above_sweep::above_steps`), tested from both ends inwards after the stretch
/// `hint` (which the call moves to the one that cut a group's last lines: blockers
/// lie together; any value is correct, past the end none). Exact where the
/// spread of every height in the three tables times `den` is below [`F64_EXACT`],
/// which the caller checks; each table holds 64 cells past any lane's.
///
/// # Panics
/// On a CPU without AVX-512F.
pub fn clear_lanes(
    (surface, eye, target): (&[i32], &[i32], &[i32]),
    (a, b): (usize, usize),
    steps: &[(i32, u32, u32)],
    den: i64,
    open: u64,
    hint: &mut usize,
) -> u64 {
    assert_eq!(best(), Some(Isa::Avx512), "clear_lanes runs on AVX-512");
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has AVX-512F, as just checked.
    unsafe {
        clear_lanes_avx512((surface, eye, target), (a, b), steps, den, open, hint)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (surface, eye, target, a, b, steps, den, open, hint);
        unreachable!("no vector path on this CPU")
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn clear_lanes_avx512(
    (surface, eye, target): (&[i32], &[i32], &[i32]),
    (a, b): (usize, usize),
    steps: &[(i32, u32, u32)],
    den: i64,
    open: u64,
    hint: &mut usize,
) -> u64 {
    use std::arch::x86_64::*;
    // Eight lanes' values (bounds-checked), as `f64`.
    let load = |v: &[i32], at: usize| {
        let v: &[i32; 8] = v[at..][..8].try_into().expect("8 lanes");
        // SAFETY: reads the 8 values of `v`, unaligned.
        _mm512_cvtepi32_pd(unsafe { _mm256_loadu_si256(v.as_ptr().cast()) })
    };
    let den = _mm512_set1_pd(den as f64);
    let mut clear = 0u64;
    for c in (0..8).filter(|c| (open >> (8 * c)) as u8 != 0) {
        let (a0, b0) = (a + 8 * c, b + 8 * c);
        let e0 = load(eye, a0);
        let rise = _mm512_sub_pd(load(target, b0), e0);
        let up = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(rise, _mm512_setzero_pd());
        let cuts = |&(d, k0, k1): &(i32, u32, u32)| {
            let s = load(surface, (a0 as i64 + d as i64) as usize);
            let k = _mm512_mask_blend_pd(up, _mm512_set1_pd(k1 as f64), _mm512_set1_pd(k0 as f64));
            let above = _mm512_mul_pd(_mm512_sub_pd(s, e0), den);
            _mm512_cmp_pd_mask::<_CMP_GT_OQ>(above, _mm512_mul_pd(rise, k))
        };
        let mut left = (open >> (8 * c)) as u8;
        // The stretch that cut the last lines of the group before first: blockers
        // lie together, so it often cuts every line here too.
        if let Some(s) = steps.get(*hint) {
            left &= !cuts(s);
        }
        let (mut i, mut j) = (0, steps.len());
        while i < j && left != 0 {
            let from_i = cuts(&steps[i]);
            i += 1;
            let mut hit = from_i;
            if i < j {
                j -= 1;
                hit |= cuts(&steps[j]);
            }
            if left & !hit == 0 {
                *hint = if left & from_i == left { i - 1 } else { j };
            }
            left &= !hit;
        }
        clear |= u64::from(left) << (8 * c);
    }
    clear
}

/// One offset's hex stretches for the vector test of lines between levels, in
/// [`test_order`] (next to the ends first, then spread out), each with
/// the height of the sight line above the observer's eye there, for every
/// difference between the ends' levels up to [`Thresholds::SPAN`].
///
/// A hex blocks lane `l` at a stretch when `(s - e0) * den > a * k` (as in
/// `above_sweep::above_steps`). As `s - e0` is an integer, that is
/// `s > e0 + floor(a * k / den)`: one `i32` add and compare per lane once the
/// floor is in the table. The floors are exact: see [`floors_avx512`]
/// ([`Thresholds::of`] checks the bound it needs).
pub struct Thresholds {
    /// The instructions the tests run on.
    isa: Isa,
    /// Level differences up to 7 only: table columns 9 to 23.
    narrow: bool,
    /// Index deltas as wrapping `usize` offsets.
    steps: Vec<usize>,
    /// Per stretch: `floor(a * k / den)` for level difference `j - 16`
    /// (empty where `rows16` holds them).
    rows: Vec<[i32; 32]>,
    /// The same rows in 16 bits, for 16-bit heights on AVX-512 where every floor fits.
    rows16: Vec<[i16; 32]>,
    /// Instead, where `narrow`: columns 8 to 23 alone, half the bytes to load and cache.
    rows16n: Vec<[i16; 16]>,
    /// Instead, where the tops lie on a lattice ([`Heights::Coarse`]): the floors
    /// in steps of the lattice, 8 bits, for 64 lanes at a time.
    rows8: Vec<[i8; 32]>,
    /// What the floors were built from ([`Thresholds::keep`]) besides the `k`s:
    /// the denominator, span, eye difference and heights.
    built: Built,
    /// The walk's stretches' `k`s in the order they are tested (the floors' rows
    /// in order): stretch `orders[n][t]` is tested `t`-th of `n`.
    tested: Vec<(u32, u32)>,
    /// The test order of each number of stretches met so far ([`test_order`]).
    orders: Vec<Vec<usize>>,
    /// The least and greatest index delta of `steps`.
    reach: (isize, isize),
    /// The walk the floors are of, where the caller named it ([`Thresholds::again`]).
    walk: Option<WalkId>,
}

/// What a [`Thresholds`] is built with besides the `k`s: the walk's denominator,
/// the span of eye levels, the target's point above the eye, and the heights.
pub type Built = (i64, i32, i64, Heights);

/// A walk as its sweep names it (where its record lies): another image of the
/// walk has the same stretches and `k`s, elsewhere in the grid.
pub type WalkId = (usize, usize);

/// Tops and eye levels in 16 bits for [`Thresholds::survivors16`]: levels from
/// 0, tops above the lowest eye and clamped to just past the lowest and highest
/// line, which changes no comparison with a line.
pub struct Narrow {
    /// Top per cell.
    surface: Vec<i16>,
    /// Eye level per cell.
    level: Vec<i16>,
    /// The tops in 8 bits where they lie on a lattice.
    coarse: Option<Coarse>,
}

impl Narrow {
    /// The 16-bit heights for tops `surface` and eye levels `level` (each in
    /// `0..=span`) of eyes `eye_o + level * MILLI` whose target points lie `diff`
    /// above them; `None` where a line's height above the lowest eye, or the rise
    /// between two eyes, could pass [`Thresholds::NARROW_MAX`].
    pub fn of(surface: &[i32], level: &[i32], eye_o: i64, span: i64, diff: i64) -> Option<Narrow> {
        let (lo, hi) = (diff.min(0) - 1, span * MILLI + diff.max(0) + 1);
        if span > Thresholds::SPAN as i64 || !Thresholds::fits16(span, diff) {
            return None;
        }
        if level.iter().any(|&l| !(0..=span).contains(&(l as i64))) {
            return None;
        }
        let tops: Vec<i64> = surface.iter().map(|&s| s as i64 - eye_o).collect();
        Some(Narrow {
            surface: tops.iter().map(|&t| t.clamp(lo, hi) as i16).collect(),
            level: level.iter().map(|&l| l as i16).collect(),
            coarse: Coarse::of(&tops, level, (lo, hi), span, diff),
        })
    }

    /// The heights [`Thresholds`] for these are built for.
    pub fn heights(&self) -> Heights {
        match &self.coarse {
            Some(c) => c.heights(),
            None => Heights::Narrow,
        }
    }
}

impl Thresholds {
    /// The largest level difference between the ends the table holds.
    pub const SPAN: i32 = 15;

    /// The largest rise between eyes whose floors (and lines, with a top just
    /// past them) the 16-bit path holds.
    pub const NARROW_MAX: i64 = 32_000;

    /// True when every rise between two eyes `span` levels and `diff` apart, and so
    /// every floor and every line above the lowest eye, fits the 16-bit path.
    fn fits16(span: i64, diff: i64) -> bool {
        span * MILLI + diff.abs() <= Self::NARROW_MAX
    }

    /// True when [`Thresholds::survivors16`] may be asked.
    pub fn has16(&self) -> bool {
        !self.rows16.is_empty() || !self.rows16n.is_empty() || !self.rows8.is_empty()
    }

    /// [`Thresholds::survivors`] from [`Narrow`] heights, 32 lanes at a time (all
    /// 64 at once where the rows are in steps of the tops' lattice).
    #[inline]
    pub fn survivors16(&self, heights: &Narrow, base0: usize, dt: usize, open: u64) -> u64 {
        assert!(self.has16(), "16-bit rows exist only on AVX-512");
        #[cfg(target_arch = "x86_64")]
        // SAFETY: 16-bit rows are built only on AVX-512 (with BW), which the CPU has.
        unsafe {
            let (surface, level) = (&heights.surface[..], &heights.level[..]);
            if !self.rows8.is_empty() {
                let coarse = heights.coarse.as_ref().expect("8-bit rows for 8-bit tops");
                self.survivors8_avx512(coarse, base0, dt, open)
            } else if self.rows16n.is_empty() {
                self.survivors16_avx512(&self.rows16, surface, level, base0, dt, open)
            } else {
                self.survivors16_avx512(&self.rows16n, surface, level, base0, dt, open)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (heights, base0, dt, open);
            unreachable!("no vector path on this CPU")
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn survivors16_avx512<R: Row16>(
        &self,
        rows: &[R],
        surface: &[i16],
        level: &[i16],
        base0: usize,
        dt: usize,
        open: u64,
    ) -> u64 {
        use std::arch::x86_64::*;
        // Thirty-two lanes' values (bounds-checked): one load where the 32-bit
        // path takes two, and half the cache for the tops.
        let load = |v: &[i16], at: usize| {
            let v: &[i16; 32] = v[at..][..32].try_into().expect("32 lanes");
            // SAFETY: reads the 32 values of `v`, unaligned.
            unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
        };
        // Each half's table column per lane (its level difference), and its eye;
        // a row's 32 columns fit one register, so one permute picks them.
        let half = |at: usize| {
            let (lo, lt) = (load(level, at), load(level, at.wrapping_add(dt)));
            let col = _mm512_add_epi16(_mm512_sub_epi16(lt, lo), _mm512_set1_epi16(R::LEVEL));
            (col, _mm512_mullo_epi16(lo, _mm512_set1_epi16(MILLI as i16)))
        };
        let n = self.steps.len();
        assert!(rows.len() >= n, "a row per stretch");
        // Stretch `s` and its row (`s < n`, as the loops below keep it).
        let step = |s: usize| {
            debug_assert!(s < n);
            // SAFETY: `s < n`, the number of steps.
            unsafe { *self.steps.get_unchecked(s) }
        };
        let row = |s: usize| {
            debug_assert!(s < n);
            // SAFETY: `s < n <= rows.len()` (asserted above); the CPU has AVX-512F,
            // as this function runs only where it does.
            unsafe { rows.get_unchecked(s).load() }
        };
        // Every top a half of lanes from `at` reads lies within `surface`: checked
        // once a half, so the loads in the loops (most of the work) check nothing.
        let (lo, hi) = self.reach;
        let fits = |at: usize| {
            let at = at as isize;
            at + lo >= 0 && at + hi + 32 <= surface.len() as isize
        };
        let test = |t, (col, e0), at: usize| {
            let line = _mm512_add_epi16(_mm512_permutexvar_epi16(col, t), e0);
            debug_assert!(at + 32 <= surface.len());
            // SAFETY: `at` is a half's first lane (which `fits` checked) plus a
            // step, so its 32 values lie within `surface`.
            let tops = unsafe { _mm512_loadu_si512(surface.as_ptr().add(at).cast()) };
            _mm512_cmpgt_epi16_mask(tops, line)
        };
        let mut lanes = [open as u32, (open >> 32) as u32];
        let mut i = 0;
        if lanes[0] != 0 && lanes[1] != 0 {
            assert!(
                fits(base0) && fits(base0 + 32),
                "an open lane's walk leaves the grid"
            );
            // Both halves open: one row load and one step per stretch for both,
            // and twice the independent work in flight, while both last.
            let ends = [half(base0), half(base0 + 32)];
            while i + 4 <= n {
                let mut hit = [0u32; 2];
                for s in i..i + 4 {
                    let (t, at) = (row(s), base0.wrapping_add(step(s)));
                    hit[0] |= test(t, ends[0], at);
                    hit[1] |= test(t, ends[1], at.wrapping_add(32));
                }
                lanes = [lanes[0] & !hit[0], lanes[1] & !hit[1]];
                i += 4;
                if lanes[0] == 0 || lanes[1] == 0 {
                    break;
                }
            }
        }
        let mut left = 0u64;
        for (c, open) in lanes.into_iter().enumerate() {
            if open == 0 {
                continue;
            }
            let at = base0 + 32 * c;
            assert!(fits(at), "an open lane's walk leaves the grid");
            let end = half(at);
            let hit = |s: usize| test(row(s), end, at.wrapping_add(step(s)));
            left |= (drop_blocked(i, n, open, hit) as u64) << (32 * c);
        }
        left
    }

    /// The table for a walk laid out as `(index delta, k0, k1)` over `den`,
    /// for level differences up to `span` (at most [`Thresholds::SPAN`]) and
    /// ends whose eyes are `eye_diff` apart besides their levels, in 16 bits
    /// where the caller has `heights` ([`Narrow`], [`Heights::Narrow`]) and
    /// they fit, in 8-bit steps where its tops lie on a lattice
    /// ([`Heights::Coarse`]) and the CPU has the byte permute; `None` when
    /// a product would not be exact in `f64`, or the CPU lacks the vector
    /// instructions (so a `Thresholds` exists only where they run).
    pub fn of(
        steps: &[(i32, u32, u32)],
        den: i64,
        span: i32,
        eye_diff: i64,
        heights: Heights,
    ) -> Option<Thresholds> {
        Self::on(best()?, steps, den, span, eye_diff, heights)
    }

    /// [`Thresholds::of`] kept in `kept` from one offset to the next: where `kept`
    /// was built from the same stretches' `k`s and the same bounds (another image
    /// of the same walk, whose stretches lie elsewhere in the grid), only the index
    /// deltas are laid out again, and the floors, most of the cost, are kept.
    /// Where the caller names the `walk` these steps are all of, the next image of
    /// it can take [`Thresholds::again`].
    pub fn keep<'k>(
        kept: &'k mut Option<Thresholds>,
        steps: &[(i32, u32, u32)],
        built: Built,
        walk: Option<WalkId>,
    ) -> Option<&'k Thresholds> {
        let (den, span, eye_diff, heights) = built;
        match kept {
            Some(t) if t.built_from(steps, built) => {
                t.relay(steps.len(), |i| steps[i].0 as isize);
            }
            // Another walk: new floors in the room the last one's took.
            Some(t) => {
                if !t.fill(steps, built) {
                    *kept = None;
                }
            }
            None => *kept = Self::of(steps, den, span, eye_diff, heights),
        }
        if let Some(t) = kept {
            t.walk = walk;
        }
        kept.as_ref()
    }

    /// [`Thresholds::keep`] for another image of `walk`, its `n` hex stretches at
    /// index deltas `delta(i)`: where `kept` holds that walk's floors with `built`'s
    /// bounds, only the deltas are laid out (the walk's `k`s need neither be laid
    /// out nor compared); else `None`.
    pub fn again(
        kept: &mut Option<Thresholds>,
        walk: WalkId,
        n: usize,
        built: Built,
        delta: impl Fn(usize) -> isize,
    ) -> Option<&Thresholds> {
        let t = kept
            .as_mut()
            .filter(|t| t.walk == Some(walk) && t.built == built && t.tested.len() == n)?;
        t.relay(n, delta);
        Some(t)
    }

    /// Lays out the index deltas `delta(i)` of the walk's `n` stretches in test
    /// order, with their least and greatest (the floors stay).
    fn relay(&mut self, n: usize, delta: impl Fn(usize) -> isize) {
        self.steps.clear();
        let (mut lo, mut hi) = (isize::MAX, isize::MIN);
        for &i in &self.orders[n] {
            let d = delta(i);
            (lo, hi) = (lo.min(d), hi.max(d));
            self.steps.push(d as usize);
        }
        self.reach = if n == 0 { (0, 0) } else { (lo, hi) };
    }

    /// True when these floors are those of `steps` with `built`'s bounds.
    fn built_from(&self, steps: &[(i32, u32, u32)], built: Built) -> bool {
        let n = steps.len();
        self.built == built
            && self.tested.len() == n
            && (self.orders[n].iter().zip(&self.tested))
                .all(|(&i, &k)| k == (steps[i].1, steps[i].2))
    }

    /// [`Thresholds::of`] on `isa`, which the CPU has.
    fn on(
        isa: Isa,
        steps: &[(i32, u32, u32)],
        den: i64,
        span: i32,
        eye_diff: i64,
        heights: Heights,
    ) -> Option<Thresholds> {
        let mut t = Thresholds {
            isa,
            narrow: false,
            steps: Vec::new(),
            rows: Vec::new(),
            rows16: Vec::new(),
            rows16n: Vec::new(),
            rows8: Vec::new(),
            built: (0, 0, 0, Heights::Wide),
            tested: Vec::new(),
            orders: Vec::new(),
            reach: (0, 0),
            walk: None,
        };
        t.fill(steps, (den, span, eye_diff, heights)).then_some(t)
    }

    /// Makes these the thresholds of `steps` over denominator `den`, for level
    /// differences up to `span` and eyes `eye_diff` apart, 16-bit where asked and
    /// they fit (`built`); false when a product would not be exact in `f64`.
    fn fill(&mut self, steps: &[(i32, u32, u32)], built: Built) -> bool {
        let (den, span, eye_diff, heights) = built;
        let span = span.clamp(0, Self::SPAN);
        let a_max = span as i64 * MILLI + eye_diff.abs();
        if (a_max as i128) * (den as i128) >= 1 << 52 {
            return false;
        }
        let (n, isa) = (steps.len(), self.isa);
        // The 16-bit rows alone where the caller has 16-bit heights and the floors fit.
        let sixteen =
            heights != Heights::Wide && isa == Isa::Avx512 && Self::fits16(span as i64, eye_diff);
        // The floors in steps of the tops' lattice where they lie on one, and
        // the floors' numerators `a k - origin den` stay exact.
        let lattice = match heights {
            Heights::Coarse { unit, origin } if sixteen && lattice::runs() => {
                let exact = (a_max + origin) as i128 * den as i128 + (den as i128) < 1 << 52;
                exact.then_some((unit, origin))
            }
            _ => None,
        };
        let eight = lattice.is_some();
        let sixteen = sixteen && !eight;
        let narrow = span <= 7;
        self.narrow = narrow;
        self.built = built;
        // Rows of the last walk keep their values in the columns past `span`,
        // which no lane's level difference picks.
        let size = |on: bool| if on { n } else { 0 };
        self.rows.resize(size(!sixteen && !eight), [0; 32]);
        self.rows16.resize(size(sixteen && !narrow), [0; 32]);
        self.rows16n.resize(size(sixteen && narrow), [0; 16]);
        self.rows8.resize(size(eight), [0; 32]);
        // The order depends on the number of stretches alone: each worked out
        // once.
        if self.orders.len() <= n {
            self.orders.resize(n + 1, Vec::new());
        }
        if self.orders[n].len() != n {
            self.orders[n] = test_order(n);
        }
        self.steps.clear();
        self.tested.clear();
        self.reach = reach(steps);
        for &i in &self.orders[n] {
            let (d, k0, k1) = steps[i];
            self.steps.push(d as isize as usize);
            self.tested.push((k0, k1));
        }
        // Columns 16 - span ..= 16 + span, eight at a time.
        let chunks = (16 - span as usize) / 8..(16 + span as usize) / 8 + 1;
        let ks = &self.tested;
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an `Isa` comes from `best` or `every`, which found its instructions.
        unsafe {
            let whole = (1, 0);
            match (isa, lattice) {
                (Isa::Avx512, Some(lattice)) => {
                    floors_avx512(&mut self.rows8, ks, den, eye_diff, chunks, lattice)
                }
                (Isa::Avx512, _) if sixteen && narrow => {
                    floors_avx512(&mut self.rows16n, ks, den, eye_diff, chunks, whole)
                }
                (Isa::Avx512, _) if sixteen => {
                    floors_avx512(&mut self.rows16, ks, den, eye_diff, chunks, whole)
                }
                (Isa::Avx512, _) => floors_avx512(&mut self.rows, ks, den, eye_diff, chunks, whole),
                (Isa::Avx2, _) => floors_avx2(&mut self.rows, ks, den, eye_diff, chunks),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (ks, chunks, lattice);
        true
    }

    /// The lanes of `open` that no hex stretch blocks: the observer of lane `l`
    /// stands at padded cell `base0 + l` and its target at `base0 + dt + l`,
    /// whose levels (read from `level`) differ by at most [`Thresholds::SPAN`];
    /// `surface` and `level` have 64 spare cells past the grid.
    pub fn survivors(
        &self,
        surface: &[i32],
        level: &[i32],
        base0: usize,
        dt: usize,
        eye_o: i32,
        open: u64,
    ) -> u64 {
        assert!(!self.has16(), "thresholds built for 16-bit heights");
        #[cfg(target_arch = "x86_64")]
        // SAFETY: thresholds are built only on instructions the CPU has.
        unsafe {
            match self.isa {
                Isa::Avx512 => self.survivors_avx512(surface, level, base0, dt, eye_o, open),
                Isa::Avx2 => self.survivors_avx2(surface, level, base0, dt, eye_o, open),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (surface, level, base0, dt, eye_o);
            unreachable!("no vector path on this CPU")
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn survivors_avx512(
        &self,
        surface: &[i32],
        level: &[i32],
        base0: usize,
        dt: usize,
        eye_o: i32,
        open: u64,
    ) -> u64 {
        use std::arch::x86_64::*;
        // Sixteen lanes' values from a slice with 64 spare cells past any
        // observer's (bounds-checked).
        let load = |v: &[i32], at: usize| {
            let v: &[i32; 16] = v[at..][..16].try_into().expect("16 lanes");
            // SAFETY: reads the 16 values of `v`, unaligned.
            unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
        };
        let row = |r: &[i32; 32]| {
            // SAFETY: reads the two halves of `r`, unaligned.
            unsafe {
                (
                    _mm512_loadu_si512(r.as_ptr().cast()),
                    _mm512_loadu_si512(r[16..].as_ptr().cast()),
                )
            }
        };
        let mut left = 0u64;
        for c in 0..4 {
            let mut lanes = (open >> (16 * c)) as u16;
            if lanes == 0 {
                continue;
            }
            let at = base0 + 16 * c;
            let (lo, lt) = (load(level, at), load(level, at.wrapping_add(dt)));
            // The table column of each lane's level difference, and its eye.
            let col = _mm512_add_epi32(_mm512_sub_epi32(lt, lo), _mm512_set1_epi32(16));
            let e0 = _mm512_add_epi32(
                _mm512_mullo_epi32(lo, _mm512_set1_epi32(MILLI as i32)),
                _mm512_set1_epi32(eye_o),
            );
            let hit = |i: usize| {
                let (t0, t1) = row(&self.rows[i]);
                let line = _mm512_add_epi32(_mm512_permutex2var_epi32(t0, col, t1), e0);
                _mm512_cmpgt_epi32_mask(load(surface, at.wrapping_add(self.steps[i])), line)
            };
            lanes = drop_blocked(0, self.steps.len(), lanes, hit);
            left |= (lanes as u64) << (16 * c);
        }
        left
    }
}

impl Thresholds {
    /// [`Thresholds::survivors`] eight lanes at a time: the table column of each
    /// lane is picked by permutes of the row's eight-column quarters and blends on
    /// the index's bits 3 and 4 (five bits, as AVX-512's two-register permute).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn survivors_avx2(
        &self,
        surface: &[i32],
        level: &[i32],
        base0: usize,
        dt: usize,
        eye_o: i32,
        open: u64,
    ) -> u64 {
        use std::arch::x86_64::*;
        // Eight lanes' values from a slice with 64 spare cells past any
        // observer's (bounds-checked).
        let load = |v: &[i32], at: usize| {
            let v: &[i32; 8] = v[at..][..8].try_into().expect("8 lanes");
            // SAFETY: reads the 8 values of `v`, unaligned.
            unsafe { _mm256_loadu_si256(v.as_ptr().cast()) }
        };
        let mut left = 0u64;
        for c in 0..8 {
            let mut lanes = (open >> (8 * c)) as u8;
            if lanes == 0 {
                continue;
            }
            let at = base0 + 8 * c;
            let (lo, lt) = (load(level, at), load(level, at.wrapping_add(dt)));
            // The table column of each lane's level difference, and its eye.
            let col = _mm256_add_epi32(_mm256_sub_epi32(lt, lo), _mm256_set1_epi32(16));
            // Bits 3 and 4 of the column moved to the sign bit, which blends read.
            let (b3, b4) = (
                _mm256_castsi256_ps(_mm256_slli_epi32::<28>(col)),
                _mm256_castsi256_ps(_mm256_slli_epi32::<27>(col)),
            );
            let pick = |q: &[i32]| {
                // SAFETY: reads the eight values of a quarter of a row, unaligned.
                let t = unsafe { _mm256_loadu_si256(q.as_ptr().cast()) };
                _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t, col))
            };
            let e0 = _mm256_add_epi32(
                _mm256_mullo_epi32(lo, _mm256_set1_epi32(MILLI as i32)),
                _mm256_set1_epi32(eye_o),
            );
            let hit = |i: usize| {
                let row = &self.rows[i];
                let t = if self.narrow {
                    // Columns 9 to 23: the middle quarters only (bit 3 set: 8 to 15).
                    _mm256_blendv_ps(pick(&row[16..24]), pick(&row[8..16]), b3)
                } else {
                    let low = _mm256_blendv_ps(pick(&row[..8]), pick(&row[8..16]), b3);
                    let high = _mm256_blendv_ps(pick(&row[16..24]), pick(&row[24..]), b3);
                    _mm256_blendv_ps(low, high, b4)
                };
                let line = _mm256_add_epi32(_mm256_castps_si256(t), e0);
                let s = load(surface, at.wrapping_add(self.steps[i]));
                _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(s, line))) as u8
            };
            lanes = drop_blocked(0, self.steps.len(), lanes, hit);
            left |= (lanes as u64) << (8 * c);
        }
        left
    }
}

/// `lanes` less those `hit(i)` finds blocked at a stretch `i` of `from..n`: four
/// stretches a round, independent of each other so that their tests overlap,
/// and the lanes checked once a round.
#[inline(always)]
fn drop_blocked<M>(from: usize, n: usize, mut lanes: M, hit: impl Fn(usize) -> M) -> M
where
    M: Copy + Eq + Default + BitAnd<Output = M> + BitOr<Output = M> + Not<Output = M>,
{
    let mut i = from;
    while i + 4 <= n {
        lanes = lanes & !(hit(i) | hit(i + 1) | hit(i + 2) | hit(i + 3));
        if lanes == M::default() {
            return lanes;
        }
        i += 4;
    }
    (i..n).fold(lanes, |lanes, i| lanes & !hit(i))
}

/// The order in which the `n` stretches of a walk are tested: the two next to each
/// end first (`0, n - 1, 1, n - 2`: most lines that are cut are cut next to an end),
/// then the halfway points level by level (`n / 2`, then `n / 4` and `3n / 4`, ...:
/// the van der Corput points, each level in order) while they lie two stretches
/// apart or more, then the rest in order; so that a line cut anywhere meets a test
/// near its cut soon. A run's test ends when every lane is cut: on the hilly
/// 250x250 map's exposure, 2.72-2.84 s from both ends inwards, 2.00-2.03 s so
/// (two threads).
fn test_order(n: usize) -> Vec<usize> {
    const ENDS: usize = 2;
    let mut taken = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut take = |i: usize| {
        if !std::mem::replace(&mut taken[i], true) {
            order.push(i);
        }
    };
    for i in 0..ENDS.min(n) {
        take(i);
        take(n - 1 - i);
    }
    let mut level = 1;
    while n >> level >= 2 {
        for odd in (1..1usize << level).step_by(2) {
            take((odd * n) >> level);
        }
        level += 1;
    }
    (0..n).for_each(take);
    order
}

/// Fills `rows[i][j] = floor(a * k / den)` for `a = (j - 16) * MILLI + eye_diff`,
/// with `k` the entry `ks[i].0` when `a >= 0` and the exit `ks[i].1` otherwise,
/// for the columns of the eight-column `chunks`; with `(unit, origin)` other
/// than `(1, 0)`, `floor((floor(a * k / den) - origin) / unit)`, which is
/// `floor((a * k - origin * den) / (unit * den))`. The quotient is estimated
/// with a reciprocal, which is off by at most one while the numerator is below
/// 2^52, and then corrected with the exact remainder.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn floors_avx512<R: Floors>(
    rows: &mut [R],
    ks: &[(u32, u32)],
    den: i64,
    eye_diff: i64,
    chunks: std::ops::Range<usize>,
    (unit, origin): (i64, i64),
) {
    use std::arch::x86_64::*;
    let shift = _mm512_set1_pd((origin * den) as f64);
    let den = den * unit;
    let denv = _mm512_set1_pd(den as f64);
    let inv = _mm512_set1_pd(1.0 / den as f64);
    let zero = _mm512_setzero_pd();
    let one = _mm512_set1_pd(1.0);
    let a: [[f64; 8]; 4] = std::array::from_fn(|c| {
        std::array::from_fn(|j| ((8 * c + j) as i64 - 16) as f64 * MILLI as f64 + eye_diff as f64)
    });
    for (row, &(k0, k1)) in rows.iter_mut().zip(ks) {
        let (k0, k1) = (_mm512_set1_pd(k0 as f64), _mm512_set1_pd(k1 as f64));
        for c in chunks.clone() {
            // SAFETY: reads the eight values of `a[c]`, unaligned.
            let a = unsafe { _mm512_loadu_pd(a[c].as_ptr()) };
            let k = _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_GE_OQ>(a, zero), k1, k0);
            let prod = _mm512_sub_pd(_mm512_mul_pd(a, k), shift);
            let q = _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(
                _mm512_mul_pd(prod, inv),
            );
            let r = _mm512_fnmadd_pd(q, denv, prod);
            let q = _mm512_mask_sub_pd(q, _mm512_cmp_pd_mask::<_CMP_LT_OQ>(r, zero), q, one);
            let q = _mm512_mask_add_pd(q, _mm512_cmp_pd_mask::<_CMP_GE_OQ>(r, denv), q, one);
            let mut out = [0i32; 8];
            // SAFETY: writes the eight values of `out`, unaligned.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), _mm512_cvtpd_epi32(q)) };
            row.put(8 * c, out);
        }
    }
}

/// The least and greatest index delta of a walk's `steps` (0 for none).
fn reach(steps: &[(i32, u32, u32)]) -> (isize, isize) {
    let deltas = || steps.iter().map(|s| s.0 as isize);
    (deltas().min().unwrap_or(0), deltas().max().unwrap_or(0))
}

/// A row of floors as a path keeps them: `i32`, or `i16` where they fit.
trait Floors {
    /// Columns `at..at + 8`.
    fn put(&mut self, at: usize, v: [i32; 8]);
}

impl Floors for [i32; 32] {
    #[inline(always)]
    fn put(&mut self, at: usize, v: [i32; 8]) {
        self[at..at + 8].copy_from_slice(&v);
    }
}

impl Floors for [i16; 32] {
    #[inline(always)]
    fn put(&mut self, at: usize, v: [i32; 8]) {
        for (o, x) in self[at..at + 8].iter_mut().zip(v) {
            *o = x as i16;
        }
    }
}

impl Floors for [i8; 32] {
    #[inline(always)]
    fn put(&mut self, at: usize, v: [i32; 8]) {
        for (o, x) in self[at..at + 8].iter_mut().zip(v) {
            *o = x as i8;
        }
    }
}

/// Columns 8 to 23 (level differences -8 to 7) alone.
impl Floors for [i16; 16] {
    #[inline(always)]
    fn put(&mut self, at: usize, v: [i32; 8]) {
        for (o, x) in self[at - 8..at].iter_mut().zip(v) {
            *o = x as i16;
        }
    }
}

/// A row of 16-bit floors as [`Thresholds::survivors16`] reads it.
trait Row16 {
    /// The row's column for level difference 0.
    const LEVEL: i16;
    /// The row in a register: its columns first, the lanes past them never picked.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load(&self) -> std::arch::x86_64::__m512i;
}

impl Row16 for [i16; 32] {
    const LEVEL: i16 = 16;
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load(&self) -> std::arch::x86_64::__m512i {
        // SAFETY: reads the 32 values of the row, unaligned, on AVX-512F (the
        // caller's contract).
        unsafe { std::arch::x86_64::_mm512_loadu_si512(self.as_ptr().cast()) }
    }
}

impl Row16 for [i16; 16] {
    const LEVEL: i16 = 8;
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load(&self) -> std::arch::x86_64::__m512i {
        use std::arch::x86_64::*;
        // SAFETY: reads the 16 values of the row, unaligned, into the register's
        // low half (the high half is never picked: columns stay below 16), on
        // AVX-512F (the caller's contract).
        unsafe { _mm512_castsi256_si512(_mm256_loadu_si256(self.as_ptr().cast())) }
    }
}

/// [`floors_avx512`] four columns at a time. `q * den` and `a * k - q * den` are
/// integers below 2^53, so exact without a fused multiply-add.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn floors_avx2(
    rows: &mut [[i32; 32]],
    ks: &[(u32, u32)],
    den: i64,
    eye_diff: i64,
    chunks: std::ops::Range<usize>,
) {
    use std::arch::x86_64::*;
    let denv = _mm256_set1_pd(den as f64);
    let inv = _mm256_set1_pd(1.0 / den as f64);
    let zero = _mm256_setzero_pd();
    let one = _mm256_set1_pd(1.0);
    let a: [[f64; 4]; 8] = std::array::from_fn(|c| {
        std::array::from_fn(|j| ((4 * c + j) as i64 - 16) as f64 * MILLI as f64 + eye_diff as f64)
    });
    for (row, &(k0, k1)) in rows.iter_mut().zip(ks) {
        let (k0, k1) = (_mm256_set1_pd(k0 as f64), _mm256_set1_pd(k1 as f64));
        for q in chunks.clone().flat_map(|c| [2 * c, 2 * c + 1]) {
            // SAFETY: reads the four values of `a[q]`, unaligned.
            let a = unsafe { _mm256_loadu_pd(a[q].as_ptr()) };
            let k = _mm256_blendv_pd(k1, k0, _mm256_cmp_pd::<_CMP_GE_OQ>(a, zero));
            let prod = _mm256_mul_pd(a, k);
            let f = _mm256_floor_pd(_mm256_mul_pd(prod, inv));
            let r = _mm256_sub_pd(prod, _mm256_mul_pd(f, denv));
            let f = _mm256_sub_pd(f, _mm256_and_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(r, zero), one));
            let f = _mm256_add_pd(f, _mm256_and_pd(_mm256_cmp_pd::<_CMP_GE_OQ>(r, denv), one));
            let out: &mut [i32; 4] = (&mut row[4 * q..4 * q + 4]).try_into().expect("4 columns");
            // SAFETY: writes the four values of `out`, unaligned.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm256_cvtpd_epi32(f)) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::generate::Rng;

    /// Wide draws from the map generator's random source.
    trait Draw {
        /// In `0..n`.
        fn below64(&mut self, n: u64) -> u64;
        /// In `lo..=hi`.
        fn between(&mut self, lo: i64, hi: i64) -> i64;
    }

    impl Draw for Rng {
        fn below64(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        fn between(&mut self, lo: i64, hi: i64) -> i64 {
            lo + self.below64((hi - lo + 1) as u64) as i64
        }
    }

    /// The test `above_sweep::above_steps` makes, in exact `i128`: lane `l` is
    /// blocked when some stretch has `(s - e0) * den > a * k`.
    fn blocked_exactly(
        steps: &[(i32, u32, u32)],
        den: i64,
        surface: &[i32],
        at: usize,
        e0: i64,
        e1: i64,
    ) -> bool {
        let a = (e1 - e0) as i128;
        steps.iter().any(|&(d, k0, k1)| {
            let k = if a >= 0 { k0 } else { k1 } as i128;
            let s = surface[(at as i64 + d as i64) as usize] as i128;
            (s - e0 as i128) * den as i128 > a * k
        })
    }

    #[test]
    fn thresholds_decide_like_the_exact_products() {
        if every().is_empty() {
            eprintln!("no AVX2 or AVX-512F here: the vector path is not used on this CPU");
        }
        for isa in every() {
            thresholds_decide_like_the_exact_products_on(isa);
        }
    }

    fn thresholds_decide_like_the_exact_products_on(isa: Isa) {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut decided = [0usize; 2];
        let mut narrow = 0;
        for round in 0..400 {
            let den = match round % 3 {
                0 => rng.between(1, 60),
                1 => rng.between(1, 1 << 20),
                _ => rng.between(1 << 30, 1 << 32),
            };
            let span = rng.between(0, Thresholds::SPAN as i64) as i32;
            let eye_o = rng.between(-3000, 3000);
            let eye_t = if round % 2 == 0 {
                eye_o
            } else {
                rng.between(-3000, 3000)
            };
            let n = rng.between(1, 40) as usize;
            let mut steps: Vec<(i32, u32, u32)> = (0..n)
                .map(|_| {
                    let k0 = rng.between(0, den - 1);
                    let k1 = rng.between(k0 + 1, den);
                    (rng.between(-200, 200) as i32, k0 as u32, k1 as u32)
                })
                .collect();
            steps.sort_by_key(|s| s.1);
            let Some(t) = Thresholds::on(isa, &steps, den, span, eye_t - eye_o, Heights::Wide)
            else {
                continue;
            };
            // A grid of 600 cells plus the 64 spare ones, observers from 250 on.
            let (base0, dt) = (250usize, rng.between(-200, 200) as isize as usize);
            let lv0 = rng.between(-5, 5) as i32;
            let mut level = vec![0i32; 664];
            for l in &mut level {
                *l = lv0 + rng.between(0, span as i64) as i32;
            }
            // Mostly low ground, so that many lines are seen, with some high ground.
            let low = lv0 as i64 * MILLI + eye_o.min(eye_t) - 1;
            let mut surface: Vec<i32> = (0..664)
                .map(|_| match rng.below64(10) {
                    0 => low + rng.between(0, (span as i64 + 1) * MILLI),
                    _ => low - rng.between(0, 3000),
                } as i32)
                .collect();
            // Put some surfaces exactly on, just under and just over a line.
            for _ in 0..24 {
                let l = rng.below64(64) as usize;
                let (d, k0, k1) = steps[rng.below64(n as u64) as usize];
                let e0 = level[base0 + l] as i64 * MILLI + eye_o;
                let e1 = level[base0.wrapping_add(dt) + l] as i64 * MILLI + eye_t;
                let a = e1 - e0;
                let k = if a >= 0 { k0 } else { k1 } as i64;
                let x = (base0 as i64 + l as i64 + d as i64) as usize;
                surface[x] = (e0 + (a * k).div_euclid(den) + rng.between(-1, 1)) as i32;
            }
            let open = rng.below64(u64::MAX) | 1;
            let got = t.survivors(&surface, &level, base0, dt, eye_o as i32, open);
            let t16 = Thresholds::on(isa, &steps, den, span, eye_t - eye_o, Heights::Narrow);
            if let Some(t16) = t16.filter(|t| t.has16()) {
                // The same lanes from 16-bit heights: levels from 0, tops clamped.
                let from0: Vec<i32> = level.iter().map(|l| l - lv0).collect();
                let (eye, diff) = (eye_o + lv0 as i64 * MILLI, eye_t - eye_o);
                let n = Narrow::of(&surface, &from0, eye, span as i64, diff).expect("fits");
                // Both halves open at first, and each alone.
                for half in [u64::MAX, u32::MAX as u64, !(u32::MAX as u64)] {
                    assert_eq!(
                        t16.survivors16(&n, base0, dt, open & half),
                        got & half,
                        "round {round}, 16 bits, lanes {half:x}"
                    );
                }
                narrow += 1;
            }
            for l in 0..64 {
                if open >> l & 1 == 0 {
                    assert_eq!(got >> l & 1, 0, "a closed lane came back");
                    continue;
                }
                let e0 = level[base0 + l] as i64 * MILLI + eye_o;
                let e1 = level[base0.wrapping_add(dt) + l] as i64 * MILLI + eye_t;
                let want = blocked_exactly(&steps, den, &surface, base0 + l, e0, e1);
                assert_eq!(
                    got >> l & 1 == 0,
                    want,
                    "round {round}, lane {l}, den {den}"
                );
                decided[want as usize] += 1;
            }
        }
        // Both answers occur often enough for the comparison to mean something,
        // and AVX-512 also takes the 16-bit path.
        eprintln!("{isa:?}: seen {}, blocked {}", decided[0], decided[1]);
        assert!(isa != Isa::Avx512 || narrow > 300, "16 bits {narrow} times");
        assert!(
            decided[0] > 1000 && decided[1] > 1000,
            "{isa:?}: {decided:?}"
        );
    }

    /// Where every top lies on a lattice of a divisor of a level (some exactly
    /// next to a line, on either side), the 8-bit test decides every lane as the
    /// exact products do; off the lattice, no 8-bit tops are made.
    #[test]
    fn lattice_tops_decide_like_the_exact_products() {
        if !lattice::runs() {
            eprintln!("no AVX-512 VBMI here: the 8-bit test is not used on this CPU");
            return;
        }
        let mut rng = Rng(0x5851_f42d_4c95_7f2d);
        let (mut coarse, mut decided) = (0, [0usize; 2]);
        for round in 0..400 {
            let den = rng.between(1, 1 << 20);
            let span = rng.between(0, 7) as i32;
            let unit = [1000, 500, 250, 200, 125][rng.below64(5) as usize];
            let origin = rng.between(0, unit - 1);
            let (eye, diff) = (rng.between(-3000, 3000), rng.between(-1500, 1500));
            let n = rng.between(1, 40) as usize;
            let steps: Vec<(i32, u32, u32)> = (0..n)
                .map(|_| {
                    let k0 = rng.between(0, den - 1);
                    (
                        rng.between(-200, 200) as i32,
                        k0 as u32,
                        rng.between(k0 + 1, den) as u32,
                    )
                })
                .collect();
            let (base0, dt) = (250usize, rng.between(-200, 200) as isize as usize);
            let level: Vec<i32> = (0..664)
                .map(|_| rng.between(0, span as i64) as i32)
                .collect();
            // Tops on the lattice, mostly low, some high, and some next to a line.
            let on = |m: i64| eye + origin + unit * m;
            let mut surface: Vec<i32> = (0..664)
                .map(|_| match rng.below64(10) {
                    0 => on(rng.between(0, (span as i64 + 1) * MILLI / unit)),
                    _ => on(-rng.between(1, 8)),
                } as i32)
                .collect();
            for _ in 0..24 {
                let l = rng.below64(64) as usize;
                let (d, k0, k1) = steps[rng.below64(n as u64) as usize];
                let (l0, l1) = (level[base0 + l], level[base0.wrapping_add(dt) + l]);
                let e0 = l0 as i64 * MILLI + eye;
                let a = (l1 - l0) as i64 * MILLI + diff;
                let k = if a >= 0 { k0 } else { k1 } as i64;
                let line = e0 + (a * k).div_euclid(den);
                let m = (line - eye - origin).div_euclid(unit) + rng.between(0, 1);
                surface[(base0 as i64 + l as i64 + d as i64) as usize] = on(m) as i32;
            }
            let narrow = Narrow::of(&surface, &level, eye, span as i64, diff).expect("fits");
            let heights = narrow.heights();
            let t = Thresholds::on(Isa::Avx512, &steps, den, span, diff, heights).expect("exact");
            if matches!(heights, Heights::Coarse { .. }) {
                assert!(!t.rows8.is_empty(), "round {round}: 8-bit tops, 8-bit rows");
                coarse += 1;
            }
            let open = rng.below64(u64::MAX) | 1;
            let got = t.survivors16(&narrow, base0, dt, open);
            for l in (0..64).filter(|l| open >> l & 1 == 1) {
                let e0 = level[base0 + l] as i64 * MILLI + eye;
                let e1 = level[base0.wrapping_add(dt) + l] as i64 * MILLI + eye + diff;
                let want = blocked_exactly(&steps, den, &surface, base0 + l, e0, e1);
                assert_eq!(
                    got >> l & 1 == 0,
                    want,
                    "round {round}, lane {l}, unit {unit}"
                );
                decided[want as usize] += 1;
            }
            // Two tops between the lines, one step of the lattice and one past it
            // by a thousandth: no 8-bit tops.
            let (lo, hi) = (diff.min(0), span as i64 * MILLI + diff.max(0) + 1);
            let m = (lo - origin).div_euclid(unit) + 1;
            if origin + unit * m + 1 < hi {
                surface[base0 + 5] = on(m) as i32;
                surface[base0 + 6] = on(m) as i32 + 1;
                let off = Narrow::of(&surface, &level, eye, span as i64, diff).expect("fits");
                assert_eq!(
                    off.heights(),
                    Heights::Narrow,
                    "round {round}: off the lattice"
                );
            }
        }
        assert!(coarse > 300, "8 bits {coarse} times");
        assert!(decided[0] > 1000 && decided[1] > 1000, "{decided:?}");
    }

    /// Thresholds kept from one offset to the next decide like fresh ones: another
    /// image of the walk (the same `k`s, the stretches elsewhere) re-lays only the
    /// steps, and a walk whose `k`s, denominator or eyes differ gets new floors.
    #[test]
    fn kept_thresholds_decide_like_fresh_ones() {
        if best().is_none() {
            eprintln!("no vector path on this CPU: thresholds are never built");
            return;
        }
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut kept = None;
        let (mut steps, mut den, mut diff) = (Vec::new(), 1, 0);
        let (mut images, mut decided, mut walk, mut again) = (0, [0usize; 2], 0, 0);
        for round in 0..300 {
            // A new walk, or a change of one `k`, the denominator or the eyes'
            // difference, or another image of the last walk. Two rounds of three
            // name the walk ([`Thresholds::again`]); a change of the bounds keeps
            // the name, which must not take the floors again.
            let image = round > 0 && rng.below64(5) == 4;
            match if round == 0 { 0 } else { rng.below64(4) } {
                _ if image => images += 1,
                0 => {
                    walk += 1;
                    den = rng.between(2, 5000);
                    let n = rng.between(1, 30) as usize;
                    steps = (0..n)
                        .map(|_| {
                            let k0 = rng.between(0, den - 1);
                            (0, k0 as u32, rng.between(k0 + 1, den) as u32)
                        })
                        .collect();
                }
                1 => {
                    walk += 1;
                    let i = rng.below64(steps.len() as u64) as usize;
                    steps[i].1 = rng.between(0, steps[i].2 as i64 - 1) as u32;
                }
                2 => den += 1,
                _ => diff = rng.between(-2000, 2000),
            }
            for s in &mut steps {
                s.0 = rng.between(-200, 200) as i32;
            }
            let (built, named) = ((den, 3, diff, Heights::Wide), round % 3 != 0);
            let delta = |i: usize| steps[i].0 as isize;
            let id = (walk, 0);
            if named && Thresholds::again(&mut kept, id, steps.len(), built, delta).is_some() {
                again += 1;
                assert!(
                    image,
                    "round {round}: the floors taken again after a change"
                );
            } else {
                Thresholds::keep(&mut kept, &steps, built, named.then_some(id));
            }
            let t = kept.as_ref().expect("exact");
            let level: Vec<i32> = (0..664).map(|_| rng.between(0, 3) as i32).collect();
            let surface: Vec<i32> = (0..664).map(|_| rng.between(-500, 3500) as i32).collect();
            let (base0, dt) = (250usize, rng.between(-200, 200) as isize as usize);
            let got = t.survivors(&surface, &level, base0, dt, 0, u64::MAX);
            for l in 0..64 {
                let e0 = level[base0 + l] as i64 * MILLI;
                let e1 = level[base0.wrapping_add(dt) + l] as i64 * MILLI + diff;
                let want = blocked_exactly(&steps, den, &surface, base0 + l, e0, e1);
                assert_eq!(got >> l & 1 == 0, want, "round {round}, lane {l}");
                decided[want as usize] += 1;
            }
        }
        assert!(
            images > 30 && again > 10,
            "{images} images of a kept walk, {again} named"
        );
        assert!(decided[0] > 500 && decided[1] > 500, "{decided:?}");
    }

    #[test]
    fn every_stretch_is_tested_once_the_ends_first() {
        for n in 0..300 {
            let order = test_order(n);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "{n} stretches");
            if n >= 4 {
                assert_eq!(order[..4], [0, n - 1, 1, n - 2], "{n} stretches");
            }
        }
        // Past the ends, the middle next.
        assert_eq!(test_order(9)[4], 4);
    }

    #[test]
    fn table_floors_are_exact() {
        for isa in every() {
            table_floors_are_exact_on(isa);
        }
    }

    fn table_floors_are_exact_on(isa: Isa) {
        let mut rng = Rng(11);
        let mut dens: Vec<i64> = (1..400).collect();
        dens.extend((0..400).map(|_| rng.between(400, 1 << 32)));
        for den in dens {
            // Every k up to 64 and some beyond, as entries and exits.
            let ks: Vec<u32> = (0..=den.min(64))
                .chain((0..16).map(|_| rng.between(0, den)))
                .map(|k| k as u32)
                .collect();
            let steps: Vec<(i32, u32, u32)> = ks.iter().map(|&k| (0, k, k)).collect();
            let eye_diff = rng.between(-500, 500);
            let t = Thresholds::on(isa, &steps, den, Thresholds::SPAN, eye_diff, Heights::Wide);
            let t = t.expect("exact");
            // `of` orders stretches by `test_order`; every k is both k0 and k1.
            let check = |got: i64, i: usize, j: usize, bits: u32| {
                let (k, a) = (ks[i] as i64, (j as i64 - 16) * MILLI + eye_diff);
                let want = (a * k).div_euclid(den);
                assert_eq!(got, want, "{isa:?}, {bits} bits: a {a}, k {k}, den {den}");
            };
            for (row, i) in t.rows.iter().zip(test_order(steps.len())) {
                for (j, &got) in row.iter().enumerate().skip(1) {
                    check(got as i64, i, j, 32);
                }
            }
            let t = Thresholds::on(
                isa,
                &steps,
                den,
                Thresholds::SPAN,
                eye_diff,
                Heights::Narrow,
            );
            let t = t.expect("exact");
            assert_eq!(t.has16(), isa == Isa::Avx512, "{isa:?}: 16-bit rows");
            assert!(
                t.rows16n.is_empty(),
                "all 32 columns for level differences past 7"
            );
            for (row, i) in t.rows16.iter().zip(test_order(steps.len())) {
                for (j, &got) in row.iter().enumerate().skip(1) {
                    check(got as i64, i, j, 16);
                }
            }
            // Level differences up to 7: columns 8 to 23 alone (8, for -8, unused).
            let t = Thresholds::on(isa, &steps, den, 7, eye_diff, Heights::Narrow).expect("exact");
            assert_eq!(t.rows16n.len(), t.steps.len() * t.has16() as usize);
            assert!(
                t.rows16.is_empty(),
                "16 columns for level differences up to 7"
            );
            for (row, i) in t.rows16n.iter().zip(test_order(steps.len())) {
                for (j, &got) in row.iter().enumerate().skip(1) {
                    check(got as i64, i, j + 8, 16);
                }
            }
        }
    }

    #[test]
    fn thresholds_refuse_products_beyond_exact_f64() {
        // 15 levels of 1000 and a denominator near 2^32 stay below 2^52 ...
        let steps = [(1, 0, 1 << 31), (2, 1 << 31, u32::MAX)];
        // (where the CPU has the vector instructions at all)
        assert_eq!(
            Thresholds::of(&steps, u32::MAX as i64, 15, 0, Heights::Wide).is_some(),
            available()
        );
        // ... eyes two million apart do not.
        assert!(Thresholds::of(&steps, u32::MAX as i64, 15, 2_000_000, Heights::Wide).is_none());
    }

    #[test]
    fn equal_lanes_match_with_and_without_vectors() {
        let mut rng = Rng(7);
        for _ in 0..200 {
            let a: Vec<i32> = (0..64).map(|_| rng.between(0, 3) as i32).collect();
            let b: Vec<i32> = (0..64).map(|_| rng.between(0, 3) as i32).collect();
            let want = (0..64).fold(0u64, |m, l| m | ((a[l] == b[l]) as u64) << l);
            assert_eq!(equal_lanes(&a, &b, false), want);
            for isa in every() {
                assert_eq!(equal_lanes_on(&a, &b, Some(isa)), want, "{isa:?}");
            }
        }
    }
}
