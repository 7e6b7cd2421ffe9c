//! Background analysis for overlays and the deployment search: one [`Runner`]
//! runs off the UI thread, reports progress, can be cancelled, and drops results
//! made for an older map.
//!
//! Every job is keyed by the document generation it was computed from; a new
//! key cancels the running job, and a result whose key is no longer wanted is
//! thrown away, so an overlay never shows sight lines of a map that has changed.
//! A job the engine refuses (too large for the memory there is) ends with the
//! engine's one-line reason, kept for its key so the window can show it and
//! the same request is not started again every frame.

use hexsight_analysis::engine::diff::{self as engine_diff, Diff};
use hexsight_analysis::engine::exposure;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Selection};
use hexsight_analysis::engine::viewshed::viewshed_of;
use hexsight_analysis::hex::Hex;
use hexsight_analysis::memory::{self, Limit};
use hexsight_analysis::query::deploy::{self, Plan, Request};
use hexsight_analysis::rules::miniatures::{self, Activity};
use hexsight_analysis::{Map, Verdict};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Instant;

/// What to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// The verdict from one observer to every hex (viewshed and blind hexes).
    Viewshed(Hex),
    /// For every hex, how many hexes see it.
    Exposure,
    /// Miniatures spotting from one observer; `true` for targets that move or fire.
    Spotting(Hex, bool),
    /// What changed in sight against another map of the grid (`engine::diff`):
    /// every pair, and the viewshed of the hex given. `base` identifies the map
    /// compared against (the document's key for it).
    Diff {
        /// The hex whose viewshed change is kept, if any.
        from: Option<Hex>,
        /// Which map is compared against, and which version of it.
        base: (u8, u64),
    },
}

/// A request: the kind and the document generation it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobKey {
    /// Document generation.
    pub generation: u64,
    /// What is computed.
    pub kind: JobKind,
    /// The sight range in hexes laid over viewshed and exposure
    /// (`query::range`); 0: unlimited. Spotting keeps the ruleset's own ranges.
    pub range: u32,
}

/// The library's range for the editor's setting (0: none).
pub fn range_of(hexes: u32) -> Option<hexsight_analysis::query::range::Range> {
    (hexes > 0).then(|| hexsight_analysis::query::range::Range {
        hexes,
        given: hexes.to_string(),
    })
}

/// A finished job.
#[derive(Clone, Debug)]
pub enum JobOutput {
    /// Verdict and blindness per hex, in map index order.
    Viewshed(Vec<Seen>),
    /// Observers that see each hex, in map index order.
    Exposure(Vec<u32>),
    /// Spotting per hex, in map index order.
    Spotting(Vec<Spot>),
    /// The engine's diff of the shown map against the other map, over all pairs.
    Diff(Box<Diff>),
}

impl JobOutput {
    /// How many hexes the output covers (to tell a result of another grid).
    pub fn len(&self) -> usize {
        match self {
            JobOutput::Viewshed(v) => v.len(),
            JobOutput::Exposure(v) => v.len(),
            JobOutput::Spotting(v) => v.len(),
            JobOutput::Diff(d) => d.seen_by.len(),
        }
    }

    /// True when it covers no hex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What spotting says about one hex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spot {
    /// In LOS of the observer.
    pub los: bool,
    /// Spotted automatically.
    pub auto: bool,
    /// The roll one spotting test needs, if a test is possible.
    pub need: Option<u32>,
    /// The chance one test succeeds.
    pub p: f64,
}

/// Spotting from `from` with the ruleset's table (`query::spotting::spot`).
pub fn spotting(map: &Map, from: Hex, moving: bool, progress: &Progress) -> Outcome<Vec<Spot>> {
    progress.total.store(1, Ordering::Relaxed);
    let activity = if moving {
        Activity::Moving
    } else {
        Activity::Still
    };
    let cells = hexsight_analysis::query::spotting::spot(map, from, activity)
        .map_err(|e| Stop::Refused(e.to_string()))?;
    progress.step();
    let out = cells
        .iter()
        .map(|c| Spot {
            los: c.los,
            auto: c.auto,
            need: c.need,
            p: c.p_spot,
        })
        .collect();
    progress.finish(out)
}

