//! A keyed kernel's verdicts as per-cell bounds on the key, for 64 lanes at once.
//!
//! Where what a cell does to keyed lines ([`crate::rules::kernel::Kernel::level_key`])
//! only grows as the key falls (a hill higher than the line blocks it, and higher
//! lines clear it), the kernel's verdicts at every key fit in three bytes per cell:
//! below key `block` the cell blocks, from there below key `hinder` it hinders by
//! `amount`, and above both it does nothing. Lanes with different keys are then
//! judged together, one byte each: one maximum and one masked add per stretch for
//! 64 lines, however many keys they have. The bounds are read from the kernel's own
//! verdicts ([`Builder::record`]); a kernel whose verdicts do not fit them gets
//! none ([`Builder::finish`]), and its lines are walked.

use crate::rules::kernel::Sum;

/// Spare cells past the grid, so that 64 lanes may start at any cell.
pub const SPARE: usize = 64;

/// The largest key index the bytes hold (a bound one past it still fits).
pub const KEYS_MAX: usize = 254;

/// What one layer of the grid (its cells, or the hexsides towards one direction)
/// does to keyed lines, per cell: at key index `k`, the cell blocks when
/// `k < block`, and otherwise hinders by `amount` when `k < hinder`.
#[derive(PartialEq, Eq)]
pub struct Bounds {
    block: Vec<u8>,
    hinder: Vec<u8>,
    amount: Vec<u8>,
}

/// Reads a layer's bounds from the kernel's verdicts, key by key.
pub struct Builder {
    b: Bounds,
    /// Some cell's verdicts do not fit bounds.
    broken: bool,
    /// Amounts are counted against this limit: one at or over it is read as the
    /// limit, since a sum reaches the limit either way (so woods and smoke of
    /// different heights in one hex still fit bounds once they reach it).
    cap: u32,
}

impl Builder {
    /// A builder for a grid of `size` cells, every cell clear at every key, that
    /// keeps what `read` will ask for: hindrances only where it reads them, their
    /// amounts only where it counts them.
    pub fn new(size: usize, read: Read) -> Builder {
        let zeros = |keep: bool| vec![0u8; if keep { size + SPARE } else { 0 }];
        Builder {
            b: Bounds {
                block: zeros(true),
                hinder: zeros(read != Read::Blocks),
                amount: zeros(matches!(read, Read::Counted(_))),
            },
            broken: false,
            cap: match read {
                Read::Counted(l) => u32::from(l.max(1)),
                _ => u32::from(u8::MAX),
            },
        }
    }

    /// Records what cell `x` does at key index `key` (at most [`KEYS_MAX`]). Each
    /// cell's keys come in increasing order; a clear verdict need not be recorded.
    pub fn record(&mut self, key: usize, x: usize, s: Sum) {
        let (b, k) = (&mut self.b, key as u8);
        let hinders = !b.hinder.is_empty();
        if key > KEYS_MAX {
            self.broken = true;
        } else if s.block {
            // Blocks must run from key 0 without a gap, and come before any hindrance.
            self.broken |= b.block[x] != k || hinders && b.hinder[x] != 0;
            b.block[x] = k + 1;
        } else if s.hinder > 0 && hinders {
            // Hindrances follow the blocks without a gap, all of one amount where
            // amounts are kept.
            let amount = s.hinder.min(self.cap) as u8;
            let counts = !b.amount.is_empty();
            self.broken |= if b.hinder[x] == 0 {
                b.block[x] != k
            } else {
                b.hinder[x] != k || counts && b.amount[x] != amount
            };
            b.hinder[x] = k + 1;
            if counts {
                b.amount[x] = amount;
            }
        }
    }

    /// The bounds, if every recorded verdict fits them.
    pub fn finish(self) -> Option<Bounds> {
        (!self.broken).then_some(self.b)
    }
}

/// Up to 64 lines' key indices, one byte each, and which lanes hold one.
#[derive(Clone, Copy)]
pub struct Keys {
    /// Key index by lane.
    pub key: [u8; 64],
    /// The lanes with a key.
    pub mask: u64,
}

impl Default for Keys {
    fn default() -> Self {
        Keys {
            key: [0; 64],
            mask: 0,
        }
    }
}

impl Keys {
    /// Gives lane `lane` key index `key`.
    #[cfg(test)]
    pub fn put(&mut self, lane: usize, key: u8) {
        self.key[lane] = key;
        self.mask |= 1 << lane;
    }
}

