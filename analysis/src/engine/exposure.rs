//! Exposure: for every hex, how many hexes it sees and how many see it,
//! optionally between zones: "where can I stand unseen by the enemy's start
//! area, and where do I see most?".

use super::fast::Engine;
use super::matrix::{Control, Matrix, Selection};
use super::offsets::Run;
use super::pairs;
use super::seen::{self, Route};
use crate::error::Result;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Counts per map hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exposure {
    /// Observers counted in `seen_by` (map indices).
    pub from: Vec<usize>,
    /// Targets counted in `sees`.
    pub to: Vec<usize>,
    /// For each hex, how many of the `to` hexes it sees.
    pub sees: Vec<u32>,
    /// For each hex, how many of the `from` hexes see it.
    pub seen_by: Vec<u32>,
}

/// Counts from a full, square matrix of the map.
pub fn from_matrix(m: &Matrix, from: &[usize], to: &[usize]) -> Exposure {
    let n = m.bits.len();
    assert_eq!(
        m.sel.from.len(),
        m.bits.cols(),
        "exposure needs the whole-map matrix"
    );
    let mut mask = vec![0u64; n.div_ceil(64)];
    for &t in to {
        mask[t / 64] |= 1 << (t % 64);
    }
    let sees: Vec<u32> = (0..n)
        .into_par_iter()
        .map(|i| {
            m.bits
                .row(i)
                .iter()
                .zip(&mask)
                .map(|(a, b)| (a & b).count_ones())
                .sum()
        })
        .collect();
    let mut seen_by = vec![0u32; n];
    for &o in from {
        for (w, word) in m.bits.row(o).iter().enumerate() {
            let mut x = *word;
            while x != 0 {
                let b = x.trailing_zeros() as usize;
                seen_by[w * 64 + b] += 1;
                x &= x - 1;
            }
        }
    }
    Exposure {
        from: from.to_vec(),
        to: to.to_vec(),
        sees,
        seen_by,
    }
}

/// The counts, the fastest way there is: for the whole map under reciprocal rules
/// with a specialised sweep, [`whole_map`]; otherwise [`streaming`].
pub fn exposure(engine: &Engine, sel: &Selection, ctl: &Control) -> Result<Exposure> {
    if sel.is_all(engine.map()) && engine.is_reciprocal() && engine.has_sweep() {
        let counts = whole_map(engine, ctl)?;
        return Ok(Exposure {
            from: sel.from.clone(),
            to: sel.to.clone(),
            ..counts
        });
    }
    streaming(engine, sel, ctl)
}

/// The counts of every hex both ways, from the whole-map matrix's sweep without
/// the matrix: each thread counts its seen pairs into counts of its own (the
/// bits of a 250x250 map would take 488 MB and a fifth of the run to write),
/// and under reciprocal rules a hex sees as many hexes as see it.
pub fn whole_map(engine: &Engine, ctl: &Control) -> Result<Exposure> {
    let n = engine.map().len();
    let count = |c: &mut Vec<u32>, run: &Run, lanes: u64| {
        run.each_pair(lanes, |i, j| {
            c[i] += 1;
            if i != j {
                c[j] += 1;
            }
        })
    };
    let parts = super::matrix::half_sweep(engine, ctl, || vec![0u32; n], |_, _| {}, count, |_| {})?;
    let mut counts = vec![0u32; n];
    for part in parts {
        for (c, p) in counts.iter_mut().zip(part) {
            *c += p;
        }
    }
    Ok(Exposure {
        from: (0..n).collect(),
        to: (0..n).collect(),
        sees: counts.clone(),
        seen_by: counts,
    })
}

/// Counts without holding a matrix: the engine's pair sweep over the zones,
/// which compiles only the walks from `sel.from` to every hex and from every
/// hex to `sel.to` (each pair once where the rules are reciprocal).
pub fn streaming(engine: &Engine, sel: &Selection, ctl: &Control) -> Result<Exposure> {
    streaming_part(engine, sel, 0..engine.map().len(), ctl)
}

