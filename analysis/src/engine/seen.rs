//! Which lines between many observers and targets are seen: the pair sweep
//! ([`super::pairs`]), or, where a few observers face most of the map, their
//! viewsheds ([`super::viewshed`]). The sweep compiles a walk for every offset
//! between the two sets however few lines share it, and tests every line; a
//! viewshed settles all but a few of its targets from tables of slopes, at a cost
//! that follows the hexes its tables take (where they shut every direction early,
//! a small part of the map).

use super::fast::Engine;
use super::matrix::{Control, cancelled};
use super::needs::Needs;
use super::viewshed::{self, Target};
use super::{RUN, pairs};
use crate::error::Result;
use crate::rules::Verdict;
use rayon::prelude::*;
use std::sync::atomic::Ordering;

/// Nanoseconds (two threads of the build box) the pair sweep pays per target of
/// one observer, near enough per offset it compiles: one hex of a 500x500 map
/// took 0.145 s, of a 100x100 map 5 ms, of a 1000x1000 map 0.54 s; and per line
/// it tests (100 hexes facing the 500x500 map 0.29 s, 1,500 along its edge 1.3 s).
const SWEEP_NS_PER_OFFSET: u64 = 580;
const SWEEP_NS_PER_LINE: u64 = 4;
/// ... and a viewshed, as many at once as threads: per map hex (the view of the
/// ground, the answer), per hex its tables take, and once. Taking every hex, 6 ms
/// on 500x500, 26 ms on 1000x1000, 0.7 ms on 100x100; from A1:J10 of the hilly
/// 500x500 map, whose tables take a fifth of it, about 1.8 ms each.
const VIEWSHED_NS_PER_HEX: u64 = 4;
const VIEWSHED_NS_PER_TAKEN: u64 = 16;
const VIEWSHED_NS: u64 = 360_000;

/// True where `from` viewsheds of a map of `n` hexes, whose tables take `taken`
/// hexes each, cost less than the pair sweep from `from` to `to` hexes, which
/// compiles at least a walk per target (taking every hex, the two cost the same
/// near 25 observers facing a whole 500x500 or 1000x1000 map, near 8 on 100x100).
fn by_viewsheds(n: usize, taken: usize, (from, to): (usize, usize)) -> bool {
    let each = VIEWSHED_NS_PER_HEX * n as u64 + VIEWSHED_NS_PER_TAKEN * taken as u64 + VIEWSHED_NS;
    let sweep = (SWEEP_NS_PER_OFFSET + SWEEP_NS_PER_LINE * from as u64) * to as u64;
    (from as u64).saturating_mul(each) <= sweep
}

