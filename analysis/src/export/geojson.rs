//! GeoJSON out: hexes as polygons, dissolved areas as MultiPolygons and sight lines
//! as LineStrings, in WGS 84 longitude/latitude (RFC 7946) when the map has a `geo`
//! block, in the map's own CRS on request, and in hex-grid units otherwise.
//!
//! Shapes are built and dissolved in the map's planar coordinates (the `geo` crate's
//! boolean operations are planar) and projected only when written.

use crate::error::{Error, Result};
use crate::georef::project::Projection;
use crate::georef::{Geo, grid_units};
use crate::hex::Hex;
use crate::map::Map;
use geo::{Coord, LineString, MultiPolygon, Polygon, unary_union};
use rayon::prelude::*;
use serde_json::{Map as Object, Value, json};
use std::io::Write;
use std::path::Path;

/// Bytes of GeoJSON text and shapes held per hex (a polygon of seven points with
/// its properties, plus its share of the dissolved areas), for memory checks.
pub const BYTES_PER_HEX: u64 = 2048;

/// Which coordinates a GeoJSON file is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CrsChoice {
    /// WGS 84 longitude/latitude, as RFC 7946 asks.
    #[default]
    Lonlat,
    /// The map's own CRS (named in the file's `crs` member).
    Native,
}

impl std::str::FromStr for CrsChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "lonlat" | "wgs84" | "4326" => Ok(CrsChoice::Lonlat),
            "native" => Ok(CrsChoice::Native),
            _ => Err(format!("`{s}`: give lonlat or native")),
        }
    }
}

/// A FeatureCollection being built for one map.
pub struct GeoJson<'a> {
    map: &'a Map,
    geo: Geo,
    projection: Option<Projection>,
    crs: Option<u32>,
    features: Vec<Value>,
}

