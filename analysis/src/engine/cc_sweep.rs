//! The `combat-commander` family's specialised sweep, for whole-map matrices.
//!
//! Derived from the Combat Commander kernel: with the ends at one level `L`, no
//! crest or blind-hex rule applies, so whether a hex or crossed hexside blocks
//! depends only on `L`; with the ends at different levels and the higher at
//! `H`, only on `H`, except the blind-hex rule (T88.4.1) on the stretch next to
//! the lower end. So the sweep keeps, per level, one bit per padded cell (and
//! per side direction) of the kernel's own verdicts, tests 64 observers at once
//! with a few word operations, and asks the kernel lane by lane about the one
//! stretch the blind-hex rule reads. Hindrances never block in this family, so
//! they do not matter for "sees".

use super::bits::{self, each_lane, lane_mask, sweep, window};
use super::grid::{Grid, Padded};
use super::lines::{Edge, NO_DIR, Pools, Symmetry, Walk};
use super::offsets::{DqPairs, Offset, Run};
use crate::hex::{Hex, Ratio};
use crate::rules::LevelSide as Side;
use crate::rules::combat_commander::{Cell, Kernel};
use crate::rules::kernel::{At, End, Kernel as _, Notes, Quiet};

/// Per-level bitsets of the kernel's verdicts.
pub struct CcFlat {
    /// Per level `L`: the hex blocks a line between two ends at `L`.
    hexes: Vec<Vec<u64>>,
    /// Per level and direction: the hexside in that direction blocks a line whose higher end is at `L`.
    sides: Vec<[Vec<u64>; 6]>,
    /// Per level `H`: the hex blocks a line whose ends differ and whose higher end is
    /// at `H`, away from the lower end (where the blind-hex rule may also act).
    ge: Vec<Vec<u64>>,
    /// Per level: the cell is a map hex at that level.
    at: Vec<Vec<u64>>,
}

/// Ends at levels `lo` and `lt`, as the kernel reads them.
fn ends_at(k: &Kernel, lo: i32, lt: i32) -> crate::rules::combat_commander::Ends {
    let end = |level| End {
        hex: Hex::new(0, 0),
        cell: Cell {
            on_map: true,
            level,
            ..Cell::default()
        },
    };
    k.ends(end(lo), end(lt))
}

/// A stretch away from both ends.
const MIDDLE: At = At {
    hex: Hex::new(0, 0),
    t0: Ratio::ZERO,
    t1: Ratio::ONE,
    from: 2,
    to: 2,
    first: false,
    last: false,
};

impl CcFlat {
    /// The bitsets for the kernel's map.
    pub fn new(k: &Kernel, grid: &Grid<Cell, Side>, p: &Padded) -> CcFlat {
        let on = grid.cells.iter().filter(|c| c.on_map);
        let (lmin, lmax) = on.fold((i32::MAX, i32::MIN), |(a, b), c| {
            (a.min(c.level), b.max(c.level))
        });
        let mut flat = CcFlat {
            hexes: Vec::new(),
            sides: Vec::new(),
            ge: Vec::new(),
            at: Vec::new(),
        };
        let blocks = |e, c: &Cell| {
            let mut n = Quiet::default();
            k.hex(&e, c, MIDDLE, &mut n);
            n.all().block
        };
        for l in lmin..=lmax.max(lmin) {
            let (even, uneven) = (ends_at(k, l, l), ends_at(k, l - 1, l));
            let mut hx = bits::bitset(p.size);
            let mut ge = bits::bitset(p.size);
            let mut at = bits::bitset(p.size);
            let mut sd: [Vec<u64>; 6] = std::array::from_fn(|_| bits::bitset(p.size));
            for (x, c) in grid.cells.iter().enumerate() {
                if c.on_map && c.level == l {
                    bits::set(&mut at, x);
                }
                if blocks(even, c) {
                    bits::set(&mut hx, x);
                }
                if blocks(uneven, c) {
                    bits::set(&mut ge, x);
                }
                for (d, bits_d) in sd.iter_mut().enumerate() {
                    if let Some(s) = grid.side(x, d as u8) {
                        let mut n = Quiet::default();
                        k.cross(&even, s, Hex::new(0, 0), Hex::new(0, 0), &mut n);
                        if n.all().block {
                            bits::set(bits_d, x);
                        }
                    }
                }
            }
            flat.hexes.push(hx);
            flat.ge.push(ge);
            flat.at.push(at);
            flat.sides.push(sd);
        }
        flat
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        // Per level: hexes, ge, at and six side directions.
        self.hexes.iter().map(|h| h.len() * 8 * 9).sum()
    }

    /// The lanes of `mask` (observers at `base0 + lane`) whose line is blocked,
    /// with hex verdicts from `hexes` and side verdicts for level `l`.
    fn blocked_by(&self, hexes: &[u64], l: usize, laid: &CcLaid, base0: i64, mask: u64) -> u64 {
        let sides = &self.sides[l];
        let mut blocked = sweep(hexes, base0, &laid.hexes, |&d| d, mask);
        if blocked & mask == mask {
            return blocked;
        }
        let at = |d: i64| window(hexes, (base0 + d) as usize);
        for &(x, y) in &laid.sides {
            blocked |= at(x) & at(y);
        }
        for &(d, d1, d2) in &laid.crosses {
            if blocked & mask == mask {
                break;
            }
            let one = window(&sides[d1 as usize], (base0 + d) as usize);
            blocked |= if d2 == NO_DIR {
                one
            } else {
                one & window(&sides[d2 as usize], (base0 + d) as usize)
            };
        }
        blocked
    }

