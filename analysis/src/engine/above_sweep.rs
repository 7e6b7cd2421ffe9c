//! The sweep any kernel gets that promises its one rule is a top above the sight
//! line ([`Kernel::blocks_above_line`]), for whole-map matrices.
//!
//! Everything is read through the promise: per padded cell the kernel's
//! [`Kernel::top`], [`Kernel::eye`] and [`Kernel::target_eye`], and a stretch
//! blocks when its top is strictly above the line between the eyes, tested
//! exactly as `(s - e0) * den > a * k`. Where every eye lies on one lattice of
//! whole levels and the target's point is the eye plus a constant, lines
//! between ends of one eye level are tested 64 at a time from per-level
//! bitsets, and lines between levels 16 at a time with exact integer
//! thresholds (AVX-512, `vector.rs`); where the heights fit in 16 bits
//! (AVX-512BW), every line 32 at a time. The engine's tests compare this sweep
//! with the kernel's walker and the explained query on every ordered pair of
//! random maps.

use super::bits::{self, each_lane, lane_mask, sweep, window};
use super::grid::{Grid, Padded};
use super::lines::{Ends, HexRec, SideRec};
use super::offsets::{DqPairs, Offset, Place, Run};
use super::vector::{self, Built, Narrow, Thresholds};
use crate::rules::kernel::{Kernel, MILLI};

/// Heights beyond this many thousandths of a level leave the sweep to the
/// kernel's walker, so the `i32` heights and exact `i64` products below cannot overflow.
const HEIGHT_LIMIT: i64 = 100_000_000;

/// Most eye levels the per-level tables hold.
const LEVELS_MAX: i64 = 4096;

/// Per-level bitsets for lines between two hexes whose eyes are at one level.
struct Flat {
    /// Per eye level: bit `x` set when padded cell `x`'s top is above such a line.
    tall: Vec<Vec<u64>>,
    /// Per eye level: bit `x` set when padded cell `x` is a map hex with its eye there.
    at: Vec<Vec<u64>>,
}

/// Eyes on one lattice: `eye = eye_o + level * MILLI` and `target_eye = eye + diff`
/// for every map hex.
struct Lattice {
    /// The lowest eye.
    eye_o: i64,
    /// The target's point above the eye.
    diff: i64,
    /// The highest eye level.
    span: i64,
    /// Eye level per padded cell (0 off the map, where no line ends), with 64 spare cells.
    level: Vec<i32>,
    /// The levels and tops in 16 bits, where they fit.
    narrow: Option<Narrow>,
    /// Where the target's point is the eye (`diff` 0), so a line between one level is level.
    flat: Option<Flat>,
}

/// A walk laid out for one offset: `(index delta, k0, k1)` per hex stretch, the
/// hexside stretches, and the denominator of the `k`s.
type Laid<'a> = (&'a [(i32, u32, u32)], &'a [SideRec], i64);

/// What one thread's sweeps reuse from offset to offset: the walk laid out, and
/// the last vector thresholds built, whose floors the next image of the same
/// walk takes again ([`Thresholds::keep`]).
#[derive(Default)]
pub struct OffsetScratch {
    steps: Vec<(i32, u32, u32)>,
    kept: Option<Thresholds>,
}

/// The sweep's tables.
pub struct AboveSweep {
    /// The highest less the lowest value of the three tables below.
    spread: i64,
    /// Top per padded cell (never above a line off the map), with 64 spare cells.
    surface: Vec<i32>,
    /// The observer's eye per padded cell, with 64 spare cells.
    eye: Vec<i32>,
    /// The target's point per padded cell, with 64 spare cells.
    target: Vec<i32>,
    lattice: Option<Lattice>,
}

