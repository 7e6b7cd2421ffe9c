//! Real ground: the `geo` block, `import dem` from GeoTIFFs written here with the
//! `tiff` encoder (a cone with no-data holes in UTM 31N), and `--geojson` overlays,
//! read back by GDAL when its Python bindings are installed.

use hexsight_analysis::Map;
use hexsight_analysis::georef::project::Projection;
use std::path::{Path, PathBuf};
use std::process::Command;
use tiff::encoder::{TiffEncoder, colortype::Gray32Float};
use tiff::tags::Tag;

const LEFT: f64 = 500_000.0;
const TOP: f64 = 5_001_000.0;
const PIXEL: f64 = 10.0;
const W: u32 = 100;
const H: u32 = 80;
const NODATA: f32 = -9999.0;

/// GeoKeyDirectory: projected model, pixel-is-area, ProjectedCSType `epsg`.
fn projected_keys(epsg: u16) -> Vec<u16> {
    vec![1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, epsg]
}

/// A cone 200 m high at (500 500, 5 000 600), 0.2 m down per metre out, with
/// two no-data holes (one 60 m square, one 30 m).
fn cone() -> Vec<f32> {
    let mut v = Vec::new();
    for row in 0..H {
        for col in 0..W {
            let (x, y) = pixel_center(col, row);
            let d = ((x - 500_500.0).powi(2) + (y - 5_000_600.0).powi(2)).sqrt();
            let hole = (20..26).contains(&col) && (30..36).contains(&row)
                || (70..73).contains(&col) && (10..13).contains(&row);
            v.push(if hole {
                NODATA
            } else {
                (200.0 - 0.2 * d).max(0.0) as f32
            });
        }
    }
    v
}

fn pixel_center(col: u32, row: u32) -> (f64, f64) {
    (
        LEFT + (col as f64 + 0.5) * PIXEL,
        TOP - (row as f64 + 0.5) * PIXEL,
    )
}

/// Writes a float GeoTIFF with the given GeoKeys, georeferenced by scale and
/// tiepoint, or by `transform` when given.
fn write_tiff(path: &Path, data: &[f32], keys: &[u16], transform: Option<[f64; 16]>) {
    let file = std::fs::File::create(path).unwrap();
    let mut enc = TiffEncoder::new(file).unwrap();
    let mut img = enc.new_image::<Gray32Float>(W, H).unwrap();
    let e = img.encoder();
    match transform {
        Some(m) => e.write_tag(Tag::ModelTransformationTag, &m[..]).unwrap(),
        None => {
            e.write_tag(Tag::ModelPixelScaleTag, &[PIXEL, PIXEL, 0.0][..])
                .unwrap();
            e.write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, LEFT, TOP, 0.0][..])
                .unwrap();
        }
    }
    e.write_tag(Tag::GeoKeyDirectoryTag, keys).unwrap();
    e.write_tag(Tag::GdalNodata, "-9999").unwrap();
    img.write_data(data).unwrap();
}

