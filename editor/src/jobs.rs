//! Background analysis for overlays: runs off the UI thread on rayon's pool,
//! reports progress, can be cancelled, and drops results made for an older map.
//!
//! Every job is keyed by the document generation it was computed from; a new
//! key cancels the running job, and a result whose key is no longer wanted is
//! thrown away, so an overlay never shows sight lines of a map that has changed.

use hexsight_analysis::engine::exposure;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Selection};
use hexsight_analysis::engine::viewshed::viewshed_of;
use hexsight_analysis::hex::Hex;
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
}

/// A request: the kind and the document generation it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobKey {
    /// Document generation.
    pub generation: u64,
    /// What is computed.
    pub kind: JobKind,
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
pub fn spotting(map: &Map, from: Hex, moving: bool, progress: &Progress) -> Option<Vec<Spot>> {
    progress.total.store(1, Ordering::Relaxed);
    let activity = if moving {
        Activity::Moving
    } else {
        Activity::Still
    };
    let cells = hexsight_analysis::query::spotting::spot(map, from, activity).ok()?;
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
    (!progress.cancelled()).then_some(out)
}

/// Why spotting cannot be shown on this map (no table, no scale), if it cannot.
pub fn spotting_unavailable(map: &Map) -> Option<String> {
    miniatures::table(map).err().map(|e| e.to_string())
}

/// Cancellation and progress shared with the worker.
#[derive(Default)]
pub struct Progress {
    cancel: AtomicBool,
    done: AtomicUsize,
    total: AtomicUsize,
}