/// Why spotting cannot be shown on this map (no table, no scale), if it cannot.
pub fn spotting_unavailable(map: &Map) -> Option<String> {
    miniatures::table(map).err().map(|e| e.to_string())
}

/// Why a job ended without a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Cancelled: a newer request replaced it, or the user pressed Cancel.
    Cancelled,
    /// The analysis refused the request; its one-line reason (memory needed and available).
    Refused(String),
}

/// A job's result, or why there is none.
pub type Outcome<T> = Result<T, Stop>;

/// Cancellation and progress shared with the worker.
#[derive(Default)]
pub struct Progress {
    cancel: AtomicBool,
    done: AtomicUsize,
    total: AtomicUsize,
    /// A cap on the memory a job may plan to use, below what the machine has
    /// (tests use it to see a refusal); `None`: the machine's own limits.
    memory_limit: Option<u64>,
}

impl Progress {
    /// Runs library work with this progress as its [`Control`]: its counts reported
    /// here, its cancellation read from here.
    fn run<R>(&self, work: impl FnOnce(&Control) -> R) -> R {
        let report = |done: u64, total: u64| {
            self.total.store(total as usize, Ordering::Relaxed);
            self.done.store(done as usize, Ordering::Relaxed);
        };
        work(&Control {
            cancel: &self.cancel,
            progress: &report,
        })
    }

    /// True once cancelled; workers check it between hexes.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
    fn step(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
    /// The result, unless the job was cancelled meanwhile.
    fn finish<T>(&self, out: T) -> Outcome<T> {
        if self.cancelled() {
            Err(Stop::Cancelled)
        } else {
            Ok(out)
        }
    }
}

/// The engine for `map` if it fits the memory there is (or the progress's
/// cap), else the engine's one-line refusal.
fn engine<'m>(map: &'m Map, progress: &Progress) -> Outcome<Engine<'m>> {
    let checked = match progress.memory_limit {
        Some(cap) => memory::check_against(
            Engine::estimate_bytes(map),
            cap,
            Limit::Given,
            &format!("preparing a {}x{} map", map.cols, map.rows),
            "use a smaller map",
        )
        .map(|()| Engine::new(map)),
        None => Engine::try_new(map),
    };
    checked.map_err(|e| Stop::Refused(e.to_string()))
}

/// An engine error: a cancellation, or a refusal (too large, or a bad request).
fn stopped(e: hexsight_analysis::Error) -> Stop {
    match e.kind {
        hexsight_analysis::ErrorKind::Cancelled => Stop::Cancelled,
        _ => Stop::Refused(e.to_string()),
    }
}

/// What one hex looks like from the observer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// Clear, hindered or blocked.
    pub verdict: Verdict,
    /// Blocked only by obstacles lower than the observer (a blind hex).
    pub blind: bool,
}

/// The viewshed of `from` from the engine (`engine::viewshed::viewshed_of`),
/// cancellable and with progress.
pub fn viewshed(map: &Map, from: Hex, range: u32, progress: &Progress) -> Outcome<Vec<Seen>> {
    let i = map
        .index(from)
        .ok_or_else(|| Stop::Refused(format!("{} is not on the map", map.label(from))))?;
    // A map too large for the memory there is gives a message rather than an abort.
    let engine = engine(map, progress)?;
    let mut v = progress
        .run(|ctl| viewshed_of(&engine, i, ctl))
        .map_err(stopped)?;
    if let Some(r) = range_of(range) {
        r.viewshed(map, &mut v);
    }
    let out = v
        .targets
        .iter()
        .map(|t| Seen {
            verdict: t.verdict,
            blind: t.blind,
        })
        .collect();
    progress.finish(out)
}

