//! 64x64 bit blocks transposed and sheared: the whole-map matrix is swept by
//! diagonals and its rows built after, a block at a time ([`super::diagonals`]).

/// A block of 64 rows of 64 bits: bit `c` of row `r` is column `c`.
pub(crate) type Block = [u64; 64];

/// The transpose of `b` into `out`: bit `r` of row `c` is bit `c` of row `r` of `b`.
#[inline]
pub(crate) fn transpose(b: &Block, out: &mut Block) {
    #[cfg(target_arch = "x86_64")]
    if gfni() {
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { transpose_gfni(b, out) };
    }
    *out = transpose_swaps(b);
}

/// 128 words, the diagonals a block's pairs lie on.
pub(crate) type Window = [u64; 128];

/// Into `out` the block whose row `r` takes bit `c` from word `r + 63 - c` of `w`,
/// for each `c`: a block's 127 diagonals put in rows, column `c` moved up by `63 - c`.
#[inline]
pub(crate) fn shear(w: &Window, out: &mut Block) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has the feature the function is compiled for.
        return unsafe { shear_avx512(w, out) };
    }
    *out = shear_stages(w);
}

/// Columns whose move up has bit `b` set (`63 - c` has it where `c` has not), by `b`.
const SHEAR_MASKS: [u64; 6] = [
    0x5555_5555_5555_5555,
    0x3333_3333_3333_3333,
    0x0f0f_0f0f_0f0f_0f0f,
    0x00ff_00ff_00ff_00ff,
    0x0000_ffff_0000_ffff,
    0x0000_0000_ffff_ffff,
];

/// [`shear`] anywhere: six stages, stage `b` moving the columns of [`SHEAR_MASKS`]`[b]`
/// up by `2^b` words (word `k` reads word `k + 2^b`, not yet moved, so in place).
fn shear_stages(w: &Window) -> Block {
    let mut v = *w;
    for (b, m) in SHEAR_MASKS.iter().enumerate() {
        let s = 1 << b;
        for k in 0..128 {
            let up = v.get(k + s).copied().unwrap_or(0);
            v[k] = v[k] & !m | up & m;
        }
    }
    std::array::from_fn(|r| v[r])
}

/// [`shear`] with AVX-512: the 128 words in 16 registers; a move by 8 words or
/// more reads another register, a smaller one two registers aligned together.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn shear_avx512(w: &Window, out: &mut Block) {
    use std::arch::x86_64::*;
    let mut v: [__m512i; 17] = std::array::from_fn(|g| {
        // SAFETY: reads words 8g..8g+8 of `w` (the 17th register is zero).
        w.get(8 * g..8 * g + 8)
            .map_or(_mm512_setzero_si512(), |x| unsafe {
                _mm512_loadu_si512(x.as_ptr().cast())
            })
    });
    for (b, &m) in SHEAR_MASKS.iter().enumerate() {
        let m = _mm512_set1_epi64(m as i64);
        for g in 0..16 {
            let up = match b {
                0 => _mm512_alignr_epi64::<1>(v[g + 1], v[g]),
                1 => _mm512_alignr_epi64::<2>(v[g + 1], v[g]),
                2 => _mm512_alignr_epi64::<4>(v[g + 1], v[g]),
                _ => v
                    .get(g + (1 << (b - 3)))
                    .copied()
                    .unwrap_or(_mm512_setzero_si512()),
            };
            // Bits of `up` where `m` is set, else of `v[g]`.
            v[g] = _mm512_ternarylogic_epi64::<0xca>(m, up, v[g]);
        }
    }
    for (g, x) in v.into_iter().take(8).enumerate() {
        // SAFETY: writes words 8g..8g+8 of `out`.
        unsafe { _mm512_storeu_si512(out[8 * g..][..8].as_mut_ptr().cast(), x) };
    }
}

/// Whether the CPU transposes bytes in one instruction (GFNI) and permutes bytes
/// across a register (AVX-512 VBMI); `std` caches the answer.
#[cfg(target_arch = "x86_64")]
fn gfni() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vbmi")
        && std::arch::is_x86_feature_detected!("gfni")
}

/// [`transpose`] anywhere: six rounds, each swapping the off-diagonal halves of
/// every square of side 64, 32, ... 2 (Hacker's Delight, 7-3).
fn transpose_swaps(b: &Block) -> Block {
    let mut a = *b;
    let (mut j, mut m) = (32, 0x0000_0000_ffff_ffff_u64);
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
    a
}

