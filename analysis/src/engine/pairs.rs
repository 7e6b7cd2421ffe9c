//! Any observers x targets request, orbit by orbit, preparing only the walks it needs.
//!
//! The offsets a request needs are those from an observer to a target. Each
//! hex offset has up to twelve images under the grid's symmetries, all walked
//! alike, so the sweep takes each orbit once, at its first needed image (the
//! orbit's *leader*), compiles that one walk, evaluates every pair at every
//! needed image of it, and drops the walk. Memory stays a few walks per thread
//! whatever the map; the cost follows the pairs asked for: one observer makes a
//! viewshed, a zone an exposure from the zone, all hexes the matrix.

use super::above_sweep::OffsetScratch;
use super::fast::Engine;
use super::grid::Axes;
use super::lines::{Ends, Pools, Symmetry};
use super::matrix::{Control, cancelled};
use super::offsets::{Columns, DqPairs, Offset, Run, runs_of, sorted_hexes};
use super::prepared::Pending;
use super::walker::Outcome;
use crate::error::Result;
use crate::hex::Hex;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Cut points of a line walked before the rest is compiled (few in tests, so that
/// the two phases meet on small maps).
#[cfg(not(test))]
const PREFIX: usize = 48;
#[cfg(test)]
const PREFIX: usize = 4;

/// Hexes of a request on one grid line `q` (axial `q` on the default axes): their
/// `r`s, sorted, and map indices.
struct Column {
    q: i32,
    rs: Vec<(i32, u32)>,
}

impl Column {
    fn r_lo(&self) -> i32 {
        self.rs.first().map_or(0, |x| x.0)
    }
    fn r_hi(&self) -> i32 {
        self.rs.last().map_or(-1, |x| x.0)
    }
}

/// The hexes `idx` of the engine's map as columns.
fn columns(engine: &Engine, idx: &[usize]) -> Vec<Column> {
    let mut out: Vec<Column> = Vec::new();
    for (q, r, i) in sorted_hexes(|i| engine.padded.line_of(i), idx) {
        match out.last_mut() {
            Some(c) if c.q == q => c.rs.push((r, i)),
            _ => out.push(Column {
                q,
                rs: vec![(r, i)],
            }),
        }
    }
    out
}

/// The offsets a request needs, in the grid's coordinates: per `dq`, the range of
/// `dr` (a superset).
struct Needed {
    axes: Axes,
    dq_min: i32,
    dr: Vec<(i32, i32)>,
}

impl Needed {
    fn of(axes: Axes, obs: &[Column], tgt: &[Column]) -> Needed {
        let (Some(o0), Some(t0)) = (obs.first(), tgt.first()) else {
            return Needed {
                axes,
                dq_min: 0,
                dr: Vec::new(),
            };
        };
        let (o1, t1) = (obs.last().expect("one"), tgt.last().expect("one"));
        let dq_min = t0.q - o1.q;
        let dq_max = t1.q - o0.q;
        let mut dr = vec![(i32::MAX, i32::MIN); (dq_max - dq_min + 1) as usize];
        for o in obs {
            for t in tgt {
                let e = &mut dr[(t.q - o.q - dq_min) as usize];
                e.0 = e.0.min(t.r_lo() - o.r_hi());
                e.1 = e.1.max(t.r_hi() - o.r_lo());
            }
        }
        Needed { axes, dq_min, dr }
    }

    /// How many offsets a scan for leaders looks at (a column with none needed holds
    /// the empty range `i32::MAX..=i32::MIN`, hence the wide arithmetic).
    fn offsets(&self) -> usize {
        let width = |&(lo, hi): &(i32, i32)| (i64::from(hi) - i64::from(lo) + 1).max(0) as usize;
        self.dr.iter().map(width).sum()
    }

    #[inline]
    fn has(&self, d: Hex) -> bool {
        let k = d.q - self.dq_min;
        k >= 0
            && (k as usize) < self.dr.len()
            && (self.dr[k as usize].0..=self.dr[k as usize].1).contains(&d.r)
    }

    /// Distinct needed images of axial offset `d` with their symmetry, if `d` leads
    /// its orbit (no needed image comes before it in axial `(q, r)` order).
    fn images(&self, syms: &[Symmetry; 12], d: Hex, out: &mut Vec<(Hex, usize)>) -> bool {
        out.clear();
        for (g, s) in syms.iter().enumerate() {
            let e = s.apply(d);
            if !self.has(self.axes.apply(e)) {
                continue;
            }
            if (e.q, e.r) < (d.q, d.r) {
                return false;
            }
            if !out.iter().any(|x| x.0 == e) {
                out.push((e, g));
            }
        }
        true
    }
}

/// Runs `work(scratch, d, images)` for the leader `d` of every orbit of the offsets
/// `need` holds (axial, as the walks are), with its needed images, in parallel over
/// the `dq` columns of the grid, each task
/// with scratch from `init`; `work` returns how many of the `total` pairs it answered,
/// for progress. Returns an error if `ctl` cancels the run.
fn each_leader<S>(
    need: &Needed,
    ctl: &Control,
    total: u64,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, Hex, &[(Hex, usize)]) -> u64 + Sync,
) -> Result<()> {
    let syms = super::lines::symmetries();
    let done = AtomicU64::new(0);
    let cancelled_now = || ctl.cancel.load(Ordering::Relaxed);
    (0..need.dr.len())
        .into_par_iter()
        .with_max_len(1)
        .for_each(|k| {
            if cancelled_now() {
                return;
            }
            let dq = k as i32 + need.dq_min;
            let (lo, hi) = need.dr[k];
            let mut scratch = init();
            let mut images = Vec::with_capacity(12);
            let mut count = 0u64;
            for dr in lo..=hi {
                let d = need.axes.invert(Hex::new(dq, dr));
                if !need.images(&syms, d, &mut images) {
                    continue;
                }
                count += work(&mut scratch, d, &images);
                if count > 4096 {
                    (ctl.progress)(done.fetch_add(count, Ordering::Relaxed) + count, total);
                    count = 0;
                    if cancelled_now() {
                        return;
                    }
                }
            }
            (ctl.progress)(done.fetch_add(count, Ordering::Relaxed) + count, total);
        });
    if cancelled_now() {
        return Err(cancelled());
    }
    Ok(())
}