/// Exposure: for each hex, the number of other hexes that see it, from the
/// engine's whole-map exposure (fast, cancellable, with progress).
pub fn exposure(map: &Map, range: u32, progress: &Progress) -> Outcome<Vec<u32>> {
    // A map too large for the memory there is gives a message rather than an abort.
    let engine = engine(map, progress)?;
    let sel = Selection::all(map);
    let e = progress
        .run(|ctl| match range_of(range) {
            Some(r) => hexsight_analysis::query::range::exposure(&engine, &sel, &r, ctl),
            None => exposure::exposure(&engine, &sel, ctl),
        })
        .map_err(stopped)?;
    // Every hex sees itself; count only the others.
    let counts = e.seen_by.iter().map(|n| n.saturating_sub(1)).collect();
    progress.finish(counts)
}

/// The diff of `after` against `before` over every pair, with the viewshed change
/// of `from` (`engine::diff::diff`), cancellable and with progress.
pub fn diff(before: &Map, after: &Map, from: Option<Hex>, progress: &Progress) -> Outcome<Diff> {
    engine_diff::check_same_grid(before, after).map_err(|e| Stop::Refused(e.to_string()))?;
    let sel = Selection::all(after);
    if progress.memory_limit.is_none() {
        engine_diff::check_memory(before, after, &sel).map_err(|e| Stop::Refused(e.to_string()))?;
    }
    let (b, a) = (engine(before, progress)?, engine(after, progress)?);
    let views: Vec<usize> = from.and_then(|h| after.index(h)).into_iter().collect();
    let d = progress
        .run(|ctl| engine_diff::diff(&b, &a, &sel, &views, ctl))
        .map_err(stopped)?;
    progress.finish(d)
}

struct Running<K, T> {
    key: K,
    progress: Arc<Progress>,
    rx: mpsc::Receiver<Outcome<T>>,
    started: Instant,
}

/// What [`Runner::poll`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Polled {
    /// Nothing new.
    Nothing,
    /// A result arrived.
    Ready,
    /// The job was refused, with the reason.
    Refused(String),
}

/// The editor's one job runner: work keyed by `K` (which carries the document
/// generation it reads) runs off the UI thread with a shared [`Progress`]; at most
/// one job runs, a new one cancels it, and the latest result (or refusal) is kept
/// with its key. The overlays ([`Jobs`]) and the deployment search
/// ([`DeployJobs`]) are each one of these.
pub struct Runner<K, T> {
    running: Option<Running<K, T>>,
    result: Option<(K, Arc<T>)>,
    refused: Option<(K, String)>,
    starts: u64,
    /// A cap on the memory a job may plan to use (see [`Progress`]); `None` normally.
    pub memory_limit: Option<u64>,
}

impl<K, T> Default for Runner<K, T> {
    fn default() -> Self {
        Runner {
            running: None,
            result: None,
            refused: None,
            starts: 0,
            memory_limit: None,
        }
    }
}

/// The overlay jobs: viewshed, exposure, spotting and diff, keyed by [`JobKey`].
pub type Jobs = Runner<JobKey, JobOutput>;

impl<K: Copy + PartialEq + Send + 'static, T: Send + Sync + 'static> Runner<K, T> {
    /// Starts `work` for `key` on a worker thread, cancelling any running job.
    /// `repaint` is called from the worker when it finishes.
    pub fn start(
        &mut self,
        key: K,
        work: impl FnOnce(&Progress) -> Outcome<T> + Send + 'static,
        repaint: impl Fn() + Send + 'static,
    ) {
        self.cancel();
        self.starts += 1;
        let progress = Arc::new(Progress {
            memory_limit: self.memory_limit,
            ..Progress::default()
        });
        let (tx, rx) = mpsc::channel();
        let p = progress.clone();
        let spawned = std::thread::Builder::new()
            .name("hexsight-job".into())
            .spawn(move || {
                let _ = tx.send(work(&p));
                repaint();
            });
        match spawned {
            Ok(_) => {
                self.running = Some(Running {
                    key,
                    progress,
                    rx,
                    started: Instant::now(),
                })
            }
            Err(e) => self.refused = Some((key, format!("no thread for the job: {e}"))),
        }
    }