/// What a layer does to the lanes of [`Keys`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Lanes some stretch blocks.
    pub blocked: u64,
    /// Lanes some stretch hinders.
    pub hindered: u64,
    /// Lanes whose hindrances add up to the limit or more.
    pub over: u64,
}

/// The byte instructions a vector path uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    /// AVX-512BW: 64 lanes in one register.
    Avx512,
    /// AVX2: 64 lanes in two registers (every x86-64 CPU of the last decade).
    Avx2,
}

/// A vector path this CPU has: made only by [`Vector::best`] (or by a test after
/// checking), so holding one is the proof its instructions may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vector(Isa);

impl Vector {
    /// The best vector path this CPU has, if any.
    pub fn best() -> Option<Vector> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512bw") {
                return Some(Vector(Isa::Avx512));
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Some(Vector(Isa::Avx2));
            }
        }
        None
    }
}

/// Per lane, `b`'s byte where `mask` has the lane's bit, else `a`'s; on the vector
/// path `v` where given.
#[inline]
pub fn blend(mask: u64, a: &[u8; 64], b: &[u8; 64], v: Option<Vector>) -> [u8; 64] {
    #[cfg(target_arch = "x86_64")]
    match v {
        // SAFETY: a `Vector` is made only where the CPU has its instructions.
        Some(Vector(Isa::Avx512)) => return unsafe { blend_avx512(mask, a, b) },
        // SAFETY: as above.
        Some(Vector(Isa::Avx2)) => return unsafe { blend_avx2(mask, a, b) },
        None => {}
    }
    let _ = v;
    std::array::from_fn(|l| if mask >> l & 1 == 1 { b[l] } else { a[l] })
}

/// [`blend`] 32 lanes at a time: each lane's mask bit spread to its byte.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn blend_avx2(mask: u64, a: &[u8; 64], b: &[u8; 64]) -> [u8; 64] {
    use std::arch::x86_64::*;
    let mut out = [0u8; 64];
    // Byte `i` of each 8-byte group holds bit `i` of the group's mask byte.
    let bits = _mm256_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
    let spread = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
        3, 3,
    );
    for half in 0..2 {
        let m = (mask >> (32 * half)) as u32;
        let select = _mm256_cmpeq_epi8(
            _mm256_and_si256(
                _mm256_shuffle_epi8(_mm256_set1_epi32(m as i32), spread),
                bits,
            ),
            bits,
        );
        // SAFETY: reads 32 bytes of `a` and of `b`, writes 32 of `out`, unaligned.
        unsafe {
            let va = _mm256_loadu_si256(a.as_ptr().add(32 * half).cast());
            let vb = _mm256_loadu_si256(b.as_ptr().add(32 * half).cast());
            _mm256_storeu_si256(
                out.as_mut_ptr().add(32 * half).cast(),
                _mm256_blendv_epi8(va, vb, select),
            );
        }
    }
    out
}

/// [`blend`] in one instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
fn blend_avx512(mask: u64, a: &[u8; 64], b: &[u8; 64]) -> [u8; 64] {
    use std::arch::x86_64::*;
    let mut out = [0u8; 64];
    // SAFETY: reads and writes 64-byte arrays, unaligned.
    unsafe {
        let (va, vb) = (
            _mm512_loadu_si512(a.as_ptr().cast()),
            _mm512_loadu_si512(b.as_ptr().cast()),
        );
        _mm512_storeu_si512(
            out.as_mut_ptr().cast(),
            _mm512_mask_blend_epi8(mask, va, vb),
        );
    }
    out
}

/// What a caller reads of a [`Verdict`]: the rest is left empty, and not worked out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// Blocks only.
    Blocks,
    /// Blocks, and which lanes are hindered.
    Hindered,
    /// Blocks, hindered lanes, and the lanes whose hindrances add up to this limit or more.
    Counted(u8),
}

impl Bounds {
    /// What the cells at `base0 + d` for each `d` of `at` do to lane `l`, whose line
    /// stretches over cell `base0 + d + l`, stopping once every lane is blocked;
    /// only what `read` asks for; on the vector path `v` where given.
    #[inline]
    pub fn judge(
        &self,
        base0: i64,
        at: &[i64],
        keys: &Keys,
        read: Read,
        v: Option<Vector>,
    ) -> Verdict {
        self.judge_into(base0, at, keys, read, v, &mut [0; 64])
    }

