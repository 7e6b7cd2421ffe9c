//! The one place a family maps to its kernel.
//!
//! A family states its rule once, as a kernel ([`super::kernel::Kernel`]), and
//! says what it adds around it through [`Rules`]. [`Entry::of`] turns that into
//! the table entry every caller goes through: the explained query, unit checks,
//! side-view heights, the engine's prepared kernel and the generator's hints. A
//! built-in family is one line of [`BUILTIN`]; a test may build its own entry
//! from a kernel the same way and hand it to the engine
//! ([`crate::engine::fast::Engine::with_entry`]) and the explained query
//! ([`crate::los::line_of_sight_with`]).

use super::kernel::{self, Heights, Kernel};
use super::units::{self, FireKind, Problem, UnitAnswers};
use super::{Assessment, Family, asl, battletech, combat_commander, geometric, napoleonic};
use crate::engine::prepared::{self, Prepared};
use crate::hex::{Hex, HexLine};
use crate::map::{Map, Unit};
use serde_json::Value;

/// A family: its kernel, and what the family adds around the sight rule.
pub trait Rules {
    /// The family's kernel on a map.
    type Kernel<'m>: Kernel + 'm;
    /// The kernel for a map.
    fn kernel(map: &Map) -> Self::Kernel<'_>;
    /// The explained query for a walked line: by default the kernel's events alone.
    fn assess(map: &Map, line: &HexLine) -> Assessment {
        kernel::explain(&Self::kernel(map), line)
    }
    /// The units that break the family's rules (none by default).
    fn unit_problems(_map: &Map) -> Vec<Problem> {
        Vec::new()
    }
    /// "Can see", "can be targeted" and "can fire" for unit `a` at unit `b`, before the
    /// firer's arc: by default all three are the line between their hexes.
    fn unit_answers(map: &Map, a: &Unit, b: &Unit, _fire: FireKind) -> UnitAnswers {
        let line = HexLine::new(a.hex, b.hex);
        units::line_answers(map, &line, Self::assess(map, &line))
    }
    /// Legal but suspicious features of a map, for `validate` (none by default).
    fn warnings(_map: &Map) -> Vec<String> {
        Vec::new()
    }
    /// Extra fields of a `los` answer (none by default).
    fn details(_map: &Map, _line: &HexLine) -> Option<Value> {
        None
    }
    /// How many levels above the lowest the generator's hills rise on such maps.
    const HILL_LEVELS: i32 = 6;
}

/// The observer's eye and the tops of some hexes (`None` off the map).
type EyeAndTops = (i64, Vec<Option<i64>>);

/// A family's movement cost into an adjacent hex: the points and the reasons.
pub type MovementCost = fn(&Map, Hex, Hex) -> crate::Result<(f64, Vec<String>)>;

/// What the library asks of one family, each answer through its kernel.
pub struct Entry {
    assess: fn(&Map, &HexLine) -> Assessment,
    heights: fn(&Map, &HexLine) -> Heights,
    eye_and_tops: fn(&Map, Hex, &[Hex]) -> EyeAndTops,
    unit_problems: fn(&Map) -> Vec<Problem>,
    unit_answers: fn(&Map, &Unit, &Unit, FireKind) -> UnitAnswers,
    warnings: fn(&Map) -> Vec<String>,
    details: fn(&Map, &HexLine) -> Option<Value>,
    prepare: for<'m> fn(&'m Map, &crate::engine::grid::Padded) -> Box<dyn Prepared + 'm>,
    open_ground: fn(&Map, usize) -> bool,
    hill_levels: i32,
    movement: Option<MovementCost>,
}

impl Entry {
    /// The entry of a family's [`Rules`].
    pub const fn of<R: Rules>() -> Entry {
        Entry {
            assess: R::assess,
            heights: heights::<R>,
            eye_and_tops: eye_and_tops::<R>,
            unit_problems: R::unit_problems,
            unit_answers: R::unit_answers,
            warnings: R::warnings,
            details: R::details,
            prepare: prepared::prepare::<R>,
            open_ground: open_ground::<R>,
            hill_levels: R::HILL_LEVELS,
            movement: None,
        }
    }

    /// The entry with the family's movement costs (`hexsight move`); families
    /// without it model no movement.
    pub const fn with_movement(self, cost: MovementCost) -> Entry {
        Entry {
            movement: Some(cost),
            ..self
        }
    }

    /// The family's movement cost into an adjacent hex, if it models movement.
    pub fn movement(&self) -> Option<MovementCost> {
        self.movement
    }

    /// The family's judgement of a walked line, every event with its reason.
    pub fn assess(&self, map: &Map, line: &HexLine) -> Assessment {
        (self.assess)(map, line)
    }

    /// The heights the family's kernel reads along a line, for its side view.
    pub fn heights(&self, map: &Map, line: &HexLine) -> Heights {
        (self.heights)(map, line)
    }

    /// The observer's eye in `from` and the top of each of `hexes` (`None` off the
    /// map), as the kernel reads them.
    pub fn eye_and_tops(&self, map: &Map, from: Hex, hexes: &[Hex]) -> (i64, Vec<Option<i64>>) {
        (self.eye_and_tops)(map, from, hexes)
    }

