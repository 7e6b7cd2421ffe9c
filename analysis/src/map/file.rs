//! Map file format version 1 (JSON): load with checks that name the place, save atomically.

use super::model::{Cell, Extra, HexsideFeature, Map, Marker, Scale, Unit};
use crate::error::{Error, ErrorKind, Result};
use crate::hex::{Hex, Layout, Orientation, Side, Stagger};
use crate::rules::Ruleset;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Largest number of hexes a map may have (the matrix grows with its square).
pub const MAX_HEXES: u64 = 4_000_000;

#[derive(Serialize, Deserialize)]
struct MapFile {
    hexsight: u32,
    name: String,
    ruleset: String,
    grid: GridFile,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale: Option<ScaleFile>,
    #[serde(default)]
    default: EntryFile,
    #[serde(default)]
    hexes: Entries,
    #[serde(default)]
    hexsides: Vec<HexsideFile>,
    #[serde(default)]
    markers: Vec<MarkerFile>,
    #[serde(default)]
    units: Vec<UnitFile>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Serialize, Deserialize)]
struct GridFile {
    cols: u32,
    rows: u32,
    #[serde(default)]
    orientation: Orientation,
    #[serde(default, skip_serializing_if = "is_default")]
    stagger: Stagger,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    first_row: u32,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Serialize, Deserialize)]
struct ScaleFile {
    hex: f64,
    unit: String,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Serialize, Deserialize, Default)]
struct EntryFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    terrain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    level: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    slope: Option<bool>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Serialize, Deserialize)]
struct HexsideFile {
    hex: String,
    side: String,
    terrain: String,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Serialize, Deserialize)]
struct MarkerFile {
    hex: String,
    kind: String,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Serialize, Deserialize)]
struct UnitFile {
    id: String,
    hex: String,
    #[serde(default)]
    side: String,
    #[serde(default)]
    kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    facing: Option<String>,
    #[serde(flatten)]
    extra: Extra,
}

fn one() -> u32 {
    1
}
fn is_one(n: &u32) -> bool {
    *n == 1
}
fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

/// The `hexes` object in file order; a key given twice is a syntax error with its position.
#[derive(Default)]
struct Entries(Vec<(String, EntryFile)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object from hex labels to hex entries")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<Entries, A::Error> {
                let mut seen = HashSet::new();
                let mut out = Vec::new();
                while let Some(key) = m.next_key::<String>()? {
                    if !seen.insert(key.to_ascii_uppercase()) {
                        return Err(serde::de::Error::custom(format!(
                            "duplicate hex entry `{key}`"
                        )));
                    }
                    out.push((key, m.next_value()?));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl Serialize for Entries {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Map {
    /// Loads a map file; the ruleset path, if not built in, is relative to the file.
    pub fn load(path: &Path) -> Result<Map> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(&e, path))?;
        Map::from_json(&text, path)
    }

    /// Parses map JSON; `origin` names the file in errors and anchors a relative ruleset path.
    pub fn from_json(text: &str, origin: &Path) -> Result<Map> {
        let file: MapFile = serde_json::from_str(text).map_err(|e| Error::from_json(&e, origin))?;
        let ruleset = resolve_ruleset(&file.ruleset, origin)?;
        build(file, ruleset).map_err(|e| e.in_file(origin))
    }

    /// Parses map JSON with an already loaded ruleset (tests, generators).
    pub fn from_json_with(text: &str, origin: &Path, ruleset: Arc<Ruleset>) -> Result<Map> {
        let file: MapFile = serde_json::from_str(text).map_err(|e| Error::from_json(&e, origin))?;
        build(file, ruleset).map_err(|e| e.in_file(origin))
    }

    /// Loads a map for editing: a file whose units break their family's rules (a prone
    /// unit in woods, a crest unit outside a depression) still opens, so the user can fix
    /// it; what is broken comes back beside the map. Every other error still refuses.
    pub fn load_for_editing(path: &Path) -> Result<(Map, Option<Error>)> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(&e, path))?;
        let file: MapFile = serde_json::from_str(&text).map_err(|e| Error::from_json(&e, path))?;
        let ruleset = resolve_ruleset(&file.ruleset, path)?;
        let map = build_unchecked(file, ruleset).map_err(|e| e.in_file(path))?;
        let problems = crate::rules::check_units(&map)
            .err()
            .map(|e| e.in_file(path));
        Ok((map, problems))
    }

    /// The map as format-1 JSON text, pretty-printed.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(&to_file(self)).expect("maps always serialise");
        s.push('\n');
        s
    }

    /// Saves atomically: writes a temporary file beside `path`, then renames it.
    pub fn save(&self, path: &Path) -> Result<()> {
        write_atomic(path, self.to_json().as_bytes())
    }
}