impl Progress {
    /// True once cancelled; workers check it between hexes.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
    fn step(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
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
pub fn viewshed(map: &Map, from: Hex, progress: &Progress) -> Option<Vec<Seen>> {
    let i = map.index(from)?;
    // A map too large for the memory there is gives no overlay rather than an abort.
    let engine = Engine::try_new(map).ok()?;
    let report = |done: u64, total: u64| {
        progress.total.store(total as usize, Ordering::Relaxed);
        progress.done.store(done as usize, Ordering::Relaxed);
    };
    let ctl = Control {
        cancel: &progress.cancel,
        progress: &report,
    };
    let v = viewshed_of(&engine, i, &ctl).ok()?;
    let out = v
        .targets
        .iter()
        .map(|t| Seen {
            verdict: t.verdict,
            blind: t.blind,
        })
        .collect();
    (!progress.cancelled()).then_some(out)
}

/// Exposure: for each hex, the number of other hexes that see it, from the
/// engine's streaming exposure (fast, cancellable, with progress).
pub fn exposure(map: &Map, progress: &Progress) -> Option<Vec<u32>> {
    // A map too large for the memory there is gives no overlay rather than an abort.
    let engine = Engine::try_new(map).ok()?;
    let report = |done: u64, total: u64| {
        progress.total.store(total as usize, Ordering::Relaxed);
        progress.done.store(done as usize, Ordering::Relaxed);
    };
    let ctl = Control {
        cancel: &progress.cancel,
        progress: &report,
    };
    let e = exposure::exposure(&engine, &Selection::all(map), &ctl).ok()?;
    // Every hex sees itself; count only the others.
    let counts = e.seen_by.iter().map(|n| n.saturating_sub(1)).collect();
    (!progress.cancelled()).then_some(counts)
}

struct Running {
    key: JobKey,
    progress: Arc<Progress>,
    rx: mpsc::Receiver<Option<JobOutput>>,
    started: Instant,
}

/// The overlay job runner: at most one job runs; the latest result is kept.
#[derive(Default)]
pub struct Jobs {
    running: Option<Running>,
    result: Option<(JobKey, Arc<JobOutput>)>,
}

impl Jobs {
    /// Makes sure `key` is computed or being computed; cancels any other job.
    /// `repaint` is called from the worker when it finishes.
    pub fn request(&mut self, key: JobKey, map: &Map, repaint: impl Fn() + Send + 'static) {
        if self.result.as_ref().is_some_and(|(k, _)| *k == key)
            || self.running.as_ref().is_some_and(|r| r.key == key)
        {
            return;
        }
        self.cancel();
        let progress = Arc::new(Progress::default());
        let (tx, rx) = mpsc::channel();
        let map = map.clone();
        let p = progress.clone();
        let spawned = std::thread::Builder::new()
            .name("hexsight-overlay".into())
            .spawn(move || {
                let out = match key.kind {
                    JobKind::Viewshed(from) => viewshed(&map, from, &p).map(JobOutput::Viewshed),
                    JobKind::Exposure => exposure(&map, &p).map(JobOutput::Exposure),
                    JobKind::Spotting(from, moving) => {
                        spotting(&map, from, moving, &p).map(JobOutput::Spotting)
                    }
                };
                let _ = tx.send(out);
                repaint();
            });
        if spawned.is_ok() {
            self.running = Some(Running {
                key,
                progress,
                rx,
                started: Instant::now(),
            });
        }
    }

    /// Collects a finished job; returns true when a new result arrived.
    pub fn poll(&mut self) -> bool {
        let Some(r) = &self.running else { return false };
        match r.rx.try_recv() {
            Ok(out) => {
                let key = r.key;
                self.running = None;
                if let Some(out) = out {
                    self.result = Some((key, Arc::new(out)));
                    return true;
                }
                false
            }
            Err(mpsc::TryRecvError::Empty) => false,
            Err(mpsc::TryRecvError::Disconnected) => {
                self.running = None;
                false
            }
        }
    }

    /// Blocks until the running job ends (tests and exports).
    pub fn wait(&mut self) -> bool {
        let Some(r) = self.running.take() else {
            return false;
        };
        if let Ok(Some(out)) = r.rx.recv() {
            self.result = Some((r.key, Arc::new(out)));
            return true;
        }
        false
    }

    /// Cancels the running job, if any.
    pub fn cancel(&mut self) {
        if let Some(r) = self.running.take() {
            r.progress.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// The result for exactly this key, if ready.
    pub fn result(&self, key: JobKey) -> Option<Arc<JobOutput>> {
        self.result
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, o)| o.clone())
    }

    /// The latest result of this kind, even for an older generation (shown faded while recomputing).
    pub fn stale_result(&self, kind: JobKind) -> Option<Arc<JobOutput>> {
        self.result
            .as_ref()
            .filter(|(k, _)| k.kind == kind)
            .map(|(_, o)| o.clone())
    }

    /// The running job's kind, fraction done and seconds elapsed.
    pub fn progress(&self) -> Option<(JobKind, f32, f32)> {
        let r = self.running.as_ref()?;
        let total = r.progress.total.load(Ordering::Relaxed).max(1);
        let done = r.progress.done.load(Ordering::Relaxed);
        Some((
            r.key.kind,
            done as f32 / total as f32,
            r.started.elapsed().as_secs_f32(),
        ))
    }

    /// True while a job runs.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// Forgets the kept result (a new document).
    pub fn clear(&mut self) {
        self.cancel();
        self.result = None;
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.cancel();
    }
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
        let v = viewshed(&m, from, &Progress::default()).unwrap();
        for (j, seen) in v.iter().enumerate() {
            let r = line_of_sight(&m, from, m.hex_of(j));
            assert_eq!(seen.verdict, r.verdict);
            assert_eq!(seen.blind, is_blind(&m, &r));
        }
    }

    #[test]
    fn exposure_counts_the_other_hexes_that_see_each_hex() {
        let m = map();
        let e = exposure(&m, &Progress::default()).unwrap();
        for (j, n) in e.iter().enumerate() {
            let to = m.hex_of(j);
            let plain = (0..m.len())
                .filter(|&i| i != j && line_of_sight(&m, m.hex_of(i), to).verdict.sees())
                .count();
            assert_eq!(*n as usize, plain, "{}", m.label(to));
        }
    }

    #[test]
    fn a_cancelled_job_gives_nothing_and_stale_keys_are_ignored() {
        let p = Progress::default();
        p.cancel.store(true, Ordering::Relaxed);
        assert!(exposure(&map(), &p).is_none());
        let mut jobs = Jobs::default();
        let m = map();
        let key = JobKey {
            generation: 1,
            kind: JobKind::Exposure,
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
}
