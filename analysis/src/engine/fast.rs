//! The fast, exact, verdict-only evaluation of one pair, for whole-map analyses.
//!
//! It reads the same ruleset tables as the family code in `rules/` and applies
//! the same rules (see the doc comments of `rules::geometric` and
//! `rules::combat_commander`), but without strings or events: the map is laid
//! into a padded axial grid so that a walk's stretch is one add and one load
//! away, heights are compared in exact integer arithmetic, and the walk stops
//! at the first blocker. Families without a fast form take the plain path
//! ([`line_of_sight`]). The test `fast_path_matches_plain_path` cross-checks
//! both on random maps, every ordered pair.

use super::lines::{CrossRec, Edge, HexRec, Lines, NO_DIR, Symmetry, Walk};
use super::vector::{self, Thresholds};
use crate::hex::Hex;
use crate::los::line_of_sight;
use crate::map::Map;
use crate::rules::geometric::{Heights, MILLI};
use crate::rules::{Family, LosEffect, Verdict};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// A blocked line's "hindrance", so a sum can never be mistaken for it.
const BLOCK: u32 = u32::MAX;

/// The answer for one pair: the verdict and the total hindrance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sight {
    /// Clear, hindered or blocked.
    pub verdict: Verdict,
    /// Total hindrance (0 when clear or blocked).
    pub hindrance: u32,
}

impl Sight {
    fn from_total(total: u32) -> Sight {
        match total {
            BLOCK => Sight {
                verdict: Verdict::Blocked,
                hindrance: 0,
            },
            0 => Sight {
                verdict: Verdict::Clear,
                hindrance: 0,
            },
            h => Sight {
                verdict: Verdict::Hindered,
                hindrance: h,
            },
        }
    }
}

/// Combines the two hexes beside a stretch along a hexside, as
/// `rules::both_sides` does: blocked if both block, else the lesser hindrance
/// (0 stands for "no effect", which is the same for the verdict).
#[inline]
fn both(x: u32, y: u32) -> u32 {
    match (x == BLOCK, y == BLOCK) {
        (true, true) => BLOCK,
        (true, false) => y,
        (false, true) => x,
        (false, false) => x.min(y),
    }
}

#[inline]
fn add(total: u32, x: u32) -> u32 {
    if x == BLOCK {
        BLOCK
    } else {
        total.saturating_add(x).min(BLOCK - 1)
    }
}

/// What one hex is, for the Combat Commander rules.
#[derive(Clone, Copy, Debug, Default)]
struct CcCell {
    on_map: bool,
    level: i32,
    /// 0 clear, 1 obstacle, 2 hindrance `hinder`.
    terrain: u8,
    hinder: u32,
    marker_block: bool,
    marker_hinder: u32,
}

/// A hexside feature for Combat Commander: its effect and the level it stands at.
#[derive(Clone, Copy, Debug, Default)]
struct CcSide {
    /// 0 none, [`BLOCK`], or a hindrance.
    effect: u32,
    level: i32,
}

/// For lines between two hexes at the same level under equal eyes the sight line
/// is level, so a hex blocks exactly when its surface is above that eye height:
/// one bit per hex and level, tested for 64 observers at once.
struct Flat {
    /// Lowest level with a bitset.
    level_min: i32,
    /// Per level from `level_min`: bit `x` set when padded cell `x` rises above the eye.
    tall: Vec<Vec<u64>>,
    /// Per level from `level_min`: bit `x` set when padded cell `x` is a map hex at that level.
    at: Vec<Vec<u64>>,
}

impl Flat {
    /// The 64 bits starting at bit `pos` of level `l`'s set.
    #[inline]
    fn window(&self, l: usize, pos: usize) -> u64 {
        Self::window_of(&self.tall[l], pos)
    }

    /// The 64 bits starting at bit `pos` of `bits`.
    #[inline]
    fn window_of(bits: &[u64], pos: usize) -> u64 {
        let (w, o) = (pos / 64, pos % 64);
        // Two shifts where one by `64 - o` would overflow at `o == 0`: no branch.
        bits[w] >> o | (bits[w + 1] << 1) << (63 - o)
    }
}

/// Bits `0..lanes` set: the lanes of a group of up to 64 observers.
#[inline]
fn lane_mask(lanes: usize) -> u64 {
    if lanes == 64 {
        u64::MAX
    } else {
        (1 << lanes) - 1
    }
}

/// The or of the 64-bit windows of `bits` at `base0 + delta(x)` for each `x`
/// of `items`, four a round, stopping once every lane of `mask` is set.
#[inline]
fn sweep<T>(bits: &[u64], base0: i64, items: &[T], delta: impl Fn(&T) -> i64, mask: u64) -> u64 {
    let at = |x: &T| Flat::window_of(bits, (base0 + delta(x)) as usize);
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

enum Rules {
    Geometric {
        surface: Vec<i32>,
        /// How far apart the map's lowest and highest levels are.
        span: i64,
        /// Ground level per padded cell (0 off the map, where no line ends), and 64 spare cells.
        level: Vec<i32>,
        observer_eye: i64,
        target_eye: i64,
        flat: Option<Flat>,
    },
    CombatCommander {
        cells: Vec<CcCell>,
        sides: Vec<CcSide>,
        flat: CcFlat,
    },
    Plain,
}

/// Answers "does observer `i` see target `j`" for hexes of one map, by index.
pub struct Engine<'m> {
    map: &'m Map,
    lines: Option<Lines>,
    rules: Rules,
    /// Padded-grid index of each map hex.
    cell: Vec<u32>,
    /// Axial coordinates of each map hex.
    axial: Vec<Hex>,
    stride: i64,
    /// Per symmetry, the index factors for the padded grid.
    factors: [(i64, i64); 12],
    groups: Vec<Group>,
    /// Whether [`Thresholds::survivors`] and other vector paths may run on this CPU.
    simd: bool,
}

