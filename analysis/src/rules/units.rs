//! Unit tables shared by the families that put units on the map (asl, napoleonic):
//! kinds and states with flags, checks of the ruleset's own tables, and the common
//! unit checks (known kind, known state) that every family runs before its own.
//!
//! Flags are plain strings so that a ruleset file, not code, says which kinds may go
//! prone or fire over friends; each family documents the flags it reads.

use super::Ruleset;
use crate::error::{Error, Result};
use crate::hex::Hex;
use crate::map::{Map, Unit};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// A unit kind or state of a ruleset, with the flags the family code reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitType {
    /// Identifier used in map files (`infantry`, `prone`).
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Flags the family reads (`may-go-prone`, `fires-over-friends`, `blocks-los`).
    #[serde(default)]
    pub flags: Vec<String>,
    /// Field-of-view arc of the kind (unit kinds only): absent means all round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arc: Option<ArcSpec>,
}

/// A unit kind's field-of-view arc (`"arc": {"hexsides": 3}`): the unit sees only
/// targets within the arc about its facing (see [`crate::query::arc`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArcSpec {
    /// How many hexsides the arc spans, 1 to 6. Kept as written so that the ruleset
    /// check, not the parser, refuses a bad value, naming the kind.
    pub hexsides: serde_json::Value,
    /// What the reasons call it (`front arc`, the default).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
}

impl ArcSpec {
    /// The width in hexsides (checked at load to be 1 to 6).
    pub fn width(&self) -> u8 {
        arc_width(&self.hexsides).unwrap_or(6)
    }

    /// The name the reasons use.
    pub fn label(&self) -> &str {
        if self.name.is_empty() {
            "front arc"
        } else {
            &self.name
        }
    }
}

/// A whole number of hexsides from 1 to 6 (`3` or `3.0`), or `None`.
fn arc_width(v: &serde_json::Value) -> Option<u8> {
    let x = v.as_f64()?;
    (x.fract() == 0.0 && (1.0..=6.0).contains(&x)).then_some(x as u8)
}

impl UnitType {
    /// True when the type carries `flag`.
    pub fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }
}

/// Tags whose entries are not terrain or hexside ids (free words such as nations).
const FREE_TAGS: [&str; 1] = ["prone-nations"];

/// Checks the unit tables, the tags and the spotting table of a ruleset.
pub fn check_tables(rs: &Ruleset) -> Result<()> {
    for (table, list) in [
        ("unit_kinds", &rs.unit_kinds),
        ("unit_states", &rs.unit_states),
    ] {
        let mut seen = HashSet::new();
        for t in list {
            if !seen.insert(t.id.as_str()) {
                return Err(Error::invalid(table, format!("duplicate id `{}`", t.id)));
            }
        }
    }
    for k in &rs.unit_kinds {
        if let Some(a) = &k.arc
            && arc_width(&a.hexsides).is_none()
        {
            return Err(Error::invalid(
                format!("unit_kinds {}: arc.hexsides", crate::error::clip(&k.id, 40)),
                format!(
                    "`{}` is not a width: an arc spans a whole number of hexsides from 1 to 6",
                    crate::error::clip(&a.hexsides.to_string(), 40)
                ),
            ));
        }
    }
    for t in &rs.unit_states {
        if t.arc.is_some() {
            return Err(Error::invalid(
                format!("unit_states {}: arc", crate::error::clip(&t.id, 40)),
                "an arc belongs to a unit kind, not a state",
            ));
        }
    }
    for (tag, ids) in &rs.tags {
        if FREE_TAGS.contains(&tag.as_str()) {
            continue;
        }
        for id in ids {
            if rs.terrain_index(id).is_none() && rs.hexside_index(id).is_none() {
                return Err(Error::invalid(
                    format!("tags.{tag}"),
                    format!("`{id}` is neither a terrain nor a hexside id of this ruleset"),
                ));
            }
        }
    }
    if let Some(s) = &rs.spotting {
        s.check()?;
    }
    Ok(())
}

/// True when the ruleset lists terrain or hexside `id` under `tag`.
pub fn tagged(rs: &Ruleset, tag: &str, id: &str) -> bool {
    rs.tags
        .get(tag)
        .is_some_and(|ids| ids.iter().any(|i| i == id))
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
    let ids = |l: &[UnitType]| super::table::id_list(l.iter().map(|t| t.id.as_str()));
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
