//! Before and after: what a change to a map (a layer, another version of the map)
//! does to who sees whom, read from two runs of the engine on the same grid.
//!
//! Both matrices over the same observers and targets are computed by the engine
//! ([`super::matrix`]) and compared word by word: a pair is gained when the observer
//! sees the target after and not before, lost the other way. The per-hex exposure
//! change (`sees`, `seen_by`) is counted from those pairs alone, so it is exactly
//! the difference of two exposure runs; the viewsheds of chosen hexes are two
//! viewshed runs compared hex by hex.

use super::fast::Engine;
use super::matrix::{self, BitMatrix, Control, Selection};
use super::viewshed::viewshed_of;
use crate::error::{Error, ErrorKind, Result};
use crate::map::Map;

/// Most gained and most lost pairs a [`Diff`] keeps as examples.
pub const EXAMPLES: usize = 20;

/// The change in one chosen hex's viewshed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewChange {
    /// The observer (map index).
    pub from: usize,
    /// Hexes it sees after and not before.
    pub gained: Vec<usize>,
    /// Hexes it saw before and not after.
    pub lost: Vec<usize>,
}

/// What changed between two maps of one grid, over one selection of pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    /// The observers and targets compared.
    pub sel: Selection,
    /// Pairs seen after and not before.
    pub gained: u64,
    /// Pairs seen before and not after.
    pub lost: u64,
    /// The first [`EXAMPLES`] gained pairs (map indices), observer by observer.
    pub first_gained: Vec<(usize, usize)>,
    /// The first [`EXAMPLES`] lost pairs.
    pub first_lost: Vec<(usize, usize)>,
    /// Per map hex: targets it sees after minus before (0 for hexes not observers).
    pub sees: Vec<i64>,
    /// Per map hex: observers that see it after minus before (0 for hexes not targets).
    pub seen_by: Vec<i64>,
    /// The chosen hexes' viewsheds, gained and lost.
    pub views: Vec<ViewChange>,
}

impl Diff {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.gained == 0
            && self.lost == 0
            && self
                .views
                .iter()
                .all(|v| v.gained.is_empty() && v.lost.is_empty())
    }
}

/// Refuses two maps that are not one grid (the pairs would not be the same hexes).
pub fn check_same_grid(before: &Map, after: &Map) -> Result<()> {
    if (before.cols, before.rows, before.layout, before.first_row)
        != (after.cols, after.rows, after.layout, after.first_row)
    {
        return Err(Error::new(
            ErrorKind::Query,
            format!(
                "the maps compared are not one grid: {}x{} {:?} against {}x{} {:?}",
                before.cols,
                before.rows,
                before.layout.orientation,
                after.cols,
                after.rows,
                after.layout.orientation
            ),
        ));
    }
    Ok(())
}

/// Memory a diff needs: two matrices and their engines.
pub fn estimate_bytes(before: &Map, after: &Map, sel: &Selection) -> u64 {
    matrix::estimate_bytes(before, sel).saturating_add(matrix::estimate_bytes(after, sel))
}

/// Refuses, naming the way out, a diff that does not fit in memory.
pub fn check_memory(before: &Map, after: &Map, sel: &Selection) -> Result<()> {
    crate::memory::check(
        estimate_bytes(before, after, sel),
        &format!(
            "comparing {} x {} pairs twice",
            sel.from.len(),
            sel.to.len()
        ),
        "restrict the observers and the targets to smaller zones",
    )
}

/// The diff of `after` against `before` over `sel`, with the viewsheds of `views`.
pub fn diff(
    before: &Engine,
    after: &Engine,
    sel: &Selection,
    views: &[usize],
    ctl: &Control,
) -> Result<Diff> {
    check_same_grid(before.map(), after.map())?;
    // One progress count over every phase: each matrix counts its pairs, each
    // viewshed its targets; a phase's own count is scaled into its share.
    let n = before.map().len() as u64;
    let pairs = sel.from.len() as u64 * sel.to.len() as u64;
    let total = 2 * pairs + 2 * n * views.len() as u64;
    let slice = |base, size| share(ctl, base, size, total);
    let a = matrix::matrix(before, sel, &part_of(ctl, &slice(0, pairs)))?;
    let b = matrix::matrix(after, sel, &part_of(ctl, &slice(pairs, pairs)))?;
    let mut d = compare(&a.bits, &b.bits, sel, before.map().len());
    for (k, &i) in views.iter().enumerate() {
        let base = 2 * pairs + 2 * n * k as u64;
        let x = viewshed_of(before, i, &part_of(ctl, &slice(base, n)))?;
        let y = viewshed_of(after, i, &part_of(ctl, &slice(base + n, n)))?;
        let seen = |v: &super::viewshed::Viewshed, j: usize| v.targets[j].verdict.sees();
        let n = x.targets.len();
        d.views.push(ViewChange {
            from: i,
            gained: (0..n).filter(|&j| seen(&y, j) && !seen(&x, j)).collect(),
            lost: (0..n).filter(|&j| seen(&x, j) && !seen(&y, j)).collect(),
        });
    }
    Ok(d)
}