/// The hexes of the map with one axial `q`, by `r` from `r_lo`.
#[derive(Clone, Debug)]
pub struct Group {
    /// Axial q.
    pub q: i32,
    /// Smallest r.
    pub r_lo: i32,
    /// Map index of each hex, by `r - r_lo`.
    pub idx: Vec<u32>,
}

/// Heights or levels beyond this many thousandths of a level take the plain path,
/// so the exact products below cannot overflow.
const HEIGHT_LIMIT: i64 = 100_000_000;

impl<'m> Engine<'m> {
    /// Prepares the map: the padded grid and, for families with a fast form, the walks.
    pub fn new(map: &'m Map) -> Engine<'m> {
        let axial: Vec<Hex> = map.hexes().collect();
        let pad = 2;
        let q0 = axial.iter().map(|h| h.q).min().unwrap_or(0) - pad;
        let q1 = axial.iter().map(|h| h.q).max().unwrap_or(0) + pad;
        let r0 = axial.iter().map(|h| h.r).min().unwrap_or(0) - pad;
        let r1 = axial.iter().map(|h| h.r).max().unwrap_or(0) + pad;
        let stride = (r1 - r0 + 1) as i64;
        let size = (q1 - q0 + 1) as usize * stride as usize;
        let at = |h: Hex| (h.q - q0) as usize * stride as usize + (h.r - r0) as usize;
        let cell: Vec<u32> = axial.iter().map(|&h| at(h) as u32).collect();
        let rs = &map.ruleset;
        let rules = match rs.family {
            Family::Geometric => {
                let hs = Heights::of(map);
                let surf: Vec<i64> = map
                    .cells()
                    .iter()
                    .map(|c| c.level as i64 * MILLI + hs.terrain[c.terrain as usize])
                    .collect();
                let eye_min = map
                    .cells()
                    .iter()
                    .map(|c| c.level as i64 * MILLI)
                    .min()
                    .unwrap_or(0)
                    + hs.observer_eye.min(hs.target_eye);
                let too_big = surf
                    .iter()
                    .chain([&hs.observer_eye, &hs.target_eye])
                    .any(|s| s.abs() > HEIGHT_LIMIT)
                    || eye_min.abs() > HEIGHT_LIMIT;
                if too_big {
                    Rules::Plain
                } else {
                    // Off the map nothing blocks: a surface no higher than any sight line.
                    // i32 halves the cache footprint; HEIGHT_LIMIT keeps every value in range.
                    let mut surface = vec![eye_min as i32; size];
                    for (i, &s) in surf.iter().enumerate() {
                        surface[cell[i] as usize] = s as i32;
                    }
                    let (lmin, lmax) =
                        map.cells().iter().fold((i32::MAX, i32::MIN), |(a, b), c| {
                            (a.min(c.level), b.max(c.level))
                        });
                    let flat = (hs.observer_eye == hs.target_eye).then(|| {
                        let tall = (lmin..=lmax)
                            .map(|l| {
                                let eye = l as i64 * MILLI + hs.observer_eye;
                                // Two spare words so a window may start at any cell.
                                let mut bits = vec![0u64; size / 64 + 2];
                                for (x, &s) in surface.iter().enumerate() {
                                    if s as i64 > eye {
                                        bits[x / 64] |= 1 << (x % 64);
                                    }
                                }
                                bits
                            })
                            .collect();
                        let at = (lmin..=lmax)
                            .map(|l| {
                                let mut bits = vec![0u64; size / 64 + 2];
                                for (i, c) in map.cells().iter().enumerate() {
                                    if c.level == l {
                                        let x = cell[i] as usize;
                                        bits[x / 64] |= 1 << (x % 64);
                                    }
                                }
                                bits
                            })
                            .collect();
                        Flat {
                            level_min: lmin,
                            tall,
                            at,
                        }
                    });
                    // 64 spare cells, like `surface`, for the vector path's loads.
                    let mut level = vec![0i32; size + 64];
                    for (i, c) in map.cells().iter().enumerate() {
                        level[cell[i] as usize] = c.level;
                    }
                    // 64 spare cells past the grid (never blocking) for the vector path's loads.
                    surface.extend([eye_min as i32; 64]);
                    let span = lmax as i64 - lmin as i64;
                    Rules::Geometric {
                        surface,
                        span,
                        level,
                        observer_eye: hs.observer_eye,
                        target_eye: hs.target_eye,
                        flat,
                    }
                }
            }
            Family::CombatCommander => {
                let mut cells = vec![CcCell::default(); size];
                for (i, c) in map.cells().iter().enumerate() {
                    let t = &rs.terrain[c.terrain as usize];
                    let (terrain, hinder) = match t.los {
                        LosEffect::Clear => (0, 0),
                        LosEffect::Obstacle => (1, 0),
                        LosEffect::Hindrance(v) => (2, v.min(BLOCK - 1)),
                    };
                    cells[cell[i] as usize] = CcCell {
                        on_map: true,
                        level: c.level,
                        terrain,
                        hinder,
                        marker_block: false,
                        marker_hinder: 0,
                    };
                }
                for m in &map.markers {
                    let Some(i) = map.index(m.hex) else { continue };
                    let c = &mut cells[cell[i] as usize];
                    match rs.markers[m.kind as usize].los {
                        LosEffect::Obstacle => c.marker_block = true,
                        LosEffect::Hindrance(v) => c.marker_hinder = add(c.marker_hinder, v),
                        LosEffect::Clear => {}
                    }
                }
                let mut sides = vec![CcSide::default(); size * 6];
                let inside = |h: Hex| h.q >= q0 && h.q <= q1 && h.r >= r0 && h.r <= r1;
                for (side, f) in &map.hexsides {
                    let effect = match rs.hexsides[f.kind as usize].los {
                        LosEffect::Clear => 0,
                        LosEffect::Obstacle => BLOCK,
                        LosEffect::Hindrance(v) => v.min(BLOCK - 1),
                    };
                    let level = [side.a, side.b]
                        .iter()
                        .filter_map(|h| map.cell(*h))
                        .map(|c| c.level)
                        .max()
                        .unwrap_or(0);
                    for (x, y) in [(side.a, side.b), (side.b, side.a)] {
                        if inside(x)
                            && let Some(d) = x.direction_to(y)
                        {
                            sides[at(x) * 6 + d] = CcSide { effect, level };
                        }
                    }
                }
                let flat = CcFlat::new(&cells, &sides, size);
                Rules::CombatCommander { cells, sides, flat }
            }
            // Units and depressions shape these families' lines: one full query per pair.
            Family::Asl | Family::Napoleonic | Family::Miniatures => Rules::Plain,
        };
        let syms = super::lines::symmetries();
        let factors = syms.map(|s| s.strides(stride));
        let lines = (!matches!(rules, Rules::Plain)).then(|| Lines::for_map(map));
        let mut groups: Vec<Group> = Vec::new();
        let mut order: Vec<usize> = (0..axial.len()).collect();
        order.sort_by_key(|&i| (axial[i].q, axial[i].r));
        for i in order {
            let h = axial[i];
            match groups.last_mut() {
                Some(g) if g.q == h.q => {
                    debug_assert_eq!(
                        g.r_lo + g.idx.len() as i32,
                        h.r,
                        "a q line of the map has a gap"
                    );
                    g.idx.push(i as u32);
                }
                _ => groups.push(Group {
                    q: h.q,
                    r_lo: h.r,
                    idx: vec![i as u32],
                }),
            }
        }
        Engine {
            map,
            lines,
            rules,
            cell,
            axial,
            stride,
            factors,
            groups,
            simd: vector::available(),
        }
    }

    /// Turns the vector paths off (or back on where the CPU has them), so
    /// tests can compare both paths on one machine.
    pub fn set_simd(&mut self, on: bool) {
        self.simd = on && vector::available();
    }

    /// The map.
    pub fn map(&self) -> &Map {
        self.map
    }

    /// True when the ruleset has a fast form here (otherwise every pair takes the plain path).
    pub fn is_fast(&self) -> bool {
        self.lines.is_some()
    }

    /// True when "`i` sees `j`" always equals "`j` sees `i`", so a matrix may
    /// compute one triangle and mirror it.
    pub fn is_reciprocal(&self) -> bool {
        match &self.rules {
            Rules::Geometric {
                observer_eye,
                target_eye,
                ..
            } => observer_eye == target_eye,
            Rules::CombatCommander { .. } => true,
            Rules::Plain => false,
        }
    }

    /// Bytes of precomputed walks and grids.
    pub fn bytes(&self) -> usize {
        let grid = match &self.rules {
            Rules::Geometric { surface, flat, .. } => {
                surface.len() * 8
                    + flat
                        .as_ref()
                        .map_or(0, |f| f.tall.iter().map(|t| t.len() * 16).sum())
            }
            Rules::CombatCommander { cells, sides, flat } => {
                flat.bytes() + cells.len() * size_of::<CcCell>() + sides.len() * size_of::<CcSide>()
            }
            Rules::Plain => 0,
        };
        grid + self.lines.as_ref().map_or(0, |l| l.bytes()) + self.cell.len() * 12
    }

    /// Whether observer `i` sees target `j` (map indices).
    #[inline]
    pub fn sees(&self, i: usize, j: usize) -> bool {
        self.total(i, j) != BLOCK
    }

    /// The verdict and hindrance for observer `i` and target `j` (map indices).
    pub fn sight(&self, i: usize, j: usize) -> Sight {
        Sight::from_total(self.total(i, j))
    }

    /// The total hindrance, or [`BLOCK`].
    #[inline]
    fn total(&self, i: usize, j: usize) -> u32 {
        if i == j {
            return self.plain(i, j);
        }
        let Some(lines) = &self.lines else {
            return self.plain(i, j);
        };
        let d = self.axial[j] - self.axial[i];
        let Some((walk, g)) = lines.lookup(d) else {
            return self.plain(i, j);
        };
        if !walk.exact {
            return self.plain(i, j);
        }
        self.eval(lines, walk, g, i, j)
    }

    /// Evaluates pair (`i`, `j`) whose offset has `walk` under symmetry `g`.
    #[inline]
    fn eval(&self, lines: &Lines, walk: &Walk, g: usize, i: usize, j: usize) -> u32 {
        if i == j || !walk.exact {
            return self.plain(i, j);
        }
        let sym = &lines.syms[g];
        let (fa, fb) = self.factors[g];
        let base = self.cell[i] as i64;
        let at = |q: i16, r: i16| (base + fa * q as i64 + fb * r as i64) as usize;
        match &self.rules {
            Rules::Geometric {
                surface,
                observer_eye,
                target_eye,
                ..
            } => {
                let cells = self.map.cells();
                let e0 = cells[i].level as i64 * MILLI + observer_eye;
                let e1 = cells[j].level as i64 * MILLI + target_eye;
                geometric(lines, walk, surface, e0, e1, at)
            }
            Rules::CombatCommander { cells, sides, .. } => {
                let lo = self.map.cells()[i].level;
                let lt = self.map.cells()[j].level;
                combat_commander(lines, walk, sym, cells, sides, lo, lt, at)
            }
            Rules::Plain => self.plain(i, j),
        }
    }

    /// The map's hexes grouped by axial `q`; within a group `r` runs without gaps.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// For every pair of groups `dq` apart in `q` (`b.q = a.q + dq`), every
    /// observer `i` in `a` and every target `j` in `b` (with `j` at or after `i`
    /// in `r` when `dq` is 0), calls `seen(i, j)` when `i` sees `j`. Together the
    /// calls for `dq` from 0 up cover one of each pair `(i, j)`, `(j, i)` (and
    /// each hex with itself).
    ///
    /// Pairs are taken offset by offset, so each walk is laid out once and then
    /// swept over every group it joins. Returns false if `stop` was set.
    pub fn half_for_dq(
        &self,
        dq: i32,
        stop: &AtomicBool,
        mut seen: impl FnMut(usize, usize),
    ) -> bool {
        // The pairs of groups `dq` apart, and the `dr` their hexes span.
        let pairs: Vec<(&Group, &Group)> = self
            .groups
            .iter()
            .filter_map(|a| {
                let k = self
                    .groups
                    .binary_search_by_key(&(a.q + dq), |g| g.q)
                    .ok()?;
                Some((a, &self.groups[k]))
            })
            .collect();
        let span = |a: &Group, b: &Group| {
            let (alo, ahi) = (a.r_lo, a.r_lo + a.idx.len() as i32 - 1);
            let (blo, bhi) = (b.r_lo, b.r_lo + b.idx.len() as i32 - 1);
            (if dq == 0 { 0 } else { blo - ahi }, bhi - alo)
        };
        let dr_lo = pairs.iter().map(|&(a, b)| span(a, b).0).min();
        let dr_hi = pairs.iter().map(|&(a, b)| span(a, b).1).max();
        let (Some(dr_lo), Some(dr_hi)) = (dr_lo, dr_hi) else {
            return true;
        };
        // The observers of `a` whose target `dr` away lies in `b`.
        let rows = |a: &Group, b: &Group, dr: i32| {
            let r_from = a.r_lo.max(b.r_lo - dr);
            let r_to = (a.r_lo + a.idx.len() as i32 - 1).min(b.r_lo + b.idx.len() as i32 - 1 - dr);
            (r_from, r_to)
        };
        // Reused for every offset: a walk laid out as (index delta, k0, k1).
        let mut steps_buf: Vec<(i32, u32, u32)> = Vec::new();
        {
            for dr in dr_lo..=dr_hi {
                if stop.load(AtomicOrdering::Relaxed) {
                    return false;
                }
                let found = self
                    .lines
                    .as_ref()
                    .and_then(|l| l.lookup(Hex::new(dq, dr)).map(|(w, g)| (l, w, g)));
                if let (
                    Some((l, w, g)),
                    Rules::Geometric {
                        surface,
                        span,
                        level,
                        observer_eye,
                        target_eye,
                        flat,
                    },
                ) = (found, &self.rules)
                    && w.exact
                    && (dq, dr) != (0, 0)
                {
                    // The walk laid out once for this offset, then swept over the group.
                    let (fa, fb) = self.factors[g];
                    steps_buf.clear();
                    let hexes = l.hexes_of(w);
                    if l.sides_of(w).is_empty() {
                        // Without side stretches a hex ends where the next begins.
                        let ends = hexes.iter().skip(1).map(|n| n.k0).chain([w.k_end]);
                        steps_buf.extend(
                            hexes.iter().zip(ends).map(|(h, k1)| {
                                ((fa * h.q as i64 + fb * h.r as i64) as i32, h.k0, k1)
                            }),
                        );
                    } else {
                        steps_buf.extend(
                            l.hex_spans(w).map(|(h, k1)| {
                                ((fa * h.q as i64 + fb * h.r as i64) as i32, h.k0, k1)
                            }),
                        );
                    }
                    let steps: &[(i32, u32, u32)] = &steps_buf;
                    let sides = l.sides_of(w);
                    let den = w.den as i64;
                    let thresholds = (self.simd && *span <= Thresholds::SPAN as i64)
                        .then(|| {
                            Thresholds::of(steps, den, *span as i32, target_eye - observer_eye)
                        })
                        .flatten();
                    // From an observer's cell to its target's.
                    let dt = dq as i64 * self.stride + dr as i64;
                    for &(a, b) in &pairs {
                        let (r_from, r_to) = rows(a, b, dr);
                        let mut r0 = r_from;
                        while r0 <= r_to {
                            // Up to 64 consecutive observers: their cells are consecutive too.
                            let lanes = (r_to - r0 + 1).min(64) as usize;
                            let base0 = self.cell[a.idx[(r0 - a.r_lo) as usize] as usize] as i64;
                            // The ends' levels, lane by lane, from the padded grid.
                            let lv_o = &level[base0 as usize..base0 as usize + lanes];
                            let lv_t = &level[(base0 + dt) as usize..(base0 + dt) as usize + lanes];
                            let all = lane_mask(lanes);
                            let same = if flat.is_some() {
                                let (o, t) = (base0 as usize, (base0 + dt) as usize);
                                vector::equal_lanes(&level[o..o + 64], &level[t..t + 64], self.simd)
                                    & all
                            } else {
                                0
                            };
                            let mut uneven = all & !same;
                            // Ends at different levels: 16 lines at a time along
                            // their hex stretches where the CPU allows, so only
                            // the hexside stretches are left one line at a time.
                            let mut middle = steps;
                            if let Some(t) = &thresholds {
                                uneven = t.survivors(
                                    surface,
                                    level,
                                    base0 as usize,
                                    dt as usize,
                                    *observer_eye as i32,
                                    uneven,
                                );
                                middle = &[];
                            }
                            while uneven != 0 {
                                let lane = uneven.trailing_zeros() as usize;
                                uneven &= uneven - 1;
                                let e0 = lv_o[lane] as i64 * MILLI + observer_eye;
                                let e1 = lv_t[lane] as i64 * MILLI + target_eye;
                                if geometric_steps(
                                    middle,
                                    sides,
                                    surface,
                                    base0 + lane as i64,
                                    (fa, fb),
                                    e0,
                                    e1,
                                    den,
                                ) {
                                    let r = r0 + lane as i32;
                                    seen(
                                        a.idx[(r - a.r_lo) as usize] as usize,
                                        b.idx[(r + dr - b.r_lo) as usize] as usize,
                                    );
                                }
                            }
                            // Ends at one level: 64 lanes at a time, level by level.
                            let mut rest = same;
                            while let Some(flat) = flat
                                && rest != 0
                            {
                                let lv = lv_o[rest.trailing_zeros() as usize];
                                let l = (lv - flat.level_min) as usize;
                                let mask = Flat::window_of(&flat.at[l], base0 as usize) & rest;
                                rest &= !mask;
                                let mut blocked =
                                    sweep(&flat.tall[l], base0, steps, |s| s.0 as i64, mask);
                                for sd in sides {
                                    if blocked & mask == mask {
                                        break;
                                    }
                                    let da = fa * sd.a.q as i64 + fb * sd.a.r as i64;
                                    let db = fa * sd.b.q as i64 + fb * sd.b.r as i64;
                                    blocked |= flat.window(l, (base0 + da) as usize)
                                        & flat.window(l, (base0 + db) as usize);
                                }
                                let mut open = mask & !blocked;
                                while open != 0 {
                                    let lane = open.trailing_zeros() as i32;
                                    open &= open - 1;
                                    let r = r0 + lane;
                                    seen(
                                        a.idx[(r - a.r_lo) as usize] as usize,
                                        b.idx[(r + dr - b.r_lo) as usize] as usize,
                                    );
                                }
                            }
                            r0 += 64;
                        }
                    }
                    continue;
                }
                if let (Some((l, w, g)), Rules::CombatCommander { cells, sides, flat }) =
                    (found, &self.rules)
                    && w.exact
                    && (dq, dr) != (0, 0)
                {
                    let laid = CcLaid::new(l, w, g, self.factors[g]);
                    let levels = self.map.cells();
                    // From an observer's cell to its target's.
                    let dt = dq as i64 * self.stride + dr as i64;
                    for &(a, b) in &pairs {
                        let (r_from, r_to) = rows(a, b, dr);
                        let mut r0 = r_from;
                        while r0 <= r_to {
                            // Up to 64 consecutive observers; ends at one level go 64 at a time.
                            let lanes = (r_to - r0 + 1).min(64) as usize;
                            let base0 = self.cell[a.idx[(r0 - a.r_lo) as usize] as usize] as i64;
                            let all = lane_mask(lanes);
                            // The lanes by the ends' levels, from one bitset per
                            // level: ends at one level `L`, or at different levels
                            // with the higher at `H`.
                            let mut level_masks = [(0i32, 0u64); 64];
                            let mut n_levels = 0;
                            let mut high_masks = [(0i32, 0u64); 64];
                            let mut n_highs = 0;
                            let (mut below_o, mut below_t) = (0u64, 0u64);
                            for (k, at) in flat.at.iter().enumerate() {
                                let level = flat.level_min + k as i32;
                                let o = CcFlat::window(at, base0) & all;
                                let t = CcFlat::window(at, base0 + dt) & all;
                                if o & t != 0 {
                                    level_masks[n_levels] = (level, o & t);
                                    n_levels += 1;
                                }
                                let high = (o & below_t) | (t & below_o);
                                if high != 0 {
                                    high_masks[n_highs] = (level, high);
                                    n_highs += 1;
                                }
                                below_o |= o;
                                below_t |= t;
                            }
                            // Every map hex has a level the bitsets hold; anything
                            // else goes one line at a time.
                            let mut rest = all & !(below_o & below_t);
                            while rest != 0 {
                                let lane = rest.trailing_zeros() as usize;
                                rest &= rest - 1;
                                let (lo, lt) = (
                                    cells[base0 as usize + lane].level,
                                    cells[(base0 + dt) as usize + lane].level,
                                );
                                let r = r0 + lane as i32;
                                let i = a.idx[(r - a.r_lo) as usize] as usize;
                                let j = b.idx[(r + dr - b.r_lo) as usize] as usize;
                                if laid.eval(cells, sides, base0 + lane as i64, lo, lt) != BLOCK {
                                    seen(i, j);
                                }
                            }
                            for &(high, mask) in &high_masks[..n_highs] {
                                let blocked = flat.blocked_uneven(&laid, high, base0, mask);
                                let mut open = mask & !blocked;
                                while open != 0 {
                                    let lane = open.trailing_zeros() as i32;
                                    open &= open - 1;
                                    let r = r0 + lane;
                                    let i = a.idx[(r - a.r_lo) as usize] as usize;
                                    let j = b.idx[(r + dr - b.r_lo) as usize] as usize;
                                    let (lo, lt) = (levels[i].level, levels[j].level);
                                    // The blind-hex rule (T88.4.1) acts on the stretch next to the lower end only.
                                    let next = if lo < lt { laid.first } else { laid.last };
                                    let base = base0 + lane as i64;
                                    let judge = |d: i64| {
                                        cc_judge(&cells[(base + d) as usize], lo, lt, true) == BLOCK
                                    };
                                    let blind = match next {
                                        Edge::Hex(n) => judge(laid.hexes[n as usize]),
                                        Edge::Side(n) => {
                                            let (x, y) = laid.sides[n as usize];
                                            judge(x) && judge(y)
                                        }
                                        Edge::None => false,
                                    };
                                    if !blind {
                                        seen(i, j);
                                    }
                                }
                            }
                            for &(level, mask) in &level_masks[..n_levels] {
                                let blocked = flat.blocked(&laid, level, base0, mask);
                                let mut open = mask & !blocked;
                                while open != 0 {
                                    let lane = open.trailing_zeros() as i32;
                                    open &= open - 1;
                                    let r = r0 + lane;
                                    seen(
                                        a.idx[(r - a.r_lo) as usize] as usize,
                                        b.idx[(r + dr - b.r_lo) as usize] as usize,
                                    );
                                }
                            }
                            r0 += 64;
                        }
                    }
                    continue;
                }
                for &(a, b) in &pairs {
                    let (r_from, r_to) = rows(a, b, dr);
                    for r in r_from..=r_to {
                        let i = a.idx[(r - a.r_lo) as usize] as usize;
                        let j = b.idx[(r + dr - b.r_lo) as usize] as usize;
                        let t = match found {
                            Some((l, w, g)) => self.eval(l, w, g, i, j),
                            None => self.plain(i, j),
                        };
                        if t != BLOCK {
                            seen(i, j);
                        }
                    }
                }
            }
        }
        true
    }

    fn plain(&self, i: usize, j: usize) -> u32 {
        let r = line_of_sight(self.map, self.map.hex_of(i), self.map.hex_of(j));
        match r.verdict {
            Verdict::Blocked => BLOCK,
            _ => r.hindrance.min(BLOCK - 1),
        }
    }

    /// The padded grid's row stride (for tests and diagnostics).
    pub fn stride(&self) -> i64 {
        self.stride
    }
}

/// Geometric: a hex blocks when its surface is strictly above the sight line at
/// the lower end of its stretch; along a hexside both hexes must.
#[inline]
fn geometric(
    lines: &Lines,
    walk: &Walk,
    surface: &[i32],
    e0: i64,
    e1: i64,
    at: impl Fn(i16, i16) -> usize,
) -> u32 {
    let a = e1 - e0;
    let den = walk.den as i64;
    // Above at fraction k/den: (s - e0) * den > a * k. The line rises or falls,
    // so the lower of the stretch's two ends is its entry when rising.
    let rising = a >= 0;
    let above = |q: i16, r: i16, k0: u32, k1: u32| {
        let s = surface[at(q, r)] as i64;
        let k = if rising { k0 } else { k1 } as i64;
        (s - e0) * den > a * k
    };
    for (rec, k1) in lines.hex_spans(walk) {
        if above(rec.q, rec.r, rec.k0, k1) {
            return BLOCK;
        }
    }
    for s in lines.sides_of(walk) {
        if above(s.a.q, s.a.r, s.a.k0, s.k1) && above(s.b.q, s.b.r, s.b.k0, s.k1) {
            return BLOCK;
        }
    }
    0
}

/// [`geometric`] over a walk already laid out for one offset: `(index delta, k0, k1)`.
/// True when the target is seen.
#[allow(clippy::too_many_arguments)]
#[inline]
fn geometric_steps(
    steps: &[(i32, u32, u32)],
    sides: &[super::lines::SideRec],
    surface: &[i32],
    base: i64,
    (fa, fb): (i64, i64),
    e0: i64,
    e1: i64,
    den: i64,
) -> bool {
    let a = e1 - e0;
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
    let above = |h: &HexRec, k1: u32| {
        let s = surface[(base + fa * h.q as i64 + fb * h.r as i64) as usize] as i64;
        let k = if a >= 0 { h.k0 } else { k1 } as i64;
        (s - e0) * den > a * k
    };
    !sides.iter().any(|s| above(&s.a, s.k1) && above(&s.b, s.k1))
}

/// What one hex between the ends does (T88.3, T88.4, T88.4.1, T88.5, markers):
/// 0 nothing, a hindrance, or [`BLOCK`]. `next` marks the hex entered first from the lower end.
#[inline]
fn cc_judge(c: &CcCell, lo: i32, lt: i32, next: bool) -> u32 {
    let high = lo.max(lt);
    if !c.on_map {
        return 0;
    }
    if c.marker_block || c.level > high || (lo != lt && c.level == high) {
        return BLOCK;
    }
    match c.terrain {
        1 if c.level >= high => BLOCK,
        1 if lo != lt && lo.min(lt) <= c.level && next => BLOCK,
        2 if c.level >= high => add(c.marker_hinder, c.hinder),
        _ => c.marker_hinder,
    }
}

/// A hexside feature crossed by a line whose higher end is at `high`.
#[inline]
fn cc_side(f: CcSide, high: i32) -> u32 {
    if f.effect == 0 || f.level < high {
        0
    } else {
        f.effect
    }
}

/// Combat Commander lines between two hexes at the same level `L`: no crest or
/// blind-hex rule applies, so whether a hex or hexside blocks depends only on
/// `L`. One bit per padded cell and level (and per side direction), tested for
/// 64 observers at once. Hindrances never block in this family, so they do not
/// matter for "sees".
struct CcFlat {
    level_min: i32,
    /// Per level: the hex blocks (blaze, higher ground, an obstacle at level `L`).
    hexes: Vec<Vec<u64>>,
    /// Per level and direction: the hexside in that direction blocks.
    sides: Vec<[Vec<u64>; 6]>,
    /// Per level `H`: the hex blocks a line whose ends differ and whose higher
    /// end is at `H` (blaze, or ground at `H` or above), blind hexes aside.
    ge: Vec<Vec<u64>>,
    /// Per level: the cell is a map hex at that level.
    at: Vec<Vec<u64>>,
}

impl CcFlat {
    fn new(cells: &[CcCell], sides: &[CcSide], size: usize) -> CcFlat {
        let on = cells.iter().filter(|c| c.on_map);
        let (lmin, lmax) = on.fold((i32::MAX, i32::MIN), |(a, b), c| {
            (a.min(c.level), b.max(c.level))
        });
        let words = size / 64 + 2;
        let mut flat = CcFlat {
            level_min: lmin,
            hexes: Vec::new(),
            sides: Vec::new(),
            ge: Vec::new(),
            at: Vec::new(),
        };
        for l in lmin..=lmax.max(lmin) {
            let mut hx = vec![0u64; words];
            let mut ge = vec![0u64; words];
            let mut at = vec![0u64; words];
            let mut sd: [Vec<u64>; 6] = std::array::from_fn(|_| vec![0u64; words]);
            for (x, c) in cells.iter().enumerate() {
                if c.on_map && c.level == l {
                    at[x / 64] |= 1 << (x % 64);
                }
                if cc_judge(c, l, l, false) == BLOCK {
                    hx[x / 64] |= 1 << (x % 64);
                }
                if c.on_map && (c.marker_block || c.level >= l) {
                    ge[x / 64] |= 1 << (x % 64);
                }
                for (d, bits) in sd.iter_mut().enumerate() {
                    if cc_side(sides[x * 6 + d], l) == BLOCK {
                        bits[x / 64] |= 1 << (x % 64);
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

    fn bytes(&self) -> usize {
        // Per level: hexes, ge, at and six side directions.
        self.hexes.iter().map(|h| h.len() * 8 * 9).sum()
    }

    #[inline]
    fn window(bits: &[u64], pos: i64) -> u64 {
        Flat::window_of(bits, pos as usize)
    }

    /// The lanes of `mask` (observers at `base0 + lane`, ends at `level`) whose line is blocked.
    fn blocked(&self, laid: &CcLaid, level: i32, base0: i64, mask: u64) -> u64 {
        let l = (level - self.level_min) as usize;
        self.blocked_by(&self.hexes[l], l, laid, base0, mask)
    }

    /// Like [`CcFlat::blocked`] for ends at different levels with the higher at
    /// `high`, except the blind-hex rule, which the caller checks lane by lane.
    fn blocked_uneven(&self, laid: &CcLaid, high: i32, base0: i64, mask: u64) -> u64 {
        let l = (high - self.level_min) as usize;
        self.blocked_by(&self.ge[l], l, laid, base0, mask)
    }

    fn blocked_by(&self, hexes: &[u64], l: usize, laid: &CcLaid, base0: i64, mask: u64) -> u64 {
        let sides = &self.sides[l];
        let mut blocked = sweep(hexes, base0, &laid.hexes, |&d| d, mask);
        if blocked & mask == mask {
            return blocked;
        }
        let at = |d: i64| Self::window(hexes, base0 + d);
        for &(x, y) in &laid.sides {
            blocked |= at(x) & at(y);
        }
        for &(d, d1, d2) in &laid.crosses {
            if blocked & mask == mask {
                break;
            }
            let one = Self::window(&sides[d1 as usize], base0 + d);
            blocked |= if d2 == NO_DIR {
                one
            } else {
                one & Self::window(&sides[d2 as usize], base0 + d)
            };
        }
        blocked
    }
}

/// A Combat Commander walk laid out for one offset: index deltas, with the
/// stretch next to each end, and crossings with their real directions.
struct CcLaid {
    hexes: Vec<i64>,
    sides: Vec<(i64, i64)>,
    crosses: Vec<(i64, u8, u8)>,
    first: Edge,
    last: Edge,
}

impl CcLaid {
    fn new(lines: &Lines, walk: &Walk, g: usize, (fa, fb): (i64, i64)) -> CcLaid {
        let sym = &lines.syms[g];
        let d = |q: i16, r: i16| fa * q as i64 + fb * r as i64;
        CcLaid {
            hexes: lines.hexes_of(walk).iter().map(|h| d(h.q, h.r)).collect(),
            sides: lines
                .sides_of(walk)
                .iter()
                .map(|s| (d(s.a.q, s.a.r), d(s.b.q, s.b.r)))
                .collect(),
            crosses: lines
                .crosses_of(walk)
                .iter()
                .map(|c| {
                    let d2 = if c.d2 == NO_DIR {
                        NO_DIR
                    } else {
                        sym.dirs[c.d2 as usize]
                    };
                    (d(c.q, c.r), sym.dirs[c.d1 as usize], d2)
                })
                .collect(),
            first: walk.first,
            last: walk.last,
        }
    }

    /// [`combat_commander`] for the pair whose observer sits at padded index `base`.
    #[inline]
    fn eval(&self, cells: &[CcCell], sides: &[CcSide], base: i64, lo: i32, lt: i32) -> u32 {
        let high = lo.max(lt);
        let next_to_low = match lo.cmp(&lt) {
            std::cmp::Ordering::Less => self.first,
            std::cmp::Ordering::Greater => self.last,
            std::cmp::Ordering::Equal => Edge::None,
        };
        let mut total = 0u32;
        for (n, &d) in self.hexes.iter().enumerate() {
            total = add(
                total,
                cc_judge(
                    &cells[(base + d) as usize],
                    lo,
                    lt,
                    next_to_low == Edge::Hex(n as u32),
                ),
            );
            if total == BLOCK {
                return BLOCK;
            }
        }
        for (n, &(a, b)) in self.sides.iter().enumerate() {
            let next = next_to_low == Edge::Side(n as u32);
            let x = cc_judge(&cells[(base + a) as usize], lo, lt, next);
            let y = cc_judge(&cells[(base + b) as usize], lo, lt, next);
            total = add(total, both(x, y));
            if total == BLOCK {
                return BLOCK;
            }
        }
        for &(d, d1, d2) in &self.crosses {
            let at = (base + d) as usize * 6;
            let e = cc_side(sides[at + d1 as usize], high);
            let e = if d2 == NO_DIR {
                e
            } else {
                both(e, cc_side(sides[at + d2 as usize], high))
            };
            total = add(total, e);
            if total == BLOCK {
                return BLOCK;
            }
        }
        total
    }
}

/// Combat Commander, as `rules::combat_commander` reads it (see its doc comment).
#[allow(clippy::too_many_arguments)]
#[inline]
fn combat_commander(
    lines: &Lines,
    walk: &Walk,
    sym: &Symmetry,
    cells: &[CcCell],
    sides: &[CcSide],
    lo: i32,
    lt: i32,
    at: impl Fn(i16, i16) -> usize,
) -> u32 {
    let high = lo.max(lt);
    // The hex stretch next to the lower end, where a lower obstacle makes a blind hex.
    let next_to_low = match lo.cmp(&lt) {
        std::cmp::Ordering::Less => walk.first,
        std::cmp::Ordering::Greater => walk.last,
        std::cmp::Ordering::Equal => Edge::None,
    };
    let judge = |c: &CcCell, next: bool| cc_judge(c, lo, lt, next);
    let mut total = 0u32;
    for (n, rec) in lines.hexes_of(walk).iter().enumerate() {
        total = add(
            total,
            judge(&cells[at(rec.q, rec.r)], next_to_low == Edge::Hex(n as u32)),
        );
        if total == BLOCK {
            return BLOCK;
        }
    }
    for (n, s) in lines.sides_of(walk).iter().enumerate() {
        let next = next_to_low == Edge::Side(n as u32);
        let x = judge(&cells[at(s.a.q, s.a.r)], next);
        let y = judge(&cells[at(s.b.q, s.b.r)], next);
        total = add(total, both(x, y));
        if total == BLOCK {
            return BLOCK;
        }
    }
    let side = |c: &CrossRec, d: u8| {
        cc_side(
            sides[at(c.q, c.r) * 6 + sym.dirs[d as usize] as usize],
            high,
        )
    };
    for c in lines.crosses_of(walk) {
        let e = if c.d2 == NO_DIR {
            side(c, c.d1)
        } else {
            both(side(c, c.d1), side(c, c.d2))
        };
        total = add(total, e);
        if total == BLOCK {
            return BLOCK;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generate::{Generator, generate};
    use crate::hex::{Layout, Orientation, Stagger};

    /// Every ordered pair of several random maps: fast verdict == plain verdict.
    #[test]
    fn fast_path_matches_plain_path() {
        let mut checked = 0;
        for seed in 0..12u64 {
            for ruleset in ["geometric", "combat-commander"] {
                let orientation = if seed % 2 == 0 {
                    Orientation::Flat
                } else {
                    Orientation::Pointy
                };
                let stagger = if seed % 4 < 2 {
                    Stagger::Odd
                } else {
                    Stagger::Even
                };
                let g = Generator {
                    cols: 9 + (seed % 5) as u32,
                    rows: 8 + (seed % 3) as u32,
                    seed,
                    ruleset: ruleset.to_string(),
                    layout: Layout {
                        orientation,
                        stagger,
                    },
                    dense: true,
                };
                let map = generate(&g).unwrap();
                let e = Engine::new(&map);
                assert!(e.is_fast());
                // The offset-by-offset sweep of the matrix, too.
                let m = crate::engine::matrix::matrix(
                    &e,
                    &crate::engine::matrix::Selection::all(&map),
                    &Default::default(),
                )
                .unwrap();
                for i in 0..map.len() {
                    for j in 0..map.len() {
                        let plain = line_of_sight(&map, map.hex_of(i), map.hex_of(j));
                        let want = Sight::from_total(if plain.verdict == Verdict::Blocked {
                            BLOCK
                        } else {
                            plain.hindrance
                        });
                        assert_eq!(
                            m.bits.get(i, j),
                            plain.verdict.sees(),
                            "matrix {ruleset} seed {seed}: {} -> {}",
                            map.label(map.hex_of(i)),
                            map.label(map.hex_of(j))
                        );
                        assert_eq!(
                            e.sight(i, j),
                            want,
                            "{} seed {seed} {:?}: {} -> {}: {}",
                            ruleset,
                            map.layout,
                            map.label(map.hex_of(i)),
                            map.label(map.hex_of(j)),
                            plain.reason
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000);
    }
}
