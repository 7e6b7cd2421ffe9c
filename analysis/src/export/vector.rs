//! A FeatureCollection ([`super::geojson`]) written as FlatGeobuf: the same features
//! and properties, binary and with a spatial index, which QGIS and GDAL open natively.
//! Coordinates are the map's own CRS (named in the header) for a map with `geo`, hex-grid
//! units otherwise; the file mixes polygons (hexes, areas) and lines (sight lines), so
//! its geometry type is "unknown" and each feature carries its own.

use super::geojson::{Collection, Feature, Geometry, Point};
use crate::error::{Error, ErrorKind, Result};
use flatgeobuf::geozero::error::GeozeroError;
use flatgeobuf::geozero::{ColumnValue, GeomProcessor, GeozeroGeometry, PropertyProcessor};
use flatgeobuf::{ColumnType, FgbCrs, FgbWriter, FgbWriterOptions, GeometryType};
use serde_json::Value;
use std::path::Path;

/// A property column: its name and the one type all its values are written as.
struct Column {
    name: String,
    kind: ColumnType,
}

/// The type of one JSON value as a column, `None` for null.
fn kind_of(v: &Value) -> Option<ColumnType> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(_) => ColumnType::Bool,
        Value::Number(n) if n.is_i64() || n.is_u64() => ColumnType::Long,
        Value::Number(_) => ColumnType::Double,
        Value::String(_) => ColumnType::String,
        _ => ColumnType::Json,
    })
}

/// Two values' types as one column: whole numbers widen to doubles; anything else
/// mixed is written as JSON text.
fn widen(a: ColumnType, b: ColumnType) -> ColumnType {
    match (a, b) {
        _ if a == b => a,
        (ColumnType::Long, ColumnType::Double) | (ColumnType::Double, ColumnType::Long) => {
            ColumnType::Double
        }
        _ => ColumnType::Json,
    }
}

/// The columns of every feature's properties, in order of first appearance.
fn columns(features: &[Feature]) -> Vec<Column> {
    let mut cols: Vec<Column> = Vec::new();
    for f in features {
        for (k, v) in f.properties.iter() {
            let Some(kind) = kind_of(v) else { continue };
            match cols.iter_mut().find(|c| c.name == k) {
                Some(c) => c.kind = widen(c.kind, kind),
                None => cols.push(Column {
                    name: k.to_string(),
                    kind,
                }),
            }
        }
    }
    cols
}

fn line<P: GeomProcessor>(
    p: &mut P,
    pts: &[Point],
    tagged: bool,
    idx: usize,
) -> std::result::Result<(), GeozeroError> {
    p.linestring_begin(tagged, pts.len(), idx)?;
    for (k, &[x, y]) in pts.iter().enumerate() {
        p.xy(x, y, k)?;
    }
    p.linestring_end(tagged, idx)
}

fn polygon<P: GeomProcessor>(
    p: &mut P,
    rings: &[Vec<Point>],
    tagged: bool,
    idx: usize,
) -> std::result::Result<(), GeozeroError> {
    p.polygon_begin(tagged, rings.len(), idx)?;
    for (k, r) in rings.iter().enumerate() {
        line(p, r, false, k)?;
    }
    p.polygon_end(tagged, idx)
}

/// A feature's shape fed to a geozero processor.
struct Shape<'a>(&'a Geometry);

impl GeozeroGeometry for Shape<'_> {
    fn process_geom<P: GeomProcessor>(&self, p: &mut P) -> std::result::Result<(), GeozeroError> {
        match self.0 {
            Geometry::Polygon(rings) => polygon(p, rings, true, 0),
            Geometry::LineString(pts) => line(p, pts, true, 0),
            Geometry::MultiPolygon(polys) => {
                p.multipolygon_begin(polys.len(), 0)?;
                for (k, poly) in polys.iter().enumerate() {
                    polygon(p, poly, false, k)?;
                }
                p.multipolygon_end(0)
            }
        }
    }
}