/// Calls `visit(i, j, outcome)` once for every observer `i` of `from` and target `j`
/// of `to` (map indices), in parallel on the current rayon pool. With `BLIND` the
/// outcomes also say whether a blocker stands at or above the observer's eye.
/// Returns an error if `ctl` cancels the run.
pub fn for_each<const BLIND: bool>(
    engine: &Engine,
    from: &[usize],
    to: &[usize],
    ctl: &Control,
    visit: impl Fn(usize, usize, Outcome) + Sync,
) -> Result<()> {
    for_each_from::<BLIND>(engine, (from, to), PREFIX, ctl, visit)
}

/// [`for_each`] for pairs whose lines mostly run their whole length, such as those
/// a viewshed's slope tables leave, near a silhouette: each line is compiled whole
/// at once, where [`for_each`] walks a prefix first, four times longer each round,
/// compiling the start of a long line again each round.
pub fn for_each_whole<const BLIND: bool>(
    engine: &Engine,
    from: &[usize],
    to: &[usize],
    ctl: &Control,
    visit: impl Fn(usize, usize, Outcome) + Sync,
) -> Result<()> {
    for_each_from::<BLIND>(engine, (from, to), usize::MAX, ctl, visit)
}

/// [`for_each`], each line walked first to `prefix` cut points.
fn for_each_from<const BLIND: bool>(
    engine: &Engine,
    (from, to): (&[usize], &[usize]),
    prefix: usize,
    ctl: &Control,
    visit: impl Fn(usize, usize, Outcome) + Sync,
) -> Result<()> {
    if from.is_empty() || to.is_empty() {
        return Ok(());
    }
    let obs = columns(engine, from);
    let tgt = columns(engine, to);
    let need = Needed::of(engine.padded.axes(), &obs, &tgt);
    match *from {
        [i] if to.len() * SCAN_PER_WALK < need.offsets() => {
            each_target::<BLIND>(engine, i, to, prefix, ctl, visit)
        }
        _ => each_orbit::<BLIND>(engine, (&obs, &tgt, &need), to, prefix, ctl, visit),
    }
}

