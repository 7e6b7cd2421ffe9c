//! Scenario layers: changes laid over a map without editing it ("what if this orchard
//! were grain, smoke lay here, the bridge were down").
//!
//! A layer file (JSON, `"hexsight_layer": 1`) speaks the map file's vocabulary:
//! terrain, hexside and marker ids of the map's ruleset, hex labels, zones, unit
//! entries. Applying it returns a new [`Map`] and leaves the one given alone, so
//! several layers stack in order and removing a layer is not applying it. Its
//! parts apply in this order: `substitute` (rules over the whole map or a zone),
//! `hexes` (per hex), `remove`, then `add` (so a unit moves by removing and adding
//! its id). Every entry is checked as the map file's own entries are, by the same
//! functions ([`super::file`]); a problem is one line naming the layer file and the
//! entry.

use super::file::{
    self, Entries, Entry, HexsideFile, MarkerFile, UnitFile, apply_entry, c, hex_on_map,
};
use super::model::Map;
use crate::error::{Error, ErrorKind, Result};
use crate::hex::Side;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The layer format version this build reads.
pub const LAYER_VERSION: u32 = 1;

/// A parsed layer file, checked against a map only when applied.
pub struct Layer {
    /// The file it came from (named in every error).
    pub path: PathBuf,
    file: LayerFile,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct LayerFile {
    hexsight_layer: u32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    substitute: Vec<Substitute>,
    #[serde(default, skip_serializing_if = "no_entries")]
    hexes: Entries,
    #[serde(default, skip_serializing_if = "Remove::is_empty")]
    remove: Remove,
    #[serde(default, skip_serializing_if = "Add::is_empty")]
    add: Add,
}

fn no_entries(e: &Entries) -> bool {
    e.is_empty()
}

/// One rule: every `terrain` (or hexside feature, or marker) of this id, in `zone`
/// if given, becomes `to` (for hexsides and markers, `null` removes them).
#[derive(Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Substitute {
    #[serde(skip_serializing_if = "Option::is_none")]
    terrain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hexside: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    marker: Option<String>,
    #[serde(default)]
    to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    zone: Option<String>,
}

#[derive(Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Remove {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    markers: Vec<RemoveMarker>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    units: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    hexsides: Vec<RemoveSide>,
}

impl Remove {
    fn is_empty(&self) -> bool {
        self.markers.is_empty() && self.units.is_empty() && self.hexsides.is_empty()
    }
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RemoveMarker {
    hex: String,
    kind: String,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RemoveSide {
    hex: String,
    side: String,
}

#[derive(Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Add {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    markers: Vec<MarkerFile>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    units: Vec<UnitFile>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    hexsides: Vec<HexsideFile>,
}

impl Add {
    fn is_empty(&self) -> bool {
        self.markers.is_empty() && self.units.is_empty() && self.hexsides.is_empty()
    }
}

impl Layer {
    /// Reads a layer file (as a map file is read: size-limited, UTF-8, JSON).
    pub fn load(path: &Path) -> Result<Layer> {
        let text = crate::text::read_text(path, "layer")?;
        Layer::parse(&text, path)
    }

    /// Parses layer JSON; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &Path) -> Result<Layer> {
        let text = crate::text::strip_bom(text);
        let f: LayerFile =
            file::from_json(text).map_err(|e| Error::from_json_text(&e, text, origin))?;
        if f.hexsight_layer != LAYER_VERSION {
            return Err(Error::invalid(
                "hexsight_layer",
                format!(
                    "unsupported layer format version {} (this build reads version {LAYER_VERSION})",
                    f.hexsight_layer
                ),
            )
            .in_file(origin));
        }
        Ok(Layer {
            path: origin.to_path_buf(),
            file: f,
        })
    }

    /// The layer's name (may be empty).
    pub fn name(&self) -> &str {
        &self.file.name
    }

    /// A layer that changes nothing, to be saved at `path`.
    pub fn empty(path: &Path, name: &str) -> Layer {
        Layer {
            path: path.to_path_buf(),
            file: LayerFile {
                hexsight_layer: LAYER_VERSION,
                name: name.to_string(),
                substitute: Vec::new(),
                hexes: Entries::default(),
                remove: Remove::default(),
                add: Add::default(),
            },
        }
    }

