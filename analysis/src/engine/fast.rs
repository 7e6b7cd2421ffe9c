//! The engine: exact, verdict-only answers for pairs of one map, from the families' kernels.
//!
//! Every family runs here through its kernel ([`crate::rules::kernel`]): the map
//! is laid into a padded grid of the kernel's cells (`engine::grid`), walks are
//! compiled once per hex offset and shared by the twelve grid symmetries
//! ([`Lines`], or per orbit in [`super::pairs`]), and the kernel's walker
//! (`engine::walker`) asks it about each stretch with quiet notes. The kernel is
//! chosen once, through the family's registry entry ([`crate::rules::registry`]),
//! and prepared with the whole-map sweeps its declarations earn
//! (`engine/prepared.rs`). The tests compare all of them with the explained query
//! on every ordered pair of random maps.

use super::above_sweep::OffsetScratch;
use super::grid::{Axes, Padded};
use super::lines::{Ends, Lines, Pools, Symmetry, Walk, symmetries};
use super::offsets::{DqPairs, Group, Offset, Place, Run, groups};
use super::prepared::{Frame, Pending, Prepared};
use super::walker::{BLOCK, Outcome, total};
use crate::hex::Hex;
use crate::los::line_of_sight_with;
use crate::map::Map;
use crate::rules::Verdict;
use crate::rules::registry::{self, Entry};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// The answer for one pair: the verdict and the total hindrance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sight {
    /// Clear, hindered or blocked.
    pub verdict: Verdict,
    /// Total hindrance (0 when clear or blocked).
    pub hindrance: u32,
}

impl Sight {
    /// The sight of an engine total (`BLOCK` when blocked).
    pub fn from_total(total: u32) -> Sight {
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

/// Answers "does observer `i` see target `j`" for hexes of one map, by index.
pub struct Engine<'m> {
    map: &'m Map,
    /// The family's entry, through which the kernel was chosen.
    entry: &'m Entry,
    /// The family's kernel laid into the grid, with its sweeps.
    prepared: Box<dyn Prepared + 'm>,
    pub(crate) padded: Padded,
    /// Walks for every offset of the map, compiled when first asked for.
    lines: OnceLock<Lines>,
    syms: [Symmetry; 12],
    /// Per symmetry, the index factors for the padded grid.
    factors: [(i64, i64); 12],
    /// Built on first use: only whole-map matrices need them.
    groups: OnceLock<Vec<Group>>,
    /// Whether the vector paths may run (each where the CPU has its instructions).
    simd: bool,
}

impl<'m> Engine<'m> {
    /// [`Engine::new`] after checking that its grids fit the memory there is
    /// ([`crate::memory`]): a map too large is refused with the numbers, before
    /// anything large is allocated.
    pub fn try_new(map: &'m Map) -> crate::Result<Engine<'m>> {
        crate::memory::check(
            Engine::estimate_bytes(map),
            &format!("preparing a {}x{} map", map.cols, map.rows),
            "use a smaller map, or give hexsight more memory",
        )?;
        Ok(Engine::new(map))
    }

    /// Prepares the map: the padded grid of the family's kernel and its sweep tables.
    /// No walk is compiled yet: [`Engine::lines`] does that when a question needs
    /// every offset, and [`super::pairs`] compiles only the walks it needs.
    pub fn new(map: &'m Map) -> Engine<'m> {
        Engine::with_entry(map, registry::of(map))
    }

    /// [`Engine::new`] judging by the rules of `entry` rather than the map's
    /// family's (a family a test registers, say).
    pub fn with_entry(map: &'m Map, entry: &'m Entry) -> Engine<'m> {
        Engine::with_axes(map, entry, Axes::COLUMNS)
    }

    /// [`Engine::with_entry`] with its grid laid along the lines of `axes`: for the
    /// sweeps of observers and targets ([`super::pairs`], the matrices). A
    /// viewshed's slope tables read the grid by axial columns and need
    /// [`Axes::COLUMNS`].
    pub(crate) fn with_axes(map: &'m Map, entry: &'m Entry, axes: Axes) -> Engine<'m> {
        Engine::on(map, entry, Padded::with_axes(map, axes))
    }

    /// The engine of `map` by the rules of `entry` on the grid `padded`.
    fn on(map: &'m Map, entry: &'m Entry, padded: Padded) -> Engine<'m> {
        let prepared = entry.prepare(map, &padded);
        let syms = symmetries();
        let factors = syms.map(|s| s.strides(padded.factors()));
        Engine {
            map,
            entry,
            prepared,
            padded,
            lines: OnceLock::new(),
            syms,
            factors,
            groups: OnceLock::new(),
            simd: true,
        }
    }