/// [`for_each`] orbit by orbit: each orbit's walk compiled once, at its leader, for
/// the pairs at all its needed images; the observers `obs` and targets `tgt` (`to`)
/// as columns, with the offsets `need` between them.
fn each_orbit<const BLIND: bool>(
    engine: &Engine,
    (obs, tgt, need): (&[Column], &[Column], &Needed),
    to: &[usize],
    prefix: usize,
    ctl: &Control,
    visit: impl Fn(usize, usize, Outcome) + Sync,
) -> Result<()> {
    let mut is_target = vec![false; engine.map().len()];
    for &t in to {
        is_target[t] = true;
    }
    let target_col = |q: i32| tgt.binary_search_by_key(&q, |c| c.q).ok().map(|k| &tgt[k]);
    // The pairs (observer, target) at offset `e`.
    let axes = engine.padded.axes();
    let pairs_at = |e: Hex| {
        let (is_target, target_col) = (&is_target, &target_col);
        // The offset in the grid's coordinates, in which the columns are.
        let e = axes.apply(e);
        obs.iter().flat_map(move |o| {
            // Observers of this column whose target `e` away lies in the target column.
            let rows: &[(i32, u32)] = match target_col(o.q + e.q) {
                Some(t) => {
                    let start = o.rs.partition_point(|x| x.0 < t.r_lo() - e.r);
                    let end = o.rs.partition_point(|x| x.0 <= t.r_hi() - e.r);
                    &o.rs[start..end.max(start)]
                }
                None => &[],
            };
            rows.iter().filter_map(move |&(r, i)| {
                let j = engine
                    .map()
                    .index(axes.invert(Hex::new(o.q + e.q, r + e.r)))?;
                is_target[j].then_some((i as usize, j))
            })
        })
    };
    let observers: usize = obs.iter().map(|c| c.rs.len()).sum();
    let total = observers as u64 * to.len() as u64;
    let init = || Scratch::for_map(engine, prefix);
    each_leader(need, ctl, total, init, |scratch, d, images| {
        scratch.pending.clear();
        for &(e, g) in images {
            let pairs = pairs_at(e).map(|(i, j)| (i, j, g));
            scratch.pending.extend(pairs);
        }
        let answered = scratch.pending.len() as u64;
        scratch.walk::<BLIND>(engine, d, &visit);
        answered
    })
}

/// Offsets a leader scan looks at for the cost of walking one pair on its own (each
/// offset's twelve images are looked up; a walk is compiled and settled): one
/// observer's few targets are walked one by one where the scan would cost more, as
/// a viewshed's targets near a silhouette are (1,229 of a million, scattered over
/// 20,000 offsets, on the hilly 1000x1000 map).
const SCAN_PER_WALK: usize = 4;

/// What one thread of [`for_each`] reuses from walk to walk.
struct Scratch {
    /// Cut points of a line walked in the first round.
    prefix: usize,
    pools: Pools,
    pending: Vec<Pending>,
    done: Vec<(usize, usize, Outcome)>,
}

impl Scratch {
    fn for_map(engine: &Engine, prefix: usize) -> Scratch {
        Scratch {
            prefix,
            pools: Pools::for_map(engine.map()),
            pending: Vec::new(),
            done: Vec::new(),
        }
    }

    /// Settles the pairs `pending` (observer, target, symmetry taking `d` to their
    /// offset), calling `visit` for each. Most lines are blocked before their end:
    /// a prefix of the line is walked first (`prefix` cut points), four times longer
    /// each round, and compiled further only for the pairs it has not settled.
    fn walk<const BLIND: bool>(
        &mut self,
        engine: &Engine,
        d: Hex,
        visit: &impl Fn(usize, usize, Outcome),
    ) {
        let mut limit = self.prefix;
        while !self.pending.is_empty() {
            self.pools.clear();
            let complete = self.pools.compile_prefix(d, limit);
            let walk = self.pools.walks[0];
            let pending = &mut self.pending;
            engine.settle::<BLIND>((&self.pools, &walk), complete, pending, &mut self.done);
            for (i, j, out) in self.done.drain(..) {
                visit(i, j, out);
            }
            limit = limit.saturating_mul(4);
        }
    }
}