    /// [`Bounds::judge`] adding each lane's counted hindrances to `sum` (where `read`
    /// counts), which `over` then reads: stretches judged at different keys in
    /// several calls add up as one line.
    pub fn judge_into(
        &self,
        base0: i64,
        at: &[i64],
        keys: &Keys,
        read: Read,
        v: Option<Vector>,
        sum: &mut [u8; 64],
    ) -> Verdict {
        if keys.mask == 0 {
            return Verdict::default();
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(Vector(isa)) = v
            && let Some(last) = self.last_window(read)
        {
            // SAFETY: a `Vector` is made only where the CPU has its instructions.
            return unsafe {
                match (isa, read) {
                    (Isa::Avx512, Read::Blocks) => {
                        self.judge_avx512::<false, false>(base0, at, keys, (0, last), sum)
                    }
                    (Isa::Avx512, Read::Hindered) => {
                        self.judge_avx512::<true, false>(base0, at, keys, (0, last), sum)
                    }
                    (Isa::Avx512, Read::Counted(l)) => {
                        self.judge_avx512::<true, true>(base0, at, keys, (l, last), sum)
                    }
                    (Isa::Avx2, Read::Blocks) => {
                        self.judge_avx2::<false, false>(base0, at, keys, (0, last), sum)
                    }
                    (Isa::Avx2, Read::Hindered) => {
                        self.judge_avx2::<true, false>(base0, at, keys, (0, last), sum)
                    }
                    (Isa::Avx2, Read::Counted(l)) => {
                        self.judge_avx2::<true, true>(base0, at, keys, (l, last), sum)
                    }
                }
            };
        }
        let _ = v;
        self.judge_bytes(base0, at, keys, read, sum)
    }

    /// The last cell whose 64-byte window lies within every layer `read` reads, so
    /// that the vector paths check each window with one compare
    /// (`x as u64 <= last`: a negative `x` fails it); `None` when no window fits.
    fn last_window(&self, read: Read) -> Option<u64> {
        let mut len = self.block.len();
        if read != Read::Blocks {
            len = len.min(self.hinder.len());
        }
        if matches!(read, Read::Counted(_)) {
            len = len.min(self.amount.len());
        }
        len.checked_sub(64).map(|l| l as u64)
    }

    /// The 64 bytes of `v` from cell `x` (bounds-checked).
    #[inline]
    fn lanes(v: &[u8], x: i64) -> &[u8; 64] {
        v[x as usize..][..64].try_into().expect("64 lanes")
    }

    /// [`Bounds::judge`] one byte at a time.
    fn judge_bytes(
        &self,
        base0: i64,
        at: &[i64],
        keys: &Keys,
        read: Read,
        sum: &mut [u8; 64],
    ) -> Verdict {
        let (mut top, mut reach) = ([0u8; 64], [0u8; 64]);
        let (hindered, counted) = (read != Read::Blocks, matches!(read, Read::Counted(_)));
        for (n, &d) in at.iter().enumerate() {
            let x = base0 + d;
            let b = Self::lanes(&self.block, x);
            for l in 0..64 {
                top[l] = top[l].max(b[l]);
            }
            if hindered {
                let h = Self::lanes(&self.hinder, x);
                for l in 0..64 {
                    reach[l] = reach[l].max(h[l]);
                }
                if counted {
                    let a = Self::lanes(&self.amount, x);
                    for l in 0..64 {
                        let add = if keys.key[l] < h[l] { a[l] } else { 0 };
                        sum[l] = sum[l].saturating_add(add);
                    }
                }
            }
            if n % 8 == 7 && Self::above(&top, keys) & keys.mask == keys.mask {
                break;
            }
        }
        let m = keys.mask;
        let over = |limit: u8| (0..64).fold(0u64, |o, l| o | ((sum[l] >= limit) as u64) << l);
        Verdict {
            blocked: Self::above(&top, keys) & m,
            hindered: match read {
                Read::Blocks => 0,
                _ => Self::above(&reach, keys) & m,
            },
            over: match read {
                Read::Counted(limit) => over(limit) & m,
                _ => 0,
            },
        }
    }

    /// Lanes whose bound lies above their key.
    fn above(bound: &[u8; 64], keys: &Keys) -> u64 {
        (0..64).fold(0u64, |m, l| m | ((keys.key[l] < bound[l]) as u64) << l)
    }

    /// [`Bounds::judge`] 64 bytes at a time: hindered lanes only with `HINDERED`,
    /// sums only with `COUNTED`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw")]
    fn judge_avx512<const HINDERED: bool, const COUNTED: bool>(
        &self,
        base0: i64,
        at: &[i64],
        keys: &Keys,
        (limit, last): (u8, u64),
        sum_io: &mut [u8; 64],
    ) -> Verdict {
        use std::arch::x86_64::*;
        // SAFETY: reads the 64 bytes of a bounds-checked slice, unaligned.
        let load = |v: &[u8; 64]| unsafe { _mm512_loadu_si512(v.as_ptr().cast()) };
        // SAFETY: reads 64 bytes from cell `x`, which the loop checked against `last`.
        let load_at =
            |v: &[u8], x: i64| unsafe { _mm512_loadu_si512(v.as_ptr().add(x as usize).cast()) };
        let k = load(&keys.key);
        let (mut top, mut reach, mut sum) =
            (_mm512_setzero_si512(), _mm512_setzero_si512(), load(sum_io));
        for (n, &d) in at.iter().enumerate() {
            let x = base0 + d;
            assert!(x as u64 <= last, "cell {x} has no 64-lane window");
            top = _mm512_max_epu8(top, load_at(&self.block, x));
            if HINDERED {
                let h = load_at(&self.hinder, x);
                reach = _mm512_max_epu8(reach, h);
                if COUNTED {
                    let add = _mm512_cmplt_epu8_mask(k, h);
                    let a = load_at(&self.amount, x);
                    sum = _mm512_mask_adds_epu8(sum, add, sum, a);
                }
            }
            if n % 8 == 7 && _mm512_cmplt_epu8_mask(k, top) & keys.mask == keys.mask {
                break;
            }
        }
        let m = keys.mask;
        if COUNTED {
            // SAFETY: writes the 64 bytes of `sum_io`, unaligned.
            unsafe { _mm512_storeu_si512(sum_io.as_mut_ptr().cast(), sum) };
        }
        Verdict {
            blocked: _mm512_cmplt_epu8_mask(k, top) & m,
            hindered: if HINDERED {
                _mm512_cmplt_epu8_mask(k, reach) & m
            } else {
                0
            },
            over: if COUNTED {
                _mm512_cmpge_epu8_mask(sum, _mm512_set1_epi8(limit as i8)) & m
            } else {
                0
            },
        }
    }

    /// [`Bounds::judge`] 32 bytes at a time, as [`Bounds::judge_avx512`]: AVX2 has no
    /// unsigned byte compare, so `k < b` is read as `max(k, b) != k`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn judge_avx2<const HINDERED: bool, const COUNTED: bool>(
        &self,
        base0: i64,
        at: &[i64],
        keys: &Keys,
        (limit, last): (u8, u64),
        sum_io: &mut [u8; 64],
    ) -> Verdict {
        use std::arch::x86_64::*;
        type Pair = [__m256i; 2];
        // SAFETY: reads the 64 bytes of a bounds-checked slice, unaligned.
        let load = |v: &[u8; 64]| -> Pair {
            unsafe {
                [
                    _mm256_loadu_si256(v.as_ptr().cast()),
                    _mm256_loadu_si256(v.as_ptr().add(32).cast()),
                ]
            }
        };
        // SAFETY: reads 64 bytes from cell `x`, which the loop checked against `last`.
        let load_at = |v: &[u8], x: i64| -> Pair {
            unsafe {
                let p = v.as_ptr().add(x as usize);
                [
                    _mm256_loadu_si256(p.cast()),
                    _mm256_loadu_si256(p.add(32).cast()),
                ]
            }
        };
        let max = |a: Pair, b: Pair| [_mm256_max_epu8(a[0], b[0]), _mm256_max_epu8(a[1], b[1])];
        // Lanes where `b <= a`, as bits.
        let at_most = |b: Pair, a: Pair| -> u64 {
            let half = |i: usize| {
                let eq = _mm256_cmpeq_epi8(_mm256_max_epu8(a[i], b[i]), a[i]);
                _mm256_movemask_epi8(eq) as u32 as u64
            };
            half(0) | half(1) << 32
        };
        // Lanes whose key lies below `b`.
        let below = |k: Pair, b: Pair| !at_most(b, k);
        let k = load(&keys.key);
        let zero = [_mm256_setzero_si256(); 2];
        let (mut top, mut reach, mut sum) = (zero, zero, load(sum_io));
        for (n, &d) in at.iter().enumerate() {
            let x = base0 + d;
            assert!(x as u64 <= last, "cell {x} has no 64-lane window");
            top = max(top, load_at(&self.block, x));
            if HINDERED {
                let h = load_at(&self.hinder, x);
                reach = max(reach, h);
                if COUNTED {
                    let a = load_at(&self.amount, x);
                    for i in 0..2 {
                        // The amount where the key lies below the bound, else 0.
                        let clear = _mm256_cmpeq_epi8(_mm256_max_epu8(k[i], h[i]), k[i]);
                        sum[i] = _mm256_adds_epu8(sum[i], _mm256_andnot_si256(clear, a[i]));
                    }
                }
            }
            if n % 8 == 7 && below(k, top) & keys.mask == keys.mask {
                break;
            }
        }
        let m = keys.mask;
        if COUNTED {
            // SAFETY: writes the 64 bytes of `sum_io`, unaligned.
            unsafe {
                _mm256_storeu_si256(sum_io.as_mut_ptr().cast(), sum[0]);
                _mm256_storeu_si256(sum_io.as_mut_ptr().add(32).cast(), sum[1]);
            }
        }
        Verdict {
            blocked: below(k, top) & m,
            hindered: if HINDERED { below(k, reach) & m } else { 0 },
            over: if COUNTED {
                at_most(load(&[limit; 64]), sum) & m
            } else {
                0
            },
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.block.len() + self.hinder.len() + self.amount.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(block: bool, hinder: u32) -> Sum {
        Sum {
            any: block || hinder > 0,
            block,
            hinder,
        }
    }

    /// The byte path and every vector path this CPU has.
    fn paths() -> Vec<Option<Vector>> {
        let mut p = vec![None];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                p.push(Some(Vector(Isa::Avx2)));
            }
            if std::arch::is_x86_feature_detected!("avx512bw") {
                p.push(Some(Vector(Isa::Avx512)));
            }
        }
        p
    }