    /// This engine's map and rules on a grid laid along `axes`, with the same
    /// vector paths; `None` where its grids would not fit the memory there is (the
    /// caller goes on with this one).
    pub(crate) fn along(&self, axes: Axes) -> Option<Engine<'m>> {
        let padded = Padded::with_axes(self.map, axes);
        // The estimate scales with the grid's cells.
        let ratio = (padded.size as f64 / self.padded.size as f64).max(1.0);
        let need = (Engine::estimate_bytes(self.map) as f64 * ratio) as u64;
        crate::memory::check(need, "an engine along other lines", "").ok()?;
        let mut e = Engine::on(self.map, self.entry, padded);
        e.simd = self.simd;
        Some(e)
    }

    /// What the prepared kernel needs of the engine for one call.
    fn frame(&self) -> Frame<'_> {
        Frame {
            map: self.map,
            entry: self.entry,
            padded: &self.padded,
            syms: &self.syms,
            factors: &self.factors,
            simd: self.simd,
        }
    }

    /// Turns the vector paths off (or back on where the CPU has them), so
    /// tests can compare both paths on one machine.
    pub fn set_simd(&mut self, on: bool) {
        self.simd = on;
    }

    /// The map.
    pub fn map(&self) -> &'m Map {
        self.map
    }

    /// True when the family has a whole-map sweep here.
    pub fn has_sweep(&self) -> bool {
        self.prepared.has_sweep(&self.frame())
    }

    /// True when the family's one rule is a top above the straight sight line, so
    /// that its viewsheds are settled from tables of slopes (a few walks each).
    pub(crate) fn viewsheds_by_slopes(&self) -> bool {
        self.prepared.blocks_above_line()
    }

    /// True when "`i` sees `j`" always equals "`j` sees `i`", so a matrix may
    /// compute one triangle and mirror it.
    pub fn is_reciprocal(&self) -> bool {
        self.prepared.reciprocal()
    }

    /// Per map hex, what the line from map hex `i` to it needs to be settled in a
    /// viewshed, from what it may pass over: nothing where no cell rises above any
    /// line's quiet height, else from bounds on slopes where the kernel blocks above
    /// the line (`engine::horizon`), else from the highest tops (`engine::shadow`).
    pub fn viewshed_needs(&self, i: usize) -> super::needs::Needs {
        self.prepared.viewshed_needs(&self.frame(), i)
    }

    /// Bytes [`Engine::viewshed_needs`] holds.
    pub fn viewshed_needs_bytes(&self) -> u64 {
        super::shadow::estimate_bytes(&self.padded)
            .max(super::horizon::estimate_bytes(&self.padded))
    }

    /// The walks of every offset between two hexes of the map, compiled on first use.
    pub fn lines(&self) -> &Lines {
        self.lines.get_or_init(|| Lines::for_map(self.map))
    }

    /// Builds what the whole-map sweeps read (the walks of every offset, the
    /// kernel's sweep tables) now: built lazily inside the first task that met
    /// them, they were built on one thread while the others waited (3-4 ms of a
    /// 100x100 exposure's 70 on two threads).
    pub(crate) fn prepare_sweeps(&self) {
        self.lines();
        self.has_sweep();
    }

    /// Bytes of grids and tables held (walks included once compiled).
    pub fn bytes(&self) -> usize {
        self.prepared.bytes() + self.padded.bytes() + self.lines.get().map_or(0, |l| l.bytes())
    }

    /// Bytes [`Engine::new`] will hold for a map (an overestimate), before building it.
    pub fn estimate_bytes(map: &Map) -> u64 {
        let cols = map.cols as u64;
        let rows = map.rows as u64;
        // The padded grid spans the axial bounding box: about cols x (rows + cols / 2).
        let size = (cols + 5) * (rows + cols / 2 + 5);
        let levels = {
            use rayon::prelude::*;
            let span = |(a, b): (i32, i32), (c, d): (i32, i32)| (a.min(c), b.max(d));
            let (lo, hi) = map
                .cells()
                .par_iter()
                .with_min_len(super::RUN)
                .map(|c| (c.level, c.level))
                .reduce(|| (i32::MAX, i32::MIN), span);
            (hi as i64 - lo as i64 + 1).clamp(1, 4097) as u64
        };
        // Cells of up to 48 bytes, 12 bytes of index, and the sweeps' per-level
        // tables (about 9 bits a cell per level).
        size * (48 + 12 + 1) + levels * 9 * size / 8 + map.hexsides.len() as u64 * 64
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
    pub(crate) fn total(&self, i: usize, j: usize) -> u32 {
        let d = self.padded.hex(j) - self.padded.hex(i);
        match self.lines().lookup(d) {
            Some((pools, walk, g)) => total(&self.outcome::<false>(pools, walk, g, i, j)),
            None => self.plain(i, j),
        }
    }

    /// The outcome for pair (`i`, `j`) whose offset has `walk` under symmetry `g`;
    /// with `BLIND`, whether a blocker stands at or above the observer's eye too.
    #[inline]
    pub(crate) fn outcome<const BLIND: bool>(
        &self,
        pools: &Pools,
        walk: &Walk,
        g: usize,
        i: usize,
        j: usize,
    ) -> Outcome {
        self.prepared
            .outcome(&self.frame(), (pools, walk, g), (i, j), BLIND)
    }

    /// Settles the pairs of `pending` that `walk` decides (all of them where it is
    /// `complete`, else those it blocks, or with `BLIND` blocks at or above the
    /// eye), moving them with their outcomes to `settled`; one call for the batch.
    pub(crate) fn settle<const BLIND: bool>(
        &self,
        (pools, walk): (&Pools, &Walk),
        complete: bool,
        pending: &mut Vec<Pending>,
        settled: &mut Vec<(usize, usize, Outcome)>,
    ) {
        let f = self.frame();
        self.prepared
            .settle(&f, pools, walk, complete, BLIND, pending, settled)
    }

    /// The map's hexes grouped by grid line (axial `q` on the default `Axes::COLUMNS`);
    /// within a group its `v` (axial `r`) runs without gaps.
    pub fn groups(&self) -> &[Group] {
        self.groups.get_or_init(|| {
            let axes = self.padded.axes();
            let lines: Vec<Hex> = self.padded.axial().iter().map(|&h| axes.apply(h)).collect();
            groups(&lines)
        })
    }

    /// For every pair of groups `dq` apart in `q` (`b.q = a.q + dq`), every
    /// observer `i` in `a` and every target `j` in `b` (with `j` at or after `i`
    /// in `r` when `dq` is 0), calls `seen(run, lanes)` with the lanes of each run
    /// of observers `dr` away whose observer sees its target ([`Run::each_pair`]
    /// gives their pairs `(i, j)`). Together the calls for `dq` from 0 up cover one
    /// of each pair `(i, j)`, `(j, i)` (and each hex with itself).
    ///
    /// Pairs are taken offset by offset, so each walk is laid out once and then
    /// swept over every group it joins. Returns false if `stop` was set.
    pub(crate) fn half_for_dq(
        &self,
        dq: i32,
        stop: &AtomicBool,
        mut seen: impl FnMut(&Run, u64),
    ) -> bool {
        let pairs = DqPairs::new(self.groups(), dq);
        let Some((dr_lo, dr_hi)) = pairs.dr_range() else {
            return true;
        };
        let lines = self.lines();
        // Reused for every offset: the walk laid out, and the last thresholds.
        let mut scratch = OffsetScratch::default();
        for dr in mirrored(dq, dr_lo, dr_hi) {
            if stop.load(AtomicOrdering::Relaxed) {
                return false;
            }
            let d = self.padded.axes().invert(Hex::new(dq, dr));
            let found = lines.lookup(d).filter(|(_, w, _)| w.exact);
            match found {
                Some((pools, walk, g)) if (dq, dr) != (0, 0) => {
                    let at = self.place(d, g, true);
                    // The map's walks stay compiled for the whole sweep.
                    let o = Offset {
                        pools,
                        walk,
                        at,
                        stays: true,
                    };
                    self.sweep_offset(&o, &pairs, dr, &mut scratch, None, &mut seen);
                }
                _ => pairs.runs(dr, |run| {
                    let mut lanes = 0;
                    for lane in 0..run.lanes {
                        let (i, j) = run.pair(lane);
                        if self.plain(i, j) != BLOCK {
                            lanes |= 1 << lane;
                        }
                    }
                    seen(&run, lanes);
                }),
            }
        }
        true
    }

    /// Calls `seen(run, lanes)` with the lanes of each run `dr` away (in `pairs`)
    /// whose line is seen, offset `o` being an exact walk: the kernel's sweep where
    /// it has one, else its walker lane by lane.
    pub(crate) fn sweep_offset(
        &self,
        o: &Offset,
        pairs: &DqPairs,
        dr: i32,
        scratch: &mut OffsetScratch,
        open: Option<(&[u64], usize)>,
        seen: &mut dyn FnMut(&Run, u64),
    ) {
        self.prepared
            .sweep_offset(&self.frame(), o, pairs, dr, scratch, open, seen)
    }

    /// True when the family's sweep takes the ends of walks first ([`Self::sweep_ends`]).
    pub(crate) fn takes_ends(&self) -> bool {
        self.prepared.takes_ends(&self.frame())
    }

    /// Pushes to `clear`, for each run `dr` away (in `pairs`) in order, the lanes whose
    /// line no stretch of `ends` cuts, where the family [takes ends](Self::takes_ends).
    pub(crate) fn sweep_ends(
        &self,
        at: &Place,
        ends: &Ends,
        pairs: &DqPairs,
        dr: i32,
        scratch: &mut OffsetScratch,
        clear: &mut Vec<u64>,
    ) {
        self.prepared
            .sweep_ends(&self.frame(), at, ends, pairs, dr, scratch, clear)
    }

    /// Where the pairs `e` apart lie in the padded grid, their walk mapped by
    /// symmetry `g`; [wide](Place::wide) where enough lines share it.
    pub(crate) fn place(&self, e: Hex, g: usize, wide: bool) -> Place<'_> {
        Place {
            g,
            factors: self.factors[g],
            dt: self.padded.delta(e),
            cells: self.padded.cell(),
            wide,
        }
    }

    /// The explained query's total, for pairs the compact walks cannot hold.
    fn plain(&self, i: usize, j: usize) -> u32 {
        total(&self.plain_outcome(i, j))
    }

    /// The explained query's outcome (blind or not, as [`super::viewshed`] reads it).
    pub(crate) fn plain_outcome(&self, i: usize, j: usize) -> Outcome {
        plain_outcome(&self.frame(), i, j)
    }

    /// The padded grid's row stride (for tests and diagnostics).
    pub fn stride(&self) -> i64 {
        self.padded.stride
    }
}