/// [`for_each`] for one observer `i`, each target walked along its own offset (the
/// identity symmetry), in parallel over runs of targets.
fn each_target<const BLIND: bool>(
    engine: &Engine,
    i: usize,
    to: &[usize],
    prefix: usize,
    ctl: &Control,
    visit: impl Fn(usize, usize, Outcome) + Sync,
) -> Result<()> {
    let origin = engine.padded.hex(i);
    let (done, total) = (AtomicU64::new(0), to.len() as u64);
    let cancelled_now = || ctl.cancel.load(Ordering::Relaxed);
    to.par_chunks(64).for_each_init(
        || Scratch::for_map(engine, prefix),
        |scratch, run| {
            if cancelled_now() {
                return;
            }
            for &j in run {
                scratch.pending.clear();
                scratch.pending.push((i, j, 0));
                scratch.walk::<BLIND>(engine, engine.padded.hex(j) - origin, &visit);
            }
            let n = run.len() as u64;
            (ctl.progress)(done.fetch_add(n, Ordering::Relaxed) + n, total);
        },
    );
    if cancelled_now() {
        return Err(cancelled());
    }
    Ok(())
}

/// Calls `seen(i, j)` once for every observer `i` of `from` and target `j` of `to`
/// whose line is seen: [`for_each`] where the family has no whole-map sweep;
/// otherwise each orbit's walk is compiled once and swept, 64 lanes at a time, over
/// the runs of observers (consecutive hexes of one axial column) whose targets lie
/// at each of its needed images, as the matrix sweeps do.
pub fn for_each_seen(
    engine: &Engine,
    from: &[usize],
    to: &[usize],
    ctl: &Control,
    seen: impl Fn(usize, usize) + Sync,
) -> Result<()> {
    sweep_seen(engine, from, to, false, ctl, seen)
}

/// Calls `seen(i, j)` once for every pair of `hexes` whose line is seen, each
/// unordered pair once (as `(i, j)` or `(j, i)`) and each hex with itself, for
/// rules where `i` sees `j` exactly when `j` sees `i`: half the work of
/// [`for_each_seen`] over `hexes` both ways, since the images `e` and `-e` of an
/// orbit (one is the other turned half way round) carry the same pairs reversed.
pub fn for_each_seen_once(
    engine: &Engine,
    hexes: &[usize],
    ctl: &Control,
    seen: impl Fn(usize, usize) + Sync,
) -> Result<()> {
    debug_assert!(engine.is_reciprocal(), "one line stands for both ways");
    sweep_seen(engine, hexes, hexes, true, ctl, seen)
}

/// The offsets `e` a [`for_each_seen_once`] takes: the origin and one of each `e`, `-e`.
fn forward(e: Hex) -> bool {
    e.q > 0 || (e.q == 0 && e.r >= 0)
}

