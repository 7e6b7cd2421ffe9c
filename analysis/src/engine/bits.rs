//! Bit windows over per-cell bitsets, for testing 64 consecutive observers at once.

/// One bit per padded cell, with two spare words so a window may start at any cell.
pub fn bitset(size: usize) -> Vec<u64> {
    vec![0u64; size / 64 + 2]
}

/// Sets bit `x`.
#[inline]
pub fn set(bits: &mut [u64], x: usize) {
    bits[x / 64] |= 1 << (x % 64);
}

/// The 64 bits starting at bit `pos` of `bits`.
#[inline]
pub fn window(bits: &[u64], pos: usize) -> u64 {
    let (w, o) = (pos / 64, pos % 64);
    // Two shifts where one by `64 - o` would overflow at `o == 0`: no branch.
    bits[w] >> o | (bits[w + 1] << 1) << (63 - o)
}

/// Bits `0..lanes` set: the lanes of a group of up to 64 observers.
#[inline]
pub fn lane_mask(lanes: usize) -> u64 {
    if lanes == 64 {
        u64::MAX
    } else {
        (1 << lanes) - 1
    }
}

/// The or of the 64-bit windows of `bits` at `base0 + delta(x)` for each `x`
/// of `items`, four a round after the item `hint`, stopping once every lane of
/// `mask` is set; `hint` moves to the item of the last round that set the most
/// lanes still clear (any value is correct, past the end none).
#[inline]
pub fn sweep<T>(
    bits: &[u64],
    base0: i64,
    items: &[T],
    delta: impl Fn(&T) -> i64,
    mask: u64,
    hint: &mut usize,
) -> u64 {
    let at = |x: &T| window(bits, (base0 + delta(x)) as usize);
    let mut blocked = items.get(*hint).map_or(0, at);
    if blocked & mask == mask {
        return blocked;
    }
    let mut quads = items.chunks_exact(4);
    for (n, q) in (&mut quads).enumerate() {
        let w = [at(&q[0]), at(&q[1]), at(&q[2]), at(&q[3])];
        let with = blocked | w[0] | w[1] | w[2] | w[3];
        if with & mask == mask {
            let new = |k: usize| (w[k] & mask & !blocked).count_ones();
            *hint = 4 * n + (0..4).max_by_key(|&k| new(k)).unwrap_or(0);
            return with;
        }
        blocked = with;
    }
    quads.remainder().iter().fold(blocked, |b, x| b | at(x))
}

/// Calls `f(lane)` for each set bit of `bits`, lowest first.
#[inline]
pub fn each_lane(mut bits: u64, mut f: impl FnMut(usize)) {
    while bits != 0 {
        let lane = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        f(lane);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whichever item is tried first, the sweep sets in `mask` the lanes the or
        /// of every window sets, and leaves `hint` on an item or where it was.
        #[test]
        fn a_sweep_from_any_hint_sets_the_lanes_of_every_window(
            words in proptest::collection::vec(any::<u64>(), 12),
            sparse in 0u32..3,
            items in proptest::collection::vec(0i64..600, 0..30),
            base0 in 0i64..40,
            mask: u64,
            hint in 0usize..40,
        ) {
            // Sparse bits too, so that the early stop is not taken at once.
            let bits: Vec<u64> = words.iter().map(|&w| (0..sparse).fold(w, |w, _| w & w.rotate_left(17))).collect();
            let want = items.iter().fold(0, |b, &d| b | window(&bits, (base0 + d) as usize));
            let mut h = hint;
            for _ in 0..2 {
                let got = sweep(&bits, base0, &items, |&d| d, mask, &mut h);
                prop_assert_eq!(got & mask, want & mask);
                prop_assert!(h == hint || h < items.len(), "an item or the one given");
            }
        }
    }
}