impl AboveSweep {
    /// The tables for a kernel that blocks above the line, or `None` for another
    /// kernel or where heights are too large for them.
    pub fn of<K: Kernel>(k: &K, grid: &Grid<K::Cell, K::Side>, p: &Padded) -> Option<AboveSweep> {
        if !k.blocks_above_line() {
            return None;
        }
        let index = p.index(k.map());
        let on = |x: usize| index[x] != u32::MAX;
        let heights = |x: usize| {
            let c = &grid.cells[x];
            (k.top(c), k.eye(c), k.target_eye(c))
        };
        let map_cells = || (0..p.size).filter(|&x| on(x)).map(heights);
        let too_big = |v: i64| v.abs() > HEIGHT_LIMIT;
        if map_cells().any(|(s, e, t)| too_big(s) || too_big(e) || too_big(t)) {
            return None;
        }
        let eye_min = map_cells().map(|(_, e, t)| e.min(t)).min()?;
        // Off the map nothing blocks: a top no higher than any sight line.
        let column = |f: &dyn Fn((i64, i64, i64)) -> i64, off: i64| -> Vec<i32> {
            let mut v: Vec<i32> = (0..p.size)
                .map(|x| if on(x) { f(heights(x)) } else { off } as i32)
                .collect();
            v.extend([off as i32; 64]);
            v
        };
        let surface = column(&|h| h.0, eye_min);
        let eye = column(&|h| h.1, 0);
        let target = column(&|h| h.2, 0);
        let lattice = Lattice::of(&eye, &target, p, &on)
            .map(|l| l.with_flat(&surface, p, &on).with_narrow(&surface));
        let all = || surface.iter().chain(&eye).chain(&target).map(|&v| v as i64);
        let spread = all().max()? - all().min()?;
        Some(AboveSweep {
            spread,
            surface,
            eye,
            target,
            lattice,
        })
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        let lattice = self.lattice.as_ref().map_or(0, |l| {
            l.level.len() * 4
                + l.flat
                    .as_ref()
                    .map_or(0, |f| f.tall.iter().map(|t| t.len() * 16).sum())
        });
        (self.surface.len() + self.eye.len() + self.target.len()) * 4 + lattice
    }

    /// Calls `seen(run, lanes)` with the lanes of each run of one offset whose line is seen;
    /// the vector paths only where `simd` (the per-offset thresholds only where the
    /// offset is [wide](Place::wide) enough to pay for them). Where `open` is given
    /// (`masks`, `n`), only the lanes its masks hold (one per run, in order), whose
    /// first and last `n` hex stretches [`AboveSweep::ends`] found clear: the
    /// stretches between are tested.
    #[allow(clippy::too_many_arguments)]
    pub fn offset(
        &self,
        o: &Offset,
        pairs: &DqPairs,
        dr: i32,
        simd: bool,
        scratch: &mut OffsetScratch,
        open: Option<(&[u64], usize)>,
        seen: &mut dyn FnMut(&Run, u64),
    ) {
        let (pools, w, at) = (o.pools, o.walk, &o.at);
        let OffsetScratch {
            steps: steps_buf,
            kept,
        } = scratch;
        debug_assert!(w.narrow(), "the sweep lays out 32-bit numerators");
        let (den, sides) = (w.den as i64, pools.sides_of(w));
        let seen_only = |run: &Run, clear: u64| {
            if clear != 0 {
                seen(run, clear);
            }
        };
        // Another image of the walk whose 16-bit thresholds are kept: only its
        // index deltas are laid out, into them (the thresholds take every hex
        // stretch, so the walk need not be laid out for anything else).
        let walk = o.walk_id().filter(|_| open.is_none());
        let built = self.bounds(at, simd, den);
        if let (Some(walk), Some(built)) = (walk, built) {
            let hexes = pools.hexes_of(w);
            let delta = |i: usize| at.delta(hexes[i].q, hexes[i].r) as isize;
            if Thresholds::again(kept, walk, hexes.len(), built, delta).is_some_and(|t| t.has16()) {
                let laid = (&[][..], sides, den);
                self.sweep_runs(
                    at,
                    laid,
                    (pairs, dr),
                    (simd, kept.as_ref()),
                    || u64::MAX,
                    seen_only,
                );
                return;
            }
        }
        // The walk laid out once for this offset, then swept over the groups.
        steps_buf.clear();
        let hexes = pools.hexes_of(w);
        if pools.sides_of(w).is_empty() {
            // Without side stretches a hex ends where the next begins.
            for (x, h) in hexes.iter().enumerate() {
                let k1 = hexes.get(x + 1).map_or(w.k_end, |next| next.k0);
                steps_buf.push((at.delta(h.q, h.r) as i32, h.k0 as u32, k1 as u32));
            }
        } else {
            steps_buf.extend(
                pools
                    .hex_spans(w)
                    .map(|(h, k1)| (at.delta(h.q, h.r) as i32, h.k0 as u32, k1 as u32)),
            );
        }
        let (masks, n) = open.unwrap_or((&[], 0));
        debug_assert!(
            n == 0 || pools.sides_of(w).is_empty(),
            "ends are walks of hexes"
        );
        let between = &steps_buf[n..steps_buf.len() - n];
        // The whole walk is named, so its next image can take the floors again.
        let thresholds = built.and_then(|built| Thresholds::keep(kept, between, built, walk));
        let mut k = 0;
        let open = || {
            k += 1;
            if open.is_some() {
                masks[k - 1]
            } else {
                u64::MAX
            }
        };
        let laid = (between, sides, den);
        self.sweep_runs(at, laid, (pairs, dr), (simd, thresholds), open, seen_only);
    }

