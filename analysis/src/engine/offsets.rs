//! The pairs of the map one offset apart, in runs of up to 64 consecutive observers.
//!
//! The map's hexes are grouped by grid line (`q` here is the grid's `u`, `r` its
//! `v`: axial `q` and `r` on the default [`super::grid::Axes`]; within a group
//! `r` runs without gaps), so the observers of one group whose targets lie
//! `(dq, dr)` away in another form a run of consecutive padded cells, as do their
//! targets: the specialised sweeps test 64 such lanes with a few word operations.

use super::lines::{Pools, Walk};

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

impl Group {
    /// The largest r.
    pub fn r_hi(&self) -> i32 {
        self.r_lo + self.idx.len() as i32 - 1
    }
}

/// Hexes `idx` of the map (axial coordinates by map index) as `(q, r, index)`,
/// sorted by `q` then `r`, without repeats.
pub fn sorted_hexes(hex: impl Fn(usize) -> crate::hex::Hex, idx: &[usize]) -> Vec<(i32, i32, u32)> {
    let mut all: Vec<(i32, i32, u32)> = idx
        .iter()
        .map(|&i| {
            let h = hex(i);
            (h.q, h.r, i as u32)
        })
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// Groups hexes `idx` of the map (grid coordinates by map index) into runs of one
/// `q` and consecutive `r`, sorted by `q` then `r`.
pub fn runs_of(line: impl Fn(usize) -> crate::hex::Hex, idx: &[usize]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for (q, r, i) in sorted_hexes(line, idx) {
        match out.last_mut() {
            Some(g) if g.q == q && g.r_hi() + 1 == r => g.idx.push(i),
            _ => out.push(Group {
                q,
                r_lo: r,
                idx: vec![i],
            }),
        }
    }
    out
}

/// Groups the map's hexes (given by grid coordinates, in map index order) by `q`.
pub fn groups(lines: &[crate::hex::Hex]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&i| (lines[i].q, lines[i].r));
    for i in order {
        let h = lines[i];
        match groups.last_mut() {
            Some(g) if g.q == h.q => {
                debug_assert_eq!(g.r_hi() + 1, h.r, "a q line of the map has a gap");
                g.idx.push(i as u32);
            }
            _ => groups.push(Group {
                q: h.q,
                r_lo: h.r,
                idx: vec![i as u32],
            }),
        }
    }
    groups
}

/// The first of `groups` (in order of `q`) from `from` on whose `q` is at least
/// `q`: steps of 1, 2, 4... from `from`, then a search within the last step.
fn first_at_least(groups: &[Group], from: usize, q: i32) -> usize {
    let (mut lo, mut step) = (from, 1);
    while lo + step <= groups.len() && groups[lo + step - 1].q < q {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(groups.len());
    lo + groups[lo..hi].partition_point(|g| g.q < q)
}

/// Target columns (sorted by `q`), and whether they are one a `q` without gaps,
/// as a map's are: then [`DqPairs::set_between`] finds each observer column's
/// target column where its `q` puts it.
#[derive(Clone, Copy)]
pub struct Columns<'g> {
    groups: &'g [Group],
    one_per_q: bool,
}

impl<'g> Columns<'g> {
    /// The columns `groups`, sorted by `q`.
    pub fn of(groups: &'g [Group]) -> Columns<'g> {
        let one_per_q = groups.windows(2).all(|w| w[1].q == w[0].q + 1);
        Columns { groups, one_per_q }
    }
}

/// The pairs of groups `dq` apart.
pub struct DqPairs<'g> {
    /// `(a, b)` with `b.q = a.q + dq`.
    pub pairs: Vec<(&'g Group, &'g Group)>,
    /// The column offset.
    pub dq: i32,
}

/// One run of up to 64 consecutive observers of group `a` whose targets lie in `b`.
#[derive(Clone, Copy)]
pub struct Run<'g> {
    /// The observers' group.
    pub a: &'g Group,
    /// The targets' group.
    pub b: &'g Group,
    /// The first observer's `r`.
    pub r0: i32,
    /// How many observers (at most 64).
    pub lanes: usize,
    /// The row offset.
    pub dr: i32,
}

