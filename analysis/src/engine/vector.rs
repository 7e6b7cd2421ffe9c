//! The AVX-512 paths of the fast engine, taken only where the CPU has them
//! ([`available`]); everywhere else the engine runs the same tests one line at
//! a time. Both give the same answers: the engine's tests compare them.

use crate::rules::geometric::MILLI;

/// True when the CPU has the vector instructions used here.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Bit `l` set where `a[l] == b[l]`, for the first 64 values of each;
/// with `simd` (which callers set only where [`available`]) 16 at a time.
pub fn equal_lanes(a: &[i32], b: &[i32], simd: bool) -> u64 {
    let (a, b): (&[i32; 64], &[i32; 64]) = (
        a[..64].try_into().expect("64 lanes"),
        b[..64].try_into().expect("64 lanes"),
    );
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where `available` found AVX-512F.
        return unsafe { equal_lanes_avx512(a, b) };
    }
    let _ = simd;
    (0..64).fold(0, |m, l| m | ((a[l] == b[l]) as u64) << l)
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

/// One offset's hex stretches for the vector test of lines between levels:
/// from both ends inwards, since most such lines are cut next to an end.
///
/// Lane `l` (observer at padded cell `base0 + l`) is blocked at a stretch when
/// `(s - e0) * den > a * k`, as in `fast::geometric_steps`, evaluated in `f64` as
/// `s * den - e0 * den > a * k`: every term is an integer of magnitude at most
/// `2^53` (see [`Order::exact_for`]), so each is exact and the comparison is
/// the integer one.
pub struct Order {
    /// `(index delta, k0, k1)`, the deltas as wrapping `usize` offsets.
    steps: Vec<(usize, f64, f64)>,
    den: f64,
}

impl Order {
    /// True when heights up to `magnitude` and the denominator `den` keep every
    /// product below `2^53`.
    pub fn exact_for(magnitude: i64, den: i64) -> bool {
        (2 * magnitude as i128) * (den as i128) <= 1 << 53
    }

    pub fn of(steps: &[(i32, u32, u32)], den: i64) -> Order {
        let n = steps.len();
        let inwards = (0..n.div_ceil(2)).flat_map(|i| [i, n - 1 - i]).take(n);
        Order {
            steps: inwards
                .map(|i| {
                    let (d, k0, k1) = steps[i];
                    (d as isize as usize, k0 as f64, k1 as f64)
                })
                .collect(),
            den: den as f64,
        }
    }

    /// The lanes of `open` that no hex stretch blocks; the ends' levels are read
    /// from `level` at `base0 + l` and `base0 + dt + l`.
    pub fn survivors(
        &self,
        surface: &[f64],
        level: &[i32],
        base0: usize,
        dt: usize,
        eyes: (i64, i64),
        open: u64,
    ) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: callers hold an `Order` only where `available` found AVX-512F.
            unsafe { self.survivors_avx512(surface, level, base0, dt, eyes, open) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (surface, level, base0, dt, eyes);
            unreachable!("no vector path on this CPU")
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn survivors_avx512(
        &self,
        surface: &[f64],
        level: &[i32],
        base0: usize,
        dt: usize,
        (eye_o, eye_t): (i64, i64),
        open: u64,
    ) -> u64 {
        use std::arch::x86_64::*;
        let den = _mm512_set1_pd(self.den);
        let milli = _mm512_set1_pd(MILLI as f64);
        let zero = _mm512_setzero_pd();
        // Eight lanes' `i32` levels, or eight lanes' surfaces, from a slice
        // with at least 64 spare cells past any observer's (bounds-checked).
        let levels = |at: usize| {
            let v: &[i32; 8] = level[at..][..8].try_into().expect("8 lanes");
            // SAFETY: reads the 8 values of `v`, unaligned.
            _mm512_cvtepi32_pd(unsafe { _mm256_loadu_si256(v.as_ptr().cast()) })
        };
        let heights = |at: usize| {
            let v: &[f64; 8] = surface[at..][..8].try_into().expect("8 lanes");
            // SAFETY: reads the 8 values of `v`, unaligned.
            unsafe { _mm512_loadu_pd(v.as_ptr()) }
        };
        // The constants of eight lanes: e0 * den, and a on rising lines
        // (tested at a stretch's entry k0) or on falling ones (at its exit k1).
        let lanes_at = |at: usize| {
            // e0 = level * MILLI + eye and a = e1 - e0 (small integers, exact).
            let e0 = _mm512_fmadd_pd(levels(at), milli, _mm512_set1_pd(eye_o as f64));
            let e1 = _mm512_fmadd_pd(levels(at + dt), milli, _mm512_set1_pd(eye_t as f64));
            let a = _mm512_sub_pd(e1, e0);
            (_mm512_mul_pd(e0, den), _mm512_max_pd(a, zero), _mm512_min_pd(a, zero))
        };
        let hit = |at: usize, (e, rise, fall): (__m512d, __m512d, __m512d), (k0, k1): (__m512d, __m512d), d: usize| {
            let lhs = _mm512_fmsub_pd(heights(at.wrapping_add(d)), den, e);
            let rhs = _mm512_fmadd_pd(rise, k0, _mm512_mul_pd(fall, k1));
            _mm512_cmp_pd_mask::<_CMP_GT_OQ>(lhs, rhs)
        };
        let ks = |k0: f64, k1: f64| (_mm512_set1_pd(k0), _mm512_set1_pd(k1));
        let mut left = 0u64;
        // Sixteen lanes at a time (two vectors share each stretch's constants),
        // four stretches per round, independent of each other so that the
        // compares overlap; the lanes are checked once per round.
        for c in 0..4 {
            let open16 = (open >> (16 * c)) as u16;
            if open16 == 0 {
                continue;
            }
            let (at0, at1) = (base0 + 16 * c, base0 + 16 * c + 8);
            let (c0, c1) = (lanes_at(at0), lanes_at(at1));
            let (mut l0, mut l1) = (open16 as u8, (open16 >> 8) as u8);
            let mut quads = self.steps.chunks_exact(4);
            for q in &mut quads {
                let (mut m0, mut m1) = (0, 0);
                for &(d, k0, k1) in q {
                    let k = ks(k0, k1);
                    m0 |= hit(at0, c0, k, d);
                    m1 |= hit(at1, c1, k, d);
                }
                l0 &= !m0;
                l1 &= !m1;
                if l0 | l1 == 0 {
                    break;
                }
            }
            if l0 | l1 != 0 {
                for &(d, k0, k1) in quads.remainder() {
                    let k = ks(k0, k1);
                    l0 &= !hit(at0, c0, k, d);
                    l1 &= !hit(at1, c1, k, d);
                }
            }
            left |= ((l0 as u64) | (l1 as u64) << 8) << (16 * c);
        }
        left
    }
}