    /// What the vector thresholds of a walk with denominator `den` are built with at
    /// this offset, or `None` where they do not serve: without `simd`, where too
    /// few lines share the walk, or where the eyes span too many levels.
    fn bounds(&self, at: &Place, simd: bool, den: i64) -> Option<Built> {
        let l = self.lattice.as_ref()?;
        if !simd || !at.wide || l.span > Thresholds::SPAN as i64 {
            return None;
        }
        let heights = l
            .narrow
            .as_ref()
            .map_or(vector::Heights::Wide, Narrow::heights);
        Some((den, l.span as i32, l.diff, heights))
    }

    /// Pushes to `clear`, for each run of one offset in order, the lanes whose line
    /// no stretch of the walk's `ends` cuts (the others are blocked).
    #[allow(clippy::too_many_arguments)]
    pub fn ends(
        &self,
        at: &Place,
        ends: &Ends,
        pairs: &DqPairs,
        dr: i32,
        simd: bool,
        scratch: &mut OffsetScratch,
        clear: &mut Vec<u64>,
    ) {
        let OffsetScratch {
            steps: steps_buf,
            kept,
        } = scratch;
        steps_buf.clear();
        let spans = ends.spans();
        steps_buf.extend(spans.map(|(q, r, k0, k1)| (at.delta(q, r) as i32, k0 as u32, k1 as u32)));
        let laid = (&steps_buf[..], &[][..], ends.den as i64);
        let thresholds = self
            .bounds(at, simd, ends.den as i64)
            .and_then(|built| Thresholds::keep(kept, &steps_buf[..], built, None));
        self.sweep_runs(
            at,
            laid,
            (pairs, dr),
            (simd, thresholds),
            || u64::MAX,
            |_, m| clear.push(m),
        );
    }

