//! The sweep any kernel with level keys gets, for whole-map matrices.
//!
//! Where a kernel says a line's verdicts depend on one level alone
//! ([`Kernel::level_key`]), what each cell and each crossed hexside does to
//! such lines is a bit per level: this sweep asks the kernel once per cell,
//! level and direction ([`Kernel::keyed_ends`]) and then tests 64 lanes of
//! one offset with a few word operations. Everything the bits cannot settle
//! goes to the kernel's walker lane by lane: lines whose ends have no key,
//! lines the bits leave open on walks with stretches along a hexside (where a
//! kernel may combine the two sides its own way; a hex stretch that blocks
//! still blocks), and, in a family with a hindrance limit, lines that meet a
//! hindrance on a crossed hexside (the hexes' own hindrances are added 64 lines
//! at a time in bit-sliced counters, where the limit is at most 7).

use super::bits::{self, each_lane, lane_mask, sweep, window};
use super::grid::{Grid, Padded};
use super::lines::NO_DIR;
use super::offsets::{DqPairs, Offset};
use super::walker::Walker;
use crate::hex::{Hex, Ratio};
use crate::rules::kernel::{At, End, Kernel, Notes, Quiet, Span};

/// A stretch away from both ends.
const MIDDLE: At = At {
    hex: Hex::new(0, 0),
    t0: Ratio::ZERO,
    t1: Ratio::ONE,
    from: u32::MAX / 2,
    to: u32::MAX / 2,
    first: false,
    last: false,
};

/// Per-level bitsets of one kernel's verdicts.
pub struct LevelSweep {
    level_min: i32,
    /// Per level: the cell blocks a keyed line of that level.
    block: Vec<Vec<u64>>,
    /// Per level: the cell hinders such a line (only kept where the family has a limit).
    hinder: Vec<Vec<u64>>,
    /// Per level and direction: the crossed hexside blocks / hinders.
    side_block: Vec<[Vec<u64>; 6]>,
    side_hinder: Vec<[Vec<u64>; 6]>,
    /// Per level: the cell blocks, far from both ends, a line without a level key
    /// whose far key is that level (empty where the kernel has no far keys).
    far: Vec<Vec<u64>>,
    /// Per level and direction: the crossed hexside blocks such a line.
    far_side: Vec<[Vec<u64>; 6]>,
    /// Per level: the cell's hindrance to such a line as three bit planes (clamped
    /// to [`COUNTED_MAX`]), where the family's limit is at most that, so that
    /// hindered lines are added up 64 at a time instead of walked.
    amounts: Vec<[Vec<u64>; 3]>,
    /// The family's hindrance limit, where hindrances matter.
    limit: Option<u32>,
}

/// The highest hindrance limit the three-bit counters of [`LevelSweep::over_limit`] hold.
const COUNTED_MAX: u32 = 7;

impl LevelSweep {
    /// The bitsets of a kernel with level keys, or `None` for a kernel without.
    pub fn of<K: Kernel>(k: &K, grid: &Grid<K::Cell, K::Side>, p: &Padded) -> Option<LevelSweep> {
        // Keys are levels of the map, or as far beyond as the kernel says.
        let (lo, hi) = k
            .map()
            .cells()
            .iter()
            .fold((i32::MAX, i32::MIN), |(a, b), c| {
                (a.min(c.level), b.max(c.level))
            });
        if lo > hi {
            return None;
        }
        let (lo, hi) = k.key_range(lo, hi);
        if lo > hi || hi as i64 - lo as i64 > 4096 {
            return None;
        }
        let limit = k.hindrance_limit();
        let counted = limit.is_some_and(|l| l <= COUNTED_MAX);
        let mut s = LevelSweep {
            level_min: lo,
            block: Vec::new(),
            hinder: Vec::new(),
            side_block: Vec::new(),
            side_hinder: Vec::new(),
            far: Vec::new(),
            far_side: Vec::new(),
            amounts: Vec::new(),
            limit,
        };
        for l in lo..=hi {
            let e = k.keyed_ends(l)?;
            let (mut block, mut hinder) = (bits::bitset(p.size), bits::bitset(p.size));
            let mut amount: [Vec<u64>; 3] = std::array::from_fn(|_| {
                if counted {
                    bits::bitset(p.size)
                } else {
                    Vec::new()
                }
            });
            let mut sb: [Vec<u64>; 6] = std::array::from_fn(|_| bits::bitset(p.size));
            let mut sh: [Vec<u64>; 6] = std::array::from_fn(|_| bits::bitset(p.size));
            for (x, c) in grid.cells.iter().enumerate() {
                let mut n = Quiet::default();
                k.hex(&e, c, MIDDLE, &mut n);
                let sum = n.all();
                if sum.block {
                    bits::set(&mut block, x);
                } else if sum.hinder > 0 {
                    bits::set(&mut hinder, x);
                    if counted {
                        for (b, plane) in amount.iter_mut().enumerate() {
                            if sum.hinder.min(COUNTED_MAX) >> b & 1 == 1 {
                                bits::set(plane, x);
                            }
                        }
                    }
                }
                if grid.side_mask[x] == 0 {
                    continue;
                }
                for d in 0..6u8 {
                    if let Some(side) = grid.side(x, d) {
                        let mut n = Quiet::default();
                        let a = p.axial.first().copied().unwrap_or(Hex::new(0, 0));
                        k.cross(&e, side, a, a, &mut n);
                        let sum = n.all();
                        if sum.block {
                            bits::set(&mut sb[d as usize], x);
                        } else if sum.hinder > 0 {
                            bits::set(&mut sh[d as usize], x);
                        }
                    }
                }
            }
            if let Some(fe) = k.far_ends(l) {
                let (bits_l, sides_l) = Self::blocks(k, grid, p, &fe);
                s.far.push(bits_l);
                s.far_side.push(sides_l);
            }
            s.block.push(block);
            s.side_block.push(sb);
            if limit.is_some() {
                s.hinder.push(hinder);
                s.side_hinder.push(sh);
            }
            if counted {
                s.amounts.push(amount);
            }
        }
        Some(s)
    }

