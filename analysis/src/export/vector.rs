//! A FeatureCollection ([`super::geojson`]) written as FlatGeobuf: the same features
//! and properties, binary and with a spatial index, which QGIS and GDAL open natively.
//! Coordinates are the map's own CRS (named in the header) for a map with `geo`, hex-grid
//! units otherwise; the file mixes polygons (hexes, areas) and lines (sight lines), so
//! its geometry type is "unknown" and each feature carries its own.

use super::geojson::{Collection, Feature, Geometry, Point};
use crate::error::{Error, ErrorKind, Result};
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use flatgeobuf::packed_r_tree::{NodeItem, PackedRTree};
use flatgeobuf::{self as fgb, ColumnType, GeometryType};
use rayon::prelude::*;
use serde_json::Value;
use std::io::Write;
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

/// Features encoded at once on a thread: a few thousand, so that the threads share
/// the work evenly and each batch's bytes stay about a megabyte.
const BATCH: usize = 4096;

/// Side of the grid the Hilbert curve orders feature centres on, as the flatgeobuf
/// crate's writer has it.
const HILBERT_MAX: u32 = (1 << 16) - 1;

/// Where `(x, y)` (each below 2^16) lies along the Hilbert curve: the flatgeobuf
/// crate's `hilbert` (after the public-domain code of rawrunprotected/hilbert_curves),
/// which it keeps private; its sort order is checked against the crate's in `tests`.
fn hilbert(x: u32, y: u32) -> u32 {
    let mut a = x ^ y;
    let mut b = 0xFFFF ^ a;
    let mut c = 0xFFFF ^ (x | y);
    let mut d = x & (y ^ 0xFFFF);
    let (mut aa, mut bb) = (a | (b >> 1), (a >> 1) ^ a);
    let (mut cc, mut dd) = (
        ((c >> 1) ^ (b & (d >> 1))) ^ c,
        ((a & (c >> 1)) ^ (d >> 1)) ^ d,
    );
    for shift in [2, 4] {
        (a, b, c, d) = (aa, bb, cc, dd);
        aa = (a & (a >> shift)) ^ (b & (b >> shift));
        bb = (a & (b >> shift)) ^ (b & ((a ^ b) >> shift));
        cc ^= (a & (c >> shift)) ^ (b & (d >> shift));
        dd ^= (b & (c >> shift)) ^ ((a ^ b) & (d >> shift));
    }
    (a, b, c, d) = (aa, bb, cc, dd);
    cc ^= (a & (c >> 8)) ^ (b & (d >> 8));
    dd ^= (b & (c >> 8)) ^ ((a ^ b) & (d >> 8));
    let (a, b) = (cc ^ (cc >> 1), dd ^ (dd >> 1));
    let spread = |mut v: u32| {
        v = (v | (v << 8)) & 0x00FF00FF;
        v = (v | (v << 4)) & 0x0F0F0F0F;
        v = (v | (v << 2)) & 0x33333333;
        (v | (v << 1)) & 0x55555555
    };
    let i0 = x ^ y;
    let i1 = b | (0xFFFF ^ (i0 | a));
    (spread(i1) << 1) | spread(i0)
}

/// The Hilbert value of a box's centre within `extent`, as the crate computes it.
fn hilbert_of(r: &NodeItem, extent: &NodeItem) -> u32 {
    let max = f64::from(HILBERT_MAX);
    let x = (max * ((r.min_x + r.max_x) / 2.0 - extent.min_x) / extent.width()).floor() as u32;
    let y = (max * ((r.min_y + r.max_y) / 2.0 - extent.min_y) / extent.height()).floor() as u32;
    hilbert(x, y)
}