    /// The layer file's JSON text, pretty-printed ([`Layer::parse`] reads it back).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.file).expect("layers always serialise");
        s.push('\n');
        s
    }

    /// Saves to `path` atomically, as maps are saved.
    pub fn save(&self, path: &Path) -> Result<()> {
        file::write_atomic(path, self.to_json().as_bytes())
    }

    /// This layer remade so that applied over `below` it gives `after` (an editor
    /// painting into a layer): its substitutions stay as rules and apply first; its
    /// hex, remove and add entries become what turns `below`, substituted, into
    /// `after`. Only what a layer can say is compared: cells, markers, units and
    /// hexside features (a changed unit or feature is removed and added again).
    pub fn recorded(&self, below: &Map, after: &Map) -> Result<Layer> {
        let mut base = below.clone();
        for (i, s) in self.file.substitute.iter().enumerate() {
            substitute(&mut base, s)
                .map_err(|e| e.at(format!("substitute[{i}]")).in_file(&self.path))?;
        }
        let (hexes, remove, add) = difference(&base, after);
        Ok(Layer {
            path: self.path.clone(),
            file: LayerFile {
                hexsight_layer: LAYER_VERSION,
                name: self.file.name.clone(),
                substitute: self.file.substitute.clone(),
                hexes,
                remove,
                add,
            },
        })
    }

    /// The map with this layer's changes and the file format's checks; `map` itself is
    /// not changed. [`Layer::apply`], a layer up, also checks the units against the
    /// family's rules, as loading a map does.
    pub(crate) fn apply_unchecked(&self, map: &Map) -> Result<Map> {
        let mut out = map.clone();
        self.apply_parts(&mut out)
            .and_then(|()| finish_checks(&out))
            .map_err(|e| e.in_file(&self.path))?;
        Ok(out)
    }

    /// The layer file's path, for errors.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn apply_parts(&self, map: &mut Map) -> Result<()> {
        for (i, s) in self.file.substitute.iter().enumerate() {
            substitute(map, s).map_err(|e| e.at(format!("substitute[{i}]")))?;
        }
        hexes(map, &self.file.hexes)?;
        remove(map, &self.file.remove)?;
        add(map, &self.file.add)
    }
}

/// The entries that turn `a` into `b` (two maps of one grid and ruleset).
fn difference(a: &Map, b: &Map) -> (Entries, Remove, Add) {
    let rs = &a.ruleset;
    let names = a.layout.side_names();
    let mut hexes = Entries::default();
    for h in a.hexes() {
        let (Some(x), Some(y)) = (a.cell(h), b.cell(h)) else {
            continue;
        };
        if x != y {
            let e = Entry {
                terrain: (x.terrain != y.terrain)
                    .then(|| rs.terrain[y.terrain as usize].id.as_str()),
                level: (x.level != y.level).then_some(y.level),
                slope: (x.slope != y.slope).then_some(y.slope),
            };
            hexes.push(&a.label(h), e, None);
        }
    }
    let (mut remove, mut add) = (Remove::default(), Add::default());
    let marker_kind = |k: u16| rs.markers[k as usize].id.clone();
    for m in a.markers.iter().filter(|m| !b.markers.contains(m)) {
        remove.markers.push(RemoveMarker {
            hex: a.label(m.hex),
            kind: marker_kind(m.kind),
        });
    }
    for m in b.markers.iter().filter(|m| !a.markers.contains(m)) {
        add.markers.push(MarkerFile {
            hex: b.label(m.hex),
            kind: marker_kind(m.kind),
            extra: m.extra.clone(),
        });
    }
    for u in a.units.iter().filter(|u| b.unit(&u.id) != Some(*u)) {
        remove.units.push(u.id.clone());
    }
    for u in b.units.iter().filter(|u| a.unit(&u.id) != Some(*u)) {
        add.units.push(UnitFile {
            id: u.id.clone(),
            hex: b.label(u.hex),
            side: u.side.clone(),
            kind: u.kind.clone(),
            state: u.state.clone(),
            facing: u.facing.map(|f| names[f].to_string()),
            extra: u.extra.clone(),
        });
    }
    // A feature is named from the hex it was given from, as the map file names it.
    let side_of = |s: &Side, from: crate::hex::Hex| {
        let other = if s.a == from { s.b } else { s.a };
        names[from
            .direction_to(other)
            .expect("hexside hexes are adjacent")]
        .to_string()
    };
    for (s, f) in a
        .hexsides
        .iter()
        .filter(|(s, f)| b.hexsides.get(s) != Some(f))
    {
        remove.hexsides.push(RemoveSide {
            hex: a.label(f.from),
            side: side_of(s, f.from),
        });
    }
    for (s, f) in b
        .hexsides
        .iter()
        .filter(|(s, f)| a.hexsides.get(s) != Some(f))
    {
        add.hexsides.push(HexsideFile {
            hex: b.label(f.from),
            side: side_of(s, f.from),
            terrain: rs.hexsides[f.kind as usize].id.clone(),
            extra: f.extra.clone(),
        });
    }
    (hexes, remove, add)
}

