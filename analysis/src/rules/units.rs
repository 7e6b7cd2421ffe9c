//! Unit tables shared by the families that put units on the map (asl, napoleonic):
//! kinds and states with flags, checks of the ruleset's own tables, and the common
//! unit checks (known kind, known state) that every family runs before its own.
//!
//! Flags are plain strings so that a ruleset file, not code, says which kinds may go
//! prone or fire over friends; each family documents the flags it reads.

use crate::error::{Error, Result};
use crate::hex::Hex;
use crate::map::{Map, Unit};
pub use crate::ruleset::units::{ArcSpec, UnitType, check_tables, tagged};

/// A broken unit rule: which unit, where, and what is wrong (citing the rule).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The unit's id.
    pub unit: String,
    /// Its hex.
    pub hex: Hex,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    /// A problem with `u`.
    pub fn new(u: &Unit, message: impl Into<String>) -> Self {
        Problem {
            unit: u.id.clone(),
            hex: u.hex,
            message: message.into(),
        }
    }

    /// `unit `2/95th` in C5: ...`.
    pub fn describe(&self, map: &Map) -> String {
        format!(
            "unit `{}` in {}: {}",
            self.unit,
            map.label(self.hex),
            self.message
        )
    }
}

/// The kind entry of a unit, if the ruleset knows it.
pub fn kind<'a>(map: &'a Map, u: &Unit) -> Option<&'a UnitType> {
    map.ruleset.unit_kinds.iter().find(|k| k.id == u.kind)
}

/// The state entry of a unit (the first state when the file gives none).
pub fn state<'a>(map: &'a Map, u: &Unit) -> Option<&'a UnitType> {
    let states = &map.ruleset.unit_states;
    if u.state.is_empty() {
        states.first()
    } else {
        states.iter().find(|s| s.id == u.state)
    }
}

/// True when the unit's kind carries `flag`.
pub fn kind_has(map: &Map, u: &Unit, flag: &str) -> bool {
    kind(map, u).is_some_and(|k| k.has(flag))
}

/// True when the unit's state carries `flag`.
pub fn state_has(map: &Map, u: &Unit, flag: &str) -> bool {
    state(map, u).is_some_and(|s| s.has(flag))
}

/// Unknown kinds and states, for families with unit tables. A unit with one of these
/// is not checked further: the family's rules cannot be applied to it.
pub fn unknown(map: &Map) -> (Vec<Problem>, Vec<usize>) {
    let rs = &map.ruleset;
    // At most a few dozen ids, then how many more: a table may be long.
    let ids = |l: &[UnitType]| crate::ruleset::id_list(l.iter().map(|t| t.id.as_str()));
    let mut problems = Vec::new();
    let mut good = Vec::new();
    for (i, u) in map.units.iter().enumerate() {
        let before = problems.len();
        if kind(map, u).is_none() {
            problems.push(Problem::new(
                u,
                format!(
                    "unknown kind `{}`; {} knows: {}",
                    u.kind,
                    rs.name,
                    ids(&rs.unit_kinds)
                ),
            ));
        }
        if state(map, u).is_none() {
            problems.push(Problem::new(
                u,
                format!(
                    "unknown state `{}`; {} knows: {}",
                    u.state,
                    rs.name,
                    ids(&rs.unit_states)
                ),
            ));
        }
        if problems.len() == before {
            good.push(i);
        }
    }
    (problems, good)
}

/// Turns a family's problems into one error listing every broken rule.
pub fn into_result(map: &Map, problems: Vec<Problem>) -> Result<()> {
    if problems.is_empty() {
        return Ok(());
    }
    let first = &problems[0];
    let place = format!("unit `{}` ({})", first.unit, map.label(first.hex));
    let text = problems
        .iter()
        .map(|p| p.describe(map))
        .collect::<Vec<_>>()
        .join("; ");
    let n = problems.len();
    Err(Error::invalid(
        place,
        format!(
            "{n} broken unit rule{}: {text}",
            if n == 1 { "" } else { "s" }
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Ruleset;
    use crate::hex::Layout;
    use std::sync::Arc;

    /// A unit of an unknown kind under a table of 500 kinds: the message lists a
    /// few dozen and says how many more, instead of all of them.
    #[test]
    fn an_unknown_kind_lists_a_bounded_number_of_known_ones() {
        let mut rs: serde_json::Value =
            serde_json::from_str(include_str!("../../../maps/rulesets/napoleonic.json")).unwrap();
        rs["unit_kinds"] = (0..500)
            .map(|k| serde_json::json!({"id": format!("kind-{k}")}))
            .collect();
        let rs = Ruleset::from_json(&rs.to_string(), std::path::Path::new("r.json")).unwrap();
        let mut map = Map::new("m", "r.json", Arc::new(rs), 4, 4, Layout::default());
        map.units.push(crate::map::Unit {
            id: "x".into(),
            hex: map.hex_of(0),
            side: "a".into(),
            kind: "nobody".into(),
            state: String::new(),
            facing: None,
            extra: Default::default(),
        });
        let (problems, _) = unknown(&map);
        let m = &problems[0].message;
        assert!(m.contains("kind-0") && m.contains("more"), "{m}");
        assert!(!m.contains("kind-499") && m.len() < 1000, "{m}");
    }
}