fn hexsight(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hexsight"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Imports the cone with hexes of 100 m and returns the map path.
fn imported(dir: &Path, extra: &[&str]) -> (PathBuf, String) {
    let tif = dir.join("cone.tif");
    write_tiff(&tif, &cone(), &projected_keys(32631), None);
    let out = dir.join("cone.json");
    let mut args = vec![
        "import",
        "dem",
        s(&tif),
        "--hex-size",
        "100",
        "--out",
        s(&out),
    ];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = hexsight(&args);
    assert!(ok, "{stderr}");
    (out, stdout)
}

#[test]
fn a_cone_imports_hex_by_hex_with_nodata_filled_from_the_nearest_pixel() {
    let dir = tempfile::tempdir().unwrap();
    let (path, stdout) = imported(dir.path(), &["--level-height", "10"]);
    let map = Map::load(&path).unwrap();
    let geo = map.geo.clone().expect("import writes geo");
    assert_eq!(geo.epsg, 32631);
    assert_eq!(geo.hex_size, 100.0);
    assert_eq!(
        map.scale.as_ref().map(|s| (s.hex, s.unit.as_str())),
        Some((100.0, "m"))
    );
    let data = cone();
    let value = |c: usize, r: usize| data[r * W as usize + c];
    let mut filled = 0;
    for h in map.hexes() {
        let (x, y) = geo.hex_center(&map, h);
        assert!((LEFT..=LEFT + 1000.0).contains(&x) && (TOP - 800.0..=TOP).contains(&y));
        let (c, r) = (((x - LEFT) / PIXEL) as usize, ((TOP - y) / PIXEL) as usize);
        let level = map.level(h);
        if value(c, r) != NODATA {
            let want = (f64::from(value(c, r)) / 10.0).round() as i32;
            assert_eq!(level, want, "{} at pixel {c},{r}", map.label(h));
            continue;
        }
        filled += 1;
        // The nearest valid pixels (all those at the least distance).
        let mut best = (u64::MAX, Vec::new());
        for rr in 0..H as usize {
            for cc in 0..W as usize {
                if value(cc, rr) == NODATA {
                    continue;
                }
                let d = (cc.abs_diff(c).pow(2) + rr.abs_diff(r).pow(2)) as u64;
                if d < best.0 {
                    best = (d, Vec::new());
                }
                if d == best.0 {
                    best.1
                        .push((f64::from(value(cc, rr)) / 10.0).round() as i32);
                }
            }
        }
        assert!(
            best.1.contains(&level),
            "{}: {level} not in {:?}",
            map.label(h),
            best.1
        );
    }
    assert!(filled >= 1, "the holes hold hex centres");
    assert!(
        stdout.contains(&format!("no-data: {filled} hexes")),
        "{stdout}"
    );
    // The summit hex is level 20 (200 m at 10 m a level).
    let top = map.cells().iter().map(|c| c.level).max().unwrap();
    assert!((19..=20).contains(&top), "{top}");
}

#[test]
fn mean_and_max_sampling_bracket_the_centre() {
    let dir = tempfile::tempdir().unwrap();
    let (centre, _) = imported(dir.path(), &["--level-height", "2"]);
    let centre = Map::load(&centre).unwrap();
    let (max, _) = imported(dir.path(), &["--level-height", "2", "--sample", "max"]);
    let max = Map::load(&max).unwrap();
    assert_eq!((centre.cols, centre.rows), (max.cols, max.rows));
    let higher = centre
        .cells()
        .iter()
        .zip(max.cells())
        .filter(|(c, m)| m.level > c.level)
        .count();
    assert!(
        centre
            .cells()
            .iter()
            .zip(max.cells())
            .all(|(c, m)| m.level >= c.level)
    );
    assert!(higher > centre.len() / 2, "{higher}");
    let (_, _) = imported(dir.path(), &["--sample", "mean", "--orientation", "pointy"]);
}

#[test]
fn land_cover_sets_terrain_through_the_class_table() {
    let dir = tempfile::tempdir().unwrap();
    let lc: Vec<f32> = (0..W * H)
        .map(|i| if i % W < 50 { 10.0 } else { 50.0 })
        .collect();
    let lc_path = dir.path().join("lc.tif");
    write_tiff(&lc_path, &lc, &projected_keys(32631), None);
    let table = dir.path().join("classes.json");
    std::fs::write(&table, r#"{"10": "woods", "50": "building"}"#).unwrap();
    let (path, stdout) = imported(
        dir.path(),
        &["--landcover", s(&lc_path), "--classes", s(&table)],
    );
    assert!(stdout.contains("land cover: 0 hexes"), "{stdout}");
    let map = Map::load(&path).unwrap();
    let geo = map.geo.clone().unwrap();
    for h in map.hexes() {
        let (x, _) = geo.hex_center(&map, h);
        let want = if x < LEFT + 500.0 {
            "woods"
        } else {
            "building"
        };
        assert_eq!(map.terrain(h).unwrap().id, want, "{}", map.label(h));
    }
}

#[test]
fn geographic_rotated_truncated_and_garbage_rasters_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.json");
    let check = |tif: &Path, want: &str| {
        let (ok, _, stderr) = hexsight(&[
            "import",
            "dem",
            s(tif),
            "--hex-size",
            "100",
            "--out",
            s(&out),
        ]);
        assert!(!ok, "{want}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(want), "{want}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    };
    let geographic = dir.path().join("geographic.tif");
    write_tiff(
        &geographic,
        &cone(),
        &[1, 1, 0, 2, 1024, 0, 1, 2, 2048, 0, 1, 4326],
        None,
    );
    check(&geographic, "geographic CRS (EPSG:4326");
    let rotated = dir.path().join("rotated.tif");
    let m = [
        10.0, 1.0, 0.0, LEFT, 1.0, -10.0, 0.0, TOP, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    write_tiff(&rotated, &cone(), &projected_keys(32631), Some(m));
    check(&rotated, "rotated");
    let good = dir.path().join("good.tif");
    write_tiff(&good, &cone(), &projected_keys(32631), None);
    let bytes = std::fs::read(&good).unwrap();
    for cut in [4, 100, bytes.len() / 2, bytes.len() - 10] {
        let t = dir.path().join(format!("cut{cut}.tif"));
        std::fs::write(&t, &bytes[..cut]).unwrap();
        check(&t, "cut");
    }
    let garbage = dir.path().join("garbage.tif");
    std::fs::write(&garbage, b"II*\0garbage garbage garbage garbage").unwrap();
    check(&garbage, "garbage.tif");
    let text = dir.path().join("text.tif");
    std::fs::write(&text, "not a tiff at all").unwrap();
    check(&text, "not a readable DEM GeoTIFF");
}

#[test]
fn geo_blocks_survive_round_trips_and_bad_ones_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let base =
        r#"{"hexsight": 1, "name": "g", "ruleset": "geometric", "grid": {"cols": 3, "rows": 3}"#;
    let good = format!(
        r#"{base}, "geo": {{"epsg": 32631, "origin": [448251.9, 5411943.8], "hex_size": 100, "note": "kept"}}}}"#
    );
    let a = dir.path().join("a.json");
    std::fs::write(&a, &good).unwrap();
    let map = Map::load(&a).unwrap();
    let b = dir.path().join("b.json");
    map.save(&b).unwrap();
    let again = Map::load(&b).unwrap();
    assert_eq!(again.geo, map.geo);
    assert_eq!(again.geo.as_ref().unwrap().extra["note"], "kept");
    assert!(hexsight_analysis::map::file::same_content(&map, &again));
    for (geo, key) in [
        (r#""geo": 5"#, "geo"),
        (r#""geo": {"origin": [0, 0], "hex_size": 1}"#, "geo.epsg"),
        (
            r#""geo": {"epsg": 4326, "origin": [0, 0], "hex_size": 1}"#,
            "geographic",
        ),
        (
            r#""geo": {"epsg": "x", "origin": [0, 0], "hex_size": 1}"#,
            "geo.epsg",
        ),
        (
            r#""geo": {"epsg": 32631, "origin": [0], "hex_size": 1}"#,
            "geo.origin",
        ),
        (
            r#""geo": {"epsg": 32631, "origin": [0, 0], "hex_size": -1}"#,
            "geo.hex_size",
        ),
        (
            r#""geo": {"epsg": 32631, "origin": [0, 0]}"#,
            "geo.hex_size",
        ),
    ] {
        let p = dir.path().join("bad.json");
        std::fs::write(&p, format!("{base}, {geo}}}")).unwrap();
        let (ok, _, stderr) = hexsight(&["validate", s(&p)]);
        assert!(!ok && stderr.contains(key), "{geo}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

/// A georeferenced 3x3 map whose A1 is the Eiffel Tower in UTM 31N.
fn eiffel_map(dir: &Path) -> PathBuf {
    let p = dir.join("eiffel.json");
    std::fs::write(
        &p,
        r#"{"hexsight": 1, "name": "eiffel", "ruleset": "geometric", "grid": {"cols": 3, "rows": 3},
            "geo": {"epsg": 32631, "origin": [448251.89829058, 5411943.79380841], "hex_size": 100},
            "hexes": {"B2": {"level": 3}}}"#,
    )
    .unwrap();
    p
}

#[test]
fn hex_centres_go_to_the_crs_and_to_lonlat_as_proj_says() {
    let dir = tempfile::tempdir().unwrap();
    let map = Map::load(&eiffel_map(dir.path())).unwrap();
    let geo = map.geo.clone().unwrap();
    let p = Projection::from_epsg(geo.epsg).unwrap();
    // Reference longitudes/latitudes from PROJ (gdaltransform -s_srs EPSG:32631 -t_srs EPSG:4326).
    for (label, lon, lat) in [
        ("A1", 2.2945, 48.8583),
        ("A2", 2.294_512_641_473_05, 48.857_400_484_339_6),
        ("C1", 2.296_861_179_311_71, 48.858_314_423_887_3),
    ] {
        let h = map.parse_hex(label).unwrap();
        let c = geo.hex_center(&map, h);
        let (lo, la) = p.unproject(c);
        assert!(
            (lo - lon).abs() < 1e-8 && (la - lat).abs() < 1e-8,
            "{label}: {lo} {la}"
        );
        let back = p.project((lo, la));
        assert!((back.0 - c.0).abs() < 1e-3 && (back.1 - c.1).abs() < 1e-3);
        assert_eq!(geo.hex_at(&map, back), h);
    }
}

#[test]
fn viewshed_geojson_holds_hexes_areas_and_lines_in_lonlat() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = imported(dir.path(), &[]);
    let gj = dir.path().join("v.geojson");
    let (ok, _, stderr) = hexsight(&["viewshed", s(&path), "--from", "A1", "--geojson", s(&gj)]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&gj).unwrap()).unwrap();
    let map = Map::load(&path).unwrap();
    let features = v["features"].as_array().unwrap();
    let hexes: Vec<_> = features
        .iter()
        .filter(|f| f["properties"]["kind"] == "hex")
        .collect();
    assert_eq!(hexes.len(), map.len());
    let areas: Vec<_> = features
        .iter()
        .filter(|f| f["properties"]["kind"] == "area")
        .collect();
    assert!(
        areas
            .iter()
            .all(|f| f["geometry"]["type"] == "MultiPolygon")
    );
    assert!(areas.iter().any(|f| f["properties"]["area"] == "visible"));
    let a1 = &hexes[0];
    assert_eq!(a1["properties"]["label"], "A1");
    assert_eq!(a1["properties"]["verdict"], "clear");
    let ring = a1["geometry"]["coordinates"][0].as_array().unwrap();
    assert_eq!(ring.len(), 7);
    let lon = ring[0][0].as_f64().unwrap();
    assert!(
        (2.9..3.1).contains(&lon),
        "UTM 31N is near 3 degrees east: {lon}"
    );
}

/// Python with GDAL's bindings, if installed (Debian: python3-gdal).
fn gdal_python() -> Option<&'static str> {
    let ok = Command::new("/usr/bin/python3")
        .args(["-c", "from osgeo import ogr"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some("/usr/bin/python3")
}

const OGR_CHECK: &str = r#"
import sys
from osgeo import ogr, osr
path, epsg, label, x, y, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
ds = ogr.Open(path)
layer = ds.GetLayer(0)
srs = layer.GetSpatialRef()
srs.AutoIdentifyEPSG()
assert srs.GetAuthorityCode(None) == str(epsg), srs.GetAuthorityCode(None)
assert layer.GetFeatureCount() == count, layer.GetFeatureCount()
hexes = [f for f in layer if f.GetField("kind") == "hex"]
f = [f for f in hexes if f.GetField("label") == label][0]
assert f.GetField("terrain") == "open" and f.GetField("level") is not None
point = ogr.CreateGeometryFromWkt("POINT (%r %r)" % (x, y))
assert f.GetGeometryRef().Contains(point), "the hex polygon holds its centre"
print("ogr ok", layer.GetFeatureCount())
"#;

#[test]
fn gdal_reads_the_geojson_crs_features_and_polygons() {
    let Some(python) = gdal_python() else {
        println!("skipped: /usr/bin/python3 with osgeo (python3-gdal) is not installed");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = eiffel_map(dir.path());
    let map = Map::load(&path).unwrap();
    let geo = map.geo.clone().unwrap();
    let b2 = map.parse_hex("B2").unwrap();
    let centre = geo.hex_center(&map, b2);
    let lonlat = Projection::from_epsg(32631).unwrap().unproject(centre);
    for (crs, epsg, (x, y)) in [("lonlat", 4326, lonlat), ("native", 32631, centre)] {
        let gj = dir.path().join(format!("e-{crs}.geojson"));
        let (ok, _, stderr) = hexsight(&[
            "exposure",
            s(&path),
            "--geojson",
            s(&gj),
            "--geojson-crs",
            crs,
        ]);
        assert!(ok, "{stderr}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&gj).unwrap()).unwrap();
        let count = v["features"].as_array().unwrap().len();
        assert!(count >= map.len());
        let out = Command::new(python)
            .args(["-c", OGR_CHECK, s(&gj), &epsg.to_string(), "B2"])
            .args([x.to_string(), y.to_string(), count.to_string()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{crs}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_command_writes_geojson_and_grid_units_without_geo() {
    let dir = tempfile::tempdir().unwrap();
    let hill = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/hill-112.json");
    let hamlet = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/miniatures-hamlet.json");
    for (cmd, extra) in [
        ("viewshed", vec!["--from", "H7"]),
        ("blind", vec!["--from", "H7"]),
        ("exposure", vec![]),
        ("spot", vec!["--from", "C3"]),
        (
            "deploy",
            vec!["--zone", "A1:C12", "--watch", "H1:T12", "--count", "2"],
        ),
    ] {
        let gj = dir.path().join(format!("{cmd}.geojson"));
        let map = if cmd == "spot" { hamlet } else { hill };
        let mut args = vec![cmd, map, "--geojson", s(&gj)];
        args.extend(extra);
        let (ok, _, stderr) = hexsight(&args);
        assert!(ok, "{cmd}: {stderr}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&gj).unwrap()).unwrap();
        assert_eq!(v["type"], "FeatureCollection");
        assert!(v.get("crs").is_none(), "hex-grid units name no CRS");
        let features = v["features"].as_array().unwrap();
        assert!(!features.is_empty(), "{cmd}");
        if cmd == "spot" {
            let p = &features[0]["properties"];
            assert!(p["probability"].is_number() && p["los"].is_boolean(), "{p}");
        }
    }
    // Lon/lat from a CRS hexsight cannot project is refused before any work.
    let p = dir.path().join("lambert.json");
    std::fs::write(
        &p,
        r#"{"hexsight": 1, "name": "l", "ruleset": "geometric", "grid": {"cols": 3, "rows": 3},
            "geo": {"epsg": 2154, "origin": [700000, 6600000], "hex_size": 100}}"#,
    )
    .unwrap();
    let gj = dir.path().join("l.geojson");
    let (ok, _, stderr) = hexsight(&["viewshed", s(&p), "--from", "A1", "--geojson", s(&gj)]);
    assert!(
        !ok && stderr.contains("EPSG:2154") && stderr.contains("native"),
        "{stderr}"
    );
    let (ok, _, stderr) = hexsight(&[
        "viewshed",
        s(&p),
        "--from",
        "A1",
        "--geojson",
        s(&gj),
        "--geojson-crs",
        "native",
    ]);
    assert!(ok, "{stderr}");
}

const GDAL_DEM: &str = r#"
import sys
import numpy as np
from osgeo import gdal, osr
ds = gdal.GetDriverByName("GTiff").Create(sys.argv[1], 50, 40, 1, gdal.GDT_Int16,
    ["COMPRESS=DEFLATE", "TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16"])
ds.SetGeoTransform((500000, 20, 0, 5001000, 0, -20))
srs = osr.SpatialReference(); srs.ImportFromEPSG(32631); ds.SetProjection(srs.ExportToWkt())
a = np.indices((40, 50))[1] * 3
b = ds.GetRasterBand(1); b.SetNoDataValue(-32768); b.WriteArray(a); ds = None
"#;

#[test]
fn a_compressed_tiled_dem_made_by_gdal_imports() {
    let Some(python) = gdal_python() else {
        println!("skipped: /usr/bin/python3 with osgeo (python3-gdal) is not installed");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tif = dir.path().join("gdal.tif");
    let made = Command::new(python)
        .args(["-c", GDAL_DEM, s(&tif)])
        .output()
        .unwrap();
    if !made.status.success() {
        println!("skipped: GDAL could not write the fixture (numpy missing?)");
        return;
    }
    let out = dir.path().join("gdal.json");
    let (ok, _, stderr) = hexsight(&[
        "import",
        "dem",
        s(&tif),
        "--hex-size",
        "100",
        "--level-height",
        "3",
        "--out",
        s(&out),
    ]);
    assert!(ok, "{stderr}");
    let map = Map::load(&out).unwrap();
    let geo = map.geo.clone().unwrap();
    // Elevation is 3 m per 20 m pixel eastwards: level = pixel column.
    for h in map.hexes() {
        let (x, _) = geo.hex_center(&map, h);
        let col = ((x - 500_000.0) / 20.0).floor() as i32;
        assert_eq!(map.level(h), col, "{}", map.label(h));
    }
}

#[test]
fn report_writes_one_geojson_per_picture() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = imported(dir.path(), &[]);
    let out = dir.path().join("report");
    let (ok, _, stderr) = hexsight(&[
        "report",
        s(&path),
        "--out",
        s(&out),
        "--keys",
        "2",
        "--geojson",
    ]);
    assert!(ok, "{stderr}");
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".geojson"))
        .collect();
    assert!(names.contains(&"exposure.geojson".to_string()), "{names:?}");
    let viewsheds = names.iter().filter(|n| n.starts_with("viewshed-")).count();
    assert_eq!(viewsheds, 2, "{names:?}");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("exposure.geojson"));
}