/// What must hold of the whole map once a layer is in: the level span the engine
/// keeps tables for, no marker where its (new) terrain forbids it.
fn finish_checks(map: &Map) -> Result<()> {
    file::check_level_span(map)?;
    let mut seen = HashSet::new();
    for m in &map.markers {
        let t = map.terrain(m.hex).expect("on map");
        let kind = &map.ruleset.markers[m.kind as usize].id;
        if !seen.insert((m.hex, m.kind)) {
            return Err(Error::invalid(
                map.label(m.hex),
                format!("two {kind} markers in one hex after the layer"),
            ));
        }
        if t.forbids_markers.contains(kind) {
            return Err(Error::invalid(
                map.label(m.hex),
                format!("a {kind} marker may not lie in {} after the layer", t.id),
            ));
        }
    }
    Ok(())
}

/// An error for a layer entry naming what the map does not hold.
fn lacks(message: String) -> Error {
    Error::new(ErrorKind::Invalid, message)
}

/// The hexes a substitution reaches: a zone's, or every hex.
struct Reach(Option<HashSet<usize>>);

impl Reach {
    fn has(&self, map: &Map, h: crate::hex::Hex) -> bool {
        self.0
            .as_ref()
            .is_none_or(|z| map.index(h).is_some_and(|i| z.contains(&i)))
    }
}

fn substitute(map: &mut Map, s: &Substitute) -> Result<()> {
    let reach = Reach(match &s.zone {
        Some(z) => Some(
            super::zones::resolve(map, z)
                .map_err(|e| Error::new(e.kind, format!("zone: {}", e.message)))?
                .into_iter()
                .collect(),
        ),
        None => None,
    });
    let rs = map.ruleset.clone();
    // An id of a table, or an error listing the table's ids.
    let id = |what: &str, x: &str, find: &dyn Fn(&str) -> Option<usize>, valid: String| {
        find(x).ok_or_else(|| lacks(format!("unknown {what} `{}`; valid: {valid}", c(x))))
    };
    let to = |what: &str, find: &dyn Fn(&str) -> Option<usize>, valid: String| {
        s.to.as_deref()
            .map(|t| id(what, t, find, valid))
            .transpose()
    };
    let changed = match (&s.terrain, &s.hexside, &s.marker) {
        (Some(t), None, None) => {
            let (find, ids) = (|x: &str| rs.terrain_index(x), rs.terrain_ids());
            let from = id("terrain", t, &find, ids.clone())?;
            let to = to("`to` terrain", &find, ids)?
                .ok_or_else(|| lacks("a terrain substitution needs `to`, a terrain".into()))?;
            swap_terrain(map, &reach, from, to)
        }
        (None, Some(k), None) => {
            let (find, ids) = (|x: &str| rs.hexside_index(x), rs.hexside_ids());
            let from = id("hexside terrain", k, &find, ids.clone())?;
            let to = to("`to` hexside terrain", &find, ids)?;
            swap_hexsides(map, &reach, from, to)
        }
        (None, None, Some(k)) => {
            let (find, ids) = (|x: &str| rs.marker_index(x), rs.marker_ids());
            let from = id("marker", k, &find, ids.clone())?;
            let to = to("`to` marker", &find, ids)?;
            swap_markers(map, &reach, from, to)
        }
        _ => {
            return Err(lacks(
                "a substitution names exactly one of `terrain`, `hexside`, `marker`".into(),
            ));
        }
    };
    if changed == 0 {
        let what = s.terrain.iter().chain(&s.hexside).chain(&s.marker).next();
        let zone = s.zone.as_ref().map(|z| format!(" in zone `{}`", c(z)));
        return Err(lacks(format!(
            "nothing on the map is `{}`{}",
            c(what.map_or("", |w| w.as_str())),
            zone.unwrap_or_default()
        )));
    }
    Ok(())
}