    /// Calls `clear(run, lanes)` for each run `dr` away of `pairs` with the lanes of
    /// `open()` (called once per run) whose line is seen along a walk laid out as
    /// `(steps, sides, den)`: `(index delta, k0, k1)` per hex stretch, then the
    /// hexside stretches; the vector paths only where `simd`, with `thresholds`
    /// (built for these steps) where given, which take every hex stretch.
    fn sweep_runs(
        &self,
        at: &Place,
        (steps, sides, den): Laid,
        (pairs, dr): (&DqPairs, i32),
        (simd, thresholds): (bool, Option<&Thresholds>),
        mut open: impl FnMut() -> u64,
        mut clear: impl FnMut(&Run, u64),
    ) {
        let cells = at.cells;
        let surface = &self.surface;
        let lattice = self.lattice.as_ref();
        let flat = lattice.and_then(|l| l.flat.as_ref().map(|f| (l, f)));
        let dt = at.dt;
        // Lines a few at a time without tables: eight at a time where exact in `f64`.
        let eight = simd
            && vector::best() == Some(vector::Isa::Avx512)
            && i128::from(self.spread) * i128::from(den) < vector::F64_EXACT;
        let tables = (&surface[..], &self.eye[..], &self.target[..]);
        // Where the 16-bit path runs, it takes every lane: 32 lines of any levels
        // at a time cost less than sorting them into levels for the bitsets.
        let narrow = match (&thresholds, lattice) {
            (Some(t), Some(l)) if t.has16() => l.narrow.as_ref(),
            _ => None,
        };
        // Most offsets: the 16-bit test takes every lane and every stretch (no
        // hexside ones), so a run is that one test and nothing else is read.
        if let (Some(t), Some(heights)) = (thresholds, narrow)
            && sides.is_empty()
        {
            return pairs.runs(dr, |run: Run| {
                let all = lane_mask(run.lanes) & open();
                let base0 = cells[run.a.idx[0] as usize] as i64 + (run.r0 - run.a.r_lo) as i64;
                let seen = if all == 0 {
                    0
                } else {
                    t.survivors16(heights, base0 as usize, dt as usize, all)
                };
                clear(&run, seen)
            });
        }
        // The stretches that last cut a group of eight lines ([`vector::clear_lanes`])
        // and the last lines of one level ([`sweep`]).
        let (mut hint, mut level_hint) = (usize::MAX, usize::MAX);
        pairs.runs(dr, |run: Run| {
            let all = lane_mask(run.lanes) & open();
            if all == 0 {
                return clear(&run, 0);
            }
            // Up to 64 consecutive observers: their cells are consecutive too, as
            // are all of their group's (one cache line for every run of a group).
            let base0 = cells[run.a.idx[0] as usize] as i64 + (run.r0 - run.a.r_lo) as i64;
            let (a, b) = (base0 as usize, (base0 + dt) as usize);
            let same = match flat {
                _ if narrow.is_some() => 0,
                Some((l, _)) => {
                    vector::equal_lanes(&l.level[a..a + 64], &l.level[b..b + 64], simd) & all
                }
                None => 0,
            };
            let mut uneven = all & !same;
            // Ends at different levels (every lane on the 16-bit path): 16 or
            // 32 lines at a time along their hex stretches where the CPU allows,
            // so only the hexside stretches are left one line at a time.
            let mut middle = steps;
            if let (Some(t), Some(l)) = (&thresholds, lattice) {
                uneven = match narrow {
                    Some(n) => t.survivors16(n, a, dt as usize, uneven),
                    None => t.survivors(surface, &l.level, a, dt as usize, l.eye_o as i32, uneven),
                };
                middle = &[];
            }
            // Nothing left to test (no hexside stretches) where the vector test took
            // every hex stretch: the eyes need not be read.
            let mut seen = 0;
            if middle.is_empty() && sides.is_empty() {
                seen = uneven;
            } else if eight {
                let clear = vector::clear_lanes(tables, (a, b), middle, den, uneven, &mut hint);
                // Hexside stretches (both hexes must block) one line at a time.
                each_lane(clear, |lane| {
                    let (e0, e1) = (self.eye[a + lane] as i64, self.target[b + lane] as i64);
                    let base = base0 + lane as i64;
                    if above_steps(&[], sides, surface, base, at.factors, e0, e1, den) {
                        seen |= 1 << lane;
                    }
                });
            } else {
                each_lane(uneven, |lane| {
                    let (e0, e1) = (self.eye[a + lane] as i64, self.target[b + lane] as i64);
                    let base = base0 + lane as i64;
                    if above_steps(middle, sides, surface, base, at.factors, e0, e1, den) {
                        seen |= 1 << lane;
                    }
                });
            }
            // Ends at one level: 64 lanes at a time, level by level.
            let mut rest = same;
            while let Some((l, flat)) = flat
                && rest != 0
            {
                let lv = l.level[a + rest.trailing_zeros() as usize] as usize;
                let mask = window(&flat.at[lv], a) & rest;
                rest &= !mask;
                let tall = &flat.tall[lv];
                let mut blocked = sweep(tall, base0, steps, |s| s.0 as i64, mask, &mut level_hint);
                for sd in sides {
                    if blocked & mask == mask {
                        break;
                    }
                    let (da, db) = (at.delta(sd.a.q, sd.a.r), at.delta(sd.b.q, sd.b.r));
                    blocked |=
                        window(tall, (base0 + da) as usize) & window(tall, (base0 + db) as usize);
                }
                seen |= mask & !blocked;
            }
            clear(&run, seen);
        });
    }
}