    /// The units of a map that break the family's rules.
    pub fn unit_problems(&self, map: &Map) -> Vec<Problem> {
        (self.unit_problems)(map)
    }

    /// The family's three answers for unit `a` at unit `b`, before the firer's arc
    /// (`fire` matters to ASL's crest TEM).
    pub fn unit_answers(&self, map: &Map, a: &Unit, b: &Unit, fire: FireKind) -> UnitAnswers {
        (self.unit_answers)(map, a, b, fire)
    }

    /// Legal but suspicious features of a map.
    pub fn warnings(&self, map: &Map) -> Vec<String> {
        (self.warnings)(map)
    }

    /// Extra fields of a `los` answer.
    pub fn details(&self, map: &Map, line: &HexLine) -> Option<Value> {
        (self.details)(map, line)
    }

    /// The kernel laid into the engine's padded grid, its sweeps built on first use.
    pub(crate) fn prepare<'m>(
        &self,
        map: &'m Map,
        padded: &crate::engine::grid::Padded,
    ) -> Box<dyn Prepared + 'm> {
        (self.prepare)(map, padded)
    }

    /// True when no cell of `map` stands above the quiet height of any line from map
    /// hex `i`: its viewshed is clear everywhere, without an engine.
    pub(crate) fn open_ground(&self, map: &Map, i: usize) -> bool {
        (self.open_ground)(map, i)
    }

    /// How many levels above the lowest the generator's hills rise.
    pub fn hill_levels(&self) -> i32 {
        self.hill_levels
    }
}

/// [`Entry::open_ground`] by a family's kernel.
fn open_ground<R: Rules>(map: &Map, i: usize) -> bool {
    crate::engine::shadow::open_ground(&R::kernel(map), i)
}

/// [`kernel::heights`] of a family's kernel.
fn heights<R: Rules>(map: &Map, line: &HexLine) -> Heights {
    kernel::heights(&R::kernel(map), line)
}

/// [`Entry::eye_and_tops`] of a family's kernel.
fn eye_and_tops<R: Rules>(map: &Map, from: Hex, hexes: &[Hex]) -> (i64, Vec<Option<i64>>) {
    let k = R::kernel(map);
    let eye = if map.contains(from) {
        k.eye(&k.cell(from))
    } else {
        k.eye(&Default::default())
    };
    let tops = hexes
        .iter()
        .map(|&h| map.contains(h).then(|| k.top(&k.cell(h))))
        .collect();
    (eye, tops)
}

/// One built-in family: its ruleset file's name and its entry.
pub struct Builtin {
    /// The ruleset's name (`combat-commander`; its file is in
    /// [`crate::ruleset::BUILTIN_FILES`], at the same place).
    pub name: &'static str,
    /// The family's entry.
    pub entry: Entry,
}

/// Every built-in family, one line each, in the order of the ruleset files.
pub static BUILTIN: [Builtin; 6] = [
    builtin("geometric", Entry::of::<geometric::Rules>()),
    builtin(
        "combat-commander",
        Entry::of::<combat_commander::Rules>().with_movement(combat_commander::movement_cost),
    ),
    builtin("asl", Entry::of::<asl::Rules>()),
    builtin("napoleonic", Entry::of::<napoleonic::Rules>()),
    // Miniatures LOS is true line of sight over the table: the geometric family's
    // rules; the spotting rules (`super::miniatures`) start once LOS exists.
    builtin("miniatures", Entry::of::<geometric::Rules>()),
    builtin("battletech", Entry::of::<battletech::Rules>()),
];

const fn builtin(name: &'static str, entry: Entry) -> Builtin {
    Builtin { name, entry }
}

/// The entry of a family.
pub fn entry(family: Family) -> &'static Entry {
    &BUILTIN[family.index()].entry
}

/// The entry of a map's family.
pub fn of(map: &Map) -> &'static Entry {
    entry(map.ruleset.family)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_its_ruleset_file_in_the_same_order() {
        let names: Vec<&str> = crate::ruleset::BUILTIN_FILES.iter().map(|f| f.0).collect();
        assert_eq!(names, BUILTIN.iter().map(|b| b.name).collect::<Vec<_>>());
        for b in &BUILTIN {
            let rs = crate::Ruleset::builtin(b.name).unwrap();
            assert_eq!(rs.family.name(), b.name);
            assert!(std::ptr::eq(entry(rs.family), &b.entry), "{}", b.name);
        }
    }

    #[test]
    fn movement_costs_are_stated_for_combat_commander_alone() {
        for b in &BUILTIN {
            assert_eq!(
                b.entry.movement().is_some(),
                b.name == "combat-commander",
                "{}",
                b.name
            );
        }
        let map = crate::engine::testmaps::random_map("combat-commander", 1, 4, 4);
        let cost = of(&map)
            .movement()
            .expect("combat-commander models movement");
        let (a, b) = (map.hex_of(0), map.hex_of(1));
        assert!(cost(&map, a, b).unwrap().0 >= 1.0);
    }
}