/// Every hex of terrain `from` in reach becomes `to`; returns how many.
fn swap_terrain(map: &mut Map, reach: &Reach, from: usize, to: usize) -> usize {
    let hexes: Vec<_> = map
        .hexes()
        .filter(|&h| reach.has(map, h) && map.cell(h).expect("on map").terrain as usize == from)
        .collect();
    for &h in &hexes {
        map.cell_mut(h).expect("on map").terrain = to as u16;
    }
    hexes.len()
}

/// Every hexside feature `from` touching the reach becomes `to` (or goes).
fn swap_hexsides(map: &mut Map, reach: &Reach, from: usize, to: Option<usize>) -> usize {
    let sides: Vec<Side> = map
        .hexsides
        .iter()
        .filter(|(s, f)| f.kind as usize == from && (reach.has(map, s.a) || reach.has(map, s.b)))
        .map(|(s, _)| *s)
        .collect();
    for s in &sides {
        match to {
            Some(t) => map.hexsides.get_mut(s).expect("listed").kind = t as u16,
            None => drop(map.hexsides.remove(s)),
        }
    }
    sides.len()
}

/// Every marker `from` in reach becomes `to` (or goes), in file order.
fn swap_markers(map: &mut Map, reach: &Reach, from: usize, to: Option<usize>) -> usize {
    let hits: Vec<bool> = map
        .markers
        .iter()
        .map(|m| m.kind as usize == from && reach.has(map, m.hex))
        .collect();
    let mut kept = Vec::with_capacity(map.markers.len());
    for (mut m, hit) in std::mem::take(&mut map.markers).into_iter().zip(&hits) {
        if !hit {
            kept.push(m);
        } else if let Some(t) = to {
            m.kind = t as u16;
            kept.push(m);
        }
    }
    map.markers = kept;
    hits.iter().filter(|&&h| h).count()
}

fn hexes(map: &mut Map, entries: &Entries) -> Result<()> {
    let rs = map.ruleset.clone();
    let ids = super::file::terrain_ids(&rs);
    for (label, e, extra) in entries.iter() {
        let place = || format!("hexes.{}", c(label));
        if let Some(key) = extra.and_then(|x| x.keys().next()) {
            return Err(Error::invalid(
                place(),
                format!(
                    "unknown key `{}`; a layer's hex entry holds terrain, level, slope",
                    c(key)
                ),
            ));
        }
        let h = hex_on_map(map, label, place)?;
        let now = *map.cell(h).expect("on map");
        let cell = apply_entry(&rs, &ids, now, e, &place)?;
        *map.cell_mut(h).expect("on map") = cell;
    }
    Ok(())
}

fn remove(map: &mut Map, r: &Remove) -> Result<()> {
    for (i, m) in r.markers.iter().enumerate() {
        let place = || format!("remove.markers[{i}] ({})", c(&m.hex));
        let h = hex_on_map(map, &m.hex, place)?;
        let at = map
            .markers
            .iter()
            .position(|x| x.hex == h && map.ruleset.markers[x.kind as usize].id == m.kind)
            .ok_or_else(|| {
                Error::invalid(
                    place(),
                    format!("no {} marker in {}", c(&m.kind), map.label(h)),
                )
            })?;
        map.markers.remove(at);
    }
    for (i, id) in r.units.iter().enumerate() {
        let at = map.units.iter().position(|u| &u.id == id).ok_or_else(|| {
            Error::invalid(
                format!("remove.units[{i}]"),
                format!("no unit `{}` on the map", c(id)),
            )
        })?;
        map.units.remove(at);
    }
    for (i, s) in r.hexsides.iter().enumerate() {
        let place = || format!("remove.hexsides[{i}] ({} {})", c(&s.hex), c(&s.side));
        let h = hex_on_map(map, &s.hex, place)?;
        let dir = map.layout.side_index(&s.side).ok_or_else(|| {
            Error::invalid(
                place(),
                format!(
                    "unknown side `{}`; valid: {}",
                    c(&s.side),
                    map.layout.side_names().join(", ")
                ),
            )
        })?;
        let side = Side::new(h, h.neighbor(dir));
        if map.hexsides.remove(&side).is_none() {
            return Err(Error::invalid(
                place(),
                format!("no hexside feature on {}", map.side_label(side.a, side.b)),
            ));
        }
    }
    Ok(())
}