impl Lattice {
    /// The eyes' lattice, where every map hex's eye is the lowest plus whole levels
    /// and its target point the eye plus one constant, with at most [`LEVELS_MAX`]
    /// levels; the per-level bitsets where that constant is 0.
    fn of(eye: &[i32], target: &[i32], p: &Padded, on: &dyn Fn(usize) -> bool) -> Option<Lattice> {
        let map = || (0..p.size).filter(|&x| on(x));
        let eye_o = map().map(|x| eye[x] as i64).min()?;
        let first = map().next()?;
        let diff = target[first] as i64 - eye[first] as i64;
        let fits = map().all(|x| {
            let (e, t) = (eye[x] as i64, target[x] as i64);
            t - e == diff && (e - eye_o) % MILLI == 0
        });
        let span = map().map(|x| (eye[x] as i64 - eye_o) / MILLI).max()?;
        if !fits || span > LEVELS_MAX {
            return None;
        }
        let mut level: Vec<i32> = (0..p.size)
            .map(|x| if on(x) { (eye[x] as i64 - eye_o) / MILLI } else { 0 } as i32)
            .collect();
        level.extend([0; 64]);
        Some(Lattice {
            eye_o,
            diff,
            span,
            flat: None,
            level,
            narrow: None,
        })
    }

    /// The 16-bit levels and tops, where they fit.
    fn with_narrow(mut self, surface: &[i32]) -> Self {
        self.narrow = Narrow::of(surface, &self.level, self.eye_o, self.span, self.diff);
        self
    }

    /// The per-level bitsets, from the tops (`surface`): a line between two eyes at
    /// level `l` is level, so a top blocks it exactly when above that eye.
    fn with_flat(mut self, surface: &[i32], p: &Padded, on: &dyn Fn(usize) -> bool) -> Self {
        if self.diff != 0 {
            return self;
        }
        let mut flat = Flat {
            tall: Vec::new(),
            at: Vec::new(),
        };
        for l in 0..=self.span {
            let line = self.eye_o + l * MILLI;
            let (mut tall, mut at) = (bits::bitset(p.size), bits::bitset(p.size));
            for x in (0..p.size).filter(|&x| on(x)) {
                if surface[x] as i64 > line {
                    bits::set(&mut tall, x);
                }
                if self.level[x] as i64 == l {
                    bits::set(&mut at, x);
                }
            }
            flat.tall.push(tall);
            flat.at.push(at);
        }
        self.flat = Some(flat);
        self
    }
}

