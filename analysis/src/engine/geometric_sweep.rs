//! The `geometric` family's specialised sweep, for whole-map matrices.
//!
//! Derived from the geometric kernel: the surfaces are the kernel's cells, and
//! the per-level bitsets of lines between ends at one level are the kernel's
//! own verdicts on every cell for that level (under equal eyes such a line is
//! level, so whether a hex blocks depends on nothing else). Lines between
//! levels are tested with exact integer thresholds (16 at a time with AVX-512,
//! `vector.rs`), the same test as the kernel's `above` rearranged; the engine's
//! tests compare this sweep with the kernel's walker and the explained query on
//! every ordered pair of random maps.

use super::bits::{self, each_lane, lane_mask, sweep, window};
use super::grid::{Grid, Padded};
use super::lines::{HexRec, SideRec};
use super::offsets::{DqPairs, Offset, Run};
use super::vector::{self, Thresholds};
use crate::hex::{Hex, Ratio};
use crate::rules::geometric::{Cell, Kernel, MILLI};
use crate::rules::kernel::{At, End, Kernel as _, Notes, Quiet};

/// Heights or levels beyond this many thousandths of a level leave the sweep to
/// the kernel's walker, so the `i32` surfaces and exact `i64` products below cannot overflow.
const HEIGHT_LIMIT: i64 = 100_000_000;

/// Per-level bitsets for lines between two hexes at one level.
struct Flat {
    /// Lowest level with a bitset.
    level_min: i32,
    /// Per level from `level_min`: bit `x` set when the kernel says padded cell `x` blocks such a line.
    tall: Vec<Vec<u64>>,
    /// Per level from `level_min`: bit `x` set when padded cell `x` is a map hex at that level.
    at: Vec<Vec<u64>>,
}

/// The geometric sweep's tables.
pub struct GeoSweep {
    /// Surface per padded cell (never blocking off the map), with 64 spare cells.
    surface: Vec<i32>,
    /// Ground level per padded cell (0 off the map, where no line ends), with 64 spare cells.
    level: Vec<i32>,
    /// How far apart the map's lowest and highest levels are.
    span: i64,
    observer_eye: i64,
    target_eye: i64,
    flat: Option<Flat>,
}

impl GeoSweep {
    /// The tables for the kernel's map, or `None` where heights are too large for them.
    pub fn of(k: &Kernel, grid: &Grid<Cell, ()>, p: &Padded) -> Option<GeoSweep> {
        let hs = &k.heights;
        let on: Vec<&Cell> = grid.cells.iter().filter(|c| c.on_map).collect();
        let (lmin, lmax) = on.iter().fold((i32::MAX, i32::MIN), |(a, b), c| {
            (a.min(c.level), b.max(c.level))
        });
        if on.is_empty() {
            return None;
        }
        let eye_min = lmin as i64 * MILLI + hs.observer_eye.min(hs.target_eye);
        let too_big = on.iter().any(|c| c.surface.abs() > HEIGHT_LIMIT)
            || [hs.observer_eye, hs.target_eye, eye_min]
                .iter()
                .any(|e| e.abs() > HEIGHT_LIMIT)
            || lmax as i64 - lmin as i64 > 4096;
        if too_big {
            return None;
        }
        // Off the map nothing blocks: a surface no higher than any sight line.
        let mut surface: Vec<i32> = grid
            .cells
            .iter()
            .map(|c| {
                if c.on_map {
                    c.surface as i32
                } else {
                    eye_min as i32
                }
            })
            .collect();
        surface.extend([eye_min as i32; 64]);
        let mut level: Vec<i32> = grid.cells.iter().map(|c| c.level).collect();
        level.extend([0; 64]);
        let flat = (hs.observer_eye == hs.target_eye).then(|| {
            let level_cell = |l: i32| End {
                hex: Hex::new(0, 0),
                cell: Cell {
                    on_map: true,
                    level: l,
                    surface: 0,
                },
            };
            let at = At {
                hex: Hex::new(0, 0),
                t0: Ratio::ZERO,
                t1: Ratio::ONE,
                from: 0,
                to: 0,
                first: false,
                last: false,
            };
            let mut flat = Flat {
                level_min: lmin,
                tall: Vec::new(),
                at: Vec::new(),
            };
            for l in lmin..=lmax {
                let ends = k.ends(level_cell(l), level_cell(l));
                let (mut tall, mut at_l) = (bits::bitset(p.size), bits::bitset(p.size));
                for (x, c) in grid.cells.iter().enumerate() {
                    let mut n = Quiet::default();
                    k.hex(&ends, c, at, &mut n);
                    if n.all().block {
                        bits::set(&mut tall, x);
                    }
                    if c.on_map && c.level == l {
                        bits::set(&mut at_l, x);
                    }
                }
                flat.tall.push(tall);
                flat.at.push(at_l);
            }
            flat
        });
        Some(GeoSweep {
            surface,
            level,
            span: lmax as i64 - lmin as i64,
            observer_eye: hs.observer_eye,
            target_eye: hs.target_eye,
            flat,
        })
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        (self.surface.len() + self.level.len()) * 4
            + self
                .flat
                .as_ref()
                .map_or(0, |f| f.tall.iter().map(|t| t.len() * 16).sum())
    }

