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
use serde_json::{Map as Object, Value, json};
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
    /// label, terrain and level); hexes it answers `None` for are left out.
    pub fn hexes(&mut self, props: impl Fn(usize) -> Option<Value>) {
        for i in 0..self.map.len() {
            let Some(extra) = props(i) else { continue };
            let mut p = self.hex_properties(i);
            if let Value::Object(extra) = extra {
                p.extend(extra);
            }
            let poly = MultiPolygon::new(vec![self.hex_polygon(i)]);
            let geometry = self.polygon_geometry(&poly, true);
            self.push(geometry, Value::Object(p));
        }
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
        self.features.push(json!({
            "type": "Feature",
            "geometry": geometry,
            "properties": properties,
        }));
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

    /// The FeatureCollection; in the map's CRS it names that CRS (GDAL and QGIS
    /// read the `crs` member, which RFC 7946 dropped).
    pub fn to_value(&self) -> Value {
        let mut v = json!({
            "type": "FeatureCollection",
            "name": self.map.name,
            "features": self.features,
        });
        if let Some(epsg) = self.crs {
            v["crs"] = json!({"type": "name", "properties": {"name": format!("urn:ogc:def:crs:EPSG::{epsg}")}});
        }
        v
    }
}

/// Writes a FeatureCollection atomically.
pub fn save(path: &Path, collection: &Value) -> Result<()> {
    let text = serde_json::to_string(collection).expect("JSON values serialise");
    crate::map::write_atomic(path, text.as_bytes())
}
