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
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

/// Bytes held per hex while an overlay is built and written (a polygon of seven
/// points with its properties, its share of the dissolved areas and of the text
/// written a batch at a time), for memory checks: measured, a 500x500 map's
/// viewshed overlay peaked at 1.9 KiB a hex, the map and its viewshed included.
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

/// A point as written: `[x, y]`, projected where the collection asks.
pub(crate) type Point = [f64; 2];

/// A feature's shape, in the coordinates it is written in.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Geometry {
    /// Rings, the exterior first.
    Polygon(Vec<Vec<Point>>),
    MultiPolygon(Vec<Vec<Vec<Point>>>),
    LineString(Vec<Point>),
}

/// A feature's properties, in order: kept as a list (a JSON object per feature
/// took several times the memory of its shape on a big map).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Properties(Vec<(Cow<'static, str>, Value)>);

impl Properties {
    /// Sets `key` to `value`, in its place where it is already set (as a JSON
    /// object's insert does), else after the others.
    pub(crate) fn insert(&mut self, key: impl Into<Cow<'static, str>>, value: Value) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Adds the members of `extra` where it is an object.
    pub(crate) fn extend(&mut self, extra: Value) {
        if let Value::Object(extra) = extra {
            for (k, v) in extra {
                self.insert(k, v);
            }
        }
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Each key and value, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

/// One feature of a collection.
#[derive(Clone, Debug, PartialEq)]
pub struct Feature {
    pub(crate) geometry: Geometry,
    pub(crate) properties: Properties,
}

/// The features an overlay writes, as GeoJSON ([`save`]) or FlatGeobuf
/// ([`super::vector::save_fgb`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Collection {
    pub(crate) name: String,
    /// The EPSG code of the CRS named in the file, where it is the map's own.
    pub(crate) crs: Option<u32>,
    pub(crate) features: Vec<Feature>,
}

impl Collection {
    /// How many features it holds.
    pub fn len(&self) -> usize {
        self.features.len()
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.features.is_empty()
    }

    /// The collection as a JSON value, as [`save`] writes it.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("collections serialise")
    }
}

impl Serialize for Geometry {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        match self {
            Geometry::Polygon(rings) => {
                m.serialize_entry("type", "Polygon")?;
                m.serialize_entry("coordinates", rings)?;
            }
            Geometry::MultiPolygon(polys) => {
                m.serialize_entry("type", "MultiPolygon")?;
                m.serialize_entry("coordinates", polys)?;
            }
            Geometry::LineString(points) => {
                m.serialize_entry("type", "LineString")?;
                m.serialize_entry("coordinates", points)?;
            }
        }
        m.end()
    }
}

impl Serialize for Properties {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k.as_ref(), v)?;
        }
        m.end()
    }
}

impl Serialize for Feature {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("type", "Feature")?;
        m.serialize_entry("geometry", &self.geometry)?;
        m.serialize_entry("properties", &self.properties)?;
        m.end()
    }
}

/// The `crs` member naming EPSG `epsg` (GDAL and QGIS read it; RFC 7946 dropped it).
fn crs_member(epsg: u32) -> Value {
    json!({"type": "name", "properties": {"name": format!("urn:ogc:def:crs:EPSG::{epsg}")}})
}

impl Serialize for Collection {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("type", "FeatureCollection")?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("features", &self.features)?;
        if let Some(epsg) = self.crs {
            m.serialize_entry("crs", &crs_member(epsg))?;
        }
        m.end()
    }
}