fn add(map: &mut Map, a: &Add) -> Result<()> {
    for (i, s) in a.hexsides.iter().enumerate() {
        let place = format!("add.hexsides[{i}] ({} {})", c(&s.hex), c(&s.side));
        let (side, feature) = file::read_hexside(map, &place, s.clone())?;
        if map.hexsides.insert(side, feature).is_some() {
            return Err(Error::invalid(
                &place,
                format!(
                    "hexside {} already has a feature (remove it first)",
                    map.side_label(side.a, side.b)
                ),
            ));
        }
    }
    for (i, m) in a.markers.iter().enumerate() {
        let place = format!("add.markers[{i}] ({})", c(&m.hex));
        let marker = file::read_marker(map, &place, m.clone())?;
        map.markers.push(marker);
    }
    let mut ids: HashSet<String> = map.units.iter().map(|u| u.id.clone()).collect();
    for (i, u) in a.units.iter().enumerate() {
        let place = format!("add.units[{i}] ({})", c(&u.id));
        let unit = file::read_unit(map, &place, u.clone(), &mut ids)?;
        map.units.push(unit);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::exposure::streaming;
    use crate::engine::fast::Engine;
    use crate::engine::matrix::{Control, Selection, matrix};
    use crate::engine::testmaps::{FAMILIES, random_map};
    use crate::engine::viewshed::viewshed_of;
    use crate::los::line_of_sight;
    use crate::map::file::same_content;
    use crate::map::{HexsideFeature, Marker};
    use serde_json::{Value, json};

    /// A random map of `rs` keeping only the units its family allows.
    fn lawful_map(rs: &str, seed: u64, cols: u32, rows: u32) -> Map {
        let mut map = random_map(rs, seed, cols, rows);
        let units = std::mem::take(&mut map.units);
        for u in units {
            map.units.push(u);
            if crate::rules::check_units(&map).is_err() {
                map.units.pop();
            }
        }
        map
    }

    fn layer(v: &Value) -> Layer {
        Layer::parse(&v.to_string(), Path::new("what-if.json")).unwrap()
    }

    /// A layer touching every part of `map` (a substitution in a zone, hexes, a
    /// marker, a unit and a hexside added and removed) and the same change made by
    /// editing a copy of the map directly, without the layer code.
    fn layer_and_edit(map: &Map) -> (Value, Map) {
        let rs = map.ruleset.clone();
        let mut edited = map.clone();
        let label = |i: usize| map.label(map.hex_of(i));
        let n = map.len();
        // Substitute the terrain of hex 2 (A3) by that of hex 3 (or the next terrain) in A1:E6.
        let from = map.cells()[2].terrain as usize;
        let to = if map.cells()[3].terrain as usize != from {
            map.cells()[3].terrain as usize
        } else {
            (from + 1) % rs.terrain.len()
        };
        let zone: Vec<usize> = crate::map::zones::resolve(map, "A1:E6").unwrap();
        for &i in &zone {
            let h = map.hex_of(i);
            if map.cells()[i].terrain as usize == from {
                edited.cell_mut(h).unwrap().terrain = to as u16;
            }
        }
        // Two hexes: one raised by a level, one given the first terrain.
        let (a, b) = (n / 2, n - 5);
        let level = map.cells()[a].level.min(rs.levels.max - 1) + 1;
        edited.cell_mut(map.hex_of(a)).unwrap().level = level;
        edited.cell_mut(map.hex_of(b)).unwrap().terrain = 0;
        let mut v = json!({
            "hexsight_layer": 1,
            "substitute": [{"terrain": rs.terrain[from].id, "to": rs.terrain[to].id, "zone": "A1:E6"}],
            "hexes": {label(a): {"level": level}, label(b): {"terrain": rs.terrain[0].id}},
            "remove": {}, "add": {}
        });
        // A unit removed and another's twin added.
        if map.units.len() >= 2 {
            let gone = map.units[0].id.clone();
            let mut twin = map.units[1].clone();
            twin.id = "twin".into();
            edited.units.retain(|u| u.id != gone);
            v["remove"]["units"] = json!([gone]);
            let entry = json!([{"id": "twin", "hex": map.label(twin.hex), "side": twin.side,
                "kind": twin.kind, "state": twin.state}]);
            twin.facing = None;
            edited.units.push(twin);
            // Only where the family allows two such units together.
            if crate::rules::check_units(&edited).is_ok() {
                v["add"]["units"] = entry;
            } else {
                edited.units.pop();
            }
        }
        // A marker added where none is and the terrain allows it.
        if let Some(kind) = rs.markers.first() {
            let h = (0..n)
                .map(|i| edited.hex_of(i))
                .find(|&h| {
                    edited.markers_at(h).next().is_none()
                        && !edited
                            .terrain(h)
                            .unwrap()
                            .forbids_markers
                            .contains(&kind.id)
                })
                .unwrap();
            edited.markers.push(Marker {
                hex: h,
                kind: 0,
                extra: Default::default(),
            });
            v["add"]["markers"] = json!([{"hex": map.label(h), "kind": kind.id}]);
        }
        // A hexside feature added on the first free side of hex 12, one removed.
        if let Some(kind) = rs.hexsides.first() {
            let h = map.hex_of(12);
            let dir = (0..6)
                .find(|&d| map.contains(h.neighbor(d)) && map.hexside(h, h.neighbor(d)).is_none())
                .unwrap();
            let side = Side::new(h, h.neighbor(dir));
            edited.hexsides.insert(
                side,
                HexsideFeature {
                    kind: 0,
                    from: h,
                    extra: Default::default(),
                },
            );
            v["add"]["hexsides"] = json!([{"hex": map.label(h), "side": map.layout.side_names()[dir], "terrain": kind.id}]);
            if let Some((s, f)) = map.hexsides.iter().next() {
                let other = if s.a == f.from { s.b } else { s.a };
                let d = f.from.direction_to(other).unwrap();
                edited.hexsides.remove(s);
                v["remove"]["hexsides"] =
                    json!([{"hex": map.label(f.from), "side": map.layout.side_names()[d]}]);
            }
        }
        (v, edited)
    }

    /// Every family: a layer gives the map its same change made by editing, and the
    /// explained query, the matrix, viewsheds and exposure agree on the two.
    #[test]
    fn a_layer_equals_the_same_change_made_by_editing_the_map() {
        let mut changed = 0;
        for rs in FAMILIES {
            let map = lawful_map(rs, 5, 11, 12);
            let (v, edited) = layer_and_edit(&map);
            let layered = layer(&v)
                .apply(&map)
                .unwrap_or_else(|e| panic!("{rs}: {e}"));
            assert!(
                same_content(&layered, &edited),
                "{rs}: layer and edit differ"
            );
            assert!(
                !same_content(&layered, &map),
                "{rs}: the layer changed nothing"
            );
            let (el, ee, eo) = (
                Engine::new(&layered),
                Engine::new(&edited),
                Engine::new(&map),
            );
            let all = Selection::all(&map);
            let ctl = Control::default();
            let (ml, me) = (
                matrix(&el, &all, &ctl).unwrap(),
                matrix(&ee, &all, &ctl).unwrap(),
            );
            assert_eq!(ml.bits, me.bits, "{rs}: matrix");
            changed += usize::from(ml.bits != matrix(&eo, &all, &ctl).unwrap().bits);
            assert_eq!(
                streaming(&el, &all, &ctl).unwrap(),
                streaming(&ee, &all, &ctl).unwrap()
            );
            for i in (0..map.len()).step_by(17) {
                let (a, b) = (
                    viewshed_of(&el, i, &ctl).unwrap(),
                    viewshed_of(&ee, i, &ctl).unwrap(),
                );
                assert_eq!(a.targets, b.targets, "{rs}: viewshed of {i}");
                for j in (0..map.len()).step_by(5) {
                    let (x, y) = (map.hex_of(i), map.hex_of(j));
                    let (p, q) = (line_of_sight(&layered, x, y), line_of_sight(&edited, x, y));
                    assert_eq!(
                        (p.verdict, p.hindrance, &p.reason),
                        (q.verdict, q.hindrance, &q.reason)
                    );
                    assert_eq!(p.verdict.sees(), ml.bits.get(i, j), "{rs}: {i} -> {j}");
                }
            }
        }
        assert!(
            changed >= 4,
            "layers changed the sight of only {changed} families"
        );
    }

    /// An empty layer leaves the map as it was; a layer followed by its inverse
    /// (hexes back, added things removed, removed things added) too.
    #[test]
    fn applying_and_removing_a_layer_leaves_the_map_unchanged() {
        for rs in FAMILIES {
            let map = lawful_map(rs, 2, 9, 8);
            let empty = layer(&json!({"hexsight_layer": 1}));
            assert!(
                same_content(&empty.apply(&map).unwrap(), &map),
                "{rs}: empty layer"
            );
            let (v, _) = layer_and_edit(&map);
            let applied = layer(&v).apply(&map).unwrap();
            let mut inverse = json!({"hexsight_layer": 1, "hexes": {}, "remove": {}, "add": {}});
            for h in map.hexes() {
                let (c, d) = (map.cell(h).unwrap(), applied.cell(h).unwrap());
                if c != d {
                    inverse["hexes"][map.label(h)] = json!({
                        "terrain": rs_id(&map, c.terrain), "level": c.level, "slope": c.slope});
                    assert_eq!(c.slope, d.slope);
                }
            }
            let added = |key: &str| v["add"][key].as_array().cloned().unwrap_or_default();
            inverse["remove"]["markers"] = json!(added("markers"));
            let ids: Vec<Value> = added("units").iter().map(|u| u["id"].clone()).collect();
            inverse["remove"]["units"] = json!(ids);
            let sides: Vec<Value> = added("hexsides")
                .iter()
                .map(|s| json!({"hex": s["hex"], "side": s["side"]}))
                .collect();
            inverse["remove"]["hexsides"] = json!(sides);
            if let Some(gone) = v["remove"]["units"].get(0) {
                let u = map.unit(gone.as_str().unwrap()).unwrap();
                let mut e = json!({"id": u.id, "hex": map.label(u.hex), "side": u.side, "kind": u.kind, "state": u.state});
                if let Some(f) = u.facing {
                    e["facing"] = json!(map.layout.side_names()[f]);
                }
                inverse["add"]["units"] = json!([e]);
            }
            if let Some(s) = v["remove"]["hexsides"].get(0) {
                let (side, f) = map.hexsides.iter().next().unwrap();
                let _ = side;
                let mut s = s.clone();
                s["terrain"] = json!(map.ruleset.hexsides[f.kind as usize].id);
                inverse["add"]["hexsides"] = json!([s]);
            }
            let back = layer(&inverse)
                .apply(&applied)
                .unwrap_or_else(|e| panic!("{rs}: {e}"));
            // The removed unit comes back last: compare units as a set, the rest exactly.
            let mut sorted = back.clone();
            sorted.units.sort_by(|a, b| a.id.cmp(&b.id));
            let mut want = map.clone();
            want.units.sort_by(|a, b| a.id.cmp(&b.id));
            assert!(same_content(&sorted, &want), "{rs}: layer then inverse");
        }
    }

    fn rs_id(map: &Map, t: u16) -> String {
        map.ruleset.terrain[t as usize].id.clone()
    }

    /// Every family: the layer recorded from a map and its edited copy gives the
    /// edited map when applied, after a round trip through its file text; a layer
    /// with a substitution keeps it as a rule and records only the rest.
    #[test]
    fn a_recorded_layer_gives_the_edited_map_and_keeps_its_rules() {
        for rs in FAMILIES {
            let map = lawful_map(rs, 7, 10, 9);
            let (v, edited) = layer_and_edit(&map);
            let path = Path::new("painted.json");
            let rec = Layer::empty(path, "painted")
                .recorded(&map, &edited)
                .unwrap();
            let back = Layer::parse(&rec.to_json(), path).unwrap();
            assert_eq!(back.name(), "painted");
            let applied = back.apply(&map).unwrap_or_else(|e| panic!("{rs}: {e}"));
            assert!(same_content(&applied, &edited), "{rs}: recorded layer");
            let nothing = Layer::empty(path, "").recorded(&map, &map).unwrap();
            assert_eq!(
                nothing.to_json().trim(),
                r#"{
  "hexsight_layer": 1
}"#
            );
            // Painting over the hand-written layer: its substitution stays a rule.
            let with_rule = layer(&v);
            let mut painted = with_rule.apply(&map).unwrap();
            let h = map.hex_of(map.len() - 1);
            painted.cell_mut(h).unwrap().slope ^= true;
            let rec = with_rule.recorded(&map, &painted).unwrap();
            let text: Value = serde_json::from_str(&rec.to_json()).unwrap();
            assert_eq!(text["substitute"], v["substitute"], "{rs}");
            assert!(
                same_content(&rec.apply(&map).unwrap(), &painted),
                "{rs}: painted over a layer"
            );
        }
    }

    /// Bad layers: one line naming the layer file and the entry, never a panic.
    #[test]
    fn bad_layers_get_one_line_errors_naming_file_and_entry() {
        let map = lawful_map("asl", 1, 8, 8);
        let unit = map.units[0].id.clone();
        let side = map.layout.side_names()[0];
        let cases: Vec<(Value, &str)> = vec![
            (json!({"hexsight_layer": 2}), "hexsight_layer"),
            (json!({"hexsight_layer": 1, "colour": 1}), "unknown field"),
            (
                json!({"hexsight_layer": 1, "substitute": [{"terrain": "orchards", "to": "open"}]}),
                "substitute[0]: unknown terrain `orchards`",
            ),
            (
                json!({"hexsight_layer": 1, "substitute": [{"terrain": "open"}]}),
                "substitute[0]: a terrain substitution needs `to`",
            ),
            (
                json!({"hexsight_layer": 1, "substitute": [{"terrain": "open", "marker": "smoke", "to": "open"}]}),
                "exactly one",
            ),
            (
                json!({"hexsight_layer": 1, "substitute": [{"terrain": "open", "to": "grain", "zone": "Z1:Z9"}]}),
                "substitute[0]: zone",
            ),
            (
                json!({"hexsight_layer": 1, "substitute": [{"hexside": "hedge", "to": null, "zone": "A1"}]}),
                "substitute[0]: nothing on the map",
            ),
            (
                json!({"hexsight_layer": 1, "hexes": {"Q99": {"level": 1}}}),
                "hexes.Q99",
            ),
            (
                json!({"hexsight_layer": 1, "hexes": {"A1": {"terrain": "lava"}}}),
                "hexes.A1: unknown terrain `lava`",
            ),
            (
                json!({"hexsight_layer": 1, "hexes": {"A1": {"level": 99}}}),
                "outside",
            ),
            (
                json!({"hexsight_layer": 1, "hexes": {"A1": {"colour": "red"}}}),
                "hexes.A1: unknown key `colour`",
            ),
            (
                json!({"hexsight_layer": 1, "remove": {"units": ["nobody"]}}),
                "remove.units[0]: no unit `nobody`",
            ),
            (
                json!({"hexsight_layer": 1, "remove": {"markers": [{"hex": "A1", "kind": "smoke"}]}}),
                "remove.markers[0] (A1): no smoke marker",
            ),
            (
                json!({"hexsight_layer": 1, "remove": {"hexsides": [{"hex": "A1", "side": "Q"}]}}),
                "remove.hexsides[0] (A1 Q): unknown side",
            ),
            (
                json!({"hexsight_layer": 1, "add": {"markers": [{"hex": "A1", "kind": "fog"}]}}),
                "add.markers[0] (A1): unknown marker `fog`",
            ),
            (
                json!({"hexsight_layer": 1, "add": {"units": [{"id": unit, "hex": "A1"}]}}),
                "add.units[0]",
            ),
            (
                json!({"hexsight_layer": 1, "add": {"hexsides": [{"hex": "A1", "side": side, "terrain": "moat"}]}}),
                "): unknown hexside terrain `moat`",
            ),
        ];
        for (v, want) in cases {
            let e = Layer::parse(&v.to_string(), Path::new("what-if.json"))
                .and_then(|l| l.apply(&map))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("what-if.json: "), "{e}");
            assert!(e.contains(want), "{v}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    /// A label given twice, in a map or a layer, however it is cased and wherever
    /// the file goes on after it, is refused on the line of its second entry (the
    /// labels are checked after reading, then the text read again to find it).
    #[test]
    fn a_repeated_label_is_refused_on_its_own_line() {
        let entries = |dup: &str| {
            let mut e = vec![
                r#""B2":{"level":1}"#.to_string(),
                format!(r#""{dup}":{{}}"#),
            ];
            e.extend((3..=9).map(|r| format!(r#""D{r}":{{}}"#)));
            e.join(",\n")
        };
        for dup in ["B2", "b2"] {
            let map = format!(
                r#"{{"hexsight":1,"name":"t","ruleset":"geometric","grid":{{"cols":9,"rows":9}},"hexes":{{{}}}}}"#,
                entries(dup)
            );
            let layer = format!(r#"{{"hexsight_layer":1,"hexes":{{{}}}}}"#, entries(dup));
            let errors = [
                Map::from_json(&map, Path::new("m.json")).map(|_| ()),
                Layer::parse(&layer, Path::new("l.json")).map(|_| ()),
            ];
            for e in errors {
                let e = e.unwrap_err().to_string();
                assert!(e.contains(&format!("duplicate hex entry `{dup}`")), "{e}");
                assert!(e.contains("line 2"), "{e}");
            }
        }
        let fine = format!(r#"{{"hexsight_layer":1,"hexes":{{{}}}}}"#, entries("C2"));
        assert!(Layer::parse(&fine, Path::new("l.json")).is_ok());
    }
}
