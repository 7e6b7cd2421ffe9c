//! Map file format version 1 (JSON): load with checks that name the place, save atomically.

use super::entries::RawEntry;
pub(crate) use super::entries::{Entries, Entry, from_json};
use super::model::{Cell, Extra, HexsideFeature, Map, Marker, NamedZone, Scale, Unit};
use crate::error::{Error, ErrorKind, Result};
use crate::hex::{Hex, Layout, Orientation, Side, Stagger};
use crate::ruleset::Ruleset;
use crate::text::{read_text, strip_bom};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// Most named zones a map may hold (each is checked against the whole grid on load).
pub const MAX_ZONES: usize = 256;
/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Largest number of hexes a map may have (the matrix grows with its square).
pub const MAX_HEXES: u64 = 4_000_000;
/// Largest number of columns, and of rows, a map may have.
pub const MAX_SIDE: u32 = 20_000;
/// Largest span between a map's lowest and highest level, in levels: whole-map
/// analyses keep tables per level from the lowest to the highest.
pub const MAX_LEVEL_SPAN: i64 = 4096;
/// Longest unit id, side, kind or state, in characters (as ruleset ids).
pub const MAX_ID_CHARS: usize = crate::ruleset::MAX_ID_CHARS;
pub use crate::text::MAX_FILE_BYTES;

#[derive(Serialize, Deserialize)]
struct MapFile {
    hexsight: u32,
    name: String,
    ruleset: String,
    grid: GridFile,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale: Option<ScaleFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    geo: Option<serde_json::Value>,
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
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    zones: serde_json::Map<String, serde_json::Value>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Serialize, Deserialize)]
struct GridFile {
    #[serde(deserialize_with = "de_cols")]
    cols: u32,
    #[serde(deserialize_with = "de_rows")]
    rows: u32,
    #[serde(default)]
    orientation: Orientation,
    #[serde(default, skip_serializing_if = "is_default")]
    stagger: Stagger,
    #[serde(
        default = "one",
        skip_serializing_if = "is_one",
        deserialize_with = "de_first_row"
    )]
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

/// The `default` hex entry (read as a [`RawEntry`]).
#[derive(Clone, Serialize, Default)]
pub(crate) struct EntryFile {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) terrain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) level: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) slope: Option<bool>,
    /// Other keys, kept for saving; boxed, as a million entries rarely hold any.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) extra: Option<Box<Extra>>,
}

/// `extra` boxed for an [`EntryFile`], or none when empty.
pub(crate) fn boxed(extra: Extra) -> Option<Box<Extra>> {
    (!extra.is_empty()).then(|| Box::new(extra))
}

impl<'de> Deserialize<'de> for EntryFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let raw = RawEntry::deserialize(d)?;
        Ok(EntryFile {
            terrain: raw.terrain.map(|t| t.into_owned()),
            level: raw.level,
            slope: raw.slope,
            extra: raw.extra.and_then(boxed),
        })
    }
}

impl EntryFile {
    pub(crate) fn entry(&self) -> Entry<'_> {
        Entry {
            terrain: self.terrain.as_deref(),
            level: self.level,
            slope: self.slope,
        }
    }
}

#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct HexsideFile {
    pub(crate) hex: String,
    pub(crate) side: String,
    pub(crate) terrain: String,
    #[serde(flatten)]
    pub(crate) extra: Extra,
}

#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct MarkerFile {
    pub(crate) hex: String,
    pub(crate) kind: String,
    #[serde(flatten)]
    pub(crate) extra: Extra,
}

#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct UnitFile {
    pub(crate) id: String,
    pub(crate) hex: String,
    #[serde(default)]
    pub(crate) side: String,
    #[serde(default)]
    pub(crate) kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) facing: Option<String>,
    #[serde(flatten)]
    pub(crate) extra: Extra,
}

/// Reads a whole number of JSON, saying what `key` allows when the value is not one.
struct Whole {
    key: &'static str,
    allowed: &'static str,
    null_ok: bool,
}

