//! Ruleset files: terrain, hexside, marker, unit and spotting tables plus named
//! parameters, and the built-in rulesets' files. Data only: this layer sits below the
//! map (which holds a ruleset) and the family code (which reads one), and imports
//! neither.

pub mod spotting;
pub mod units;

use crate::error::{Error, ErrorKind, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// The rule family whose code interprets a ruleset's tables: one of the built-in
/// rulesets, by name (`"family": "combat-commander"`). Which code that is, the family
/// registry says (`rules::registry::BUILTIN`, in the order of [`BUILTIN_FILES`]); this
/// layer only knows the names, so a new family is a ruleset file and a registry line.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Family(u8);

impl Family {
    /// The family of that name, if it is a built-in one.
    pub fn named(name: &str) -> Option<Family> {
        BUILTIN_FILES
            .iter()
            .position(|b| b.0 == name)
            .map(|i| Family(i as u8))
    }

    /// Its name (`combat-commander`).
    pub fn name(self) -> &'static str {
        BUILTIN_FILES[self.index()].0
    }

    /// Its place in [`BUILTIN_FILES`] and in the registry.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl std::fmt::Debug for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Family {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Family {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Family, D::Error> {
        let name = String::deserialize(d)?;
        Family::named(&name).ok_or_else(|| {
            let known: Vec<String> = Ruleset::builtin_names()
                .iter()
                .map(|n| format!("`{n}`"))
                .collect();
            serde::de::Error::custom(format!(
                "unknown family `{name}`, expected one of {}",
                known.join(", ")
            ))
        })
    }
}

/// What a terrain, hexside or marker does to a line of sight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LosEffect {
    /// No effect.
    Clear,
    /// Degrades the line by this many points.
    Hindrance(u32),
    /// Blocks the line.
    Obstacle,
}

/// How much a hex hides whoever is in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Cover {
    /// In the open.
    #[default]
    Clear,
    /// Light cover (brush, orchards).
    Light,
    /// Dense cover (woods, buildings).
    Dense,
}

fn default_move() -> f64 {
    1.0
}

/// One terrain type of a ruleset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainType {
    /// Identifier used in map files.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Effect on LOS traced through the hex.
    pub los: LosEffect,
    /// Height above the hex's ground, in levels (geometric sight lines).
    #[serde(default)]
    pub height: f64,
    /// Cover class.
    #[serde(default)]
    pub cover: Cover,
    /// Terrain effects modifier for units in the hex.
    #[serde(default)]
    pub tem: i32,
    /// Movement cost to enter; `null` means impassable.
    #[serde(default = "default_move_opt")]
    pub movement: Option<f64>,
    /// Marker kinds that may not be placed in such a hex.
    #[serde(default)]
    pub forbids_markers: Vec<String>,
    /// Units in such a hex may not fire.
    #[serde(default)]
    pub no_fire: bool,
    /// Colour for pictures and the editor (`#rrggbb`).
    #[serde(default)]
    pub color: Option<String>,
}

fn default_move_opt() -> Option<f64> {
    Some(default_move())
}

/// One hexside feature type (hedge, wall).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexsideType {
    /// Identifier used in map files.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Effect on LOS that crosses the hexside.
    pub los: LosEffect,
    /// Height in levels above the higher of the two hexes (geometric).
    #[serde(default)]
    pub height: f64,
    /// Cover given to a target when fire crosses it into the target's hex.
    #[serde(default)]
    pub cover: i32,
    /// Extra movement cost to cross.
    #[serde(default)]
    pub movement: f64,
    /// Colour for pictures and the editor.
    #[serde(default)]
    pub color: Option<String>,
}

/// One marker type (smoke, blaze).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkerType {
    /// Identifier used in map files.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Effect on LOS traced through the marker's hex, whatever the heights.
    pub los: LosEffect,
    /// Colour for pictures and the editor.
    #[serde(default)]
    pub color: Option<String>,
}

/// The range of ground levels a map may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelRange {
    /// Lowest level.
    pub min: i32,
    /// Highest level.
    pub max: i32,
}

impl Default for LevelRange {
    fn default() -> Self {
        LevelRange { min: -10, max: 100 }
    }
}

/// A ruleset: tables of terrain plus the family code that reads them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ruleset {
    /// Format version, always 1.
    pub hexsight_ruleset: u32,
    /// Short name (`combat-commander`).
    pub name: String,
    /// Which rule code interprets the tables.
    pub family: Family,
    /// One paragraph for people.
    #[serde(default)]
    pub description: String,
    /// Allowed ground levels.
    #[serde(default)]
    pub levels: LevelRange,
    /// Hex terrain types, in palette order.
    pub terrain: Vec<TerrainType>,
    /// Hexside feature types.
    #[serde(default)]
    pub hexsides: Vec<HexsideType>,
    /// Marker types.
    #[serde(default)]
    pub markers: Vec<MarkerType>,
    /// Named numeric parameters of the family (eye heights, limits).
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    /// Named lists of terrain or hexside ids a family reads (`depression`, `inherent`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, Vec<String>>,
    /// Unit kinds the family accepts, with the flags its code reads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unit_kinds: Vec<units::UnitType>,
    /// Unit states the family accepts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unit_states: Vec<units::UnitType>,
    /// Automatic spotting ranges and the spotting test (miniatures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spotting: Option<spotting::Spotting>,
}