/// About how many hexes the slope tables of a viewshed from each of `from` take
/// (every map hex where they hide none): their mean over a few of them, swept
/// here where one viewshed fits in `budget` bytes; every map hex where the
/// family's viewsheds have no such tables.
fn taken(engine: &Engine, from: &[usize], budget: Option<u64>) -> usize {
    let n = engine.map().len();
    if from.is_empty() || !engine.viewsheds_by_slopes() || !fit(engine, 1, budget) {
        return n;
    }
    // The first, middle and last (a zone's corners and inside).
    let sample = [0, from.len() / 2, from.len() - 1].map(|k| from[k]);
    let taken = sample.iter().map(|&i| match engine.viewshed_needs(i) {
        Needs::Swept(s) => n - s.hidden.min(n),
        Needs::Listed(_) => n,
    });
    taken.sum::<usize>() / sample.len()
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
    /// [`Route::cheaper`] for `engine`'s map, from observers `from` to targets
    /// `to`, or the sweep where a viewshed would not fit in the memory left (the
    /// sweep takes less).
    pub(crate) fn for_engine(
        engine: &Engine,
        sets: (&[usize], &[usize]),
        reciprocal: bool,
    ) -> Route {
        let budget = || crate::memory::budget().map(|(bytes, _)| bytes);
        Route::within(engine, sets, reciprocal, budget)
    }

    /// [`Route::for_engine`] with `budget()` bytes to spend (no limit where
    /// `None`; read once, and only where viewsheds could be the cheaper), for as
    /// many viewsheds at once as there are threads (and for one, to sample what
    /// their tables take).
    fn within(
        engine: &Engine,
        (from, to): (&[usize], &[usize]),
        reciprocal: bool,
        budget: impl FnOnce() -> Option<u64>,
    ) -> Route {
        let counts = (from.len(), to.len());
        let budget = std::cell::LazyCell::new(budget);
        let taken = (
            || taken(engine, from, *budget),
            || taken(engine, to, *budget),
        );
        let route = Route::cheaper(engine.map().len(), counts, reciprocal, taken);
        let viewsheds = match route {
            Route::Sweep => return Route::Sweep,
            Route::Observers => counts.0,
            Route::Targets => counts.1,
        };
        if fit(engine, viewsheds, *budget) {
            route
        } else {
            Route::Sweep
        }
    }

    /// The cheaper way from `from` to `to` observers and targets on a map of `n`
    /// hexes ([`by_viewsheds`]), with targets' viewsheds where `reciprocal`; the
    /// observers' and the targets' viewsheds take `taken.0()` and `taken.1()`
    /// hexes each (asked only where it matters).
    fn cheaper(
        n: usize,
        (from, to): (usize, usize),
        reciprocal: bool,
        taken: (impl Fn() -> usize, impl Fn() -> usize),
    ) -> Route {
        let by = |count, taken: &dyn Fn() -> usize| {
            by_viewsheds(n, n, count)
                || by_viewsheds(n, 0, count) && by_viewsheds(n, taken(), count)
        };
        if by((from, to), &taken.0) {
            Route::Observers
        } else if reciprocal && by((to, from), &taken.1) {
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
    match route.unwrap_or_else(|| Route::for_engine(engine, (from, to), reciprocal)) {
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
        let all: Vec<usize> = (0..n).collect();
        let (one, two, every) = (&all[..1], &all[..2], &all[..]);
        assert_eq!(
            Route::within(&e, (one, every), true, || None),
            Route::Observers
        );
        // Two observers: two viewsheds at once where there are two threads.
        let at_once = rayon::current_num_threads().min(2) as u64;
        let fits = Some(need * at_once);
        assert_eq!(
            Route::within(&e, (two, every), true, || fits),
            Route::Observers
        );
        let short = Some(need * at_once - 1);
        assert_eq!(
            Route::within(&e, (two, every), true, || short),
            Route::Sweep
        );
        assert_eq!(
            Route::within(&e, (one, every), true, || Some(need)),
            Route::Observers
        );
        assert_eq!(
            Route::within(&e, (one, every), true, || Some(need - 1)),
            Route::Sweep
        );
        assert_eq!(
            Route::within(&e, (every, one), true, || Some(need)),
            Route::Targets
        );
        assert_eq!(
            Route::within(&e, (every, one), true, || Some(need - 1)),
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
        let every = (|| n, || n);
        assert_eq!(Route::cheaper(n, (1, n), false, every), Route::Observers);
        assert_eq!(Route::cheaper(n, (n, 1), false, every), Route::Sweep);
        assert_eq!(Route::cheaper(n, (n, 1), true, every), Route::Targets);
        assert_eq!(Route::cheaper(n, (100, n), true, every), Route::Sweep);
        assert_eq!(Route::cheaper(n, (100, 100), true, every), Route::Sweep);
        assert!(by_viewsheds(n, n, (1, n)));
        assert!(by_viewsheds(n, n, (16, n)));
        assert!(!by_viewsheds(n, n, (100, n)));
        assert!(!by_viewsheds(n, n, (1, 100)));
        assert!(!by_viewsheds(10_000, 10_000, (16, 10_000)));
        assert!(by_viewsheds(10_000, 10_000, (4, 10_000)));
        assert!(!by_viewsheds(n, n, (1, 0)));
    }

    /// Where the tables of a zone's viewsheds take a small part of the map, the
    /// zone takes them, and the sweep where they take most of it; what they take
    /// is asked only where it could change the choice.
    #[test]
    fn viewsheds_whose_tables_take_little_are_the_cheaper() {
        let n = 250_000;
        let asked = &std::cell::Cell::new(0);
        let ask = |taken| {
            move || {
                asked.set(asked.get() + 1);
                taken
            }
        };
        let few = (ask(n / 5), ask(n / 5));
        assert_eq!(Route::cheaper(n, (100, n), false, few), Route::Observers);
        let most = (ask(n * 3 / 4), ask(n * 3 / 4));
        assert_eq!(Route::cheaper(n, (100, n), false, most), Route::Sweep);
        assert_eq!(asked.get(), 2);
        // Where viewsheds cost more even taking nothing, or less taking all.
        assert_eq!(
            Route::cheaper(n, (1500, n), false, (ask(0), ask(0))),
            Route::Sweep
        );
        assert_eq!(
            Route::cheaper(n, (4, n), false, (ask(n), ask(n))),
            Route::Observers
        );
        assert_eq!(asked.get(), 2);
    }
}