    /// What blocks lines with ends `e` far from both ends: per cell, and per crossed side.
    fn blocks<K: Kernel>(
        k: &K,
        grid: &Grid<K::Cell, K::Side>,
        p: &Padded,
        e: &K::Ends,
    ) -> (Vec<u64>, [Vec<u64>; 6]) {
        let mut block = bits::bitset(p.size);
        let mut sides: [Vec<u64>; 6] = std::array::from_fn(|_| bits::bitset(p.size));
        let zero = Hex::new(0, 0);
        for (x, c) in grid.cells.iter().enumerate() {
            let mut n = Quiet::default();
            k.hex(e, c, MIDDLE, &mut n);
            if n.all().block {
                bits::set(&mut block, x);
            }
            for d in 0..6u8 {
                if let Some(side) = grid.side(x, d) {
                    let mut n = Quiet::default();
                    k.cross(e, side, zero, zero, &mut n);
                    if n.all().block {
                        bits::set(&mut sides[d as usize], x);
                    }
                }
            }
        }
        (block, sides)
    }

    /// The lanes of `lanes` whose hex stretches' hindrances at level index `li` add
    /// up to `limit` or more (and to more than none): three-bit counters, one bit
    /// plane each, saturating at 7, in one pass over the walk.
    fn over_limit(&self, li: usize, base0: i64, hexes: &[i64], lanes: u64, limit: u32) -> u64 {
        if lanes == 0 {
            return 0;
        }
        let p = &self.amounts[li];
        let (mut c0, mut c1, mut c2) = (0u64, 0u64, 0u64);
        for &d in hexes {
            let x = (base0 + d) as usize;
            let (a0, a1, a2) = (
                window(&p[0], x) & lanes,
                window(&p[1], x) & lanes,
                window(&p[2], x) & lanes,
            );
            if a0 | a1 | a2 == 0 {
                continue;
            }
            let (s0, k0) = (c0 ^ a0, c0 & a0);
            let (s1, k1) = (c1 ^ a1 ^ k0, (c1 & a1) | (k0 & (c1 ^ a1)));
            let (s2, k2) = (c2 ^ a2 ^ k1, (c2 & a2) | (k1 & (c2 ^ a2)));
            (c0, c1, c2) = (s0 | k2, s1 | k2, s2 | k2);
        }
        // Counter >= limit, bit by bit from the lowest: where the limit's bit is set
        // the counter's must be too (and the rest at least the limit's), else either.
        let mut at_least = u64::MAX;
        for (b, c) in [c0, c1, c2].into_iter().enumerate() {
            at_least = if limit >> b & 1 == 1 {
                c & at_least
            } else {
                c | at_least
            };
        }
        (c0 | c1 | c2) & at_least
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        let per = |v: &Vec<Vec<u64>>| v.iter().map(|b| b.len() * 8).sum::<usize>();
        (per(&self.block) + per(&self.hinder)) * 7
            + self
                .amounts
                .iter()
                .flatten()
                .map(|b| b.len() * 8)
                .sum::<usize>()
    }