/// [`transpose`] with AVX-512: the block as an 8x8 grid of 8x8 bit squares, one
/// square a 64-bit lane. Bytes are gathered so each lane holds one square (rows
/// in reverse, as the affine instruction reads them), each square is transposed
/// in place (`gf2p8affine` against the identity), the squares are moved to
/// their mirrored places (an 8x8 transpose of lanes across the registers), and
/// the bytes are put back in rows.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn transpose_gfni(b: &Block, out: &mut Block) {
    use std::arch::x86_64::*;
    // Register `g` holds rows 8g..8g+8 (byte 8 * row + col of the register).
    // Into lane `col`, byte `7 - row`: the square of rows 8g.. and bytes col.
    let gather: [u8; 64] = std::array::from_fn(|k| (8 * (7 - k % 8) + k / 8) as u8);
    // Lane `g`, byte `row` into lane `row`, byte `g` (a byte transpose).
    let scatter: [u8; 64] = std::array::from_fn(|k| (8 * (k % 8) + k / 8) as u8);
    // SAFETY: reads the 64 bytes of a table.
    let table = |t: &[u8; 64]| unsafe { _mm512_loadu_si512(t.as_ptr().cast()) };
    let (gather, scatter) = (table(&gather), table(&scatter));
    // Byte `k` of each lane is `1 << k`: the affine map reads its matrix's rows.
    let identity = _mm512_set1_epi64(0x8040_2010_0804_0201_u64 as i64);
    let mut v: [__m512i; 8] = std::array::from_fn(|g| {
        let rows: &[u64; 8] = b[8 * g..][..8].try_into().expect("8 rows");
        // SAFETY: reads the 64 bytes of `rows`.
        let x = unsafe { _mm512_loadu_si512(rows.as_ptr().cast()) };
        let squares = _mm512_permutexvar_epi8(gather, x);
        _mm512_gf2p8affine_epi64_epi8::<0>(identity, squares)
    });
    // Lane `c` of register `g` to lane `g` of register `c`: swap the off-diagonal
    // 4x4, then 2x2, then 1x1 squares of lanes.
    let swap = |v: &mut [__m512i; 8], s: usize, lo: [i64; 8], hi: [i64; 8]| {
        let (lo, hi) = (lanes(lo), lanes(hi));
        for g in (0..8).filter(|g| g & s == 0) {
            let (a, c) = (v[g], v[g + s]);
            v[g] = _mm512_permutex2var_epi64(a, lo, c);
            v[g + s] = _mm512_permutex2var_epi64(a, hi, c);
        }
    };
    swap(
        &mut v,
        4,
        [0, 1, 2, 3, 8, 9, 10, 11],
        [4, 5, 6, 7, 12, 13, 14, 15],
    );
    swap(
        &mut v,
        2,
        [0, 1, 8, 9, 4, 5, 12, 13],
        [2, 3, 10, 11, 6, 7, 14, 15],
    );
    swap(
        &mut v,
        1,
        [0, 8, 2, 10, 4, 12, 6, 14],
        [1, 9, 3, 11, 5, 13, 7, 15],
    );
    for (g, x) in v.into_iter().enumerate() {
        let rows: &mut [u64; 8] = (&mut out[8 * g..][..8]).try_into().expect("8 rows");
        // SAFETY: writes the 64 bytes of `rows`.
        unsafe {
            _mm512_storeu_si512(
                rows.as_mut_ptr().cast(),
                _mm512_permutexvar_epi8(scatter, x),
            )
        };
    }
}

/// The eight lanes of `v` in a register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn lanes(v: [i64; 8]) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::_mm512_loadu_si512;
    // SAFETY: reads the 64 bytes of `v`.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn by_definition(b: &Block) -> Block {
        std::array::from_fn(|c| (0..64).map(|r| (b[r] >> c & 1) << r).sum())
    }

    fn sheared_by_definition(w: &Window) -> Block {
        std::array::from_fn(|r| (0..64).map(|c| w[r + 63 - c] & 1 << c).sum())
    }

    proptest! {
        /// Both ways of shearing agree with the definition.
        #[test]
        fn diagonals_shear_by_definition(words in proptest::collection::vec(any::<u64>(), 128)) {
            let w: Window = words.try_into().unwrap();
            let want = sheared_by_definition(&w);
            prop_assert_eq!(shear_stages(&w), want);
            let mut got = [0; 64];
            shear(&w, &mut got);
            prop_assert_eq!(got, want);
        }

        /// Both ways of transposing a block agree with the definition, and
        /// transposing twice gives the block back.
        #[test]
        fn blocks_transpose_by_definition(rows in proptest::collection::vec(any::<u64>(), 64), sparse in any::<bool>()) {
            let mut b: Block = rows.try_into().unwrap();
            if sparse {
                // Single bits, so a bit moved to a wrong place shows.
                for (r, row) in b.iter_mut().enumerate() {
                    *row &= 1 << ((*row as usize + r) % 64);
                }
            }
            let want = by_definition(&b);
            prop_assert_eq!(transpose_swaps(&b), want);
            let (mut once, mut twice) = ([0; 64], [0; 64]);
            transpose(&b, &mut once);
            transpose(&once, &mut twice);
            prop_assert_eq!(once, want);
            prop_assert_eq!(twice, b);
        }
    }
}