/// The built-in rulesets' files, by name, in the order of the family registry
/// (`rules::registry::BUILTIN`, which gives each its family's code).
pub static BUILTIN_FILES: [(&str, &str); 6] = [
    (
        "geometric",
        include_str!("../../../maps/rulesets/geometric.json"),
    ),
    (
        "combat-commander",
        include_str!("../../../maps/rulesets/combat-commander.json"),
    ),
    ("asl", include_str!("../../../maps/rulesets/asl.json")),
    (
        "napoleonic",
        include_str!("../../../maps/rulesets/napoleonic.json"),
    ),
    (
        "miniatures",
        include_str!("../../../maps/rulesets/miniatures.json"),
    ),
    (
        "battletech",
        include_str!("../../../maps/rulesets/battletech.json"),
    ),
];

impl Ruleset {
    /// Names of the built-in rulesets.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTIN_FILES.iter().map(|b| b.0).collect()
    }

    /// A built-in ruleset by name.
    pub fn builtin(name: &str) -> Option<Ruleset> {
        let (_, text) = BUILTIN_FILES.iter().find(|b| b.0 == name)?;
        let origin = Path::new(name);
        Some(Ruleset::from_json(text, origin).expect("built-in rulesets are valid"))
    }

    /// Reads a ruleset file (up to the map files' size limit; a folder or a device
    /// that is not JSON is refused with one line).
    pub fn load(path: &Path) -> Result<Ruleset> {
        let text = crate::text::read_text(path, "ruleset")?;
        Ruleset::from_json(&text, path)
    }

    /// Parses and checks ruleset JSON; `origin` names it in errors. A UTF-8
    /// byte-order mark is skipped.
    pub fn from_json(text: &str, origin: &Path) -> Result<Ruleset> {
        let text = crate::text::strip_bom(text);
        let rs: Ruleset =
            serde_json::from_str(text).map_err(|e| Error::from_json_text(&e, text, origin))?;
        rs.check().map_err(|e| e.in_file(origin))?;
        Ok(rs)
    }

    fn check(&self) -> Result<()> {
        if self.hexsight_ruleset != 1 {
            return Err(Error::invalid(
                "hexsight_ruleset",
                format!(
                    "unsupported ruleset format version {} (this build reads version 1)",
                    self.hexsight_ruleset
                ),
            ));
        }
        if self.terrain.is_empty() {
            return Err(Error::invalid(
                "terrain",
                "a ruleset needs at least one terrain type",
            ));
        }
        if self.levels.min > self.levels.max {
            return Err(Error::invalid("levels", "min is above max"));
        }
        // Maps store terrain, hexside and marker kinds as 16-bit indices.
        for (table, n) in [
            ("terrain", self.terrain.len()),
            ("hexsides", self.hexsides.len()),
            ("markers", self.markers.len()),
        ] {
            if n > MAX_TABLE {
                return Err(Error::invalid(
                    table,
                    format!("{n} types; a ruleset may have at most {MAX_TABLE} in each table"),
                ));
            }
        }
        self.check_sizes()?;
        unique_ids("terrain", self.terrain.iter().map(|t| t.id.as_str()))?;
        unique_ids("hexsides", self.hexsides.iter().map(|t| t.id.as_str()))?;
        unique_ids("markers", self.markers.iter().map(|t| t.id.as_str()))?;
        for t in &self.terrain {
            for m in &t.forbids_markers {
                if self.marker_index(m).is_none() {
                    return Err(Error::invalid(
                        format!("terrain {}", crate::error::clip(&t.id, 40)),
                        format!("forbids unknown marker `{}`", crate::error::clip(m, 40)),
                    ));
                }
            }
        }
        units::check_tables(self)
    }

    /// Bounds on ids and numbers, so nothing downstream overflows or prints a huge
    /// message: ids of at most [`MAX_ID_CHARS`] characters, heights and parameters
    /// of at most [`MAX_NUMBER`] in size.
    fn check_sizes(&self) -> Result<()> {
        let ids = self
            .terrain
            .iter()
            .map(|t| ("terrain", t.id.as_str()))
            .chain(self.hexsides.iter().map(|t| ("hexsides", t.id.as_str())))
            .chain(self.markers.iter().map(|t| ("markers", t.id.as_str())))
            .chain(
                self.unit_kinds
                    .iter()
                    .map(|t| ("unit_kinds", t.id.as_str())),
            )
            .chain(
                self.unit_states
                    .iter()
                    .map(|t| ("unit_states", t.id.as_str())),
            )
            .chain(self.tags.iter().flat_map(|(k, v)| {
                std::iter::once(("tags", k.as_str())).chain(v.iter().map(|x| ("tags", x.as_str())))
            }));
        for (table, id) in ids {
            let n = id.chars().count();
            if n > MAX_ID_CHARS {
                return Err(Error::invalid(
                    table,
                    format!(
                        "id `{}` has {n} characters; an id has at most {MAX_ID_CHARS}",
                        crate::error::clip(id, 40)
                    ),
                ));
            }
        }
        let numbers = self
            .terrain
            .iter()
            .map(|t| (format!("terrain {}: height", t.id), t.height))
            .chain(
                self.hexsides
                    .iter()
                    .map(|t| (format!("hexsides {}: height", t.id), t.height)),
            )
            .chain(self.params.iter().map(|(k, v)| (format!("params.{k}"), *v)));
        for (place, x) in numbers {
            if !(x.is_finite() && x.abs() <= MAX_NUMBER) {
                return Err(Error::invalid(
                    crate::error::clip(&place, 80),
                    format!(
                        "{x} is out of range: heights and params are from -{MAX_NUMBER} to {MAX_NUMBER}"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Index of a terrain id.
    pub fn terrain_index(&self, id: &str) -> Option<usize> {
        self.terrain.iter().position(|t| t.id == id)
    }

    /// Index of a hexside feature id.
    pub fn hexside_index(&self, id: &str) -> Option<usize> {
        self.hexsides.iter().position(|t| t.id == id)
    }

    /// Index of a marker id.
    pub fn marker_index(&self, id: &str) -> Option<usize> {
        self.markers.iter().position(|t| t.id == id)
    }

    /// A named parameter, or `default` when the file does not set it.
    pub fn param(&self, name: &str, default: f64) -> f64 {
        self.params.get(name).copied().unwrap_or(default)
    }

    /// The valid terrain ids, for error messages.
    pub fn terrain_ids(&self) -> String {
        id_list(self.terrain.iter().map(|t| t.id.as_str()))
    }

    /// The valid hexside ids, for error messages.
    pub fn hexside_ids(&self) -> String {
        id_list(self.hexsides.iter().map(|t| t.id.as_str()))
    }

    /// The valid marker ids, for error messages.
    pub fn marker_ids(&self) -> String {
        id_list(self.markers.iter().map(|t| t.id.as_str()))
    }
}

/// Most types a ruleset table may hold (maps index them with 16 bits).
pub const MAX_TABLE: usize = u16::MAX as usize;

/// Longest id in a ruleset, in characters.
pub const MAX_ID_CHARS: usize = 100;

/// Largest size of a height (in levels) or a parameter in a ruleset.
pub const MAX_NUMBER: f64 = 1_000_000.0;

/// Most ids an error message lists before saying how many more there are.
pub const LISTED_IDS: usize = 30;

/// Ids joined for an error message: at most [`LISTED_IDS`], then "and N more".
pub(crate) fn id_list<'a>(ids: impl Iterator<Item = &'a str>) -> String {
    let mut shown = Vec::new();
    let mut more = 0usize;
    for id in ids {
        if shown.len() < LISTED_IDS {
            shown.push(crate::error::clip(id, 40));
        } else {
            more += 1;
        }
    }
    let mut s = shown.join(", ");
    if more > 0 {
        s.push_str(&format!(" and {more} more"));
    }
    s
}

fn unique_ids<'a>(table: &str, ids: impl Iterator<Item = &'a str>) -> Result<()> {
    let mut seen = HashSet::new();
    for id in ids {
        if !seen.insert(id) {
            return Err(Error::new(
                ErrorKind::Invalid,
                format!("duplicate id `{}`", crate::error::clip(id, 40)),
            )
            .at(table.to_string()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_ruleset_parses() {
        for name in Ruleset::builtin_names() {
            let rs = Ruleset::builtin(name).unwrap();
            assert_eq!(rs.name, name);
        }
    }

    #[test]
    fn a_ruleset_with_a_duplicate_terrain_is_refused() {
        let text = r#"{"hexsight_ruleset":1,"name":"x","family":"geometric",
            "terrain":[{"id":"open","los":"clear"},{"id":"open","los":"obstacle"}]}"#;
        let err = Ruleset::from_json(text, Path::new("x.json")).unwrap_err();
        assert!(err.to_string().contains("duplicate id `open`"), "{err}");
    }

    #[test]
    fn a_ruleset_with_a_typo_names_line_and_column() {
        let text = "{\"hexsight_ruleset\":1,\n \"nmae\":\"x\"}";
        let err = Ruleset::from_json(text, Path::new("r.json")).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Syntax);
        assert!(
            err.to_string().starts_with("r.json: line 2, column"),
            "{err}"
        );
    }
}