    /// True when `key` is computed, refused or being computed.
    pub fn settled(&self, key: K) -> bool {
        self.result.as_ref().is_some_and(|(k, _)| *k == key)
            || self.refused.as_ref().is_some_and(|(k, _)| *k == key)
            || self.running.as_ref().is_some_and(|r| r.key == key)
    }

    /// Collects a finished job.
    pub fn poll(&mut self) -> Polled {
        let Some(r) = &self.running else {
            return Polled::Nothing;
        };
        match r.rx.try_recv() {
            Ok(out) => {
                let key = r.key;
                self.running = None;
                self.keep(key, out)
            }
            Err(mpsc::TryRecvError::Empty) => Polled::Nothing,
            Err(mpsc::TryRecvError::Disconnected) => {
                self.running = None;
                Polled::Nothing
            }
        }
    }

    /// Blocks until the running job ends (tests and exports); true when a result arrived.
    pub fn wait(&mut self) -> bool {
        let Some(r) = self.running.take() else {
            return false;
        };
        match r.rx.recv() {
            Ok(out) => self.keep(r.key, out) == Polled::Ready,
            Err(_) => false,
        }
    }

    fn keep(&mut self, key: K, out: Outcome<T>) -> Polled {
        match out {
            Ok(out) => {
                self.result = Some((key, Arc::new(out)));
                Polled::Ready
            }
            Err(Stop::Refused(why)) => {
                self.refused = Some((key, why.clone()));
                Polled::Refused(why)
            }
            Err(Stop::Cancelled) => Polled::Nothing,
        }
    }

    /// Why the job for exactly this key was refused, if it was.
    pub fn refusal(&self, key: K) -> Option<&str> {
        self.refused
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, why)| why.as_str())
    }

    /// Cancels the running job, if any; its answer is dropped.
    pub fn cancel(&mut self) {
        if let Some(r) = self.running.take() {
            r.progress.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// The result for exactly this key, if ready.
    pub fn result(&self, key: K) -> Option<Arc<T>> {
        self.result
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, o)| o.clone())
    }

    /// The latest result and its key, whatever the key.
    pub fn latest(&self) -> Option<(K, Arc<T>)> {
        self.result.clone()
    }

    /// The latest refusal and its key, whatever the key.
    pub fn latest_refusal(&self) -> Option<(K, &str)> {
        self.refused.as_ref().map(|(k, why)| (*k, why.as_str()))
    }

    /// The running job's key, fraction done and seconds elapsed (see [`elapsed_and_left`]).
    pub fn progress(&self) -> Option<(K, f32, f32)> {
        let r = self.running.as_ref()?;
        let total = r.progress.total.load(Ordering::Relaxed).max(1);
        let done = r.progress.done.load(Ordering::Relaxed);
        Some((
            r.key,
            done as f32 / total as f32,
            r.started.elapsed().as_secs_f32(),
        ))
    }

    /// How many jobs were started.
    pub fn starts(&self) -> u64 {
        self.starts
    }

    /// The running job's key.
    pub fn running(&self) -> Option<K> {
        self.running.as_ref().map(|r| r.key)
    }

    /// True while a job runs.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// Cancels the running job and forgets the kept result and refusal (a new document).
    pub fn clear(&mut self) {
        self.cancel();
        self.result = None;
        self.refused = None;
    }
}

impl<K, T> Drop for Runner<K, T> {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            r.progress.cancel.store(true, Ordering::Relaxed);
        }
    }
}

impl Jobs {
    /// Makes sure `key` is computed or being computed; cancels any other job.
    /// `repaint` is called from the worker when it finishes.
    pub fn request(&mut self, key: JobKey, map: &Map, repaint: impl Fn() + Send + 'static) {
        self.request_on(key, map, None, repaint);
    }

    /// As [`Jobs::request`] for a diff of `after` against `before`.
    pub fn request_diff(
        &mut self,
        key: JobKey,
        before: &Map,
        after: &Map,
        repaint: impl Fn() + Send + 'static,
    ) {
        self.request_on(key, after, Some(before), repaint);
    }