pub use crate::atomic::write_atomic;

/// Finds a ruleset: a built-in name, or a file path relative to the map file.
pub fn resolve_ruleset(reference: &str, map_path: &Path) -> Result<Arc<Ruleset>> {
    if let Some(rs) = Ruleset::builtin(reference) {
        return Ok(Arc::new(rs));
    }
    let base = map_path.parent().unwrap_or(Path::new("."));
    let path = base.join(reference);
    if !path.is_file() {
        return Err(Error::new(
            ErrorKind::Invalid,
            format!(
                "ruleset `{reference}` is neither a built-in ({}) nor a file (looked for {})",
                Ruleset::builtin_names().join(", "),
                path.display()
            ),
        )
        .at("ruleset")
        .in_file(map_path));
    }
    Ruleset::load(&path).map(Arc::new)
}

fn build_unchecked(f: MapFile, ruleset: Arc<Ruleset>) -> Result<Map> {
    if f.hexsight != FORMAT_VERSION {
        return Err(Error::invalid(
            "hexsight",
            format!(
                "unsupported map format version {} (this build reads version {FORMAT_VERSION})",
                f.hexsight
            ),
        ));
    }
    let g = &f.grid;
    if g.cols == 0 || g.rows == 0 {
        return Err(Error::invalid("grid", "cols and rows must be at least 1"));
    }
    if u64::from(g.cols) * u64::from(g.rows) > MAX_HEXES {
        return Err(Error::invalid(
            "grid",
            format!("{}x{} is more than {MAX_HEXES} hexes", g.cols, g.rows),
        ));
    }
    let layout = Layout {
        orientation: g.orientation,
        stagger: g.stagger,
    };
    let rs = ruleset.clone();
    let mut map = Map::new(&f.name, &f.ruleset, ruleset, g.cols, g.rows, layout);
    map.first_row = g.first_row;
    map.grid_extra = f.grid.extra;
    map.extra = f.extra;
    if let Some(s) = f.scale {
        if !(s.hex.is_finite() && s.hex > 0.0) {
            return Err(Error::invalid(
                "scale.hex",
                format!("the length of a hex must be positive, not {}", s.hex),
            ));
        }
        map.scale = Some(Scale {
            hex: s.hex,
            unit: s.unit,
            extra: s.extra,
        });
    }
    let default = apply_entry(&rs, map.default, &f.default, "default")?;
    map.default = default;
    map.default_extra = f.default.extra;
    for c in 0..map.len() {
        let h = map.hex_of(c);
        *map.cell_mut(h).expect("on map") = default;
    }
    let mut seen = HashSet::new();
    for (label, entry) in &f.hexes.0 {
        let h = hex_on_map(&map, label, &format!("hexes.{label}"))?;
        if !seen.insert(h) {
            return Err(Error::invalid(
                format!("hexes.{label}"),
                format!("hex {} is listed twice", map.label(h)),
            ));
        }
        let cell = apply_entry(&rs, default, entry, &format!("hex {}", map.label(h)))?;
        *map.cell_mut(h).expect("on map") = cell;
        if !entry.extra.is_empty() {
            map.hex_extra.insert(h, entry.extra.clone());
        }
    }
    for (i, s) in f.hexsides.into_iter().enumerate() {
        let place = format!("hexsides[{i}] ({} {})", s.hex, s.side);
        let h = hex_on_map(&map, &s.hex, &place)?;
        let dir = layout.side_index(&s.side).ok_or_else(|| {
            Error::invalid(
                &place,
                format!(
                    "unknown side `{}`; valid: {}",
                    s.side,
                    layout.side_names().join(", ")
                ),
            )
        })?;
        let kind = rs.hexside_index(&s.terrain).ok_or_else(|| {
            Error::invalid(
                &place,
                format!(
                    "unknown hexside terrain `{}`; valid: {}",
                    s.terrain,
                    none_if_empty(rs.hexside_ids())
                ),
            )
        })?;
        let side = Side::new(h, h.neighbor(dir));
        let feature = HexsideFeature {
            kind: kind as u16,
            from: h,
            extra: s.extra,
        };
        if map.hexsides.insert(side, feature).is_some() {
            return Err(Error::invalid(
                &place,
                format!("hexside {} is given twice", map.side_label(side.a, side.b)),
            ));
        }
    }
    for (i, m) in f.markers.into_iter().enumerate() {
        let place = format!("markers[{i}] ({})", m.hex);
        let h = hex_on_map(&map, &m.hex, &place)?;
        let kind = rs.marker_index(&m.kind).ok_or_else(|| {
            Error::invalid(
                &place,
                format!(
                    "unknown marker `{}`; valid: {}",
                    m.kind,
                    none_if_empty(rs.marker_ids())
                ),
            )
        })?;
        if map.markers_at(h).any(|x| x.kind as usize == kind) {
            return Err(Error::invalid(
                &place,
                format!("a {} marker is already in {}", m.kind, map.label(h)),
            ));
        }
        let terrain = map.terrain(h).expect("on map");
        if terrain.forbids_markers.contains(&m.kind) {
            return Err(Error::invalid(
                &place,
                format!(
                    "a {} marker may not be placed in {} ({})",
                    m.kind,
                    terrain.id,
                    map.label(h)
                ),
            ));
        }
        map.markers.push(Marker {
            hex: h,
            kind: kind as u16,
            extra: m.extra,
        });
    }
    let mut ids = HashSet::new();
    for (i, u) in f.units.into_iter().enumerate() {
        let place = format!("units[{i}] ({})", u.id);
        if u.id.trim().is_empty() {
            return Err(Error::invalid(&place, "a unit needs a non-empty id"));
        }
        if !ids.insert(u.id.clone()) {
            return Err(Error::invalid(
                &place,
                format!("unit id `{}` is used twice", u.id),
            ));
        }
        let h = hex_on_map(&map, &u.hex, &place)?;
        let facing = match &u.facing {
            None => None,
            Some(s) => Some(layout.side_index(s).ok_or_else(|| {
                Error::invalid(
                    &place,
                    format!(
                        "unknown facing `{s}`; valid: {}",
                        layout.side_names().join(", ")
                    ),
                )
            })?),
        };
        map.units.push(Unit {
            id: u.id,
            hex: h,
            side: u.side,
            kind: u.kind,
            state: u.state,
            facing,
            extra: u.extra,
        });
    }
    Ok(map)
}

