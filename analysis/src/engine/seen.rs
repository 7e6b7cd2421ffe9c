//! Which lines between many observers and targets are seen: the pair sweep
//! ([`super::pairs`]), or, where a few observers face most of the map, their
//! viewsheds ([`super::viewshed`]). The sweep compiles a walk for every offset
//! between the two sets however few lines share it; a viewshed settles all but a
//! few of its targets from tables of slopes, at a cost that follows the map.

use super::fast::Engine;
use super::matrix::{Control, cancelled};
use super::viewshed::{self, Target};
use super::{RUN, pairs};
use crate::error::Result;
use crate::rules::Verdict;
use rayon::prelude::*;
use std::sync::atomic::Ordering;

/// Nanoseconds (two threads of the build box) the pair sweep pays per target of
/// one observer, near enough per offset it compiles: one hex of a 500x500 map
/// took 0.145 s, of a 100x100 map 5 ms, of a 1000x1000 map 0.54 s.
const SWEEP_NS_PER_OFFSET: u64 = 580;
/// ... and a viewshed per map hex, and once: 6 ms on 500x500, 26 ms on
/// 1000x1000, 0.7 ms on 100x100.
const VIEWSHED_NS_PER_HEX: u64 = 24;
const VIEWSHED_NS: u64 = 450_000;

/// True where `from.len()` viewsheds of a map of `n` hexes cost less than the
/// pair sweep from `from` to `to`, which compiles at least a walk per target
/// (the two cost the same near 25 observers facing a whole 500x500 or
/// 1000x1000 map, near 8 on 100x100).
fn by_viewsheds(n: usize, from: usize, to: usize) -> bool {
    let viewsheds = from as u64 * (VIEWSHED_NS_PER_HEX * n as u64 + VIEWSHED_NS);
    viewsheds <= SWEEP_NS_PER_OFFSET * to as u64
}

/// How the seen lines between observers and targets are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// The pair sweep.
    Sweep,
    /// Each observer's viewshed.
    Observers,
    /// Each target's viewshed, under rules that are the same both ways.
    Targets,
}

impl Route {
    /// [`Route::cheaper`] for `engine`'s map, or the sweep where a viewshed would
    /// not fit in the memory left (the sweep takes less).
    pub(crate) fn for_engine(engine: &Engine, counts: (usize, usize), reciprocal: bool) -> Route {
        let budget = || crate::memory::budget().map(|(bytes, _)| bytes);
        Route::within(engine, counts, reciprocal, budget)
    }

    /// [`Route::for_engine`] with `budget()` bytes to spend (no limit where
    /// `None`; asked only where viewsheds are the cheaper), for as many
    /// viewsheds at once as there are threads.
    fn within(
        engine: &Engine,
        counts: (usize, usize),
        reciprocal: bool,
        budget: impl FnOnce() -> Option<u64>,
    ) -> Route {
        let route = Route::cheaper(engine.map().len(), counts, reciprocal);
        let viewsheds = match route {
            Route::Sweep => return Route::Sweep,
            Route::Observers => counts.0,
            Route::Targets => counts.1,
        };
        if fit(engine, viewsheds, budget()) {
            route
        } else {
            Route::Sweep
        }
    }

    /// The cheaper way from `from` to `to` observers and targets on a map of `n`
    /// hexes ([`by_viewsheds`]), with targets' viewsheds where `reciprocal`.
    fn cheaper(n: usize, (from, to): (usize, usize), reciprocal: bool) -> Route {
        if by_viewsheds(n, from, to) {
            Route::Observers
        } else if reciprocal && by_viewsheds(n, to, from) {
            Route::Targets
        } else {
            Route::Sweep
        }
    }
}

/// True where `count` viewsheds of `engine`'s map, as many at once as there are
/// threads ([`each_viewshed`]), fit in `budget` bytes (no limit where `None`).
fn fit(engine: &Engine, count: usize, budget: Option<u64>) -> bool {
    let at_once = rayon::current_num_threads().min(count) as u64;
    let need = viewshed::bytes(engine).saturating_mul(at_once);
    budget.is_none_or(|b| need <= b)
}