impl<'a> GeoJson<'a> {
    /// An empty collection in the coordinates `choice` asks for; refuses lon/lat
    /// output from a CRS hexsight cannot project.
    pub fn new(map: &'a Map, choice: CrsChoice) -> Result<GeoJson<'a>> {
        let (geo, projection, crs) = match (&map.geo, choice) {
            (Some(g), CrsChoice::Lonlat) => {
                let p = Projection::from_epsg(g.epsg).map_err(|m| Error::invalid("geo.epsg", m))?;
                (g.clone(), Some(p), None)
            }
            (Some(g), CrsChoice::Native) => (g.clone(), None, Some(g.epsg)),
            (None, _) => (grid_units(), None, None),
        };
        Ok(GeoJson {
            map,
            geo,
            projection,
            crs,
            features: Vec::new(),
        })
    }

    /// The planar polygon of the hex at map index `i`.
    fn hex_polygon(&self, i: usize) -> Polygon {
        let corners = self.geo.hex_corners(self.map, self.map.hex_of(i));
        let ring: Vec<Coord> = corners.iter().map(|&(x, y)| Coord { x, y }).collect();
        Polygon::new(LineString::new(ring), vec![])
    }

    /// The properties every hex carries: label, terrain id, level.
    fn hex_properties(&self, i: usize) -> Object<String, Value> {
        let h = self.map.hex_of(i);
        let terrain = self.map.terrain(h).map_or("", |t| t.id.as_str());
        let mut p = Object::new();
        p.insert("kind".into(), "hex".into());
        p.insert("label".into(), self.map.label(h).into());
        p.insert("terrain".into(), terrain.into());
        p.insert("level".into(), self.map.level(h).into());
        p
    }

    /// One polygon per hex for which `props` gives properties (added to the
    /// label, terrain and level); hexes it answers `None` for are left out. Built
    /// in parallel, in map order: a big map's hexes are most of the file.
    pub fn hexes(&mut self, props: impl Fn(usize) -> Option<Value> + Sync) {
        let this = &*self;
        let features: Vec<Value> = (0..self.map.len())
            .into_par_iter()
            .with_min_len(1024)
            .filter_map(|i| {
                let extra = props(i)?;
                let mut p = this.hex_properties(i);
                if let Value::Object(extra) = extra {
                    p.extend(extra);
                }
                let poly = MultiPolygon::new(vec![this.hex_polygon(i)]);
                let geometry = this.polygon_geometry(&poly, true);
                Some(feature(geometry, Value::Object(p)))
            })
            .collect();
        self.features.extend(features);
    }

    /// The hexes at `members` dissolved into one MultiPolygon named `name`
    /// (`visible`, `blind`), with their count; nothing when there are none.
    pub fn area(&mut self, name: &str, members: &[usize]) {
        if members.is_empty() {
            return;
        }
        let polys: Vec<Polygon> = members.iter().map(|&i| self.hex_polygon(i)).collect();
        let union = unary_union(&polys);
        let geometry = self.polygon_geometry(&union, false);
        let props = json!({"kind": "area", "area": name, "hexes": members.len()});
        self.push(geometry, props);
    }

    /// A sight line from hex centre to hex centre, with `props`.
    pub fn sight_line(&mut self, from: Hex, to: Hex, props: Value) {
        let points = [from, to].map(|h| self.point(self.geo.hex_center(self.map, h)));
        let geometry = json!({"type": "LineString", "coordinates": points});
        let mut p = Object::new();
        p.insert("kind".into(), "sight-line".into());
        p.insert("from".into(), self.map.label(from).into());
        p.insert("to".into(), self.map.label(to).into());
        if let Value::Object(extra) = props {
            p.extend(extra);
        }
        self.push(geometry, Value::Object(p));
    }

    fn push(&mut self, geometry: Value, properties: Value) {
        self.features.push(feature(geometry, properties));
    }

    /// A planar point as written: projected to lon/lat, or as it is (map CRS or
    /// hex-grid units, both with y north).
    fn point(&self, (x, y): (f64, f64)) -> Value {
        let (x, y) = match &self.projection {
            Some(p) => p.unproject((x, y)),
            None => (x, y),
        };
        json!([x, y])
    }

    /// A (multi)polygon as GeoJSON, exterior rings counter-clockwise and holes
    /// clockwise as RFC 7946 asks (projection keeps orientation).
    fn polygon_geometry(&self, mp: &MultiPolygon, single: bool) -> Value {
        use geo::orient::{Direction, Orient};
        let mp = mp.orient(Direction::Default);
        let ring =
            |l: &LineString| -> Vec<Value> { l.0.iter().map(|c| self.point((c.x, c.y))).collect() };
        let polys: Vec<Value> =
            mp.0.iter()
                .map(|p| {
                    let mut rings = vec![Value::from(ring(p.exterior()))];
                    rings.extend(p.interiors().iter().map(|r| Value::from(ring(r))));
                    Value::from(rings)
                })
                .collect();
        match (single, polys.as_slice()) {
            (true, [one]) => json!({"type": "Polygon", "coordinates": one}),
            _ => json!({"type": "MultiPolygon", "coordinates": polys}),
        }
    }

    /// The FeatureCollection, its features moved in (a copy of a big map's took
    /// longer than building them); in the map's CRS it names that CRS (GDAL and
    /// QGIS read the `crs` member, which RFC 7946 dropped).
    pub fn into_value(self) -> Value {
        let mut v = Object::new();
        v.insert("type".into(), "FeatureCollection".into());
        v.insert("name".into(), self.map.name.clone().into());
        v.insert("features".into(), Value::Array(self.features));
        if let Some(epsg) = self.crs {
            let name = format!("urn:ogc:def:crs:EPSG::{epsg}");
            v.insert(
                "crs".into(),
                json!({"type": "name", "properties": {"name": name}}),
            );
        }
        Value::Object(v)
    }
}

/// A Feature of `geometry` and `properties`.
fn feature(geometry: Value, properties: Value) -> Value {
    json!({
        "type": "Feature",
        "geometry": geometry,
        "properties": properties,
    })
}

/// Features serialised side by side and then written, a batch at a time.
const SAVE_BATCH: usize = 1 << 14;

/// Writes a FeatureCollection atomically, as it is serialised: the bytes of
/// `serde_json::to_writer`, its features serialised in parallel (a big map's text
/// is a hundred megabytes).
pub fn save(path: &Path, collection: &Value) -> Result<()> {
    super::write_with(path, |w| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
        write_collection(&mut w, collection)?;
        w.flush()
    })
}