    fn request_on(
        &mut self,
        key: JobKey,
        map: &Map,
        before: Option<&Map>,
        repaint: impl Fn() + Send + 'static,
    ) {
        if self.settled(key) {
            return;
        }
        let map = map.clone();
        let before = before.cloned();
        let work = move |p: &Progress| match key.kind {
            JobKind::Viewshed(from) => viewshed(&map, from, key.range, p).map(JobOutput::Viewshed),
            JobKind::Exposure => exposure(&map, key.range, p).map(JobOutput::Exposure),
            JobKind::Spotting(from, moving) => {
                spotting(&map, from, moving, p).map(JobOutput::Spotting)
            }
            JobKind::Diff { from, .. } => {
                let before = before.as_ref().unwrap_or(&map);
                diff(before, &map, from, p).map(|d| JobOutput::Diff(Box::new(d)))
            }
        };
        self.start(key, work, repaint);
    }

    /// The latest result of this kind, even for an older generation (shown faded while recomputing).
    pub fn stale_result(&self, kind: JobKind) -> Option<Arc<JobOutput>> {
        self.result
            .as_ref()
            .filter(|(k, _)| k.kind == kind)
            .map(|(_, o)| o.clone())
    }
}

/// A deployment search: the document generation it read and which run it is
/// (each Run is a new search, even on the same map).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeployKey {
    /// Document generation.
    pub generation: u64,
    /// The run's number.
    pub run: u64,
}

/// The deployment search (`query::deploy`) on the same runner as the overlays.
pub type DeployJobs = Runner<DeployKey, Plan>;

/// The library's deployment answer for `req` on `map`, cancellable and with progress.
pub fn deployment(map: &Map, req: &Request, progress: &Progress) -> Outcome<Plan> {
    let engine = engine(map, progress)?;
    let plan = progress
        .run(|ctl| deploy::deploy(&engine, req, ctl))
        .map_err(stopped)?;
    progress.finish(plan)
}

impl DeployJobs {
    /// Starts the search for `req` on a copy of `map` read at `generation`,
    /// cancelling any running one.
    pub fn search(
        &mut self,
        map: &Map,
        generation: u64,
        req: Request,
        repaint: impl Fn() + Send + 'static,
    ) {
        let key = DeployKey {
            generation,
            run: self.starts(),
        };
        let map = map.clone();
        self.start(key, move |p| deployment(&map, &req, p), repaint);
    }
}