    /// Calls `seen(i, j)` for each pair of the runs of one offset whose line is seen;
    /// `sees(i, j)` answers a lane the bitsets do not cover.
    #[allow(clippy::too_many_arguments)]
    pub fn offset(
        &self,
        k: &Kernel,
        grid: &Grid<Cell, Side>,
        o: &Offset,
        syms: &[Symmetry; 12],
        pairs: &DqPairs,
        dr: i32,
        sees: &dyn Fn(usize, usize) -> bool,
        seen: &mut dyn FnMut(usize, usize),
    ) {
        let laid = CcLaid::new(o.pools, o.walk, &syms[o.g], o);
        let cells_of = o.cells;
        let dt = o.dt;
        pairs.runs(dr, |run: Run| {
            let base0 = cells_of[run.a.idx[(run.r0 - run.a.r_lo) as usize] as usize] as i64;
            let all = lane_mask(run.lanes);
            // The lanes by the ends' levels, from one bitset per level: ends at
            // one level `L`, or at different levels with the higher at `H`.
            let mut level_masks = [(0usize, 0u64); 64];
            let mut n_levels = 0;
            let mut high_masks = [(0usize, 0u64); 64];
            let mut n_highs = 0;
            let (mut below_o, mut below_t) = (0u64, 0u64);
            for (l, at) in self.at.iter().enumerate() {
                let o = window(at, base0 as usize) & all;
                let t = window(at, (base0 + dt) as usize) & all;
                if o & t != 0 && n_levels < 64 {
                    level_masks[n_levels] = (l, o & t);
                    n_levels += 1;
                }
                let high = (o & below_t) | (t & below_o);
                if high != 0 && n_highs < 64 {
                    high_masks[n_highs] = (l, high);
                    n_highs += 1;
                }
                below_o |= o;
                below_t |= t;
            }
            // Every map hex has a level the bitsets hold; anything else goes one line at a time.
            let covered = level_masks[..n_levels]
                .iter()
                .chain(&high_masks[..n_highs])
                .fold(0, |m, x| m | x.1);
            each_lane(all & !covered, |lane| {
                let (i, j) = run.pair(lane);
                if sees(i, j) {
                    seen(i, j);
                }
            });
            for &(l, mask) in &high_masks[..n_highs] {
                let blocked = self.blocked_by(&self.ge[l], l, &laid, base0, mask);
                each_lane(mask & !blocked, |lane| {
                    let base = base0 + lane as i64;
                    if !laid.blind(k, grid, base, dt) {
                        let (i, j) = run.pair(lane);
                        seen(i, j);
                    }
                });
            }
            for &(l, mask) in &level_masks[..n_levels] {
                let blocked = self.blocked_by(&self.hexes[l], l, &laid, base0, mask);
                each_lane(mask & !blocked, |lane| {
                    let (i, j) = run.pair(lane);
                    seen(i, j);
                });
            }
        });
    }
}

/// A walk laid out for one offset: index deltas, and crossings with their real directions.
struct CcLaid<'a> {
    hexes: Vec<i64>,
    sides: Vec<(i64, i64)>,
    crosses: Vec<(i64, u8, u8)>,
    walk: &'a Walk,
}

impl<'a> CcLaid<'a> {
    fn new(pools: &'a Pools, walk: &'a Walk, sym: &Symmetry, o: &Offset) -> Self {
        CcLaid {
            hexes: pools
                .hexes_of(walk)
                .iter()
                .map(|h| o.delta(h.q, h.r))
                .collect(),
            sides: pools
                .sides_of(walk)
                .iter()
                .map(|s| (o.delta(s.a.q, s.a.r), o.delta(s.b.q, s.b.r)))
                .collect(),
            crosses: pools
                .crosses_of(walk)
                .iter()
                .map(|c| {
                    let d2 = if c.d2 == NO_DIR {
                        NO_DIR
                    } else {
                        sym.dirs[c.d2 as usize]
                    };
                    (o.delta(c.q, c.r), sym.dirs[c.d1 as usize], d2)
                })
                .collect(),
            walk,
        }
    }

    /// True when the kernel blocks the pair (observer at padded `base`, target at
    /// `base + dt`) on the stretch next to its lower end: the only rule the
    /// per-level bitsets of uneven lines leave out (T88.4.1).
    fn blind(&self, k: &Kernel, grid: &Grid<Cell, Side>, base: i64, dt: i64) -> bool {
        let (co, ct) = (grid.cells[base as usize], grid.cells[(base + dt) as usize]);
        let zero = Hex::new(0, 0);
        let ends = k.ends(
            End {
                hex: zero,
                cell: co,
            },
            End {
                hex: zero,
                cell: ct,
            },
        );
        let next = if co.level < ct.level {
            self.walk.first
        } else {
            self.walk.last
        };
        let at = |e: Edge| At {
            first: self.walk.first == e,
            last: self.walk.last == e,
            ..MIDDLE
        };
        let judge = |d: i64, e: Edge| {
            let mut n = Quiet::default();
            k.hex(&ends, &grid.cells[(base + d) as usize], at(e), &mut n);
            n
        };
        match next {
            Edge::Hex(n) => judge(self.hexes[n as usize], next).all().block,
            Edge::Side(n) => {
                let (x, y) = self.sides[n as usize];
                let (a, b) = (judge(x, next), judge(y, next));
                k.along(&ends, &a, &b) == Some(crate::rules::Effect::Block)
            }
            Edge::None => false,
        }
    }
}