/// [`save`]'s bytes: an object's members in order, the array of `features` in
/// batches serialised side by side.
fn write_collection(w: &mut impl Write, collection: &Value) -> std::io::Result<()> {
    let Value::Object(members) = collection else {
        return Ok(serde_json::to_writer(w, collection)?);
    };
    w.write_all(b"{")?;
    for (k, (key, value)) in members.iter().enumerate() {
        if k > 0 {
            w.write_all(b",")?;
        }
        serde_json::to_writer(&mut *w, key)?;
        w.write_all(b":")?;
        match value {
            Value::Array(features) if key == "features" => write_array(w, features)?,
            _ => serde_json::to_writer(&mut *w, value)?,
        }
    }
    w.write_all(b"}")
}

/// A JSON array of `items`, serialised in parallel a batch at a time.
fn write_array(w: &mut impl Write, items: &[Value]) -> std::io::Result<()> {
    w.write_all(b"[")?;
    for (b, batch) in items.chunks(SAVE_BATCH).enumerate() {
        let texts: Vec<Vec<u8>> = batch
            .par_chunks(SAVE_BATCH / 16)
            .map(|part| {
                let mut text = Vec::new();
                for (k, item) in part.iter().enumerate() {
                    if k > 0 {
                        text.push(b',');
                    }
                    serde_json::to_writer(&mut text, item).expect("JSON values serialise");
                }
                text
            })
            .collect();
        for (k, text) in texts.iter().enumerate() {
            if b > 0 || k > 0 {
                w.write_all(b",")?;
            }
            w.write_all(text)?;
        }
    }
    w.write_all(b"]")
}

/// Lets a FeatureCollection go, its features freed in parallel (one by one they
/// took a tenth of writing a big map's overlay).
pub fn discard(collection: Value) {
    if let Value::Object(mut members) = collection
        && let Some(Value::Array(features)) = members.remove("features")
    {
        features.into_par_iter().with_min_len(1024).for_each(drop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A collection of `n` small features, with the `crs` member after them.
    fn collection(n: usize) -> Value {
        let features: Vec<Value> = (0..n)
            .map(|k| {
                feature(
                    json!({"type": "Point", "coordinates": [k as f64 / 7.0, -0.5]}),
                    json!({"label": format!("A{k}"), "odd": k % 2 == 1, "quote": "\"}],"}),
                )
            })
            .collect();
        let mut v = Object::new();
        v.insert("type".into(), "FeatureCollection".into());
        v.insert("name".into(), "\"features\":[] ünïcode".into());
        v.insert("features".into(), Value::Array(features));
        v.insert("crs".into(), json!({"type": "name"}));
        Value::Object(v)
    }

    /// The features serialised side by side, in batches and across them, give
    /// serde's bytes; so do collections of none, one, and values of other shapes.
    #[test]
    fn a_collection_is_written_as_serde_writes_it() {
        let mut cases: Vec<Value> = [0, 1, 2, SAVE_BATCH / 16 + 1, 2 * SAVE_BATCH + 3]
            .into_iter()
            .map(collection)
            .collect();
        cases.push(json!({"features": "not an array", "other": [1, 2]}));
        cases.push(json!([{"features": []}]));
        cases.push(json!({}));
        for v in cases {
            let mut got = Vec::new();
            write_collection(&mut got, &v).unwrap();
            assert_eq!(got, serde_json::to_vec(&v).unwrap());
        }
    }

    /// Hexes built in parallel come in map order, only those given properties,
    /// each with its own label and properties.
    #[test]
    fn hexes_come_in_map_order() {
        let map = crate::engine::testmaps::random_map("geometric", 3, 70, 60);
        let mut g = GeoJson::new(&map, CrsChoice::Lonlat).unwrap();
        g.hexes(|i| (i % 3 != 1).then(|| json!({"k": i})));
        let got: Vec<(String, u64)> = g.into_value()["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let p = &f["properties"];
                (
                    p["label"].as_str().unwrap().to_string(),
                    p["k"].as_u64().unwrap(),
                )
            })
            .collect();
        let want: Vec<(String, u64)> = (0..map.len())
            .filter(|i| i % 3 != 1)
            .map(|i| (map.label(map.hex_of(i)), i as u64))
            .collect();
        assert_eq!(got, want);
    }
}