    /// Every path blends as the bytes say.
    #[test]
    fn every_path_blends_lane_by_lane() {
        let (a, b): ([u8; 64], [u8; 64]) = (std::array::from_fn(|l| l as u8), [200; 64]);
        for mask in [0, u64::MAX, 0x8000_0000_0000_0001, 0x0123_4567_89ab_cdef] {
            let want: [u8; 64] =
                std::array::from_fn(|l| if mask >> l & 1 == 1 { 200 } else { l as u8 });
            for path in paths() {
                assert_eq!(blend(mask, &a, &b, path), want, "{path:?}, mask {mask:x}");
            }
        }
    }

    /// Every path reads the last whole window and refuses, with a panic rather than
    /// a read out of bounds, a window that starts before the layer or runs past it.
    #[test]
    fn every_path_refuses_a_window_outside_the_layers() {
        let mut b = Builder::new(10, Read::Counted(3));
        b.record(0, 9, sum(false, 2));
        let b = b.finish().expect("fits");
        let last = b.block.len() as i64 - 64;
        let keys = Keys {
            mask: u64::MAX,
            ..Keys::default()
        };
        for path in paths() {
            for read in [Read::Blocks, Read::Hindered, Read::Counted(3)] {
                let judge = |at: i64| {
                    std::panic::catch_unwind(|| b.judge(0, &[0, at], &keys, read, path)).is_ok()
                };
                assert!(judge(last), "{path:?} {read:?}");
                assert!(!judge(last + 1), "{path:?} {read:?}");
                assert!(!judge(-1), "{path:?} {read:?}");
            }
        }
    }