/// A property value as its column's type.
fn column_value<'a>(v: &'a Value, kind: ColumnType, text: &'a mut String) -> ColumnValue<'a> {
    match (kind, v) {
        (ColumnType::Bool, Value::Bool(b)) => ColumnValue::Bool(*b),
        (ColumnType::Long, Value::Number(n)) => ColumnValue::Long(n.as_i64().unwrap_or(i64::MAX)),
        (ColumnType::Double, Value::Number(n)) => {
            ColumnValue::Double(n.as_f64().unwrap_or(f64::NAN))
        }
        (ColumnType::String, Value::String(s)) => ColumnValue::String(s),
        _ => {
            *text = v.to_string();
            ColumnValue::Json(text)
        }
    }
}

/// The FlatGeobuf bytes of `collection`, whose coordinates are in EPSG `epsg` (0: none).
fn write(collection: &Collection, epsg: u32, out: &mut dyn std::io::Write) -> Result<()> {
    let fail =
        |e: &dyn std::fmt::Display| Error::new(ErrorKind::Io, format!("writing FlatGeobuf: {e}"));
    let (features, name) = (&collection.features, collection.name.as_str());
    let options = FgbWriterOptions {
        write_index: true,
        detect_type: false,
        promote_to_multi: false,
        crs: FgbCrs {
            code: i32::try_from(epsg).unwrap_or(0),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut fgb = FgbWriter::create_with_options(name, GeometryType::Unknown, options)
        .map_err(|e| fail(&e))?;
    let cols = columns(features);
    for c in &cols {
        fgb.add_column(&c.name, c.kind, |_, col| col.nullable = true);
    }
    for f in features {
        let mut err = Ok(());
        fgb.add_feature_geom(Shape(&f.geometry), |w| {
            for (k, c) in cols.iter().enumerate() {
                let Some(v) = f.properties.get(&c.name).filter(|v| !v.is_null()) else {
                    continue;
                };
                let mut text = String::new();
                if let Err(e) = w.property(k, &c.name, &column_value(v, c.kind, &mut text)) {
                    err = Err(e);
                }
            }
        })
        .map_err(|e| fail(&e))?;
        err.map_err(|e| fail(&e))?;
    }
    fgb.write(out).map_err(|e| fail(&e))
}

/// Writes `collection` (coordinates in EPSG `epsg`, 0 for none) as FlatGeobuf, atomically.
pub fn save_fgb(path: &Path, collection: &Collection, epsg: u32) -> Result<()> {
    super::write_with(path, |w| {
        write(collection, epsg, w).map_err(|e| std::io::Error::other(e.to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatgeobuf::{FallibleStreamingIterator, FeatureProperties, FgbReader};
    use serde_json::json;

    /// Every feature reads back with its properties, in their columns' types.
    #[test]
    fn features_read_back_with_their_properties() {
        use crate::export::geojson::Properties;
        let props = |v: serde_json::Value| {
            let mut p = Properties::default();
            p.extend(v);
            p
        };
        let fc = Collection {
            name: "t".into(),
            crs: None,
            features: vec![
                Feature {
                    geometry: Geometry::Polygon(vec![vec![
                        [0.0, 0.0],
                        [1.0, 0.0],
                        [1.0, 1.0],
                        [0.0, 0.0],
                    ]]),
                    properties: props(
                        json!({"kind": "hex", "label": "A1", "level": 2, "blind": true}),
                    ),
                },
                Feature {
                    geometry: Geometry::LineString(vec![[0.0, 0.0], [3.0, 4.0]]),
                    properties: props(json!({"kind": "sight-line", "level": 2.5})),
                },
            ],
        };
        let mut bytes = Vec::new();
        write(&fc, 32631, &mut bytes).unwrap();
        let mut r = FgbReader::open(std::io::Cursor::new(bytes))
            .unwrap()
            .select_all_seq()
            .unwrap();
        assert_eq!(r.header().crs().unwrap().code(), 32631);
        let mut seen = Vec::new();
        while let Some(f) = r.next().unwrap() {
            seen.push((
                f.property::<String>("kind").unwrap(),
                f.property::<f64>("level").unwrap(),
                f.property::<bool>("blind").ok(),
            ));
        }
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            seen,
            vec![
                ("hex".to_string(), 2.0, Some(true)),
                ("sight-line".to_string(), 2.5, None)
            ]
        );
    }
}
