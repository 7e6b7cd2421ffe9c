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
    self, EntryFile, Entries, HexsideFile, MarkerFile, UnitFile, apply_entry, c, hex_on_map,
};
use super::model::Map;
use crate::error::{Error, ErrorKind, Result};
use crate::hex::Side;
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The layer format version this build reads.
pub const LAYER_VERSION: u32 = 1;

/// A parsed layer file, checked against a map only when applied.
pub struct Layer {
    /// The file it came from (named in every error).
    pub path: PathBuf,
    file: LayerFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LayerFile {
    hexsight_layer: u32,
    #[serde(default)]
    name: String,
    #[serde(default)]
    substitute: Vec<Substitute>,
    #[serde(default)]
    hexes: Entries,
    #[serde(default)]
    remove: Remove,
    #[serde(default)]
    add: Add,
}

/// One rule: every `terrain` (or hexside feature, or marker) of this id, in `zone`
/// if given, becomes `to` (for hexsides and markers, `null` removes them).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Substitute {
    terrain: Option<String>,
    hexside: Option<String>,
    marker: Option<String>,
    #[serde(default)]
    to: Option<String>,
    zone: Option<String>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Remove {
    #[serde(default)]
    markers: Vec<RemoveMarker>,
    #[serde(default)]
    units: Vec<String>,
    #[serde(default)]
    hexsides: Vec<RemoveSide>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoveMarker {
    hex: String,
    kind: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoveSide {
    hex: String,
    side: String,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Add {
    #[serde(default)]
    markers: Vec<MarkerFile>,
    #[serde(default)]
    units: Vec<UnitFile>,
    #[serde(default)]
    hexsides: Vec<HexsideFile>,
}

impl Layer {
    /// Reads a layer file (as a map file is read: size-limited, UTF-8, JSON).
    pub fn load(path: &Path) -> Result<Layer> {
        let text = file::read_text(path, "layer")?;
        Layer::parse(&text, path)
    }

    /// Parses layer JSON; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &Path) -> Result<Layer> {
        let text = file::strip_bom(text);
        let f: LayerFile =
            serde_json::from_str(text).map_err(|e| Error::from_json_text(&e, text, origin))?;
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

    /// The map with this layer's changes; `map` itself is not changed. The units are
    /// checked against the family's rules afterwards, as when a map loads.
    pub fn apply(&self, map: &Map) -> Result<Map> {
        let mut out = map.clone();
        self.apply_parts(&mut out)
            .and_then(|()| finish_checks(&out))
            .map_err(|e| e.in_file(&self.path))?;
        Ok(out)
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

/// Applies layer files in order to a map.
pub fn apply_files(map: Map, paths: &[PathBuf]) -> Result<Map> {
    paths
        .iter()
        .try_fold(map, |m, p| Layer::load(p)?.apply(&m))
}

/// What must hold of the whole map once a layer is in: the level span the engine
/// keeps tables for, no marker where its (new) terrain forbids it, lawful units.
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
    crate::rules::check_units(map).map(|_| ())
}

/// An error for a layer entry naming what the map does not hold.
fn lacks(message: String) -> Error {
    Error::new(ErrorKind::Invalid, message)
}

fn substitute(map: &mut Map, s: &Substitute) -> Result<()> {
    let zone: Option<HashSet<usize>> = match &s.zone {
        Some(z) => Some(
            crate::query::zones::resolve(map, z)
                .map_err(|e| Error::new(e.kind, format!("zone: {}", e.message)))?
                .into_iter()
                .collect(),
        ),
        None => None,
    };
    let inside = |map: &Map, h| zone.as_ref().is_none_or(|z| z.contains(&map.index(h).expect("on map")));
    let rs = map.ruleset.clone();
    let to_id = |what: &str, valid: String, find: &dyn Fn(&str) -> Option<usize>| match &s.to {
        None => Ok(None),
        Some(t) => find(t).map(Some).ok_or_else(|| {
            lacks(format!("unknown {what} `{}` in `to`; valid: {valid}", c(t)))
        }),
    };
    let changed = match (&s.terrain, &s.hexside, &s.marker) {
        (Some(t), None, None) => {
            let from = rs.terrain_index(t).ok_or_else(|| {
                lacks(format!("unknown terrain `{}`; valid: {}", c(t), rs.terrain_ids()))
            })?;
            let to = to_id("terrain", rs.terrain_ids(), &|x| rs.terrain_index(x))?
                .ok_or_else(|| lacks("a terrain substitution needs `to`, a terrain".into()))?;
            let hexes: Vec<_> = map
                .hexes()
                .filter(|&h| inside(map, h) && map.cell(h).expect("on map").terrain as usize == from)
                .collect();
            for &h in &hexes {
                map.cell_mut(h).expect("on map").terrain = to as u16;
            }
            hexes.len()
        }
        (None, Some(k), None) => {
            let from = rs.hexside_index(k).ok_or_else(|| {
                lacks(format!("unknown hexside terrain `{}`; valid: {}", c(k), rs.hexside_ids()))
            })?;
            let to = to_id("hexside terrain", rs.hexside_ids(), &|x| rs.hexside_index(x))?;
            let sides: Vec<Side> = map
                .hexsides
                .iter()
                .filter(|(s, f)| f.kind as usize == from && (inside(map, s.a) || inside(map, s.b)))
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
        (None, None, Some(k)) => {
            let from = rs.marker_index(k).ok_or_else(|| {
                lacks(format!("unknown marker `{}`; valid: {}", c(k), rs.marker_ids()))
            })?;
            let to = to_id("marker", rs.marker_ids(), &|x| rs.marker_index(x))?;
            let hits: Vec<bool> = map
                .markers
                .iter()
                .map(|m| m.kind as usize == from && inside(map, m.hex))
                .collect();
            let n = hits.iter().filter(|&&h| h).count();
            let mut kept = Vec::with_capacity(map.markers.len());
            for (mut m, hit) in std::mem::take(&mut map.markers).into_iter().zip(hits) {
                if !hit {
                    kept.push(m);
                } else if let Some(t) = to {
                    m.kind = t as u16;
                    kept.push(m);
                }
            }
            map.markers = kept;
            n
        }
        _ => {
            return Err(lacks(
                "a substitution names exactly one of `terrain`, `hexside`, `marker`".into(),
            ));
        }
    };
    if changed == 0 {
        let what = s.terrain.as_ref().or(s.hexside.as_ref()).or(s.marker.as_ref());
        return Err(lacks(format!(
            "nothing on the map is `{}`{}",
            c(what.map_or("", |w| w.as_str())),
            s.zone.as_ref().map_or(String::new(), |z| format!(" in zone `{}`", c(z)))
        )));
    }
    Ok(())
}

fn hexes(map: &mut Map, entries: &Entries) -> Result<()> {
    let rs = map.ruleset.clone();
    let ids: HashMap<&str, usize> = rs
        .terrain
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    for (label, e) in &entries.0 {
        let place = || format!("hexes.{}", c(label));
        if let Some(key) = e.extra.keys().next() {
            return Err(Error::invalid(
                place(),
                format!("unknown key `{}`; a layer's hex entry holds terrain, level, slope", c(key)),
            ));
        }
        let h = hex_on_map(map, label, place)?;
        let now = *map.cell(h).expect("on map");
        let cell = apply_entry(&rs, &ids, now, &EntryFile { extra: Default::default(), ..e.clone() }, &place)?;
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
            .ok_or_else(|| Error::invalid(place(), format!("no {} marker in {}", c(&m.kind), map.label(h))))?;
        map.markers.remove(at);
    }
    for (i, id) in r.units.iter().enumerate() {
        let at = map.units.iter().position(|u| &u.id == id).ok_or_else(|| {
            Error::invalid(format!("remove.units[{i}]"), format!("no unit `{}` on the map", c(id)))
        })?;
        map.units.remove(at);
    }
    for (i, s) in r.hexsides.iter().enumerate() {
        let place = || format!("remove.hexsides[{i}] ({} {})", c(&s.hex), c(&s.side));
        let h = hex_on_map(map, &s.hex, place)?;
        let dir = map.layout.side_index(&s.side).ok_or_else(|| {
            Error::invalid(
                place(),
                format!("unknown side `{}`; valid: {}", c(&s.side), map.layout.side_names().join(", ")),
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