    /// Builds one cell's bounds from its verdicts at keys 0, 1, ...
    fn one(verdicts: &[Sum]) -> Option<Bounds> {
        let mut b = Builder::new(1, Read::Counted(9));
        for (k, &s) in verdicts.iter().enumerate() {
            b.record(k, 0, s);
        }
        b.finish()
    }

    #[test]
    fn verdicts_that_shrink_as_the_key_rises_fit() {
        let (b, h, c) = (sum(true, 0), sum(false, 2), sum(false, 0));
        let bounds = one(&[b, b, h, h, c, c]).expect("fits");
        assert_eq!(
            (bounds.block[0], bounds.hinder[0], bounds.amount[0]),
            (2, 4, 2)
        );
        assert!(one(&[h, c]).is_some());
        assert!(one(&[c, c]).is_some());
    }

    /// Two amounts at or over the limit both reach it: they fit as the limit.
    #[test]
    fn amounts_over_the_limit_fit_as_the_limit() {
        let mut b = Builder::new(1, Read::Counted(3));
        b.record(0, 0, sum(false, 4));
        b.record(1, 0, sum(false, 3));
        let bounds = b.finish().expect("fits");
        assert_eq!((bounds.hinder[0], bounds.amount[0]), (2, 3));
        let mut b = Builder::new(1, Read::Counted(3));
        b.record(0, 0, sum(false, 3));
        b.record(1, 0, sum(false, 2));
        assert!(b.finish().is_none(), "under the limit the amounts differ");
    }