/// [`for_each_seen`], or with `once` (`from` and `to` the same hexes) each
/// unordered pair once: only the [`forward`] offsets.
fn sweep_seen(
    engine: &Engine,
    from: &[usize],
    to: &[usize],
    once: bool,
    ctl: &Control,
    seen: impl Fn(usize, usize) + Sync,
) -> Result<()> {
    if !engine.has_sweep() {
        let axial = engine.padded.axial();
        return for_each::<false>(engine, from, to, ctl, |i, j, o| {
            if !o.blocked() && (!once || forward(axial[j] - axial[i])) {
                seen(i, j)
            }
        });
    }
    if let Some(along) = better_axes(engine, from, to).and_then(|a| engine.along(a)) {
        return sweep_seen(&along, from, to, once, ctl, seen);
    }
    let line = |i| engine.padded.line_of(i);
    let (obs, tgt) = (runs_of(line, from), runs_of(line, to));
    let tgt_columns = Columns::of(&tgt);
    let axes = engine.padded.axes();
    let need = Needed::of(axes, &columns(engine, from), &columns(engine, to));
    let total = from.len() as u64 * to.len() as u64;
    let init = || SweepScratch {
        pools: Pools::for_map(engine.map()),
        ..SweepScratch::default()
    };
    // Walks of hexes alone (no hexside features to cross) for a sweep that takes ends.
    let by_ends = engine.map().hexsides.is_empty() && engine.takes_ends();
    each_leader(&need, ctl, total, init, |s, d, images| {
        let emit = |i: usize, j: usize| seen(i, j);
        // The lines at each needed image, and the images swept.
        s.lines.clear();
        if s.pairs.len() < images.len() {
            s.pairs
                .resize_with(images.len(), || DqPairs::between(&[], &[], 0));
        }
        for (&(e, _), pairs) in images.iter().zip(&mut s.pairs) {
            let e = axes.apply(e);
            pairs.set_between(&obs, tgt_columns, e.q);
            let mut lanes = 0u64;
            pairs.runs(e.r, |run| lanes += run.lanes as u64);
            s.lines.push(lanes);
        }
        let answered = s.lines.iter().sum();
        let swept = |k: usize| !once || forward(images[k].0);
        // Where few lines share the walk, its ends first: the lines they cut need
        // no more of it, and where they cut every line the rest is never compiled.
        let ends = answered < WIDE && by_ends && s.ends.compile(d, ENDS);
        if ends {
            s.open.clear();
            s.starts.clear();
            for (k, &(e, g)) in images.iter().enumerate() {
                s.starts.push(s.open.len());
                if swept(k) {
                    let (at, pairs) = (engine.place(e, g, false), &s.pairs[k]);
                    let dr = axes.apply(e).r;
                    engine.sweep_ends(&at, &s.ends, pairs, dr, &mut s.offset, &mut s.open);
                }
            }
            s.starts.push(s.open.len());
        }
        if ends && s.open.iter().all(|&m| m == 0) {
            return answered;
        }
        s.pools.clear();
        if ends {
            s.pools.compile_rest(&mut s.ends);
        } else {
            s.pools.compile(d);
        }
        let walk = s.pools.walks[0];
        for (k, &(e, g)) in images.iter().enumerate() {
            if !swept(k) {
                continue;
            }
            let (pairs, dr) = (&s.pairs[k], axes.apply(e).r);
            if e == Hex::new(0, 0) || !walk.exact {
                // The plain path: each hex with itself, or a walk the compact form cannot hold.
                pairs.runs(dr, |run| {
                    for lane in 0..run.lanes {
                        let (i, j) = run.pair(lane);
                        if !engine.plain_outcome(i, j).blocked() {
                            emit(i, j);
                        }
                    }
                });
            } else {
                let open = ends.then(|| (&s.open[s.starts[k]..s.starts[k + 1]], s.ends.per_end()));
                let at = engine.place(e, g, s.lines[k] >= WIDE);
                // Each walk is compiled into the same pool in turn: none stays.
                let o = Offset {
                    pools: &s.pools,
                    walk: &walk,
                    at,
                    stays: false,
                };
                let mut lanes = |run: &Run, lanes: u64| run.each_pair(lanes, emit);
                engine.sweep_offset(&o, pairs, dr, &mut s.offset, open, &mut lanes);
            }
        }
        answered
    })
}

/// Grid lines along which the smaller of `from` and `to` makes at most half as
/// many runs as along the axial columns, if any (the fewest): each run of an image pays
/// its setup and its groups of lanes however few lines it holds, so a zone along a
/// map's rows is swept on a grid laid along them (the cost of laying out a second
/// grid is a few sweeps of the map).
fn better_axes(engine: &Engine, from: &[usize], to: &[usize]) -> Option<Axes> {
    if engine.padded.axes() != Axes::COLUMNS {
        // Laid along other lines on purpose (for this request, or by a test).
        return None;
    }
    let zone = if from.len() <= to.len() { from } else { to };
    let runs = |axes: Axes| -> usize {
        let line = |i| axes.apply(engine.padded.hex(i));
        runs_of(line, zone)
            .iter()
            .map(|g| g.idx.len().div_ceil(64))
            .sum()
    };
    let counts = Axes::ALL.map(|a| (a, runs(a)));
    let here = counts.iter().find(|c| c.0 == Axes::COLUMNS)?.1;
    let &(best, fewest) = counts.iter().min_by_key(|c| c.1)?;
    (best != Axes::COLUMNS && 2 * fewest <= here).then_some(best)
}