/// A property's bytes as FlatGeobuf lays them: the column's number, then the value
/// in the column's type (little-endian; text after its length).
fn put_property(out: &mut Vec<u8>, column: usize, v: &Value, kind: ColumnType) {
    out.extend_from_slice(&(column as u16).to_le_bytes());
    let text = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    };
    match (kind, v) {
        (ColumnType::Bool, Value::Bool(b)) => out.push(u8::from(*b)),
        (ColumnType::Long, Value::Number(n)) => {
            out.extend_from_slice(&n.as_i64().unwrap_or(i64::MAX).to_le_bytes())
        }
        (ColumnType::Double, Value::Number(n)) => {
            out.extend_from_slice(&n.as_f64().unwrap_or(f64::NAN).to_le_bytes())
        }
        (ColumnType::String, Value::String(s)) => text(out, s),
        _ => text(out, &v.to_string()),
    }
}

/// One part of a geometry (a polygon's rings, or a line as one ring) built into
/// `fbb` as the crate's feature writer builds it, its points taken into `bbox`: the
/// points, then where each ring ends where there are two or more.
fn part<'a>(
    fbb: &mut FlatBufferBuilder<'a>,
    rings: &[Vec<Point>],
    kind: GeometryType,
    bbox: &mut NodeItem,
) -> WIPOffset<fgb::Geometry<'a>> {
    let mut xy = Vec::with_capacity(2 * rings.iter().map(Vec::len).sum::<usize>());
    let mut ends = Vec::with_capacity(rings.len());
    for ring in rings {
        for &[x, y] in ring {
            xy.extend([x, y]);
            bbox.expand_xy(x, y);
        }
        ends.push((xy.len() / 2) as u32);
    }
    let xy = Some(fbb.create_vector(&xy));
    let ends = (ends.len() > 1).then(|| fbb.create_vector(&ends));
    let args = fgb::GeometryArgs {
        xy,
        ends,
        type_: kind,
        ..Default::default()
    };
    fgb::Geometry::create(fbb, &args)
}

/// Feature `f` as its size-prefixed FlatGeobuf bytes, appended to `out` (`fbb`
/// reset after); returns its bounding box.
fn encode(
    fbb: &mut FlatBufferBuilder,
    f: &Feature,
    cols: &[Column],
    out: &mut Vec<u8>,
) -> NodeItem {
    let mut bbox = NodeItem::create(0);
    let geometry = match &f.geometry {
        Geometry::Polygon(rings) => part(fbb, rings, GeometryType::Polygon, &mut bbox),
        Geometry::LineString(pts) => part(
            fbb,
            std::slice::from_ref(pts),
            GeometryType::LineString,
            &mut bbox,
        ),
        Geometry::MultiPolygon(polys) => {
            let kind = GeometryType::MultiPolygon;
            let parts: Vec<_> = polys
                .iter()
                .map(|p| part(fbb, p, kind, &mut bbox))
                .collect();
            let parts = Some(fbb.create_vector_from_iter(parts.into_iter()));
            let args = fgb::GeometryArgs {
                type_: kind,
                parts,
                ..Default::default()
            };
            fgb::Geometry::create(fbb, &args)
        }
    };
    let mut props = Vec::new();
    for (k, c) in cols.iter().enumerate() {
        if let Some(v) = f.properties.get(&c.name).filter(|v| !v.is_null()) {
            put_property(&mut props, k, v, c.kind);
        }
    }
    let properties = Some(fbb.create_vector(&props));
    let args = fgb::FeatureArgs {
        geometry: Some(geometry),
        properties,
        ..Default::default()
    };
    let feature = fgb::Feature::create(fbb, &args);
    fbb.finish_size_prefixed(feature, None);
    out.extend_from_slice(fbb.finished_data());
    fbb.reset();
    bbox
}

/// Each feature's length when encoded and its bounding box, worked out side by
/// side in batches of `batch` (the bytes are dropped: the file is written in
/// another order, and holding them took a quarter more memory).
fn measure(features: &[Feature], cols: &[Column], batch: usize) -> Vec<(usize, NodeItem)> {
    features
        .par_chunks(batch)
        .flat_map_iter(|chunk| {
            let (mut fbb, mut bytes) = (FlatBufferBuilder::new(), Vec::new());
            let lens: Vec<_> = chunk
                .iter()
                .map(|f| {
                    bytes.clear();
                    let bbox = encode(&mut fbb, f, cols, &mut bytes);
                    (bytes.len(), bbox)
                })
                .collect();
            lens
        })
        .collect()
}