/// The map indices of shard `k` of `shards`: consecutive, as even as can be.
pub fn shard_range(hexes: usize, k: usize, shards: usize) -> std::ops::Range<usize> {
    assert!(k < shards, "shard {k} of {shards}");
    hexes * k / shards..hexes * (k + 1) / shards
}

/// Partial counts of shard `k` of `shards` (see [`streaming_part`]): summed over
/// `k` in `0..shards`, they are exactly [`exposure`]'s.
pub fn shard(
    engine: &Engine,
    sel: &Selection,
    k: usize,
    shards: usize,
    ctl: &Control,
) -> Result<Exposure> {
    let part = shard_range(engine.map().len(), k, shards);
    streaming_part(engine, sel, part, ctl)
}

/// [`streaming`], counting only the lines walked from the observers whose map index
/// lies in `part`: every line is walked from exactly one observer, so the counts of
/// parts that cover the map once add up to the whole (`from` and `to` stay whole).
pub fn streaming_part(
    engine: &Engine,
    sel: &Selection,
    part: std::ops::Range<usize>,
    ctl: &Control,
) -> Result<Exposure> {
    streaming_where(engine, sel, part, ctl, |_, _| true)
}

/// [`streaming_part`] counting only the seen pairs `keep` keeps (a range, say);
/// `keep(i, j)` must equal `keep(j, i)`, as one walk may stand for both.
pub fn streaming_where(
    engine: &Engine,
    sel: &Selection,
    part: std::ops::Range<usize>,
    ctl: &Control,
    keep: impl Fn(usize, usize) -> bool + Sync,
) -> Result<Exposure> {
    counted(engine, sel, (part, keep), ctl, None)
}