impl Run<'_> {
    /// The map indices of lane `l`'s observer and target.
    #[inline]
    pub fn pair(&self, lane: usize) -> (usize, usize) {
        let r = self.r0 + lane as i32;
        (
            self.a.idx[(r - self.a.r_lo) as usize] as usize,
            self.b.idx[(r + self.dr - self.b.r_lo) as usize] as usize,
        )
    }

    /// Calls `f(i, j)` with the observer and target of each lane of `lanes`.
    #[inline]
    pub fn each_pair(&self, lanes: u64, mut f: impl FnMut(usize, usize)) {
        super::bits::each_lane(lanes, |lane| {
            let (i, j) = self.pair(lane);
            f(i, j)
        })
    }
}

impl<'g> DqPairs<'g> {
    /// The pairs of `groups` `dq` apart.
    pub fn new(groups: &'g [Group], dq: i32) -> Self {
        let pairs = groups
            .iter()
            .filter_map(|a| {
                let k = groups.binary_search_by_key(&(a.q + dq), |g| g.q).ok()?;
                Some((a, &groups[k]))
            })
            .collect();
        DqPairs { pairs, dq }
    }

    /// The pairs of observer groups `obs` and target groups `tgt` (both sorted by `q`,
    /// several groups per `q` allowed) `dq` apart.
    pub fn between(obs: &'g [Group], tgt: &'g [Group], dq: i32) -> Self {
        let mut pairs = DqPairs {
            pairs: Vec::new(),
            dq,
        };
        pairs.set_between(obs, Columns::of(tgt), dq);
        pairs
    }

    /// Makes these [`DqPairs::between`] `obs` and `tgt`, `dq` apart, in the room they hold.
    pub fn set_between(&mut self, obs: &'g [Group], tgt: Columns<'g>, dq: i32) {
        self.pairs.clear();
        self.dq = dq;
        let Columns {
            groups: tgt,
            one_per_q,
        } = tgt;
        if one_per_q {
            // A map's columns: the observer columns that have a target column are
            // one range, and each one's lies where its `q` puts it, without a search.
            let Some(first) = tgt.first() else { return };
            let lo = first.q - dq;
            let from = obs.partition_point(|a| a.q < lo);
            for a in &obs[from..] {
                match tgt.get((a.q - lo) as usize) {
                    Some(b) => self.pairs.push((a, b)),
                    None => break,
                }
            }
            return;
        }
        // The observers' columns come in order, so each one's targets lie at or
        // after the last one's: a few steps on from there, rather than a search of
        // every column.
        debug_assert!(obs.windows(2).all(|w| w[0].q <= w[1].q), "columns in order");
        let mut start = 0;
        for a in obs {
            start = first_at_least(tgt, start, a.q + dq);
            for b in tgt[start..].iter().take_while(|b| b.q == a.q + dq) {
                self.pairs.push((a, b));
            }
        }
    }

    /// The `dr` the pairs span (from 0 up when `dq` is 0, so each pair is met once).
    pub fn dr_range(&self) -> Option<(i32, i32)> {
        let span = |a: &Group, b: &Group| {
            (
                if self.dq == 0 { 0 } else { b.r_lo - a.r_hi() },
                b.r_hi() - a.r_lo,
            )
        };
        let lo = self.pairs.iter().map(|&(a, b)| span(a, b).0).min()?;
        let hi = self.pairs.iter().map(|&(a, b)| span(a, b).1).max()?;
        Some((lo, hi))
    }