/// Writes features `order` of `features` encoded, a few batches of `batch` at a time
/// encoded side by side, then written in order.
fn write_features(
    features: &[Feature],
    cols: &[Column],
    (order, batch): (&[usize], usize),
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let threads = rayon::current_num_threads();
    for group in order.chunks(batch * 2 * threads) {
        let encoded: Vec<Vec<u8>> = group
            .par_chunks(batch)
            .map(|chunk| {
                let (mut fbb, mut bytes) = (FlatBufferBuilder::new(), Vec::new());
                for &i in chunk {
                    encode(&mut fbb, &features[i], cols, &mut bytes);
                }
                bytes
            })
            .collect();
        for bytes in encoded {
            out.write_all(&bytes)?;
        }
    }
    Ok(())
}

/// The size-prefixed header: the dataset's name, CRS, columns and extent, built in
/// the order the crate's writer builds it.
fn header(name: &str, epsg: u32, cols: &[Column], extent: &NodeItem, count: usize) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let name = Some(fbb.create_string(name));
    let crs_args = fgb::CrsArgs {
        code: i32::try_from(epsg).unwrap_or(0),
        ..Default::default()
    };
    let crs = Some(fgb::Crs::create(&mut fbb, &crs_args));
    let columns: Vec<_> = cols
        .iter()
        .map(|c| {
            let args = fgb::ColumnArgs {
                name: Some(fbb.create_string(&c.name)),
                type_: c.kind,
                nullable: true,
                ..Default::default()
            };
            fgb::Column::create(&mut fbb, &args)
        })
        .collect();
    let columns = Some(fbb.create_vector(&columns));
    let envelope = [extent.min_x, extent.min_y, extent.max_x, extent.max_y];
    let envelope = Some(fbb.create_vector(&envelope));
    let args = fgb::HeaderArgs {
        name,
        geometry_type: GeometryType::Unknown,
        index_node_size: PackedRTree::DEFAULT_NODE_SIZE,
        crs,
        columns,
        envelope,
        features_count: count as u64,
        ..Default::default()
    };
    let header = fgb::Header::create(&mut fbb, &args);
    fbb.finish_size_prefixed(header, None);
    fbb.finished_data().to_vec()
}

/// The FlatGeobuf bytes of `collection`, whose coordinates are in EPSG `epsg` (0:
/// none), its features encoded in batches of `batch`: the bytes the crate's
/// `FgbWriter` writes (`tests`). That writer kept each feature in a temporary file,
/// read each back with a seek of its own and worked out two Hilbert values in every
/// comparison of its sort (together two thirds of a 500x500 viewshed's 1.25 s);
/// here each feature is encoded twice, side by side: once for its length and box
/// (which the index needs before any feature is written), once to be written.
fn write(collection: &Collection, epsg: u32, batch: usize, out: &mut dyn Write) -> Result<()> {
    let fail =
        |e: &dyn std::fmt::Display| Error::new(ErrorKind::Io, format!("writing FlatGeobuf: {e}"));
    let (features, batch) = (&collection.features, batch.max(1));
    let cols = columns(features);
    let nodes = measure(features, &cols, batch);
    let extent = nodes.iter().fold(NodeItem::create(0), |mut e, (_, b)| {
        e.expand(b);
        e
    });
    out.write_all(b"fgb\x03fgb\x00").map_err(|e| fail(&e))?;
    let head = header(&collection.name, epsg, &cols, &extent, nodes.len());
    out.write_all(&head).map_err(|e| fail(&e))?;
    // Descending Hilbert value, ties in the features' order (a stable sort, as the
    // crate's), each value worked out once.
    let keys: Vec<u32> = nodes
        .par_iter()
        .map(|(_, b)| hilbert_of(b, &extent))
        .collect();
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(keys[i]));
    if !order.is_empty() {
        let mut offset = 0;
        let index: Vec<NodeItem> = order
            .iter()
            .map(|&i| {
                let (len, b) = &nodes[i];
                let node = NodeItem {
                    offset,
                    ..b.clone()
                };
                offset += *len as u64;
                node
            })
            .collect();
        let tree = PackedRTree::build(&index, &extent, PackedRTree::DEFAULT_NODE_SIZE)
            .map_err(|e| fail(&e))?;
        tree.stream_write(&mut &mut *out).map_err(|e| fail(&e))?;
    }
    write_features(features, &cols, (&order, batch), out).map_err(|e| fail(&e))
}