/// [`fit`] in the memory left.
pub(crate) fn viewsheds_fit(engine: &Engine, count: usize) -> bool {
    fit(
        engine,
        count,
        crate::memory::budget().map(|(bytes, _)| bytes),
    )
}

/// Calls `seen(i, j)` once for every observer `i` of `from` and target `j` of `to`
/// (map indices) whose line is seen, by the pair sweep or by viewsheds, the
/// observers' or (where the rules are the same both ways) the targets': the
/// way `route` says, or ([`None`]) whichever [costs less](Route::for_engine).
pub(crate) fn each_seen_by(
    engine: &Engine,
    (from, to): (&[usize], &[usize]),
    ctl: &Control,
    route: Option<Route>,
    seen: impl Fn(usize, usize) + Sync,
) -> Result<()> {
    let reciprocal = engine.is_reciprocal();
    match route.unwrap_or_else(|| Route::for_engine(engine, (from.len(), to.len()), reciprocal)) {
        Route::Sweep => pairs::for_each_seen(engine, from, to, ctl, seen),
        Route::Observers => each_viewshed(engine, (from, to), ctl, |i, j, t| {
            if t.verdict != Verdict::Blocked {
                seen(i, j)
            }
        }),
        Route::Targets => {
            assert!(reciprocal, "a target's viewshed stands for who sees it");
            each_viewshed(engine, (to, from), ctl, |j, i, t| {
                if t.verdict != Verdict::Blocked {
                    seen(i, j)
                }
            })
        }
    }
}