/// The progress of one phase of a longer run: the phase's own count (`done` of
/// `of`) scaled into its `size` from `base`, of the run's `total`.
pub(crate) fn share<'b>(
    ctl: &'b Control<'b>,
    base: u64,
    size: u64,
    total: u64,
) -> impl Fn(u64, u64) + Sync + 'b {
    move |done, of| {
        let part = (done as f64 / of.max(1) as f64 * size as f64) as u64;
        (ctl.progress)(base + part.min(size), total)
    }
}

/// The control of one phase of a run: `ctl`'s cancel flag, progress reported to `p`.
pub(crate) fn part_of<'a>(ctl: &Control<'a>, p: &'a (dyn Fn(u64, u64) + Sync)) -> Control<'a> {
    Control {
        cancel: ctl.cancel,
        progress: p,
    }
}

/// Compares two matrices of the same selection bit by bit.
fn compare(a: &BitMatrix, b: &BitMatrix, sel: &Selection, hexes: usize) -> Diff {
    let mut d = Diff {
        sel: sel.clone(),
        gained: 0,
        lost: 0,
        first_gained: Vec::new(),
        first_lost: Vec::new(),
        sees: vec![0; hexes],
        seen_by: vec![0; hexes],
        views: Vec::new(),
    };
    for (r, &i) in sel.from.iter().enumerate() {
        for (w, (&x, &y)) in a.row(r).iter().zip(b.row(r)).enumerate() {
            for (mut bits, delta) in [(y & !x, 1i64), (x & !y, -1)] {
                while bits != 0 {
                    let j = sel.to[w * 64 + bits.trailing_zeros() as usize];
                    bits &= bits - 1;
                    d.sees[i] += delta;
                    d.seen_by[j] += delta;
                    let (count, first) = if delta > 0 {
                        (&mut d.gained, &mut d.first_gained)
                    } else {
                        (&mut d.lost, &mut d.first_lost)
                    };
                    *count += 1;
                    if first.len() < EXAMPLES {
                        first.push((i, j));
                    }
                }
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::exposure::streaming;
    use crate::engine::testmaps::{FAMILIES, random_map};
    use crate::los::line_of_sight;

    /// Every family, two random maps of one grid (seeds 4 and 8: both flat, odd
    /// stagger): the diff's pairs equal those of the explained query asked on each
    /// map, its exposure change the difference of two exposure runs, its viewshed
    /// changes those of two explained viewsheds.
    #[test]
    fn a_diff_equals_the_difference_of_two_separate_runs() {
        for rs in FAMILIES {
            let (m0, m1) = (random_map(rs, 4, 10, 9), random_map(rs, 8, 10, 9));
            let (e0, e1) = (Engine::new(&m0), Engine::new(&m1));
            let sel = Selection {
                from: (0..m0.len()).filter(|i| i % 4 != 1).collect(),
                to: (0..m0.len()).filter(|i| i % 3 != 2).collect(),
            };
            let views = [3, 40];
            let d = diff(&e0, &e1, &sel, &views, &Control::default()).unwrap();
            let sees = |m: &Map, i: usize, j: usize| {
                line_of_sight(m, m.hex_of(i), m.hex_of(j)).verdict.sees()
            };
            let (mut gained, mut lost) = (Vec::new(), Vec::new());
            for &i in &sel.from {
                for &j in &sel.to {
                    match (sees(&m0, i, j), sees(&m1, i, j)) {
                        (false, true) => gained.push((i, j)),
                        (true, false) => lost.push((i, j)),
                        _ => {}
                    }
                }
            }
            assert!(
                !gained.is_empty() && !lost.is_empty(),
                "{rs}: maps too alike"
            );
            assert_eq!(
                (d.gained, d.lost),
                (gained.len() as u64, lost.len() as u64),
                "{rs}"
            );
            assert_eq!(d.first_gained, gained[..gained.len().min(EXAMPLES)], "{rs}");
            assert_eq!(d.first_lost, lost[..lost.len().min(EXAMPLES)], "{rs}");
            let ctl = Control::default();
            let (x0, x1) = (
                streaming(&e0, &sel, &ctl).unwrap(),
                streaming(&e1, &sel, &ctl).unwrap(),
            );
            for h in 0..m0.len() {
                let want_sees = if sel.from.contains(&h) {
                    x1.sees[h] as i64 - x0.sees[h] as i64
                } else {
                    0
                };
                assert_eq!(d.sees[h], want_sees, "{rs}: sees {h}");
                let want_seen = if sel.to.contains(&h) {
                    x1.seen_by[h] as i64 - x0.seen_by[h] as i64
                } else {
                    0
                };
                assert_eq!(d.seen_by[h], want_seen, "{rs}: seen_by {h}");
            }
            for (v, &i) in d.views.iter().zip(&views) {
                let all: Vec<usize> = (0..m0.len()).collect();
                let g: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&j| sees(&m1, i, j) && !sees(&m0, i, j))
                    .collect();
                let l: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&j| sees(&m0, i, j) && !sees(&m1, i, j))
                    .collect();
                assert_eq!((&v.gained, &v.lost), (&g, &l), "{rs}: viewshed of {i}");
            }
        }
    }

    /// A map against itself: nothing gained, nothing lost, no hex changes.
    /// The progress of a whole diff (both matrices, both viewsheds of each view) is
    /// one count with one total, never past it, that reaches it at the end: on the
    /// whole map (the symmetric sweep) and on zones (the pair sweep).
    #[test]
    fn a_diff_reports_one_progress_total_across_its_phases() {
        let (m0, m1) = (random_map("asl", 4, 10, 9), random_map("asl", 8, 10, 9));
        let (e0, e1) = (Engine::new(&m0), Engine::new(&m1));
        let zones = Selection {
            from: (0..m0.len()).filter(|i| i % 4 != 1).collect(),
            to: (0..m0.len()).filter(|i| i % 3 != 2).collect(),
        };
        for sel in [Selection::all(&m0), zones] {
            let seen = std::sync::Mutex::new(Vec::new());
            let record = |d: u64, t: u64| seen.lock().unwrap().push((d, t));
            let ctl = Control {
                progress: &record,
                ..Control::default()
            };
            diff(&e0, &e1, &sel, &[3, 40], &ctl).unwrap();
            let calls = seen.into_inner().unwrap();
            let total = calls[0].1;
            let pairs = sel.from.len() as u64 * sel.to.len() as u64;
            assert_eq!(total, 2 * pairs + 2 * 2 * m0.len() as u64);
            assert!(calls.iter().all(|&(d, t)| t == total && d <= total));
            assert_eq!(calls.iter().map(|c| c.0).max(), Some(total));
            // The after matrix counts on from where the before matrix ended.
            assert!(calls.iter().any(|&(d, _)| d > pairs && d < 2 * pairs));
        }
    }

    #[test]
    fn a_diff_of_a_map_against_itself_is_empty() {
        for rs in FAMILIES {
            let m = random_map(rs, 3, 9, 8);
            let (e0, e1) = (Engine::new(&m), Engine::new(&m));
            let d = diff(&e0, &e1, &Selection::all(&m), &[0, 5], &Control::default()).unwrap();
            assert!(d.is_empty(), "{rs}");
            assert!(d.sees.iter().chain(&d.seen_by).all(|&x| x == 0), "{rs}");
            assert_eq!(d.views.len(), 2);
        }
    }

    /// Maps of two grids are refused with one line.
    #[test]
    fn maps_of_two_grids_are_refused() {
        let (m0, m1) = (
            random_map("geometric", 4, 10, 9),
            random_map("geometric", 4, 9, 9),
        );
        let e = diff(
            &Engine::new(&m0),
            &Engine::new(&m1),
            &Selection::all(&m0),
            &[],
            &Control::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("not one grid") && e.contains("10x9"), "{e}");
    }
}