/// Writes `collection` (coordinates in EPSG `epsg`, 0 for none) as FlatGeobuf, atomically.
pub fn save_fgb(path: &Path, collection: &Collection, epsg: u32) -> Result<()> {
    super::write_with(path, |w| {
        write(collection, epsg, BATCH, w).map_err(|e| std::io::Error::other(e.to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatgeobuf::{FallibleStreamingIterator, FeatureProperties, FgbReader};
    use serde_json::json;

    /// The crate's own writer, as hexsight called it before it wrote the features
    /// itself: the reference the bytes are checked against.
    mod reference {
        use super::super::columns;
        use crate::error::{Error, ErrorKind};
        use crate::export::geojson::{Collection, Geometry, Point};
        use flatgeobuf::geozero::error::GeozeroError;
        use flatgeobuf::geozero::{ColumnValue, GeomProcessor, GeozeroGeometry, PropertyProcessor};
        use flatgeobuf::{ColumnType, FgbCrs, FgbWriter, FgbWriterOptions, GeometryType};
        use serde_json::Value;

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
            fn process_geom<P: GeomProcessor>(
                &self,
                p: &mut P,
            ) -> std::result::Result<(), GeozeroError> {
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
        fn column_value<'a>(
            v: &'a Value,
            kind: ColumnType,
            text: &'a mut String,
        ) -> ColumnValue<'a> {
            match (kind, v) {
                (ColumnType::Bool, Value::Bool(b)) => ColumnValue::Bool(*b),
                (ColumnType::Long, Value::Number(n)) => {
                    ColumnValue::Long(n.as_i64().unwrap_or(i64::MAX))
                }
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

        /// The FlatGeobuf bytes of `collection` by the crate's `FgbWriter`.
        pub(super) fn crate_bytes(collection: &Collection, epsg: u32) -> Vec<u8> {
            let mut out = Vec::new();
            let fail = |e: &dyn std::fmt::Display| {
                Error::new(ErrorKind::Io, format!("writing FlatGeobuf: {e}"))
            };
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
                .map_err(|e| fail(&e))
                .unwrap();
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
                        if let Err(e) = w.property(k, &c.name, &column_value(v, c.kind, &mut text))
                        {
                            err = Err(e);
                        }
                    }
                })
                .map_err(|e| fail(&e))
                .unwrap();
                err.map_err(|e| fail(&e)).unwrap();
            }
            fgb.write(&mut out).map_err(|e| fail(&e)).unwrap();
            out
        }
    }

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
        write(&fc, 32631, BATCH, &mut bytes).unwrap();
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

    /// A collection of `n` features drawn from `seed`: hexes, areas of several
    /// polygons with holes and sight lines, some at one place (equal Hilbert values,
    /// kept in their order), with properties of every column type, nulls, missing
    /// keys, numbers past `i64`, and keys whose values mix types (written as JSON).
    fn collection(seed: u64, n: usize) -> Collection {
        use crate::export::geojson::Properties;
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m.max(1)
        };
        let point = |next: &mut dyn FnMut(u64) -> u64| -> Point {
            [
                next(2000) as f64 * 0.37 - 90.0,
                next(1500) as f64 * 1.1 + 0.125,
            ]
        };
        let mut features = Vec::new();
        for k in 0..n {
            let ring = |next: &mut dyn FnMut(u64) -> u64| {
                let len = 3 + next(5) as usize;
                let mut r: Vec<Point> = (0..len).map(|_| point(next)).collect();
                r.push(r[0]);
                r
            };
            let geometry = match next(4) {
                0 | 1 => Geometry::Polygon((0..1 + next(2)).map(|_| ring(&mut next)).collect()),
                2 => Geometry::MultiPolygon(
                    (0..1 + next(3))
                        .map(|_| (0..1 + next(2)).map(|_| ring(&mut next)).collect())
                        .collect(),
                ),
                _ => Geometry::LineString((0..2 + next(3)).map(|_| point(&mut next)).collect()),
            };
            let geometry = if k > 0 && next(8) == 0 {
                features
                    .last()
                    .map_or(geometry, |f: &Feature| f.geometry.clone())
            } else {
                geometry
            };
            let mut p = Properties::default();
            let values = [
                json!("hex"),
                json!(next(100)),
                json!(next(100) as f64 / 8.0),
                json!(next(2) == 0),
                json!(u64::MAX - next(3)),
                serde_json::Value::Null,
                json!({"a": [1, 2]}),
                json!("A\u{e9}\"q\""),
            ];
            for key in ["kind", "level", "mixed", "blind", "big", "none"] {
                if next(5) > 0 {
                    p.insert(key, values[next(values.len() as u64) as usize].clone());
                }
            }
            features.push(Feature {
                geometry,
                properties: p,
            });
        }
        Collection {
            name: format!("t{seed}"),
            crs: None,
            features,
        }
    }

    /// The features written in batches, the Hilbert order worked out once a feature,
    /// are the bytes the crate's `FgbWriter` writes: empty, one feature (a box of no
    /// width) and many, in batches of one, a few and all.
    #[test]
    fn features_written_in_batches_are_the_crate_writers_bytes() {
        let mut single = collection(3, 1);
        single.features[0].geometry = Geometry::LineString(vec![[1.0, 2.0], [1.0, 2.0]]);
        let cases = [
            collection(1, 0),
            single,
            collection(2, 7),
            collection(4, 300),
        ];
        for (c, fc) in cases.iter().enumerate() {
            let want = reference::crate_bytes(fc, 32631);
            for batch in [1, 3, 64, BATCH] {
                let mut got = Vec::new();
                write(fc, 32631, batch, &mut got).unwrap();
                assert!(
                    got == want,
                    "case {c} in batches of {batch}: the bytes differ"
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Any collection, as above, in batches of any size.
        #[test]
        fn any_collection_is_written_as_the_crate_writes_it(
            seed in 0u64..u64::MAX,
            n in 0usize..200,
            batch in 1usize..50,
        ) {
            let fc = collection(seed, n);
            let mut got = Vec::new();
            write(&fc, 0, batch, &mut got).unwrap();
            proptest::prop_assert!(got == reference::crate_bytes(&fc, 0));
        }
    }

    /// The Hilbert values order boxes as the crate's sort does (which keeps its
    /// curve private): points on a fine grid and across the whole range.
    #[test]
    fn hilbert_order_is_the_crates() {
        use flatgeobuf::packed_r_tree::hilbert_sort;
        let mut items: Vec<NodeItem> = (0..4000u64)
            .map(|k| {
                let (x, y) = ((k * 7919) % 257, (k * 104729) % 263);
                let (x, y) = (x as f64 * 3.5 + (k % 3) as f64, y as f64 * 0.25);
                NodeItem {
                    offset: k,
                    ..NodeItem::bounds(x, y, x + (k % 5) as f64, y + 1.0)
                }
            })
            .collect();
        let extent = items.iter().fold(NodeItem::create(0), |mut e, b| {
            e.expand(b);
            e
        });
        let mut ours: Vec<u64> = items.iter().map(|b| b.offset).collect();
        let keys: Vec<u32> = items.iter().map(|b| hilbert_of(b, &extent)).collect();
        ours.sort_by_key(|&i| std::cmp::Reverse(keys[i as usize]));
        hilbert_sort(&mut items, &extent);
        let theirs: Vec<u64> = items.iter().map(|b| b.offset).collect();
        assert_eq!(ours, theirs);
    }
}