/// Calls `visit(i, j, target)` for each hex `j` of `to` as each observer `i` of
/// `from` sees it in its viewshed, as many observers at once as there are
/// threads (each viewshed is parallel too, but not wholly: 16 viewsheds of the
/// 500x500 map took 0.100 s one after another on two threads, 0.089 s two at a
/// time).
pub(crate) fn each_viewshed(
    engine: &Engine,
    (from, to): (&[usize], &[usize]),
    ctl: &Control,
    visit: impl Fn(usize, usize, &Target) + Sync,
) -> Result<()> {
    let mut is_to = vec![false; engine.map().len()];
    for &j in to {
        is_to[j] = true;
    }
    let quiet = Control {
        cancel: ctl.cancel,
        progress: &|_, _| {},
    };
    let per = to.len() as u64;
    let done = std::sync::atomic::AtomicU64::new(0);
    from.par_iter().try_for_each(|&i| -> Result<()> {
        if ctl.cancel.load(Ordering::Relaxed) {
            return Err(cancelled());
        }
        let v = viewshed::viewshed_of(engine, i, &quiet)?;
        v.targets
            .par_iter()
            .enumerate()
            .with_min_len(RUN)
            .filter(|&(j, _)| is_to[j])
            .for_each(|(j, t)| visit(i, j, t));
        let k = done.fetch_add(1, Ordering::Relaxed);
        (ctl.progress)((k + 1) * per, from.len() as u64 * per);
        Ok(())
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testmaps::{FAMILIES, random_map};
    use crate::los::line_of_sight;
    use std::sync::Mutex;

    /// Every family, flat-top and pointy-top, a few observers against the whole
    /// map and against part of it, and the other way round: the pairs seen by
    /// the observers' viewsheds, and the targets' where the rules are the same
    /// both ways, are those the pair sweep finds, and the explained query's, each
    /// once.
    #[test]
    fn viewsheds_see_the_pairs_the_sweep_sees() {
        for rs in FAMILIES {
            // Seed 21 makes a pointy-top map, 22 a flat-top one.
            for seed in [21, 22] {
                let map = random_map(rs, seed, 9, 8);
                let e = Engine::new(&map);
                let n = map.len();
                let every: Vec<usize> = (0..n).collect();
                let some: Vec<usize> = (0..n).filter(|j| j % 3 != 1).collect();
                let few = vec![3, 40, 41];
                for (from, to) in [
                    (vec![0], &every),
                    (vec![7, 30, 31, 71], &some),
                    (vec![], &every),
                    (every.clone(), &few),
                    (some.clone(), &few),
                ] {
                    let mut want: Vec<(usize, usize)> = from
                        .iter()
                        .flat_map(|&i| to.iter().map(move |&j| (i, j)))
                        .filter(|&(i, j)| {
                            line_of_sight(&map, map.hex_of(i), map.hex_of(j))
                                .verdict
                                .sees()
                        })
                        .collect();
                    want.sort_unstable();
                    let mut routes = vec![Route::Sweep, Route::Observers];
                    if e.is_reciprocal() {
                        routes.push(Route::Targets);
                    }
                    for route in routes {
                        let got = Mutex::new(Vec::new());
                        let push = |i, j| got.lock().unwrap().push((i, j));
                        each_seen_by(&e, (&from, to), &Control::default(), Some(route), push)
                            .unwrap();
                        let mut got = got.into_inner().unwrap();
                        got.sort_unstable();
                        assert_eq!(got, want, "{rs} {seed} {route:?} from {from:?}");
                    }
                }
            }
        }
    }

    /// Viewsheds that would not fit in the memory left give way to the sweep.
    #[test]
    fn viewsheds_that_do_not_fit_give_way_to_the_sweep() {
        let map = random_map("geometric", 22, 60, 50);
        let e = Engine::new(&map);
        let (n, need) = (map.len(), viewshed::bytes(&e));
        assert_eq!(Route::within(&e, (1, n), true, || None), Route::Observers);
        // Two observers: two viewsheds at once where there are two threads.
        let at_once = rayon::current_num_threads().min(2) as u64;
        let two = Some(need * at_once);
        assert_eq!(Route::within(&e, (2, n), true, || two), Route::Observers);
        let short = Some(need * at_once - 1);
        assert_eq!(Route::within(&e, (2, n), true, || short), Route::Sweep);
        assert_eq!(
            Route::within(&e, (1, n), true, || Some(need)),
            Route::Observers
        );
        assert_eq!(
            Route::within(&e, (1, n), true, || Some(need - 1)),
            Route::Sweep
        );
        assert_eq!(
            Route::within(&e, (n, 1), true, || Some(need)),
            Route::Targets
        );
        assert_eq!(
            Route::within(&e, (n, 1), true, || Some(need - 1)),
            Route::Sweep
        );
    }

    /// A cancelled request by viewsheds stops with the cancel error.
    #[test]
    fn a_cancelled_run_by_viewsheds_returns_an_error() {
        let map = random_map("geometric", 22, 9, 8);
        let flag = std::sync::atomic::AtomicBool::new(true);
        let ctl = Control {
            cancel: &flag,
            progress: &|_, _| {},
        };
        let every: Vec<usize> = (0..map.len()).collect();
        let run = each_seen_by(
            &Engine::new(&map),
            (&[0, 1], &every),
            &ctl,
            Some(Route::Observers),
            |_, _| {},
        );
        assert_eq!(run.unwrap_err().to_string(), cancelled().to_string());
    }

    /// The choice follows what each costs: one observer facing a big map by its
    /// viewshed, many by the sweep, and few targets by the sweep unless their
    /// viewsheds may stand for who sees them.
    #[test]
    fn a_few_observers_facing_the_map_take_viewsheds() {
        let n = 250_000;
        assert_eq!(Route::cheaper(n, (1, n), false), Route::Observers);
        assert_eq!(Route::cheaper(n, (n, 1), false), Route::Sweep);
        assert_eq!(Route::cheaper(n, (n, 1), true), Route::Targets);
        assert_eq!(Route::cheaper(n, (100, n), true), Route::Sweep);
        assert_eq!(Route::cheaper(n, (100, 100), true), Route::Sweep);
        let n = 250_000;
        assert!(by_viewsheds(n, 1, n));
        assert!(by_viewsheds(n, 16, n));
        assert!(!by_viewsheds(n, 100, n));
        assert!(!by_viewsheds(n, 1, 100));
        assert!(!by_viewsheds(10_000, 16, 10_000));
        assert!(by_viewsheds(10_000, 4, 10_000));
        assert!(!by_viewsheds(n, 1, 0));
    }
}