    #[test]
    fn verdicts_that_come_back_at_a_higher_key_do_not_fit() {
        let (b, h, c) = (sum(true, 0), sum(false, 1), sum(false, 0));
        assert!(one(&[c, b]).is_none(), "a block above a clear key");
        assert!(one(&[h, b]).is_none(), "a block above a hindered key");
        assert!(one(&[b, c, h]).is_none(), "a hindrance after a gap");
        assert!(one(&[h, sum(false, 2)]).is_none(), "two amounts");
        assert!(one(&[b, c, b]).is_none(), "blocks with a gap");
    }

    /// Random bounds over 200 cells, judged by both paths and by a lane-by-lane
    /// reading of the bounds' meaning.
    #[test]
    fn both_paths_read_the_bounds_as_they_are_meant() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for round in 0..300 {
            let size = 200;
            // Built for each way of reading them, from the same verdicts.
            let mut built =
                [Read::Counted(1), Read::Hindered, Read::Blocks].map(|r| Builder::new(size, r));
            for x in 0..size {
                let (blocks, hinders) = (next(4) as usize, next(4) as usize);
                let amount = 1 + next(3) as u32;
                for k in 0..blocks + hinders {
                    let s = sum(k < blocks, if k < blocks { 0 } else { amount });
                    built.iter_mut().for_each(|b| b.record(k, x, s));
                }
            }
            let [b, b_hindered, b_blocks] = built.map(|b| b.finish().expect("fits"));
            let at: Vec<i64> = (0..next(20)).map(|_| next(120) as i64).collect();
            let mut keys = Keys::default();
            for l in 0..64 {
                if next(5) > 0 {
                    keys.put(l, next(8) as u8);
                }
            }
            let limit = 1 + next(6) as u8;
            let (base0, mut want) = (next(10) as i64, Verdict::default());
            for l in (0..64).filter(|l| keys.mask >> l & 1 == 1) {
                let k = keys.key[l];
                let cells = at.iter().map(|&d| (base0 + d) as usize + l);
                let blocked = cells.clone().any(|x| k < b.block[x]);
                let hinders = cells.filter(|&x| k < b.hinder[x]);
                let total: u32 = hinders.clone().map(|x| b.amount[x] as u32).sum();
                want.blocked |= (blocked as u64) << l;
                want.hindered |= ((hinders.count() > 0) as u64) << l;
                want.over |= ((total >= limit as u32) as u64) << l;
            }
            for path in paths() {
                let judge = |b: &Bounds, read| b.judge(base0, &at, &keys, read, path);
                let got = judge(&b, Read::Counted(limit));
                // Once every lane is blocked the rest may go unread.
                if got.blocked == keys.mask {
                    assert_eq!(got.blocked, want.blocked, "round {round}");
                    continue;
                }
                assert_eq!(got, want, "round {round}, path {path:?}");
                let hindered = Verdict { over: 0, ..want };
                let blocks = Verdict {
                    hindered: 0,
                    ..hindered
                };
                for (b, read, want) in [
                    (&b, Read::Hindered, hindered),
                    (&b, Read::Blocks, blocks),
                    (&b_hindered, Read::Hindered, hindered),
                    (&b_blocks, Read::Blocks, blocks),
                ] {
                    assert_eq!(judge(b, read), want, "{read:?}, path {path:?}");
                }
            }
        }
    }
}