impl Whole {
    /// The error for a value, as the message quotes it (`-5`, `the string "10"`).
    fn refuse<E: serde::de::Error>(&self, shown: String) -> E {
        E::custom(format!(
            "{} must be {}, not {shown}",
            self.key, self.allowed
        ))
    }
}

impl<'de> Visitor<'de> for Whole {
    type Value = Option<i64>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} ({})", self.key, self.allowed)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
        Ok(Some(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
        i64::try_from(v)
            .map(Some)
            .map_err(|_| self.refuse(v.to_string()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
        if v.fract() == 0.0 && v.abs() < 9.0e15 {
            Ok(Some(v as i64))
        } else {
            Err(self.refuse(v.to_string()))
        }
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
        Err(self.refuse(format!("the string \"{}\"", crate::error::clip(v, 40))))
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Self::Value, E> {
        Err(self.refuse(v.to_string()))
    }
    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
        if self.null_ok {
            Ok(None)
        } else {
            Err(self.refuse("null".into()))
        }
    }
    fn visit_none<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        _: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        Err(self.refuse("a list".into()))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> std::result::Result<Self::Value, A::Error> {
        Err(self.refuse("an object".into()))
    }
}

fn whole_in<'de, D: Deserializer<'de>>(
    d: D,
    w: Whole,
    lo: i64,
    hi: i64,
) -> std::result::Result<Option<i64>, D::Error> {
    let key = w.key;
    let allowed = w.allowed;
    let v = d.deserialize_any(w)?;
    match v {
        Some(n) if n < lo || n > hi => Err(serde::de::Error::custom(format!(
            "{key} must be {allowed}, not {n}"
        ))),
        v => Ok(v),
    }
}

fn de_side<'de, D: Deserializer<'de>>(
    d: D,
    key: &'static str,
) -> std::result::Result<u32, D::Error> {
    let w = Whole {
        key,
        allowed: crate::error::GRID_SIDE_RANGE,
        null_ok: false,
    };
    let n = whole_in(d, w, 1, i64::from(MAX_SIDE))?;
    Ok(n.unwrap_or(1) as u32)
}

fn de_cols<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u32, D::Error> {
    de_side(d, "grid.cols")
}

fn de_rows<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u32, D::Error> {
    de_side(d, "grid.rows")
}

fn de_first_row<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u32, D::Error> {
    let w = Whole {
        key: "grid.first_row",
        allowed: "0 or 1",
        null_ok: false,
    };
    Ok(whole_in(d, w, 0, 1)?.unwrap_or(1) as u32)
}

pub(crate) fn de_level<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<i32>, D::Error> {
    let w = Whole {
        key: "level",
        allowed: crate::error::LEVEL_RANGE,
        null_ok: true,
    };
    Ok(whole_in(d, w, i64::from(i32::MIN), i64::from(i32::MAX))?.map(|n| n as i32))
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

impl Map {
    /// Reads a map file without checking its units against the family's rules (the
    /// rules layer does that: [`Map::load`]); the ruleset path, if not built in, is
    /// relative to the file. The file is read up to [`MAX_FILE_BYTES`]; a UTF-8
    /// byte-order mark is skipped.
    pub fn read(path: &Path) -> Result<Map> {
        let text = read_text(path, "map")?;
        Map::parse(&text, path)
    }

    /// Parses map JSON without unit checks; `origin` names the file in errors and
    /// anchors a relative ruleset path.
    pub fn parse(text: &str, origin: &Path) -> Result<Map> {
        parse_and_build(text, origin, |f| resolve_ruleset(&f.ruleset, origin))
    }

    /// Parses map JSON with an already loaded ruleset, without unit checks.
    pub fn parse_with(text: &str, origin: &Path, ruleset: Arc<Ruleset>) -> Result<Map> {
        parse_and_build(text, origin, |_| Ok(ruleset.clone()))
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

/// Parses a map file's text and builds the map with the ruleset `ruleset` finds.
/// The `hexes` object is read plain where it can be ([`super::plain_hexes`]);
/// where that declines, or the map it gives is refused, serde reads the whole file,
/// so that every error is the one it has always named (a label given twice, with
/// its line).
fn parse_and_build(
    text: &str,
    origin: &Path,
    ruleset: impl Fn(&MapFile) -> Result<Arc<Ruleset>>,
) -> Result<Map> {
    let text = strip_bom(text);
    if let Some((mut file, hexes)) = super::plain_hexes::read::<MapFile>(text) {
        file.hexes = hexes;
        if let Ok(map) = ruleset(&file).and_then(|rs| build(file, rs)) {
            return Ok(map);
        }
    }
    let file = parse_map_file(text, origin)?;
    let rs = ruleset(&file)?;
    build(file, rs).map_err(|e| e.in_file(origin))
}

/// Parses the text of a map file (after a byte-order mark, if any).
fn parse_map_file(text: &str, origin: &Path) -> Result<MapFile> {
    let text = strip_bom(text);
    from_json(text).map_err(|e| Error::from_map_json(&e, text, origin))
}

/// Finds a ruleset: a built-in name, or a file path relative to the map file.
pub fn resolve_ruleset(reference: &str, map_path: &Path) -> Result<Arc<Ruleset>> {
    if let Some(rs) = Ruleset::builtin(reference) {
        return Ok(Arc::new(rs));
    }
    let base = map_path.parent().unwrap_or(Path::new("."));
    let path = base.join(reference);
    let refuse = |why: String| {
        Err(Error::new(ErrorKind::Invalid, why)
            .at("ruleset")
            .in_file(map_path))
    };
    let shown = crate::error::clip(reference, 80);
    if reference.trim().is_empty() {
        return refuse(format!(
            "the ruleset is empty; name a built-in ({}) or a ruleset file",
            Ruleset::builtin_names().join(", ")
        ));
    }
    match std::fs::metadata(&path) {
        Err(_) => {
            return refuse(format!(
                "ruleset `{shown}` is neither a built-in ({}) nor a file (looked for {})",
                Ruleset::builtin_names().join(", "),
                path.display()
            ));
        }
        Ok(m) if m.is_dir() => {
            return refuse(format!(
                "ruleset `{shown}` is a folder, not a ruleset file ({})",
                path.display()
            ));
        }
        Ok(_) => {}
    }
    if let (Ok(a), Ok(b)) = (path.canonicalize(), map_path.canonicalize())
        && a == b
    {
        return refuse(format!(
            "ruleset `{shown}` is the map file itself; name a ruleset file"
        ));
    }
    Ruleset::load(&path).map(Arc::new)
}

/// Builds the map from its file; `in_map_order` tries the entries' cells in
/// parallel first ([`set_cells_in_map_order`]).
fn build_unchecked(f: MapFile, ruleset: Arc<Ruleset>, in_map_order: bool) -> Result<Map> {
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
    for (key, n) in [("grid.cols", g.cols), ("grid.rows", g.rows)] {
        if n == 0 || n > MAX_SIDE {
            return Err(Error::invalid(
                key,
                format!("{key} must be {}, not {n}", crate::error::GRID_SIDE_RANGE),
            ));
        }
    }
    if u64::from(g.cols) * u64::from(g.rows) > MAX_HEXES {
        return Err(Error::invalid(
            "grid",
            format!(
                "{}x{} is more than {MAX_HEXES} hexes (the most a map may have)",
                g.cols, g.rows
            ),
        ));
    }
    let layout = Layout {
        orientation: g.orientation,
        stagger: g.stagger,
    };
    crate::memory::check_items(
        u64::from(g.cols) * u64::from(g.rows),
        std::mem::size_of::<Cell>() as u64,
        &format!("a {}x{} map", g.cols, g.rows),
        "a smaller grid, or more memory (ulimit -v, the container's limit)",
    )
    .map_err(|e| e.at("grid"))?;
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
    if let Some(g) = &f.geo {
        map.geo = Some(super::geo::parse(g)?);
    }
    let terrain_ids = terrain_ids(&rs);
    let default = apply_entry(&rs, &terrain_ids, map.default, f.default.entry(), &|| {
        "default".into()
    })?;
    map.default = default;
    map.default_extra = f.default.extra.map(|x| *x).unwrap_or_default();
    map.cells_mut().fill(default);
    let rules = Rules {
        rs: &rs,
        terrain_ids: &terrain_ids,
        default,
    };
    if !(in_map_order && set_cells_in_map_order(&mut map, &rules, &f.hexes)) {
        map.cells_mut().fill(default);
        set_cells_in_order(&mut map, &rules, &f.hexes)?;
    }
    check_level_span(&map)?;
    for (i, s) in f.hexsides.into_iter().enumerate() {
        let place = format!("hexsides[{i}] ({} {})", c(&s.hex), c(&s.side));
        let (side, feature) = read_hexside(&map, &place, s)?;
        if map.hexsides.insert(side, feature).is_some() {
            return Err(Error::invalid(
                &place,
                format!("hexside {} is given twice", map.side_label(side.a, side.b)),
            ));
        }
    }
    for (i, m) in f.markers.into_iter().enumerate() {
        let place = format!("markers[{i}] ({})", c(&m.hex));
        let marker = read_marker(&map, &place, m)?;
        map.markers.push(marker);
    }
    let mut ids = HashSet::new();
    for (i, u) in f.units.into_iter().enumerate() {
        let place = format!("units[{i}] ({})", c(&u.id));
        let unit = read_unit(&map, &place, u, &mut ids)?;
        map.units.push(unit);
    }
    map.zones = named_zones(&map, f.zones)?;
    Ok(map)
}

/// A hexside entry of a map or layer file, checked against the map and its ruleset.
pub(crate) fn read_hexside(
    map: &Map,
    place: &str,
    s: HexsideFile,
) -> Result<(Side, HexsideFeature)> {
    let layout = map.layout;
    let rs = &map.ruleset;
    let h = hex_on_map(map, &s.hex, || place.to_string())?;
    let dir = layout.side_index(&s.side).ok_or_else(|| {
        Error::invalid(
            place,
            format!(
                "unknown side `{}`; valid: {}",
                c(&s.side),
                layout.side_names().join(", ")
            ),
        )
    })?;
    let kind = rs.hexside_index(&s.terrain).ok_or_else(|| {
        Error::invalid(
            place,
            format!(
                "unknown hexside terrain `{}`; valid: {}",
                c(&s.terrain),
                none_if_empty(rs.hexside_ids())
            ),
        )
    })?;
    let feature = HexsideFeature {
        kind: kind as u16,
        from: h,
        extra: s.extra,
    };
    Ok((Side::new(h, h.neighbor(dir)), feature))
}

/// A marker entry of a map or layer file, checked against the map as it stands
/// (one marker of a kind per hex, none where the terrain forbids it).
pub(crate) fn read_marker(map: &Map, place: &str, m: MarkerFile) -> Result<Marker> {
    let rs = &map.ruleset;
    let h = hex_on_map(map, &m.hex, || place.to_string())?;
    let kind = rs.marker_index(&m.kind).ok_or_else(|| {
        Error::invalid(
            place,
            format!(
                "unknown marker `{}`; valid: {}",
                c(&m.kind),
                none_if_empty(rs.marker_ids())
            ),
        )
    })?;
    if map.markers_at(h).any(|x| x.kind as usize == kind) {
        return Err(Error::invalid(
            place,
            format!("a {} marker is already in {}", m.kind, map.label(h)),
        ));
    }
    let terrain = map.terrain(h).expect("on map");
    if terrain.forbids_markers.contains(&m.kind) {
        return Err(Error::invalid(
            place,
            format!(
                "a {} marker may not be placed in {} ({})",
                m.kind,
                terrain.id,
                map.label(h)
            ),
        ));
    }
    Ok(Marker {
        hex: h,
        kind: kind as u16,
        extra: m.extra,
    })
}

/// A unit entry of a map or layer file: a new id (recorded in `ids`), fields of
/// at most [`MAX_ID_CHARS`], a hex of the map and a known facing.
pub(crate) fn read_unit(
    map: &Map,
    place: &str,
    u: UnitFile,
    ids: &mut HashSet<String>,
) -> Result<Unit> {
    let layout = map.layout;
    if u.id.trim().is_empty() {
        return Err(Error::invalid(place, "a unit needs a non-empty id"));
    }
    for (key, text) in [
        ("id", &u.id),
        ("side", &u.side),
        ("kind", &u.kind),
        ("state", &u.state),
    ] {
        let n = text.chars().count();
        if n > MAX_ID_CHARS {
            return Err(Error::invalid(
                place,
                format!("the unit's {key} has {n} characters; at most {MAX_ID_CHARS}"),
            ));
        }
    }
    if !ids.insert(u.id.clone()) {
        return Err(Error::invalid(
            place,
            format!("unit id `{}` is used twice", c(&u.id)),
        ));
    }
    let h = hex_on_map(map, &u.hex, || place.to_string())?;
    let facing = match &u.facing {
        None => None,
        Some(s) => Some(layout.side_index(s).ok_or_else(|| {
            Error::invalid(
                place,
                format!(
                    "unknown facing `{}`; valid: {}",
                    c(s),
                    layout.side_names().join(", ")
                ),
            )
        })?),
    };
    Ok(Unit {
        id: u.id,
        hex: h,
        side: u.side,
        kind: u.kind,
        state: u.state,
        facing,
        extra: u.extra,
    })
}

/// What is wrong with a zone name, by the one rule the file reader and the editor apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneNameProblem {
    /// Empty, longer than [`MAX_ID_CHARS`], or with spaces, commas or colons.
    NotOneWord,
    /// A hex label of the map, which a zone would read as that hex.
    HexLabel,
}

/// Why `name` cannot name a zone of `map`, if it cannot.
pub fn zone_name_problem(map: &Map, name: &str) -> Option<ZoneNameProblem> {
    let bad_char = |ch: char| ch.is_whitespace() || ch.is_control() || ch == ',' || ch == ':';
    if name.is_empty() || name.chars().count() > MAX_ID_CHARS || name.contains(bad_char) {
        Some(ZoneNameProblem::NotOneWord)
    } else if map.parse_hex(name).is_some() {
        Some(ZoneNameProblem::HexLabel)
    } else {
        None
    }
}

/// Checks the `zones` object: at most [`MAX_ZONES`], each name a plain word that is
/// not a hex label, each value a zone of this map (as [`super::zones::parse_zone`] reads one).
fn named_zones(
    map: &Map,
    zones: serde_json::Map<String, serde_json::Value>,
) -> Result<Vec<NamedZone>> {
    if zones.len() > MAX_ZONES {
        return Err(Error::invalid(
            "zones",
            format!("{} zones is more than {MAX_ZONES}", zones.len()),
        ));
    }
    let mut out = Vec::new();
    for (name, v) in zones {
        let place = format!("zones.{}", c(&name));
        match zone_name_problem(map, &name) {
            Some(ZoneNameProblem::NotOneWord) => {
                return Err(Error::invalid(
                    place,
                    format!(
                        "a zone name is 1 to {MAX_ID_CHARS} characters without spaces, commas or colons"
                    ),
                ));
            }
            Some(ZoneNameProblem::HexLabel) => {
                return Err(Error::invalid(
                    place,
                    "a zone name must not be a hex label of the map",
                ));
            }
            None => {}
        }
        let Some(zone) = v.as_str() else {
            return Err(Error::invalid(
                place,
                "a zone is a string of rectangles and hexes, like \"A1:F10,G3\"",
            ));
        };
        // The one zone reader's reading, so a zone that loads is one a query accepts.
        super::zones::parse_zone(map, zone).map_err(|e| e.at(place.clone()))?;
        out.push(NamedZone {
            name,
            zone: zone.to_string(),
        });
    }
    Ok(out)
}

/// Builds the map (its units' family rules are checked above this layer).
fn build(f: MapFile, ruleset: Arc<Ruleset>) -> Result<Map> {
    build_unchecked(f, ruleset, true)
}

/// The map as serde alone reads the file and with its entries placed one by one,
/// as every map was read before [`super::plain_hexes`]: what [`Map::parse`] must
/// give, map or error.
#[cfg(test)]
pub(crate) fn parse_by_serde(text: &str, origin: &Path) -> Result<Map> {
    let file = parse_map_file(text, origin)?;
    let rs = resolve_ruleset(&file.ruleset, origin)?;
    build_unchecked(file, rs, false).map_err(|e| e.in_file(origin))
}

/// Entries a thread places at a time.
const PLACE_RUN: usize = 1 << 16;

/// Writes the entries' cells in parallel where they come in the map's own order
/// (as `hexsight` writes them), each run of entries into its own stretch of cells,
/// and keeps the other keys of the entries that have them. `false`, with cells
/// partly written, where they do not or an entry is refused.
fn set_cells_in_map_order(map: &mut Map, rules: &Rules, hexes: &Entries) -> bool {
    let mut cells = std::mem::take(map.cells_mut());
    let done = place_runs(map, &mut cells, rules, hexes).is_some();
    *map.cells_mut() = cells;
    if done {
        for (k, extra) in hexes.extras() {
            let h = map.parse_hex(hexes.get(*k).0).expect("placed");
            map.hex_extra.insert(h, extra.clone());
        }
    }
    done
}

/// [`set_cells_in_map_order`]'s runs.
fn place_runs(map: &Map, cells: &mut [Cell], rules: &Rules, hexes: &Entries) -> Option<()> {
    let place = |k: usize| map.label_index(hexes.get(k).0);
    let n = hexes.len();
    let mut stretches = Vec::new();
    let (mut rest, mut first) = (cells, 0);
    for start in (0..n).step_by(PLACE_RUN) {
        let (lo, hi) = (place(start)?, place((start + PLACE_RUN).min(n) - 1)? + 1);
        let (_, after) = rest.split_at_mut(lo.checked_sub(first)?);
        let (stretch, after) = after.split_at_mut(hi.checked_sub(lo)?);
        stretches.push((start, lo, stretch));
        (rest, first) = (after, hi);
    }
    stretches
        .into_par_iter()
        .try_for_each(|(start, lo, stretch)| {
            let mut next = lo;
            for k in start..(start + PLACE_RUN).min(n) {
                let (label, entry) = hexes.get(k);
                let at = map.label_index(label)?;
                if at < next {
                    return None;
                }
                *stretch.get_mut(at - lo)? = rules.cell(entry, &String::new).ok()?;
                next = at + 1;
            }
            Some(())
        })
}

/// What an entry's cell is made from: the ruleset, its terrains by id, the
/// default cell.
struct Rules<'a> {
    rs: &'a Ruleset,
    terrain_ids: &'a FxHashMap<&'a str, usize>,
    default: Cell,
}

impl Rules<'_> {
    fn cell(&self, e: Entry<'_>, place: &dyn Fn() -> String) -> Result<Cell> {
        apply_entry(self.rs, self.terrain_ids, self.default, e, place)
    }
}

/// The entries' cells written one by one in file order, naming the first entry
/// refused: the reference [`set_cells_in_map_order`] follows.
fn set_cells_in_order(map: &mut Map, rules: &Rules, hexes: &Entries) -> Result<()> {
    let mut seen = vec![false; map.len()];
    for (label, entry, extra) in hexes.iter() {
        let h = hex_on_map(map, label, || format!("hexes.{label}"))?;
        let at = map.index(h).expect("on the map");
        if std::mem::replace(&mut seen[at], true) {
            return Err(Error::invalid(
                format!("hexes.{label}"),
                format!("hex {} is listed twice", map.label(h)),
            ));
        }
        let cell = rules.cell(entry, &|| format!("hex {}", map.label(h)))?;
        *map.cell_mut(h).expect("on map") = cell;
        if let Some(extra) = extra {
            map.hex_extra.insert(h, extra.clone());
        }
    }
    Ok(())
}

/// A string from the file, shortened for a message.
pub(crate) fn c(s: &str) -> String {
    crate::error::clip(s, 40)
}

fn none_if_empty(s: String) -> String {
    if s.is_empty() {
        "(none in this ruleset)".to_string()
    } else {
        s
    }
}

pub(crate) fn hex_on_map(map: &Map, label: &str, place: impl FnOnce() -> String) -> Result<Hex> {
    map.parse_hex(label).ok_or_else(|| {
        let last = map.label(map.hex_of(map.len() - 1));
        let first = map.label(map.hex_of(0));
        Error::invalid(
            crate::error::clip(&place(), 80),
            format!(
                "`{}` is not a hex of this {}x{} map ({first} to {last})",
                crate::error::clip(label, 40),
                map.cols,
                map.rows
            ),
        )
    })
}

/// Refuses a map whose levels span more than [`MAX_LEVEL_SPAN`], naming the lowest
/// and the highest hex.
pub(crate) fn check_level_span(map: &Map) -> Result<()> {
    let cells = map.cells();
    let (mut lo, mut hi) = (0, 0);
    for (i, c) in cells.iter().enumerate() {
        if c.level < cells[lo].level {
            lo = i;
        }
        if c.level > cells[hi].level {
            hi = i;
        }
    }
    let (a, b) = (cells[lo].level, cells[hi].level);
    let span = i64::from(b) - i64::from(a) + 1;
    if span > MAX_LEVEL_SPAN {
        return Err(Error::invalid(
            "hexes",
            format!(
                "the levels run from {a} in {} to {b} in {}, {span} levels; a map may span at most {MAX_LEVEL_SPAN} levels from its lowest to its highest hex",
                map.label(map.hex_of(lo)),
                map.label(map.hex_of(hi))
            ),
        ));
    }
    Ok(())
}

/// The ruleset's terrain numbers by id, for [`apply_entry`].
pub(crate) fn terrain_ids(rs: &Ruleset) -> FxHashMap<&str, usize> {
    (rs.terrain.iter().enumerate())
        .map(|(i, t)| (t.id.as_str(), i))
        .collect()
}

pub(crate) fn apply_entry(
    rs: &Ruleset,
    terrain_ids: &FxHashMap<&str, usize>,
    base: Cell,
    e: Entry<'_>,
    place: &dyn Fn() -> String,
) -> Result<Cell> {
    let mut cell = base;
    if let Some(t) = e.terrain {
        let i = *terrain_ids.get(t).ok_or_else(|| {
            Error::invalid(
                place(),
                format!(
                    "unknown terrain `{}`; valid: {}",
                    crate::error::clip(t, 60),
                    rs.terrain_ids()
                ),
            )
        })?;
        cell.terrain = i as u16;
    }
    if let Some(l) = e.level {
        if l < rs.levels.min || l > rs.levels.max {
            return Err(Error::invalid(
                place(),
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
        extra: boxed(map.default_extra.clone()),
    };
    let mut entries = Entries::default();
    for h in map.hexes() {
        let c = *map.cell(h).expect("on map");
        let extra = map.hex_extra.get(&h).filter(|x| !x.is_empty());
        if c == d && extra.is_none() {
            continue;
        }
        let e = Entry {
            terrain: (c.terrain != d.terrain).then(|| rs.terrain[c.terrain as usize].id.as_str()),
            level: (c.level != d.level).then_some(c.level),
            slope: (c.slope != d.slope).then_some(c.slope),
        };
        entries.push(&map.label(h), e, extra.cloned());
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
        geo: map.geo.as_ref().map(super::geo::to_value),
        default,
        hexes: entries,
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
        zones: map
            .zones
            .iter()
            .map(|z| (z.name.clone(), serde_json::Value::from(z.zone.clone())))
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
        && a.geo == b.geo
        && a.default == b.default
        && a.cells() == b.cells()
        && a.hexsides == b.hexsides
        && a.markers == b.markers
        && a.units == b.units
        && a.zones == b.zones
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
