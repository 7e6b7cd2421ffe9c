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
/// of `items`, four a round, stopping once every lane of `mask` is set.
#[inline]
pub fn sweep<T>(
    bits: &[u64],
    base0: i64,
    items: &[T],
    delta: impl Fn(&T) -> i64,
    mask: u64,
) -> u64 {
    let at = |x: &T| window(bits, (base0 + delta(x)) as usize);
    let mut blocked = 0u64;
    let mut quads = items.chunks_exact(4);
    for q in &mut quads {
        blocked |= at(&q[0]) | at(&q[1]) | at(&q[2]) | at(&q[3]);
        if blocked & mask == mask {
            return blocked;
        }
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
