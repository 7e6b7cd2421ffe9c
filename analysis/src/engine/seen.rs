//! Which lines between many observers and targets are seen: the pair sweep
//! ([`super::pairs`]), or, where a few observers face most of the map, their
//! viewsheds ([`super::viewshed`]). The sweep compiles a walk for every offset
//! between the two sets however few lines share it; a viewshed settles all but a
//! few of its targets from tables of slopes, at a cost that follows the map.

use super::fast::Engine;
use super::matrix::Control;
use super::{RUN, pairs, viewshed};
use crate::error::Result;
use crate::rules::Verdict;
use rayon::prelude::*;

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
pub(crate) fn by_viewsheds(n: usize, from: usize, to: usize) -> bool {
    let viewsheds = from as u64 * (VIEWSHED_NS_PER_HEX * n as u64 + VIEWSHED_NS);
    viewsheds <= SWEEP_NS_PER_OFFSET * to as u64
}

/// Calls `seen(i, j)` once for every observer `i` of `from` and target `j` of `to`
/// (map indices) whose line is seen, by the pair sweep or the observers'
/// viewsheds, whichever [costs less](by_viewsheds).
pub(crate) fn each_seen(
    engine: &Engine,
    from: &[usize],
    to: &[usize],
    ctl: &Control,
    seen: impl Fn(usize, usize) + Sync,
) -> Result<()> {
    each_seen_by(engine, (from, to), ctl, None, seen)
}

/// [`each_seen`] by viewsheds where `viewsheds` says so, by the sweep where it
/// says not, or as [`by_viewsheds`] chooses ([`None`]).
pub(crate) fn each_seen_by(
    engine: &Engine,
    (from, to): (&[usize], &[usize]),
    ctl: &Control,
    viewsheds: Option<bool>,
    seen: impl Fn(usize, usize) + Sync,
) -> Result<()> {
    let n = engine.map().len();
    if !viewsheds.unwrap_or_else(|| by_viewsheds(n, from.len(), to.len())) {
        return pairs::for_each_seen(engine, from, to, ctl, seen);
    }
    let mut is_to = vec![false; n];
    for &j in to {
        is_to[j] = true;
    }
    let quiet = Control {
        cancel: ctl.cancel,
        progress: &|_, _| {},
    };
    let per = to.len() as u64;
    for (k, &i) in from.iter().enumerate() {
        let v = viewshed::viewshed_of(engine, i, &quiet)?;
        v.targets
            .par_iter()
            .enumerate()
            .with_min_len(RUN)
            .filter(|&(j, t)| is_to[j] && t.verdict != Verdict::Blocked)
            .for_each(|(j, _)| seen(i, j));
        (ctl.progress)((k as u64 + 1) * per, from.len() as u64 * per);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testmaps::{FAMILIES, random_map};
    use crate::los::line_of_sight;
    use std::sync::Mutex;

    /// Every family, flat-top and pointy-top, a few observers against the whole
    /// map and against part of it: the pairs seen by viewsheds are those the pair
    /// sweep finds, and the explained query's, each once.
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
                for (from, to) in [
                    (vec![0], &every),
                    (vec![7, 30, 31, 71], &some),
                    (vec![], &every),
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
                    for viewsheds in [false, true] {
                        let got = Mutex::new(Vec::new());
                        let push = |i, j| got.lock().unwrap().push((i, j));
                        each_seen_by(&e, (&from, to), &Control::default(), Some(viewsheds), push)
                            .unwrap();
                        let mut got = got.into_inner().unwrap();
                        got.sort_unstable();
                        assert_eq!(got, want, "{rs} {seed} {viewsheds} from {from:?}");
                    }
                }
            }
        }
    }

    /// The choice follows what each costs: one observer facing a big map by its
    /// viewshed, many by the sweep, and few targets by the sweep.
    #[test]
    fn a_few_observers_facing_the_map_take_viewsheds() {
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