/// [`streaming_where`], the lines from the request hexes (the observers under
/// rules that differ both ways) to the map found the way `route` says, or
/// ([`None`]) the cheaper way.
fn counted(
    engine: &Engine,
    sel: &Selection,
    (part, keep): (std::ops::Range<usize>, impl Fn(usize, usize) -> bool + Sync),
    ctl: &Control,
    route: Option<Route>,
) -> Result<Exposure> {
    let n = engine.map().len();
    let all: Vec<usize> = (0..n).collect();
    let mine =
        |v: &[usize]| -> Vec<usize> { v.iter().copied().filter(|i| part.contains(i)).collect() };
    let sees: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let seen_by: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let mut is_to = vec![false; n];
    for &t in &sel.to {
        is_to[t] = true;
    }
    let mut is_from = vec![false; n];
    for &o in &sel.from {
        is_from[o] = true;
    }
    let count = |i: usize, j: usize| {
        if is_to[j] {
            sees[i].fetch_add(1, Ordering::Relaxed);
        }
        if is_from[i] {
            seen_by[j].fetch_add(1, Ordering::Relaxed);
        }
    };
    if engine.is_reciprocal() {
        // One walk per pair: `i` sees `j` exactly when `j` sees `i`.
        let both: Vec<usize> = {
            let mut v: Vec<usize> = sel.from.iter().chain(&sel.to).copied().collect();
            v.sort_unstable();
            v.dedup();
            mine(&v)
        };
        let in_both = |x: usize| is_to[x] || is_from[x];
        if both.len() == n {
            // Every hex both ways (the whole map): each unordered pair once.
            pairs::for_each_seen_once(engine, &all, ctl, |i, j| {
                if keep(i, j) {
                    count(i, j);
                    if i != j {
                        count(j, i);
                    }
                }
            })?;
        } else {
            let seen = |i: usize, j: usize| {
                if !keep(i, j) {
                    return;
                }
                count(i, j);
                // The pair (j, i) where `j` is not itself a request hex is met only here.
                if !in_both(j) {
                    count(j, i);
                }
            };
            seen::each_seen_by(engine, (&both, &all), ctl, route, seen)?;
        }
    } else {
        seen::each_seen_by(engine, (&mine(&sel.from), &all), ctl, route, |i, j| {
            if keep(i, j) {
                seen_by[j].fetch_add(1, Ordering::Relaxed);
            }
        })?;
        pairs::for_each_seen(engine, &mine(&all), &sel.to, ctl, |i, j| {
            if keep(i, j) {
                sees[i].fetch_add(1, Ordering::Relaxed);
            }
        })?;
    }
    let unwrap = |v: Vec<AtomicU32>| v.into_iter().map(AtomicU32::into_inner).collect();
    Ok(Exposure {
        from: sel.from.clone(),
        to: sel.to.clone(),
        sees: unwrap(sees),
        seen_by: unwrap(seen_by),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::fast::Engine;
    use crate::engine::matrix::matrix;
    use crate::engine::testmaps::random_map;
    use crate::los::line_of_sight;

    /// Every family, zones that overlap and zones that do not: the streaming
    /// counts equal those of the explained query pair by pair, and the matrix's,
    /// and for the whole map the counts from the matrix's sweep.
    #[test]
    fn streaming_counts_equal_the_explained_query_and_the_matrix() {
        for rs in crate::engine::testmaps::FAMILIES {
            let map = random_map(rs, 9, 12, 10);
            let e = Engine::new(&map);
            let m = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
            for sel in [
                Selection {
                    from: (0..20).collect(),
                    to: (50..90).collect(),
                },
                Selection {
                    from: (10..40).collect(),
                    to: (30..60).collect(),
                },
                Selection::all(&map),
            ] {
                let a = from_matrix(&m, &sel.from, &sel.to);
                let b = streaming(&e, &sel, &Control::default()).unwrap();
                assert_eq!(a, b, "{rs}");
                if sel.is_all(&map) && e.is_reciprocal() && e.has_sweep() {
                    assert_eq!(
                        whole_map(&e, &Control::default()).unwrap(),
                        b,
                        "{rs}: whole map"
                    );
                }
                let mut summed = b.clone();
                summed.sees.fill(0);
                summed.seen_by.fill(0);
                for k in 0..3 {
                    let p = shard(&e, &sel, k, 3, &Control::default()).unwrap();
                    for h in 0..map.len() {
                        summed.sees[h] += p.sees[h];
                        summed.seen_by[h] += p.seen_by[h];
                    }
                }
                assert_eq!(summed, b, "{rs}: three shards");
                for h in 0..map.len() {
                    let sees = |a: usize, b: usize| {
                        line_of_sight(&map, map.hex_of(a), map.hex_of(b))
                            .verdict
                            .sees()
                    };
                    let want_sees = sel.to.iter().filter(|&&t| sees(h, t)).count();
                    let want_seen = sel.from.iter().filter(|&&o| sees(o, h)).count();
                    assert_eq!(b.sees[h] as usize, want_sees, "{rs} sees {h}");
                    assert_eq!(b.seen_by[h] as usize, want_seen, "{rs} seen by {h}");
                }
            }
        }
    }

    /// Every family, flat-top and pointy-top: the counts of a few request hexes
    /// from their viewsheds (the observers' alone where the rules differ both
    /// ways) equal the pair sweep's and the matrix's, whole and in shards, with
    /// zones apart, overlapping and one inside the other.
    #[test]
    fn counts_from_viewsheds_equal_the_pair_sweep() {
        for rs in crate::engine::testmaps::FAMILIES {
            // Seed 11 makes a pointy-top map, 12 a flat-top one.
            for seed in [11, 12] {
                let map = random_map(rs, seed, 10, 9);
                let e = Engine::new(&map);
                let m = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
                let zone = |v: &[usize]| v.to_vec();
                for (from, to) in [
                    (zone(&[0]), zone(&[0])),
                    (zone(&[44]), zone(&[3, 80])),
                    (zone(&[5, 6, 7, 15, 16]), zone(&[6, 15])),
                    (zone(&[89]), zone(&[])),
                ] {
                    let sel = Selection { from, to };
                    let want = from_matrix(&m, &sel.from, &sel.to);
                    for route in [Route::Sweep, Route::Observers] {
                        let all = (0..map.len(), |_: usize, _: usize| true);
                        let got = counted(&e, &sel, all, &Control::default(), Some(route));
                        assert_eq!(
                            got.unwrap(),
                            want,
                            "{rs} {seed} {route:?} {:?} {:?}",
                            sel.from,
                            sel.to
                        );
                        let mut summed = want.clone();
                        summed.sees.fill(0);
                        summed.seen_by.fill(0);
                        for k in 0..3 {
                            let part = (shard_range(map.len(), k, 3), |_: usize, _: usize| true);
                            let p = counted(&e, &sel, part, &Control::default(), Some(route));
                            for (s, p) in
                                summed.sees.iter_mut().zip(p.as_ref().unwrap().sees.iter())
                            {
                                *s += p;
                            }
                            for (s, p) in summed.seen_by.iter_mut().zip(&p.unwrap().seen_by) {
                                *s += p;
                            }
                        }
                        assert_eq!(summed, want, "{rs} {seed} {route:?}: three shards");
                    }
                }
            }
        }
    }

    /// On a grid laid along every kind of line, flat-top and pointy-top, wide, tall
    /// and thin, every family: the matrix and the streaming counts of zones along the
    /// map's rows and columns, and of the whole map (each pair once), equal the
    /// explained query pair by pair.
    #[test]
    fn sweeps_along_every_layout_equal_the_explained_query() {
        use crate::engine::grid::Axes;
        use crate::engine::testmaps::FAMILIES;
        use crate::hex::Orientation;
        let shapes = [(11, 9), (12, 1), (1, 12), (2, 7)];
        for ((cols, rows), rs) in shapes
            .into_iter()
            .flat_map(|s| FAMILIES.into_iter().map(move |rs| (s, rs)))
        {
            for orientation in [Orientation::Flat, Orientation::Pointy] {
                let mut map = random_map(rs, 4, cols, rows);
                map.layout.orientation = orientation;
                let n = map.len();
                let sees: Vec<Vec<bool>> = (0..n)
                    .map(|a| {
                        (0..n)
                            .map(|b| {
                                line_of_sight(&map, map.hex_of(a), map.hex_of(b))
                                    .verdict
                                    .sees()
                            })
                            .collect()
                    })
                    .collect();
                let offset = |i: usize| map.layout.offset_of(map.hex_of(i));
                let rows: Vec<usize> = (0..n).filter(|&i| offset(i).1 < 2).collect();
                let columns: Vec<usize> =
                    (0..n).filter(|&i| offset(i).0 + 2 >= cols as i32).collect();
                let all: Vec<usize> = (0..n).collect();
                for axes in Axes::ALL {
                    let e = Engine::with_axes(&map, crate::rules::registry::of(&map), axes);
                    let m = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
                    for (a, row) in sees.iter().enumerate() {
                        for (b, &want) in row.iter().enumerate() {
                            assert_eq!(
                                m.bits.get(a, b),
                                want,
                                "{rs} {orientation:?} {axes:?}: {a} -> {b}"
                            );
                        }
                    }
                    let some: Vec<usize> = (0..n).filter(|&i| i % 3 != 0).collect();
                    for (from, to) in [(&rows, &some), (&columns, &some), (&all, &all)] {
                        let sel = Selection {
                            from: from.clone(),
                            to: to.clone(),
                        };
                        let got = streaming(&e, &sel, &Control::default()).unwrap();
                        for (h, row) in sees.iter().enumerate() {
                            let want_sees = sel.to.iter().filter(|&&t| row[t]).count();
                            let want_seen = sel.from.iter().filter(|&&o| sees[o][h]).count();
                            assert_eq!(got.sees[h] as usize, want_sees, "{rs} {axes:?} sees {h}");
                            assert_eq!(
                                got.seen_by[h] as usize, want_seen,
                                "{rs} {axes:?} seen by {h}"
                            );
                        }
                    }
                }
            }
        }
    }
}