/// Builds the map, then checks its units against the family's rules.
fn build(f: MapFile, ruleset: Arc<Ruleset>) -> Result<Map> {
    let map = build_unchecked(f, ruleset)?;
    crate::rules::check_units(&map)?;
    Ok(map)
}

fn none_if_empty(s: String) -> String {
    if s.is_empty() {
        "(none in this ruleset)".to_string()
    } else {
        s
    }
}

fn hex_on_map(map: &Map, label: &str, place: &str) -> Result<Hex> {
    map.parse_hex(label).ok_or_else(|| {
        let last = map.label(map.hex_of(map.len() - 1));
        let first = map.label(map.hex_of(0));
        Error::invalid(
            place,
            format!(
                "`{label}` is not a hex of this {}x{} map ({first} to {last})",
                map.cols, map.rows
            ),
        )
    })
}

fn apply_entry(rs: &Ruleset, base: Cell, e: &EntryFile, place: &str) -> Result<Cell> {
    let mut cell = base;
    if let Some(t) = &e.terrain {
        let i = rs.terrain_index(t).ok_or_else(|| {
            Error::invalid(
                place,
                format!("unknown terrain `{t}`; valid: {}", rs.terrain_ids()),
            )
        })?;
        cell.terrain = i as u16;
    }
    if let Some(l) = e.level {
        if l < rs.levels.min || l > rs.levels.max {
            return Err(Error::invalid(
                place,
                format!(
                    "level {l} is outside {}'s levels {} to {}",
                    rs.name, rs.levels.min, rs.levels.max
                ),
            ));
        }
        cell.level = l;
    }
    if let Some(s) = e.slope {
        cell.slope = s;
    }
    Ok(cell)
}

