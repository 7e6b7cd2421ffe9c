//! Unit tables shared by the families that put units on the map (asl, napoleonic):
//! kinds and states with flags, checks of the ruleset's own tables, and the common
//! unit checks (known kind, known state) that every family runs before its own.
//!
//! Flags are plain strings so that a ruleset file, not code, says which kinds may go
//! prone or fire over friends; each family documents the flags it reads.

use super::{Assessment, Modifier};
use crate::error::{Error, Result};
use crate::hex::{Hex, HexLine};
use crate::map::{Map, Unit};
pub use crate::ruleset::units::{ArcSpec, UnitType, check_tables, tagged};
use serde::Serialize;

/// What kind of fire, for the families where it changes an answer (ASL's crest TEM, B20.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FireKind {
    /// Direct fire.
    Direct,
    /// Indirect fire (mortars, artillery).
    Indirect,
    /// An overrun.
    Overrun,
}

/// A yes/no answer with the reasons, each citing its rule.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Answer {
    /// The answer.
    pub ok: bool,
    /// Why.
    pub reasons: Vec<String>,
}

impl Answer {
    /// Sets the answer to yes, because of `why`.
    pub fn yes(&mut self, why: String) {
        self.ok = true;
        self.reasons.push(why);
    }

    /// Sets the answer to no, because of `why`.
    pub fn no(&mut self, why: String) {
        self.ok = false;
        self.reasons.push(why);
    }
}

/// "Can see", "can be targeted" and "can fire" for one unit at another: three different
/// answers once units shape the lines (rules.md section 3).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UnitAnswers {
    /// The firer sees the target.
    pub sees: Answer,
    /// The target may be fired at by this firer.
    #[serde(rename = "can_be_targeted")]
    pub targeted: Answer,
    /// The firer can fire at it now (line of fire free).
    #[serde(rename = "can_fire")]
    pub fires: Answer,
    /// Modifiers of that fire.
    pub modifiers: Vec<Modifier>,
    /// The firer's field-of-view arc (`front arc (3 hexsides facing N)`), when its kind has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arc: Option<String>,
}

/// The answers of a family whose units add nothing to the sight rule: the line between
/// the units' hexes (and its `assessment`) says yes or no to all three, for the same reason.
pub fn line_answers(map: &Map, line: &HexLine, mut assessment: Assessment) -> UnitAnswers {
    let c = assessment.conclude(map, line);
    let mut ans = UnitAnswers::default();
    let text = format!(
        "LOS {} -> {} is {}: {}",
        map.label(line.from),
        map.label(line.to),
        c.verdict.as_str(),
        c.reason
    );
    for x in [&mut ans.sees, &mut ans.targeted, &mut ans.fires] {
        if c.verdict.sees() {
            x.yes(text.clone())
        } else {
            x.no(text.clone())
        }
    }
    ans.modifiers = assessment.modifiers;
    ans
}

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