/// The kernel's test over a walk already laid out for one offset:
/// `(index delta, k0, k1)` per hex stretch, then the hexside stretches (both
/// hexes must block). True when the target is seen.
#[allow(clippy::too_many_arguments)]
#[inline]
fn above_steps(
    steps: &[(i32, u32, u32)],
    sides: &[SideRec],
    surface: &[i32],
    base: i64,
    (fa, fb): (i64, i64),
    e0: i64,
    e1: i64,
    den: i64,
) -> bool {
    let a = e1 - e0;
    // Above at fraction k/den: (s - e0) * den > a * k; the line rises or falls,
    // so the lower of the stretch's two ends is its entry when rising.
    let test = |&(d, k0, k1): &(i32, u32, u32)| {
        let k = if a >= 0 { k0 } else { k1 };
        (surface[(base + d as i64) as usize] as i64 - e0) * den > a * k as i64
    };
    // Most lines that are cut are cut next to one of their ends: next to the
    // lower end where the line is lowest, or next to the higher end where its
    // own hill rises to it. So the stretches are tested from both ends inwards,
    // four at each end at a time, branch-free within a group: a wrong guess
    // about whether a hex blocks costs more than testing a few hexes past it.
    let mut rest = steps;
    while rest.len() >= 8 {
        let (head, more) = rest.split_at(4);
        let (middle, tail) = more.split_at(more.len() - 4);
        let (head, tail): (&[_; 4], &[_; 4]) = (head.try_into().unwrap(), tail.try_into().unwrap());
        let hit = (test(&head[0]) | test(&head[1]) | test(&head[2]) | test(&head[3]))
            | (test(&tail[0]) | test(&tail[1]) | test(&tail[2]) | test(&tail[3]));
        if hit {
            return false;
        }
        rest = middle;
    }
    if rest.iter().fold(false, |hit, st| hit | test(st)) {
        return false;
    }
    let above = |h: &HexRec, k1: u64| {
        let s = surface[(base + fa * h.q as i64 + fb * h.r as i64) as usize] as i64;
        let k = if a >= 0 { h.k0 } else { k1 } as i64;
        (s - e0) * den > a * k
    };
    !sides.iter().any(|s| above(&s.a, s.k1) && above(&s.b, s.k1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Eight lines at a time in `f64` leave open exactly the lanes the one-line
        /// test finds clear, on rising, falling and level lines; few heights and
        /// fractions, so that many lines graze a top.
        #[test]
        fn eight_lines_at_a_time_match_the_one_line_test(
            surface in proptest::collection::vec(-6i32..6, 320),
            eye in proptest::collection::vec(-6i32..6, 320),
            target in proptest::collection::vec(-6i32..6, 320),
            steps in proptest::collection::vec((0i32..200, 0u32..=4, 0u32..=4), 0..40),
            quarter in 1i64..1_000_000,
            open: u64,
            (a, dt) in (0usize..40, 0usize..40),
            hint in 0usize..48,
        ) {
            if vector::best() != Some(vector::Isa::Avx512) {
                return Ok(());
            }
            // Entries and exits in order along the line, in quarters of `den`.
            let den = 4 * quarter;
            let steps: Vec<(i32, u32, u32)> = steps
                .iter()
                .map(|&(d, x, y)| (d, (x.min(y) as i64 * quarter) as u32, (x.max(y) as i64 * quarter) as u32))
                .collect();
            let b = a + dt;
            let mut want = 0u64;
            for l in (0..64).filter(|l| open >> l & 1 == 1) {
                let (e0, e1) = (eye[a + l] as i64, target[b + l] as i64);
                if above_steps(&steps, &[], &surface, (a + l) as i64, (0, 0), e0, e1, den) {
                    want |= 1 << l;
                }
            }
            // Whichever stretch is tried first (past the end: none), and again with
            // the one the first call left, a stretch that cut the lines it saw last.
            let tables = (&surface[..], &eye[..], &target[..]);
            let mut left = hint;
            let got = vector::clear_lanes(tables, (a, b), &steps, den, open, &mut left);
            prop_assert_eq!(got, want);
            prop_assert!(left == hint || left < steps.len(), "a stretch or the one given");
            let got = vector::clear_lanes(tables, (a, b), &steps, den, open, &mut left);
            prop_assert_eq!(got, want);
        }
    }
}