/// How long a job has run and, once it is a few percent through, about how long it
/// has left at that pace: "34 s", "34 s, about 8 min left". Whole-map analyses of
/// big maps run for minutes, and a bare percentage does not say whether to wait.
pub fn elapsed_and_left(frac: f32, secs: f32) -> String {
    let span = |s: f32| {
        if s < 90.0 {
            format!("{:.0} s", s)
        } else {
            format!("{:.0} min", s / 60.0)
        }
    };
    let mut out = span(secs);
    if (0.02..1.0).contains(&frac) && secs >= 3.0 {
        let left = secs * (1.0 - frac) / frac;
        // Rounded to what the pace can tell: 5 s under two minutes, minutes above.
        let left = if left < 120.0 {
            ((left / 5.0).ceil() * 5.0).max(5.0)
        } else {
            (left / 60.0).round() * 60.0
        };
        out += &format!(", about {} left", span(left));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexsight_analysis::engine::viewshed::is_blind;
    use hexsight_analysis::hex::Layout;
    use hexsight_analysis::{Ruleset, line_of_sight};

    fn map() -> Map {
        let rs = std::sync::Arc::new(Ruleset::builtin("combat-commander").unwrap());
        let mut m = Map::new("t", "combat-commander", rs, 6, 6, Layout::default());
        m.cell_mut(m.layout.hex_at(2, 2)).unwrap().terrain = 1;
        m
    }

    #[test]
    fn viewshed_matches_single_queries() {
        let m = map();
        let from = m.layout.hex_at(0, 2);
        let v = viewshed(&m, from, 0, &Progress::default()).unwrap();
        for (j, seen) in v.iter().enumerate() {
            let r = line_of_sight(&m, from, m.hex_of(j));
            assert_eq!(seen.verdict, r.verdict);
            assert_eq!(seen.blind, is_blind(&m, &r));
        }
    }

    #[test]
    fn exposure_counts_the_other_hexes_that_see_each_hex() {
        let m = map();
        let e = exposure(&m, 0, &Progress::default()).unwrap();
        for (j, n) in e.iter().enumerate() {
            let to = m.hex_of(j);
            let plain = (0..m.len())
                .filter(|&i| i != j && line_of_sight(&m, m.hex_of(i), to).verdict.sees())
                .count();
            assert_eq!(*n as usize, plain, "{}", m.label(to));
        }
    }

    #[test]
    fn a_range_limits_the_viewshed_and_exposure_to_pairs_within_it() {
        let m = map();
        let from = m.layout.hex_at(0, 2);
        let v = viewshed(&m, from, 2, &Progress::default()).unwrap();
        let e = exposure(&m, 2, &Progress::default()).unwrap();
        for j in 0..m.len() {
            let to = m.hex_of(j);
            let near = |a: Hex| a.distance(to) <= 2;
            let sees = |a: Hex| line_of_sight(&m, a, to).verdict.sees();
            let want = if near(from) {
                line_of_sight(&m, from, to).verdict
            } else {
                Verdict::Blocked
            };
            assert_eq!(v[j].verdict, want, "{}", m.label(to));
            let plain = (0..m.len())
                .map(|i| m.hex_of(i))
                .filter(|&a| a != to && near(a) && sees(a))
                .count();
            assert_eq!(e[j] as usize, plain, "{}", m.label(to));
        }
        let all = exposure(&m, 0, &Progress::default()).unwrap();
        assert!(
            all.iter().sum::<u32>() > e.iter().sum::<u32>(),
            "the range cuts pairs"
        );
    }

    #[test]
    fn a_cancelled_job_gives_nothing_and_stale_keys_are_ignored() {
        let p = Progress::default();
        p.cancel.store(true, Ordering::Relaxed);
        assert_eq!(exposure(&map(), 0, &p), Err(Stop::Cancelled));
        let mut jobs = Jobs::default();
        let m = map();
        let key = JobKey {
            generation: 1,
            kind: JobKind::Exposure,
            range: 0,
        };
        jobs.request(key, &m, || {});
        assert!(jobs.wait());
        assert!(jobs.result(key).is_some());
        assert!(
            jobs.result(JobKey {
                generation: 2,
                ..key
            })
            .is_none()
        );
    }

    #[test]
    fn a_job_too_large_for_the_memory_is_refused_once_with_the_engines_reason() {
        let m = map();
        let mut jobs = Jobs::default();
        jobs.memory_limit = Some(1);
        let key = JobKey {
            generation: 1,
            kind: JobKind::Viewshed(m.layout.hex_at(0, 0)),
            range: 0,
        };
        jobs.request(key, &m, || {});
        assert!(!jobs.wait());
        let why = jobs.refusal(key).expect("the refusal is kept");
        assert!(why.contains("preparing a 6x6 map needs about"), "{why}");
        jobs.request(key, &m, || {});
        assert!(!jobs.busy(), "a refused request is not started again");
        let next = JobKey {
            generation: 2,
            ..key
        };
        assert!(jobs.refusal(next).is_none(), "an edit asks again");
    }

    #[test]
    fn a_long_job_says_about_how_long_it_has_left() {
        assert_eq!(elapsed_and_left(0.0, 1.2), "1 s");
        assert_eq!(elapsed_and_left(0.01, 30.0), "30 s", "too early to tell");
        assert_eq!(elapsed_and_left(0.06, 34.0), "34 s, about 9 min left");
        assert_eq!(elapsed_and_left(0.5, 10.0), "10 s, about 10 s left");
        assert_eq!(elapsed_and_left(0.9, 100.0), "2 min, about 15 s left");
        assert_eq!(elapsed_and_left(0.99, 20.0), "20 s, about 5 s left");
        assert_eq!(elapsed_and_left(1.0, 20.0), "20 s");
    }
}
