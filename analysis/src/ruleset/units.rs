//! A ruleset's unit tables: kinds and states with the flags the family code reads,
//! a kind's field-of-view arc, the checks of those tables and of the tags, and the
//! tag lookup the families share.

use super::Ruleset;
use crate::error::{Error, Result};
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
/// targets within the arc about its facing (the arc query, `query::arc`, reads it).
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