    /// Calls `f` for each run of observers whose target lies `dr` away.
    pub fn runs(&self, dr: i32, mut f: impl FnMut(Run<'g>)) {
        for &(a, b) in &self.pairs {
            let r_from = a.r_lo.max(b.r_lo - dr);
            let r_to = a.r_hi().min(b.r_hi() - dr);
            let mut r0 = r_from;
            while r0 <= r_to {
                let lanes = (r_to - r0 + 1).min(64) as usize;
                f(Run {
                    a,
                    b,
                    r0,
                    lanes,
                    dr,
                });
                r0 += 64;
            }
        }
    }
}

/// Where the pairs of one offset lie in the padded grid, as the sweeps need it.
#[derive(Clone, Copy)]
pub struct Place<'a> {
    /// The symmetry that maps the canonical walk onto the offset.
    pub g: usize,
    /// Its index factors in the padded grid.
    pub factors: (i64, i64),
    /// From an observer's cell to its target's.
    pub dt: i64,
    /// The padded-grid cell of each map hex.
    pub cells: &'a [u32],
    /// Enough lines share this walk for per-offset tables (the vector thresholds) to pay off.
    pub wide: bool,
}

impl Place<'_> {
    /// The padded-grid delta of canonical offset (`q`, `r`).
    #[inline]
    pub fn delta(&self, q: i16, r: i16) -> i64 {
        self.factors.0 * q as i64 + self.factors.1 * r as i64
    }
}

/// One offset's walk as the sweeps need it.
pub struct Offset<'a> {
    /// The compiled walks.
    pub pools: &'a Pools,
    /// The offset's walk (exact).
    pub walk: &'a Walk,
    /// Where its pairs lie.
    pub at: Place<'a>,
    /// Whether the walk stays where it is for the whole sweep (the whole map's
    /// walks), so that its record's place names it: another image of it may take
    /// what was built for it ([`super::vector::Thresholds::again`]). Walks compiled
    /// in turn into one pool are not.
    pub stays: bool,
}

impl Offset<'_> {
    /// The walk's name, where it [stays](Offset::stays).
    pub fn walk_id(&self) -> Option<super::vector::WalkId> {
        let at = |r: &Walk| std::ptr::from_ref(r) as usize;
        self.stays
            .then(|| (std::ptr::from_ref(self.pools) as usize, at(self.walk)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The pairs of observer and target columns `dq` apart are those a look at
        /// every pair finds, with target columns a map's (one a `q`) or not.
        #[test]
        fn column_pairs_are_every_pair_dq_apart(
            mut obs_q in proptest::collection::vec(-30i32..30, 0..40),
            mut tgt_q in proptest::collection::vec(-30i32..30, 0..40),
            map_columns: bool,
            dq in -70i32..70,
        ) {
            if map_columns {
                tgt_q = (-10..10).collect();
            }
            obs_q.sort();
            tgt_q.sort();
            // Several columns a `q` told apart by `r_lo`.
            let groups = |qs: &[i32]| -> Vec<Group> {
                qs.iter().enumerate().map(|(k, &q)| Group { q, r_lo: k as i32, idx: vec![0] }).collect()
            };
            let (obs, tgt) = (groups(&obs_q), groups(&tgt_q));
            let key = |(a, b): (&Group, &Group)| (a.q, a.r_lo, b.q, b.r_lo);
            let mut every = Vec::new();
            for a in &obs {
                for b in tgt.iter().filter(|b| b.q == a.q + dq) {
                    every.push(key((a, b)));
                }
            }
            let got: Vec<_> = DqPairs::between(&obs, &tgt, dq).pairs.into_iter().map(key).collect();
            prop_assert_eq!(Columns::of(&tgt).one_per_q, map_columns || tgt_q.windows(2).all(|w| w[1] == w[0] + 1));
            prop_assert_eq!(got, every);
        }

        /// Stepping on from an earlier answer finds what a search of every column does.
        #[test]
        fn stepping_on_finds_the_first_column_a_search_does(
            mut qs in proptest::collection::vec(-50i32..50, 0..80),
            mut wants in proptest::collection::vec(-60i32..60, 1..20),
            whole_map: bool,
        ) {
            // Columns with gaps and several a `q`, or a map's: one a `q`.
            if whole_map {
                qs = (-20..20).collect();
            }
            qs.sort();
            wants.sort();
            let groups: Vec<Group> = qs.iter().map(|&q| Group { q, r_lo: 0, idx: vec![0] }).collect();
            let mut from = 0;
            for q in wants {
                from = first_at_least(&groups, from, q);
                prop_assert_eq!(from, groups.partition_point(|g| g.q < q));
            }
        }
    }
}
