//! What is not the sight rule, each through the family's [`super::registry`] entry: checks of unit data, `validate`
//! warnings, the extra `los` JSON details and the heights of a side view.

use super::kernel::Heights;
use super::{Effect, Event, Verdict, registry, units};
use crate::error::Result;
use crate::hex::{Hex, HexLine};
use crate::map::Map;
use serde_json::Value;

/// Checks the units of a map against its family's rules: `Err` lists every broken rule
/// (naming unit and hex); `Ok` carries warnings. Families without unit tables accept any unit.
pub fn check_units(map: &Map) -> Result<Vec<String>> {
    units::into_result(map, registry::of(map).unit_problems(map))?;
    Ok(Vec::new())
}

/// Legal but suspicious features of a map, for `validate`.
pub fn warnings(map: &Map) -> Vec<String> {
    let mut out = registry::of(map).warnings(map);
    out.extend(arcs_without_facing(map));
    out
}

/// Most units named one by one in the arc warning; the rest are counted.
const ARC_WARNINGS: usize = 10;

/// Units whose kind has a field-of-view arc but which have no facing: they are read
/// as seeing all round (so older maps load), and `validate` says so.
fn arcs_without_facing(map: &Map) -> Vec<String> {
    let bad: Vec<String> = map
        .units
        .iter()
        .filter(|u| u.facing.is_none())
        .filter_map(|u| {
            let arc = super::units::kind(map, u)?.arc.as_ref()?;
            Some(format!(
                "unit `{}` ({}): its kind `{}` has a {} of {} hexsides but the unit has no `facing`, so it sees all round",
                u.id,
                map.label(u.hex),
                u.kind,
                arc.label(),
                arc.width()
            ))
        })
        .collect();
    let n = bad.len();
    let mut out: Vec<String> = bad.into_iter().take(ARC_WARNINGS).collect();
    if n > ARC_WARNINGS {
        out.push(format!(
            "... and {} more units with an arc but no facing",
            n - ARC_WARNINGS
        ));
    }
    out
}

/// Family-specific extra fields of a `los` answer (ASL crest status), if any.
pub fn details(map: &Map, line: &HexLine) -> Option<Value> {
    registry::of(map).details(map, line)
}

/// The heights the family's kernel reads along a line, for its side view.
pub fn heights(map: &Map, line: &HexLine) -> Heights {
    registry::of(map).heights(map, line)
}

/// The observer's eye in `from` and the top of each of `hexes` (`None` off the map),
/// as the family's kernel reads them ([`super::kernel::Kernel::eye`], [`super::kernel::Kernel::top`]),
/// so the explained blind-hex test compares the heights the engine compares.
pub fn eye_and_tops(map: &Map, from: Hex, hexes: &[Hex]) -> (i64, Vec<Option<i64>>) {
    registry::of(map).eye_and_tops(map, from, hexes)
}

/// True when a line from `from` is blocked (`verdict`, `events` of the explained
/// query) and every blocker is lower than the observer's eye: the target is hidden
/// only because it lies in the dead ground behind a lower obstacle (a "blind hex").
/// Heights are `family`'s kernel's ([`registry::Entry::eye_and_tops`]), as the
/// engine reads them.
pub fn is_blind(
    family: &registry::Entry,
    map: &Map,
    from: Hex,
    verdict: Verdict,
    events: &[Event],
) -> bool {
    if verdict != Verdict::Blocked {
        return false;
    }
    let blockers: Vec<Vec<Hex>> = events
        .iter()
        .filter(|e| e.effect == Effect::Block)
        .map(|e| e.place.hexes())
        .collect();
    if blockers.is_empty() {
        return false; // blocked by a hindrance limit, not by an obstacle
    }
    let all: Vec<Hex> = blockers.iter().flatten().copied().collect();
    let (eye, tops) = family.eye_and_tops(map, from, &all);
    let mut tops = tops.into_iter();
    blockers.iter().all(|hexes| {
        tops.by_ref()
            .take(hexes.len())
            .flatten()
            .max()
            .is_some_and(|top| top < eye)
    })
}