    /// Calls `seen(i, j)` for each pair of the runs of one offset whose line is seen;
    /// the vector paths only where `simd` (the per-offset thresholds only where the
    /// offset is [wide](Offset::wide) enough to pay for them).
    pub fn offset(
        &self,
        o: &Offset,
        pairs: &DqPairs,
        dr: i32,
        simd: bool,
        steps_buf: &mut Vec<(i32, u32, u32)>,
        seen: &mut dyn FnMut(usize, usize),
    ) {
        let cells = o.cells;
        let (pools, w) = (o.pools, o.walk);
        debug_assert!(w.narrow(), "the sweep lays out 32-bit numerators");
        // The walk laid out once for this offset, then swept over the groups.
        steps_buf.clear();
        let hexes = pools.hexes_of(w);
        if pools.sides_of(w).is_empty() {
            // Without side stretches a hex ends where the next begins.
            let ends = hexes.iter().skip(1).map(|n| n.k0).chain([w.k_end]);
            steps_buf.extend(
                hexes
                    .iter()
                    .zip(ends)
                    .map(|(h, k1)| (o.delta(h.q, h.r) as i32, h.k0 as u32, k1 as u32)),
            );
        } else {
            steps_buf.extend(
                pools
                    .hex_spans(w)
                    .map(|(h, k1)| (o.delta(h.q, h.r) as i32, h.k0 as u32, k1 as u32)),
            );
        }
        let steps: &[(i32, u32, u32)] = steps_buf;
        let sides = pools.sides_of(w);
        let den = w.den as i64;
        let (surface, level) = (&self.surface, &self.level);
        let thresholds = (simd && o.wide && self.span <= Thresholds::SPAN as i64)
            .then(|| {
                Thresholds::of(
                    steps,
                    den,
                    self.span as i32,
                    self.target_eye - self.observer_eye,
                )
            })
            .flatten();
        let dt = o.dt;
        pairs.runs(dr, |run: Run| {
            // Up to 64 consecutive observers: their cells are consecutive too.
            let base0 = cells[run.a.idx[(run.r0 - run.a.r_lo) as usize] as usize] as i64;
            let lanes = run.lanes;
            let lv_o = &level[base0 as usize..base0 as usize + lanes];
            let lv_t = &level[(base0 + dt) as usize..(base0 + dt) as usize + lanes];
            let all = lane_mask(lanes);
            let same = if self.flat.is_some() {
                let (a, b) = (base0 as usize, (base0 + dt) as usize);
                vector::equal_lanes(&level[a..a + 64], &level[b..b + 64], simd) & all
            } else {
                0
            };
            let mut uneven = all & !same;
            // Ends at different levels: 16 lines at a time along their hex
            // stretches where the CPU allows, so only the hexside stretches are
            // left one line at a time.
            let mut middle = steps;
            if let Some(t) = &thresholds {
                uneven = t.survivors(
                    surface,
                    level,
                    base0 as usize,
                    dt as usize,
                    self.observer_eye as i32,
                    uneven,
                );
                middle = &[];
            }
            each_lane(uneven, |lane| {
                let e0 = lv_o[lane] as i64 * MILLI + self.observer_eye;
                let e1 = lv_t[lane] as i64 * MILLI + self.target_eye;
                if geometric_steps(
                    middle,
                    sides,
                    surface,
                    base0 + lane as i64,
                    o.factors,
                    e0,
                    e1,
                    den,
                ) {
                    let (i, j) = run.pair(lane);
                    seen(i, j);
                }
            });
            // Ends at one level: 64 lanes at a time, level by level.
            let mut rest = same;
            while let Some(flat) = &self.flat
                && rest != 0
            {
                let lv = lv_o[rest.trailing_zeros() as usize];
                let l = (lv - flat.level_min) as usize;
                let mask = window(&flat.at[l], base0 as usize) & rest;
                rest &= !mask;
                let tall = &flat.tall[l];
                let mut blocked = sweep(tall, base0, steps, |s| s.0 as i64, mask);
                for sd in sides {
                    if blocked & mask == mask {
                        break;
                    }
                    let (da, db) = (o.delta(sd.a.q, sd.a.r), o.delta(sd.b.q, sd.b.r));
                    blocked |=
                        window(tall, (base0 + da) as usize) & window(tall, (base0 + db) as usize);
                }
                each_lane(mask & !blocked, |lane| {
                    let (i, j) = run.pair(lane);
                    seen(i, j);
                });
            }
        });
    }
}

/// The kernel's test over a walk already laid out for one offset:
/// `(index delta, k0, k1)` per hex stretch, then the hexside stretches (both
/// hexes must block). True when the target is seen.
#[allow(clippy::too_many_arguments)]
#[inline]
fn geometric_steps(
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
