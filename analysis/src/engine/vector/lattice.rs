//! The threshold test in 8 bits, 64 lines at a time, for maps whose tops lie on
//! a lattice: a game's levels and terrain heights in whole or half levels.
//!
//! Where every top that a line could pass either side of is `origin + unit * m`
//! (`unit` a divisor of a level, so that every eye lies on the lattice too),
//! a top is above a line exactly when `m` is above the line's floor in steps,
//! `floor((line - origin) / unit)`: for a top on the lattice, `t > line` if and
//! only if `(t - origin) / unit > floor((line - origin) / unit)`. The eyes'
//! part of that floor is whole steps, so the floors per stretch
//! (`floor((floor(a k / den) - origin) / unit)`) stay per walk, as in 16 bits.

use super::{MILLI, Thresholds, drop_blocked};

/// The heights a walk's thresholds are built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heights {
    /// 32-bit tops and eyes.
    Wide,
    /// 16-bit tops and eyes ([`super::Narrow`]).
    Narrow,
    /// 16-bit eyes and 8-bit tops on a lattice of `unit` thousandths from `origin`.
    Coarse {
        /// Thousandths of a level per step.
        unit: i64,
        /// Where the lattice lies, in `0..unit`.
        origin: i64,
    },
}

/// True where the CPU has the byte permute the 8-bit test needs (AVX-512 VBMI).
pub(super) fn runs() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::best() == Some(super::Isa::Avx512)
            && std::arch::is_x86_feature_detected!("avx512vbmi")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A map's tops in steps of their lattice, with eye levels and eyes in 8 bits.
pub(super) struct Coarse {
    /// Thousandths of a level per step, and where the lattice lies.
    unit: i64,
    origin: i64,
    /// Per cell: its top in steps, clamped to just past the lowest and highest line.
    surface: Vec<i8>,
    /// Per cell: its eye level (from 0), and that level in steps.
    level: Vec<i8>,
    eye: Vec<i8>,
}

impl Coarse {
    /// The 8-bit tops of cells whose tops above the lowest eye are `tops` and eye
    /// levels `level` (from 0 to `span`), whose lines lie strictly between `lo`
    /// and `hi` (the 16-bit clamps) and rise at most `span` levels and `diff`;
    /// `None` where the tops some line could pass either side of lie on no
    /// lattice of a divisor of a level, the steps would not fit in 8 bits, or
    /// the CPU lacks the instructions.
    pub(super) fn of(
        tops: &[i64],
        level: &[i32],
        (lo, hi): (i64, i64),
        span: i64,
        diff: i64,
    ) -> Option<Coarse> {
        if !runs() {
            return None;
        }
        // Tops at or below the lowest line never block, at or above the highest
        // always: only those between need to lie on the lattice.
        let between = || tops.iter().copied().filter(|&t| t > lo + 1 && t < hi);
        let first = between().next().unwrap_or(0);
        let unit = between().fold(MILLI, |g, t| gcd(g, (t - first).abs()));
        let origin = first.rem_euclid(unit);
        let steps = |v: i64| (v - origin).div_euclid(unit);
        let (low, high) = (steps(lo + 1) - 1, steps(hi - 1) + 1);
        let eye_top = span * (MILLI / unit);
        // Tops, eyes and every floor (a rise of at most `reach`) in 8 bits.
        let reach = span * MILLI + diff.abs();
        let fits = [low, high, eye_top, steps(-reach), steps(reach)];
        if !fits.iter().all(|v| (-128..=127).contains(v)) {
            return None;
        }
        let top = |t: i64| match t {
            _ if t <= lo + 1 => low,
            _ if t >= hi => high,
            _ => steps(t),
        };
        Some(Coarse {
            unit,
            origin,
            surface: tops.iter().map(|&t| top(t) as i8).collect(),
            level: level.iter().map(|&l| l as i8).collect(),
            eye: level
                .iter()
                .map(|&l| (l as i64 * (MILLI / unit)) as i8)
                .collect(),
        })
    }

    /// These heights, for [`Thresholds::keep`].
    pub(super) fn heights(&self) -> Heights {
        Heights::Coarse {
            unit: self.unit,
            origin: self.origin,
        }
    }
}

/// The greatest common divisor of `a` and `b` (`a` where `b` is 0).
fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl Thresholds {
    /// [`Thresholds::survivors16`] where the rows are in steps of `coarse`'s
    /// lattice: all 64 lanes in one register.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) fn survivors8_avx512(
        &self,
        coarse: &Coarse,
        base0: usize,
        dt: usize,
        open: u64,
    ) -> u64 {
        use std::arch::x86_64::*;
        let n = self.steps.len();
        assert!(self.rows8.len() >= n, "a row per stretch");
        let load = |v: &[i8], at: usize| {
            let v: &[i8; 64] = v[at..][..64].try_into().expect("64 lanes");
            // SAFETY: reads the 64 values of `v`, unaligned (the CPU has AVX-512F).
            unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
        };
        // Each lane's table column (its level difference) and eye, in steps.
        let (lo, lt) = (
            load(&coarse.level, base0),
            load(&coarse.level, base0.wrapping_add(dt)),
        );
        let col = _mm512_add_epi8(_mm512_sub_epi8(lt, lo), _mm512_set1_epi8(16));
        let e0 = load(&coarse.eye, base0);
        // Every top the lanes read lies within the grid: checked once, so the
        // loads in the loop check nothing.
        let (least, most) = (base0 as isize + self.reach.0, base0 as isize + self.reach.1);
        assert!(
            least >= 0 && most + 64 <= coarse.surface.len() as isize,
            "an open lane's walk leaves the grid"
        );
        let hit = |s: usize| {
            debug_assert!(s < n);
            // SAFETY: `s < n <= self.rows8.len()` (asserted above); reads the
            // row's 32 columns into the register's low half (columns stay below 32).
            let row = unsafe {
                let row = self.rows8.get_unchecked(s);
                _mm512_castsi256_si512(_mm256_loadu_si256(row.as_ptr().cast()))
            };
            let line = _mm512_add_epi8(_mm512_permutexvar_epi8(col, row), e0);
            // SAFETY: `s < n`; the cell lies between `least` and `most`, checked above.
            let tops = unsafe {
                let at = base0.wrapping_add(*self.steps.get_unchecked(s));
                _mm512_loadu_si512(coarse.surface.as_ptr().add(at).cast())
            };
            _mm512_cmpgt_epi8_mask(tops, line)
        };
        drop_blocked(0, n, open, hit)
    }
}