/// Lines sharing one offset's walk from which the sweep's per-offset tables (the
/// vector thresholds) pay off; below it the ends of the walk are swept first.
const WIDE: u64 = 1024;

/// Hex stretches at each end of a walk swept before the rest is compiled (few in
/// tests, so that the two phases meet on small maps).
#[cfg(not(test))]
const ENDS: usize = 96;
#[cfg(test)]
const ENDS: usize = 2;

/// What one thread of [`sweep_seen`] reuses from walk to walk.
#[derive(Default)]
struct SweepScratch<'g> {
    pools: Pools,
    /// The pairs of groups at each needed image.
    pairs: Vec<DqPairs<'g>>,
    ends: Ends,
    /// A walk laid out for one offset, and the last thresholds.
    offset: OffsetScratch,
    /// Lines at each needed image.
    lines: Vec<u64>,
    /// The lanes the ends leave open, a mask per run, image after image...
    open: Vec<u64>,
    /// ... each image's from here.
    starts: Vec<usize>,
}

/// Bytes a request holds beyond the engine and its results: a few walks per
/// thread, each of at most the map's diameter in stretches.
pub fn estimate_bytes(engine: &Engine) -> u64 {
    let map = engine.map();
    let diameter = u64::from(map.cols + map.rows) * 2;
    rayon::current_num_threads() as u64 * (diameter * 24 + 4096) + map.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testmaps::{FAMILIES, random_map};
    use std::collections::BTreeSet;
    use std::sync::Mutex;

    /// A zone along a map's rows or zigzag columns is swept along them; one down
    /// a flat-top map's columns, or a small square, stays on the axial columns.
    #[test]
    fn zones_are_swept_along_their_long_side() {
        use crate::hex::Orientation;
        for (orientation, rows_along, columns_along) in [
            (Orientation::Flat, Some(Axes::FLAT_ROWS), None),
            (
                Orientation::Pointy,
                Some(Axes::ROWS),
                Some(Axes::POINTY_COLUMNS),
            ),
        ] {
            let mut map = crate::engine::testmaps::random_map("geometric", 2, 40, 40);
            map.layout.orientation = orientation;
            let e = Engine::new(&map);
            let zone = |keep: &dyn Fn(i32, i32) -> bool| -> Vec<usize> {
                let at = |i: usize| map.layout.offset_of(map.hex_of(i));
                (0..map.len()).filter(|&i| keep(at(i).0, at(i).1)).collect()
            };
            let all: Vec<usize> = (0..map.len()).collect();
            let rows = zone(&|_, r| r < 3);
            let columns = zone(&|c, _| c < 3);
            let square = zone(&|c, r| c < 4 && r < 4);
            let cases = [
                ("rows", &rows, &all, rows_along),
                ("to rows", &all, &rows, rows_along),
                ("columns", &columns, &all, columns_along),
                ("square", &square, &all, None),
            ];
            for (name, from, to, want) in cases {
                assert_eq!(better_axes(&e, from, to), want, "{orientation:?} {name}");
            }
        }
    }

    /// A column offset with no needed offsets counts none (its range is empty).
    #[test]
    fn offsets_count_only_the_needed_ones() {
        let need = Needed {
            axes: Axes::COLUMNS,
            dq_min: -1,
            dr: vec![(i32::MAX, i32::MIN), (-2, 2), (i32::MAX, i32::MIN), (7, 7)],
        };
        assert_eq!(need.offsets(), 6);
    }

    /// One observer's targets walked one by one come to the outcomes the orbit
    /// scan gives them, in every family, with and without the blind test, walked in
    /// prefixes or whole.
    #[test]
    fn targets_walked_alone_match_the_orbit_scan() {
        fn outcomes<const BLIND: bool>(
            engine: &Engine,
            i: usize,
            to: &[usize],
            alone: bool,
            prefix: usize,
        ) -> Vec<(usize, Outcome)> {
            let got = Mutex::new(Vec::new());
            let visit = |_, j, o| got.lock().unwrap().push((j, o));
            let ctl = Control::default();
            if alone {
                each_target::<BLIND>(engine, i, to, prefix, &ctl, visit).unwrap();
            } else {
                let (obs, tgt) = (columns(engine, &[i]), columns(engine, to));
                let need = Needed::of(engine.padded.axes(), &obs, &tgt);
                each_orbit::<BLIND>(engine, (&obs, &tgt, &need), to, prefix, &ctl, visit).unwrap();
            }
            let mut got = got.into_inner().unwrap();
            got.sort_unstable_by_key(|x| x.0);
            got
        }
        // Whether each target is seen, and its hindrance if so.
        let seen = |all: Vec<(usize, Outcome)>| -> Vec<(usize, bool, u32)> {
            let hinder = |o: &Outcome| if o.blocked() { 0 } else { o.hinder };
            all.iter()
                .map(|(j, o)| (*j, o.blocked(), hinder(o)))
                .collect()
        };
        for rs in FAMILIES {
            let map = random_map(rs, 7, 12, 10);
            let e = Engine::new(&map);
            for i in [0, 17, map.len() / 2, map.len() - 1] {
                // Every third hex but the observer, and every hex (the observer too).
                let some: Vec<usize> = (0..map.len()).filter(|&j| j != i && j % 3 == 0).collect();
                let all: Vec<usize> = (0..map.len()).collect();
                for to in [&some, &all] {
                    let want = outcomes::<true>(&e, i, to, false, PREFIX);
                    assert_eq!(want.len(), to.len(), "{rs}: every target answered once");
                    let plain = seen(outcomes::<false>(&e, i, to, false, PREFIX));
                    // Alone or by orbit, in prefixes or whole. With the blind test
                    // every pair is settled by a whole walk, so the outcomes are the
                    // same; without it, a prefix may settle a pair by the hindrance
                    // limit that a whole walk finds blocked by ground further on.
                    for (alone, prefix) in [(true, PREFIX), (true, usize::MAX), (false, usize::MAX)]
                    {
                        let got = outcomes::<true>(&e, i, to, alone, prefix);
                        assert_eq!(got, want, "{rs} from {i}, {alone} {prefix}");
                        let got = seen(outcomes::<false>(&e, i, to, alone, prefix));
                        assert_eq!(got, plain, "{rs} from {i}, {alone} {prefix}");
                    }
                }
            }
        }
    }

    /// Each unordered pair once: the seen pairs of every hex both ways, folded to
    /// unordered pairs, are those of the full sweep, and none comes twice.
    #[test]
    fn each_unordered_pair_is_seen_once_as_both_ways() {
        for rs in FAMILIES {
            let map = random_map(rs, 4, 11, 9);
            let e = Engine::new(&map);
            if !e.is_reciprocal() {
                continue;
            }
            let all: Vec<usize> = (0..map.len()).collect();
            let both = Mutex::new(BTreeSet::new());
            for_each_seen(&e, &all, &all, &Control::default(), |i, j| {
                both.lock().unwrap().insert((i.min(j), i.max(j)));
            })
            .unwrap();
            let once = Mutex::new(Vec::new());
            for_each_seen_once(&e, &all, &Control::default(), |i, j| {
                once.lock().unwrap().push((i.min(j), i.max(j)));
            })
            .unwrap();
            let mut once = once.into_inner().unwrap();
            once.sort_unstable();
            let n = once.len();
            once.dedup();
            assert_eq!(once.len(), n, "{rs}: a pair came twice");
            assert_eq!(
                once,
                both.into_inner().unwrap().into_iter().collect::<Vec<_>>(),
                "{rs}"
            );
        }
    }
}