/// A FeatureCollection being built for one map.
pub struct GeoJson<'a> {
    map: &'a Map,
    geo: Geo,
    projection: Option<Projection>,
    crs: Option<u32>,
    features: Vec<Feature>,
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
    fn hex_properties(&self, i: usize) -> Properties {
        let h = self.map.hex_of(i);
        let terrain = self.map.terrain(h).map_or("", |t| t.id.as_str());
        let mut p = Properties::default();
        p.insert("kind", "hex".into());
        p.insert("label", self.map.label(h).into());
        p.insert("terrain", terrain.into());
        p.insert("level", self.map.level(h).into());
        p
    }

    /// One polygon per hex for which `props` gives properties (added to the
    /// label, terrain and level, in order); hexes it answers `None` for are left
    /// out. Built in parallel, in map order: a big map's hexes are most of the
    /// file. The names are fixed: a JSON object a hex (a map and a string a name)
    /// took a tenth of a 500x500 viewshed's overlay to build and free.
    pub fn hexes<const N: usize>(
        &mut self,
        props: impl Fn(usize) -> Option<[(&'static str, Value); N]> + Sync,
    ) {
        let this = &*self;
        let features: Vec<Feature> = (0..self.map.len())
            .into_par_iter()
            .with_min_len(1024)
            .filter_map(|i| {
                let extra = props(i)?;
                let mut properties = this.hex_properties(i);
                for (k, v) in extra {
                    properties.insert(k, v);
                }
                let poly = MultiPolygon::new(vec![this.hex_polygon(i)]);
                let geometry = this.polygon_geometry(&poly, true);
                Some(Feature {
                    geometry,
                    properties,
                })
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
        let mut properties = Properties::default();
        properties.insert("kind", "area".into());
        properties.insert("area", name.to_string().into());
        properties.insert("hexes", members.len().into());
        self.features.push(Feature {
            geometry,
            properties,
        });
    }

    /// A sight line from hex centre to hex centre, with `props`.
    pub fn sight_line(&mut self, from: Hex, to: Hex, props: Value) {
        let points = [from, to].map(|h| self.point(self.geo.hex_center(self.map, h)));
        let mut properties = Properties::default();
        properties.insert("kind", "sight-line".into());
        properties.insert("from", self.map.label(from).into());
        properties.insert("to", self.map.label(to).into());
        properties.extend(props);
        self.features.push(Feature {
            geometry: Geometry::LineString(points.to_vec()),
            properties,
        });
    }

    /// A planar point as written: projected to lon/lat, or as it is (map CRS or
    /// hex-grid units, both with y north).
    fn point(&self, (x, y): (f64, f64)) -> Point {
        let (x, y) = match &self.projection {
            Some(p) => p.unproject((x, y)),
            None => (x, y),
        };
        [x, y]
    }

    /// A (multi)polygon as written, exterior rings counter-clockwise and holes
    /// clockwise as RFC 7946 asks (projection keeps orientation); a polygon where
    /// `single` and there is one.
    fn polygon_geometry(&self, mp: &MultiPolygon, single: bool) -> Geometry {
        use geo::orient::{Direction, Orient};
        let mp = mp.orient(Direction::Default);
        let ring =
            |l: &LineString| -> Vec<Point> { l.0.iter().map(|c| self.point((c.x, c.y))).collect() };
        let mut polys: Vec<Vec<Vec<Point>>> =
            mp.0.iter()
                .map(|p| {
                    let mut rings = vec![ring(p.exterior())];
                    rings.extend(p.interiors().iter().map(ring));
                    rings
                })
                .collect();
        if single && polys.len() == 1 {
            Geometry::Polygon(polys.pop().expect("one"))
        } else {
            Geometry::MultiPolygon(polys)
        }
    }

    /// The FeatureCollection.
    pub fn finish(self) -> Collection {
        Collection {
            name: self.map.name.clone(),
            crs: self.crs,
            features: self.features,
        }
    }
}

/// Features serialised side by side and then written, a batch at a time.
const SAVE_BATCH: usize = 1 << 14;

/// Writes a FeatureCollection atomically as GeoJSON, as it is serialised: the
/// bytes of `serde_json::to_writer`, its features serialised in parallel (a big
/// map's text is hundreds of megabytes).
pub fn save(path: &Path, collection: &Collection) -> Result<()> {
    super::write_with(path, |w| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
        write_collection(&mut w, collection)?;
        w.flush()
    })
}

/// [`save`]'s bytes.
fn write_collection(w: &mut impl Write, c: &Collection) -> std::io::Result<()> {
    w.write_all(br#"{"type":"FeatureCollection","name":"#)?;
    serde_json::to_writer(&mut *w, &c.name)?;
    w.write_all(br#","features":["#)?;
    for (b, batch) in c.features.chunks(SAVE_BATCH).enumerate() {
        let texts: Vec<Vec<u8>> = batch
            .par_chunks(SAVE_BATCH / 16)
            .map(|part| {
                let mut text = Vec::new();
                for (k, f) in part.iter().enumerate() {
                    if k > 0 {
                        text.push(b',');
                    }
                    serde_json::to_writer(&mut text, f).expect("features serialise");
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
    w.write_all(b"]")?;
    if let Some(epsg) = c.crs {
        w.write_all(br#","crs":"#)?;
        serde_json::to_writer(&mut *w, &crs_member(epsg))?;
    }
    w.write_all(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A collection of `n` small features of every shape, in the map's CRS or not.
    fn collection(n: usize, crs: Option<u32>) -> Collection {
        let features = (0..n)
            .map(|k| {
                let x = k as f64 / 7.0;
                let geometry = match k % 3 {
                    0 => Geometry::LineString(vec![[x, -0.5], [1e-9, 2e21]]),
                    1 => Geometry::Polygon(vec![vec![[x, 0.0], [1.0, x], [x, 0.0]]]),
                    _ => Geometry::MultiPolygon(vec![vec![vec![[0.1, x]]], vec![]]),
                };
                let mut properties = Properties::default();
                properties.insert("label", format!("A{k}").into());
                properties.insert("odd", (k % 2 == 1).into());
                properties.insert("quote", "\"}],ü".into());
                properties.extend(json!({"label": "B", "n": k, "none": null}));
                Feature {
                    geometry,
                    properties,
                }
            })
            .collect();
        Collection {
            name: "\"features\":[] ünïcode".into(),
            crs,
            features,
        }
    }

    /// The features serialised side by side, in batches and across them, give
    /// serde's bytes, with the `crs` member or without.
    #[test]
    fn a_collection_is_written_as_serde_writes_it() {
        for n in [0, 1, 2, SAVE_BATCH / 16 + 1, 2 * SAVE_BATCH + 3] {
            for crs in [None, Some(32631)] {
                let c = collection(n, crs);
                let mut got = Vec::new();
                write_collection(&mut got, &c).unwrap();
                assert_eq!(got, serde_json::to_vec(&c).unwrap(), "{n} {crs:?}");
            }
        }
    }

    /// Each piece is the GeoJSON object it stands for, the properties in order,
    /// a key given again keeping its place.
    #[test]
    fn a_collection_is_its_geojson_object() {
        let mut c = collection(3, Some(4326));
        c.features.truncate(3);
        let want = json!({"type": "FeatureCollection", "name": "\"features\":[] ünïcode",
            "features": [
                {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0.0, -0.5], [1e-9, 2e21]]},
                 "properties": {"label": "B", "odd": false, "quote": "\"}],ü", "n": 0, "none": null}},
                {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[1.0 / 7.0, 0.0], [1.0, 1.0 / 7.0], [1.0 / 7.0, 0.0]]]},
                 "properties": {"label": "B", "odd": true, "quote": "\"}],ü", "n": 1, "none": null}},
                {"type": "Feature", "geometry": {"type": "MultiPolygon", "coordinates": [[[[0.1, 2.0 / 7.0]]], []]},
                 "properties": {"label": "B", "odd": false, "quote": "\"}],ü", "n": 2, "none": null}},
            ],
            "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::4326"}}});
        assert_eq!(c.to_value(), want);
        // Key order too, which comparing values does not see.
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            serde_json::to_string(&want).unwrap()
        );
    }

    /// Hexes built in parallel come in map order, only those given properties,
    /// each with its own label and properties.
    #[test]
    fn hexes_come_in_map_order() {
        let map = crate::engine::testmaps::random_map("geometric", 3, 70, 60);
        let mut g = GeoJson::new(&map, CrsChoice::Lonlat).unwrap();
        g.hexes(|i| (i % 3 != 1).then(|| [("k", json!(i))]));
        let got: Vec<(String, u64)> = g
            .finish()
            .features
            .iter()
            .map(|f| {
                let p = &f.properties;
                let label = p.get("label").and_then(Value::as_str).unwrap();
                (
                    label.to_string(),
                    p.get("k").and_then(Value::as_u64).unwrap(),
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
