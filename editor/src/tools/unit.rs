//! Units: placing, editing and removing counters.

use hexsight_analysis::Map;
use hexsight_analysis::hex::Hex;
use hexsight_analysis::map::Unit;

/// What a new unit gets.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitTemplate {
    /// Side (`allied`, `axis`).
    pub side: String,
    /// Kind (`infantry`).
    pub kind: String,
    /// State (`standing`, `prone`, `crest`); may be empty.
    pub state: String,
    /// Facing direction index, for crest and facing states.
    pub facing: Option<usize>,
}

impl Default for UnitTemplate {
    fn default() -> Self {
        UnitTemplate {
            side: "allied".into(),
            kind: "infantry".into(),
            state: String::new(),
            facing: None,
        }
    }
}

/// States offered in the unit tool; the file may hold others, which are kept.
pub const STATES: [&str; 4] = ["", "standing", "prone", "crest"];

/// A fresh id for a unit of `side`: `allied-1`, `allied-2`, ...
pub fn next_id(map: &Map, side: &str) -> String {
    let base = if side.trim().is_empty() {
        "unit"
    } else {
        side.trim()
    };
    (1..)
        .map(|n| format!("{base}-{n}"))
        .find(|id| map.unit(id).is_none())
        .expect("some id is free")
}

/// Places a unit from the template in `h`; returns its id.
pub fn place(map: &mut Map, h: Hex, t: &UnitTemplate) -> Option<String> {
    if !map.contains(h) {
        return None;
    }
    let id = next_id(map, &t.side);
    map.units.push(Unit {
        id: id.clone(),
        hex: h,
        side: t.side.clone(),
        kind: t.kind.clone(),
        state: t.state.clone(),
        facing: t.facing,
        extra: Default::default(),
    });
    Some(id)
}

/// Removes the last-placed unit in `h` (the one drawn on top).
pub fn remove_top(map: &mut Map, h: Hex) -> Option<Unit> {
    let i = map.units.iter().rposition(|u| u.hex == h)?;
    Some(map.units.remove(i))
}