fn to_file(map: &Map) -> MapFile {
    let rs = &map.ruleset;
    let d = map.default;
    let default = EntryFile {
        terrain: Some(rs.terrain[d.terrain as usize].id.clone()),
        level: Some(d.level),
        slope: d.slope.then_some(true),
        extra: map.default_extra.clone(),
    };
    let mut entries = Vec::new();
    for h in map.hexes() {
        let c = *map.cell(h).expect("on map");
        let extra = map.hex_extra.get(&h).cloned().unwrap_or_default();
        if c == d && extra.is_empty() {
            continue;
        }
        let e = EntryFile {
            terrain: (c.terrain != d.terrain).then(|| rs.terrain[c.terrain as usize].id.clone()),
            level: (c.level != d.level).then_some(c.level),
            slope: (c.slope != d.slope).then_some(c.slope),
            extra,
        };
        entries.push((map.label(h), e));
    }
    let names = map.layout.side_names();
    let hexsides = map
        .hexsides
        .iter()
        .map(|(side, f)| {
            let other = if side.a == f.from { side.b } else { side.a };
            let dir = f
                .from
                .direction_to(other)
                .expect("hexside hexes are adjacent");
            HexsideFile {
                hex: map.label(f.from),
                side: names[dir].to_string(),
                terrain: rs.hexsides[f.kind as usize].id.clone(),
                extra: f.extra.clone(),
            }
        })
        .collect();
    MapFile {
        hexsight: FORMAT_VERSION,
        name: map.name.clone(),
        ruleset: map.ruleset_ref.clone(),
        grid: GridFile {
            cols: map.cols,
            rows: map.rows,
            orientation: map.layout.orientation,
            stagger: map.layout.stagger,
            first_row: map.first_row,
            extra: map.grid_extra.clone(),
        },
        scale: map.scale.as_ref().map(|s| ScaleFile {
            hex: s.hex,
            unit: s.unit.clone(),
            extra: s.extra.clone(),
        }),
        default,
        hexes: Entries(entries),
        hexsides,
        markers: map
            .markers
            .iter()
            .map(|m| MarkerFile {
                hex: map.label(m.hex),
                kind: rs.markers[m.kind as usize].id.clone(),
                extra: m.extra.clone(),
            })
            .collect(),
        units: map
            .units
            .iter()
            .map(|u| UnitFile {
                id: u.id.clone(),
                hex: map.label(u.hex),
                side: u.side.clone(),
                kind: u.kind.clone(),
                state: u.state.clone(),
                facing: u.facing.map(|f| names[f].to_string()),
                extra: u.extra.clone(),
            })
            .collect(),
        extra: map.extra.clone(),
    }
}

/// Map content compared for the round-trip tests: everything a file states.
pub fn same_content(a: &Map, b: &Map) -> bool {
    a.name == b.name
        && a.ruleset_ref == b.ruleset_ref
        && a.cols == b.cols
        && a.rows == b.rows
        && a.layout == b.layout
        && a.first_row == b.first_row
        && a.scale == b.scale
        && a.default == b.default
        && a.cells() == b.cells()
        && a.hexsides == b.hexsides
        && a.markers == b.markers
        && a.units == b.units
        && a.extra == b.extra
        && a.grid_extra == b.grid_extra
        && a.default_extra == b.default_extra
        && a.hex_extra == b.hex_extra
}

/// Hexes listed in `hexes` that would need to be written (for summaries).
pub fn listed_hexes(map: &Map) -> BTreeMap<Hex, Cell> {
    map.hexes()
        .filter_map(|h| map.cell(h).filter(|c| **c != map.default).map(|c| (h, *c)))
        .collect()
}
