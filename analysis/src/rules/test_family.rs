//! A family that exists only here, to show what a new family takes: one kernel,
//! one ruleset (the geometric tables, reused) and one registry line ([`HORIZON`]).
//! Nothing else in the library names it, yet it gets the explained query, the
//! engine with the level sweep its keys earn, viewsheds and matrices, and the
//! tests below check them all against its explained query on random maps.
//!
//! The rule, "geometric with a 1-level horizon": a hex between the ends blocks
//! when its surface rises more than one level above the higher end's ground.

use super::kernel::{At, End, Explained, MILLI, Notes, What};
use super::registry::{Entry, Rules};
use super::{Effect, geometric};
use crate::hex::Hex;
use crate::map::Map;

/// The kernel: the geometric cells, judged against the horizon.
struct Kernel<'m> {
    geo: geometric::Kernel<'m>,
}

impl super::kernel::Kernel for Kernel<'_> {
    type Cell = geometric::Cell;
    type Side = ();
    /// The higher end's ground level.
    type Ends = i32;

    fn map(&self) -> &Map {
        self.geo.map()
    }

    fn cell(&self, h: Hex) -> geometric::Cell {
        self.geo.cell(h)
    }

    fn side(&self, _: Hex, _: Hex) {}

    fn ends(&self, a: End<geometric::Cell>, b: End<geometric::Cell>) -> i32 {
        a.cell.level.max(b.cell.level)
    }

    fn hex<N: Notes>(&self, high: &i32, c: &geometric::Cell, at: At, n: &mut N) {
        let horizon = (i64::from(*high) + 1) * MILLI;
        if c.on_map() && c.surface() > horizon {
            n.note(What::Hex, Effect::Block, false, || {
                format!(
                    "{} rises above the horizon one level over level {high}",
                    self.map().label(at.hex)
                )
            });
        }
    }

    fn along_reason(&self, a: Hex, b: Hex, x: &Explained, y: &Explained, _: Effect) -> String {
        let side = self.map().side_label(a, b);
        format!("along {side}: {}; {}", x.text(""), y.text(""))
    }

    /// Only the higher end's level matters, wherever a stretch lies.
    fn level_key(&self, high: &i32) -> Option<i32> {
        Some(*high)
    }

    fn keyed_ends(&self, level: i32) -> Option<i32> {
        Some(level)
    }

    fn quiet_under(&self, high: &i32) -> Option<i64> {
        Some((i64::from(*high) + 1) * MILLI)
    }

    fn reciprocal(&self) -> bool {
        true
    }

    fn top(&self, c: &geometric::Cell) -> i64 {
        c.surface()
    }

    fn eye(&self, c: &geometric::Cell) -> i64 {
        (i64::from(c.level) + 1) * MILLI
    }
}

/// The family.
struct Horizon;

impl Rules for Horizon {
    type Kernel<'m> = Kernel<'m>;
    fn kernel(map: &Map) -> Kernel<'_> {
        Kernel {
            geo: geometric::Kernel::new(map),
        }
    }
}

/// Its registry line.
static HORIZON: Entry = Entry::of::<Horizon>();

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::fast::{Engine, Sight};
    use crate::engine::matrix::{Control, Selection, matrix};
    use crate::engine::testmaps::random_map;
    use crate::engine::viewshed::{Target, is_blind_by, viewshed_of};
    use crate::engine::walker::BLOCK;
    use crate::los::{line_of_sight, line_of_sight_with};
    use crate::rules::Verdict;

    /// Every ordered pair of random maps: the engine's sight (its level sweep in
    /// the matrix, with and without the vector paths) and every viewshed equal the
    /// family's explained query, and the family is not geometric's.
    #[test]
    fn a_family_registered_in_a_test_gets_the_whole_engine() {
        let (mut differ, mut seen, mut blocked) = (0, 0, 0);
        for seed in 0..4u64 {
            let map = random_map("geometric", seed, 9 + seed as u32, 8);
            let mut e = Engine::with_entry(&map, &HORIZON);
            assert!(e.has_sweep(), "seed {seed}: the level sweep");
            assert!(e.is_reciprocal());
            for simd in [true, false] {
                e.set_simd(simd);
                let m = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
                for i in 0..map.len() {
                    let v = viewshed_of(&e, i, &Control::default()).unwrap();
                    for j in 0..map.len() {
                        let (a, b) = (map.hex_of(i), map.hex_of(j));
                        let r = line_of_sight_with(&HORIZON, &map, a, b);
                        let what = format!("seed {seed}: {} -> {}", map.label(a), map.label(b));
                        let sees = r.verdict.sees();
                        assert_eq!(m.bits.get(i, j), sees, "matrix {what}");
                        let total = if sees { r.hindrance } else { BLOCK };
                        assert_eq!(e.sight(i, j), Sight::from_total(total), "{what}");
                        let want = Target {
                            verdict: r.verdict,
                            hindrance: if sees { r.hindrance } else { 0 },
                            blind: is_blind_by(&HORIZON, &map, &r),
                        };
                        assert_eq!(v.targets[j], want, "viewshed {what}");
                        differ += usize::from(line_of_sight(&map, a, b).verdict != r.verdict);
                        seen += usize::from(sees);
                        blocked += usize::from(r.verdict == Verdict::Blocked);
                    }
                }
            }
        }
        assert!(
            differ > 0 && seen > 1000 && blocked > 1000,
            "{differ} {seen} {blocked}"
        );
    }

    /// Units on its maps get the three answers with no unit code of its own: all three
    /// are its explained query between their hexes.
    #[test]
    fn its_units_get_the_three_answers_from_its_line() {
        use crate::map::Unit;
        use crate::rules::units::FireKind;
        let map = random_map("geometric", 5, 9, 8);
        let unit = |i: usize| Unit {
            id: format!("u{i}"),
            hex: map.hex_of(i),
            side: format!("side{}", i % 2),
            kind: String::new(),
            state: String::new(),
            facing: None,
            extra: Default::default(),
        };
        let (mut yes, mut no) = (0, 0);
        for i in 0..map.len() {
            for j in (0..map.len()).step_by(7) {
                let (a, b) = (unit(i), unit(j));
                let ans = HORIZON.unit_answers(&map, &a, &b, FireKind::Direct);
                let r = line_of_sight_with(&HORIZON, &map, a.hex, b.hex);
                for x in [&ans.sees, &ans.targeted, &ans.fires] {
                    assert_eq!(x.ok, r.verdict.sees(), "{} -> {}", a.id, b.id);
                    assert!(x.reasons[0].ends_with(&r.reason), "{:?}", x.reasons);
                }
                yes += usize::from(ans.sees.ok);
                no += usize::from(!ans.sees.ok);
            }
        }
        assert!(yes > 50 && no > 50, "{yes} {no}");
    }
}