    /// Calls `seen(i, j)` for each pair of the runs `dr` away whose line is seen.
    pub fn offset<K: Kernel>(
        &self,
        w: &Walker<K>,
        o: &Offset,
        pairs: &DqPairs,
        dr: i32,
        spans: &mut Vec<Span<K::Cell>>,
        seen: &mut dyn FnMut(usize, usize),
    ) {
        let (pools, walk) = (o.pools, o.walk);
        let k = w.kernel;
        let sym = &w.syms[o.g];
        let sides_free = pools.sides_of(walk).is_empty();
        let hexes: Vec<i64> = pools
            .hexes_of(walk)
            .iter()
            .map(|h| o.delta(h.q, h.r))
            .collect();
        let crosses: Vec<(i64, u8)> = pools
            .crosses_of(walk)
            .iter()
            .filter(|c| c.d2 == NO_DIR)
            .map(|c| (o.delta(c.q, c.r), sym.dirs[c.d1 as usize]))
            .collect();
        let cells = &w.padded.cell;
        // The lanes of one run by key index, and the keys met in the run: set up once
        // per offset, and cleared as each key is swept.
        let mut keyed = vec![0u64; self.block.len()];
        let mut far = vec![0u64; self.far.len()];
        let (mut keyed_met, mut far_met) = (Vec::with_capacity(64), Vec::with_capacity(64));
        pairs.runs(dr, |run| {
            let base0 = cells[run.a.idx[(run.r0 - run.a.r_lo) as usize] as usize] as i64;
            let mut slow = 0u64;
            for lane in 0..run.lanes {
                let (i, j) = run.pair(lane);
                let c = |x: usize| End {
                    hex: w.padded.axial[x],
                    cell: w.grid.cells[cells[x] as usize],
                };
                let ends = k.ends(c(i), c(j));
                let (key, masks, met) = match k.level_key(&ends) {
                    Some(l) => (Some(l), &mut keyed, &mut keyed_met),
                    None => (k.far_key(&ends), &mut far, &mut far_met),
                };
                let at = key.and_then(|l| usize::try_from(l - self.level_min).ok());
                match at.and_then(|li| masks.get_mut(li).map(|m| (li, m))) {
                    Some((li, m)) => {
                        if *m == 0 {
                            met.push(li);
                        }
                        *m |= 1 << lane;
                    }
                    // No key, or one beyond the bitsets: walked.
                    None => slow |= 1 << lane,
                }
            }
            // Lines without a level key: what blocks far from the ends blocks them
            // anywhere; the lanes left are walked.
            for li in far_met.drain(..) {
                let mask = std::mem::take(&mut far[li]);
                let mut blocked = sweep(&self.far[li], base0, &hexes, |&d| d, mask);
                for &(d, dir) in &crosses {
                    if blocked & mask == mask {
                        break;
                    }
                    blocked |= window(&self.far_side[li][dir as usize], (base0 + d) as usize);
                }
                slow |= mask & !blocked;
            }
            for li in keyed_met.drain(..) {
                let mask = std::mem::take(&mut keyed[li]);
                let mut blocked = sweep(&self.block[li], base0, &hexes, |&d| d, mask);
                for &(d, dir) in &crosses {
                    if blocked & mask == mask {
                        break;
                    }
                    blocked |= window(&self.side_block[li][dir as usize], (base0 + d) as usize);
                }
                let mut open = mask & !blocked;
                if !sides_free {
                    // A stretch along a hexside is the kernel's to combine: what
                    // the bits leave open is walked.
                    slow |= open;
                    continue;
                }
                if let Some(limit) = self.limit
                    && open != 0
                {
                    let mut by_sides = 0;
                    for &(d, dir) in &crosses {
                        by_sides |=
                            window(&self.side_hinder[li][dir as usize], (base0 + d) as usize);
                    }
                    // Hexside hindrances are walked; the hexes' own are added here.
                    let walked = if limit <= COUNTED_MAX {
                        open &= !self.over_limit(li, base0, &hexes, open & !by_sides, limit);
                        by_sides
                    } else {
                        sweep(&self.hinder[li], base0, &hexes, |&d| d, open) | by_sides
                    };
                    slow |= open & walked;
                    open &= !walked;
                }
                each_lane(open & lane_mask(run.lanes), |lane| {
                    let (i, j) = run.pair(lane);
                    seen(i, j);
                });
            }
            each_lane(slow, |lane| {
                let (i, j) = run.pair(lane);
                if !w.eval::<false>(pools, walk, o.g, i, j, spans).blocked() {
                    seen(i, j);
                }
            });
        });
    }
}