/// `lo..=hi`, each `dr` followed by its mirror `-dq - dr` where that lies later in
/// the range: the reflection that keeps `dq` maps a walk onto itself, so the
/// second offset takes the first one's thresholds ([`OffsetScratch`]).
fn mirrored(dq: i32, lo: i32, hi: i32) -> impl Iterator<Item = i32> {
    (lo..=hi).flat_map(move |dr| {
        let m = -dq - dr;
        // Met already, right after its mirror.
        let met = (lo..dr).contains(&m);
        let with_mirror = m > dr && m <= hi;
        [(!met).then_some(dr), with_mirror.then_some(m)]
            .into_iter()
            .flatten()
    })
}

/// The explained query's outcome for pair (`i`, `j`) by the family's rules.
pub(crate) fn plain_outcome(f: &Frame, i: usize, j: usize) -> Outcome {
    let (map, entry) = (f.map, f.entry);
    let r = line_of_sight_with(entry, map, map.hex_of(i), map.hex_of(j));
    let blocked = r.verdict == Verdict::Blocked;
    let block = r
        .events
        .iter()
        .any(|e| e.effect == crate::rules::Effect::Block);
    Outcome {
        block,
        high: block && !super::viewshed::is_blind_by(entry, map, &r),
        hinder: if blocked { 0 } else { r.hindrance },
        limit: blocked && !block,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::los::line_of_sight;

    /// The offsets of a column offset come once each, each with its mirror
    /// (`-dq - dr`) right after it where both lie in the range.
    #[test]
    fn mirrored_offsets_come_once_each_beside_their_mirror() {
        for dq in [0, 1, 2, 7, 30] {
            for (lo, hi) in [(0, 0), (-40, 40), (-3, 12), (-dq - 5, -dq + 9), (5, 4)] {
                let got: Vec<i32> = mirrored(dq, lo, hi).collect();
                let mut sorted = got.clone();
                sorted.sort();
                assert_eq!(
                    sorted,
                    (lo..=hi).collect::<Vec<_>>(),
                    "dq {dq}, {lo}..={hi}"
                );
                for (k, &dr) in got.iter().enumerate() {
                    let m = -dq - dr;
                    if m != dr && (lo..=hi).contains(&m) {
                        let at = got.iter().position(|&x| x == m).expect("there");
                        assert_eq!(at.abs_diff(k), 1, "dq {dq}: {dr} and {m} apart");
                    }
                }
            }
        }
    }

    /// Every ordered pair of several random maps of every family: the engine's
    /// verdict and hindrance, and the matrix sweep, equal the explained query's.
    #[test]
    fn fast_path_matches_plain_path() {
        let mut checked = 0;
        for seed in 0..8u64 {
            for ruleset in crate::engine::testmaps::FAMILIES {
                let map = crate::engine::testmaps::random_map(
                    ruleset,
                    seed,
                    9 + (seed % 5) as u32,
                    8 + (seed % 3) as u32,
                );
                let e = Engine::new(&map);
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
