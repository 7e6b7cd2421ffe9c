//! GIS-native outputs (`--tif`, `--fgb`, `--npy`) of viewshed, blind, exposure, spot and
//! deploy, read back by GDAL (`osgeo.gdal`, `osgeo.ogr`) and numpy: every value equals
//! the command's JSON answer; a map imported from a DEM gets a GeoTIFF with the DEM's
//! size, transform and CRS whose pixel at each hex centre holds that hex's value.
//! Bad paths and a full device give one-line errors and leave no file.

mod common;

use common::{hexsight, viewshed_hexes};
use hexsight_analysis::Map;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use tiff::encoder::{TiffEncoder, colortype::Gray32Float};
use tiff::tags::Tag;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A 60x50 DEM of 10 m pixels in UTM 31N: a ridge running north-south with a knoll.
fn dem(dir: &Path) -> PathBuf {
    let (w, h) = (60u32, 50u32);
    let mut v = Vec::new();
    for row in 0..h {
        for col in 0..w {
            let ridge = 40.0 - (col as f32 - 30.0).abs();
            let knoll = 30.0 - ((col as f32 - 12.0).powi(2) + (row as f32 - 10.0).powi(2)).sqrt();
            v.push(ridge.max(knoll).max(0.0));
        }
    }
    let path = dir.join("dem.tif");
    let mut enc = TiffEncoder::new(std::fs::File::create(&path).unwrap()).unwrap();
    let mut img = enc.new_image::<Gray32Float>(w, h).unwrap();
    let e = img.encoder();
    e.write_tag(Tag::ModelPixelScaleTag, &[10.0, 10.0, 0.0][..])
        .unwrap();
    e.write_tag(
        Tag::ModelTiepointTag,
        &[0.0, 0.0, 0.0, 500_000.0, 5_001_000.0, 0.0][..],
    )
    .unwrap();
    let keys: [u16; 16] = [1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32631];
    e.write_tag(Tag::GeoKeyDirectoryTag, &keys[..]).unwrap();
    img.write_data(&v).unwrap();
    path
}

/// The DEM imported with hexes 40 m apart, levels of 4 m.
fn dem_map(dir: &Path) -> PathBuf {
    let out = dir.join("ridge.json");
    let tif = dem(dir);
    let o = hexsight(&[
        "import",
        "dem",
        s(&tif),
        "--hex-size",
        "40",
        "--level-height",
        "4",
        "--out",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// Python with GDAL's bindings (Debian: python3-gdal), which CI installs.
fn gdal_python() -> Option<&'static str> {
    let ok = Command::new("/usr/bin/python3")
        .args(["-c", "from osgeo import gdal, ogr; import numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some("/usr/bin/python3")
}

/// Reads the three files back and compares them with `expected`: per hex label its
/// centre (x, y) in the raster's CRS, its offset (col, row) and its values band by band.
const CHECK: &str = r#"
import json, sys
import numpy as np
from osgeo import gdal, ogr
gdal.UseExceptions()
tif, fgb, npy, expected_path, grid = sys.argv[1:6]
exp = json.load(open(expected_path))
ds = gdal.Open(tif)
if grid != "-":
    src = gdal.Open(grid)
    assert ds.RasterXSize == src.RasterXSize and ds.RasterYSize == src.RasterYSize, "size"
    assert ds.GetGeoTransform() == src.GetGeoTransform(), (ds.GetGeoTransform(), src.GetGeoTransform())
    a, b = ds.GetSpatialRef(), src.GetSpatialRef()
    assert a.GetAuthorityCode(None) == b.GetAuthorityCode(None) == "32631", "crs"
gt = ds.GetGeoTransform()
bands = [ds.GetRasterBand(k + 1).ReadAsArray() for k in range(ds.RasterCount)]
arr = np.load(npy)
if arr.ndim == 2:
    arr = arr[None]
assert arr.shape[0] == ds.RasterCount
for label, e in exp["hexes"].items():
    if grid != "-":
        col = int((e["x"] - gt[0]) / gt[1]); row = int((e["y"] - gt[3]) / gt[5])
    else:
        col, row = e["col"], e["row"]
    for k, want in enumerate(e["values"]):
        got = bands[k][row, col]
        assert abs(float(got) - want) < 1e-6, (label, k, float(got), want)
        got = arr[k, e["row"], e["col"]]
        assert abs(float(got) - want) < 1e-6, ("npy", label, k, float(got), want)
nodata = ds.GetRasterBand(1).GetNoDataValue()
assert nodata is not None
v = ogr.Open(fgb)
layer = v.GetLayer(0)
assert layer.GetFeatureCount() == exp["features"], (layer.GetFeatureCount(), exp["features"])
props = {}
for f in layer:
    if f.GetField("kind") == "hex":
        props[f.GetField("label")] = {k: f.GetField(k) for k in exp["keys"]}
for label, p in exp["props"].items():
    for k, want in p.items():
        got = props[label][k]
        assert got == want or (isinstance(want, bool) and got == int(want)), (label, k, got, want)
print("gis ok")
"#;

/// What one command's files must hold: a hex's expected values from its JSON answer.
struct Case {
    cmd: &'static str,
    args: Vec<&'static str>,
    values: fn(&Value, &str) -> Vec<f64>,
    /// GeoJSON properties compared on the FlatGeobuf's hexes.
    keys: &'static [&'static str],
}

fn viewshed_values(v: &Value, label: &str) -> Vec<f64> {
    let e = &viewshed_hexes(v)[label];
    let code = match (e["verdict"].as_str().unwrap(), e["blind"] == true) {
        (_, true) => 3.0,
        ("clear", _) => 0.0,
        ("hindered", _) => 1.0,
        _ => 2.0,
    };
    vec![code]
}

fn blind_values(v: &Value, label: &str) -> Vec<f64> {
    let blind = v["blind"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["hex"] == label);
    vec![f64::from(u8::from(blind))]
}

fn exposure_values(v: &Value, label: &str) -> Vec<f64> {
    let e = &v["hexes"][label];
    vec![e["seen_by"].as_f64().unwrap(), e["sees"].as_f64().unwrap()]
}

fn spot_values(v: &Value, label: &str) -> Vec<f64> {
    let c = v
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["hex"] == label)
        .unwrap();
    let p = if c["auto"] == true {
        1.0
    } else {
        c["p_spot"].as_f64().unwrap() as f32 as f64
    };
    vec![p, f64::from(u8::from(c["los"] == true))]
}

fn deploy_values(v: &Value, label: &str) -> Vec<f64> {
    let chosen = v["chosen"].as_array().unwrap().iter().any(|c| c == label);
    vec![if chosen { 4.0 } else { -1.0 }]
}

/// Runs `case` on `map` with every output and checks them all with GDAL. `dem` is the
/// DEM a map was imported from (the raster must lie on its grid), given to the command as
/// `--tif-grid` too when `as_grid`.
fn check(
    python: &str,
    dir: &Path,
    map_path: &Path,
    case: &Case,
    dem: Option<&Path>,
    as_grid: bool,
) {
    let map = Map::load(map_path).unwrap();
    let (tif, fgb, npy) = (dir.join("a.tif"), dir.join("a.fgb"), dir.join("a.npy"));
    let gj = dir.join("a.geojson");
    let mut args = vec![case.cmd, s(map_path)];
    args.extend(&case.args);
    let json_out = hexsight(&[args.as_slice(), &["--json"]].concat());
    assert!(
        json_out.status.success(),
        "{}",
        String::from_utf8_lossy(&json_out.stderr)
    );
    let answer: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    let mut files = vec![
        "--tif",
        s(&tif),
        "--fgb",
        s(&fgb),
        "--npy",
        s(&npy),
        "--geojson",
        s(&gj),
    ];
    files.extend(["--geojson-crs", "native"]);
    if let Some(g) = dem.filter(|_| as_grid) {
        files.extend(["--tif-grid", s(g)]);
    }
    let o = hexsight(&[args.as_slice(), &files].concat());
    assert!(
        o.status.success(),
        "{}: {}",
        case.cmd,
        String::from_utf8_lossy(&o.stderr)
    );
    let geojson: Value = serde_json::from_slice(&std::fs::read(&gj).unwrap()).unwrap();
    let features = geojson["features"].as_array().unwrap();
    let mut hexes = serde_json::Map::new();
    let mut props = serde_json::Map::new();
    for i in 0..map.len() {
        let h = map.hex_of(i);
        let label = map.label(h);
        let (col, row) = map.layout.offset_of(h);
        let (x, y) = map
            .geo
            .as_ref()
            .map_or((0.0, 0.0), |g| g.hex_center(&map, h));
        let mut values = (case.values)(&answer, &label);
        if values == [-1.0] {
            // Deploy: only the chosen hexes' code follows from the JSON alone.
            values.clear();
        }
        hexes.insert(
            label.clone(),
            json!({"x": x, "y": y, "col": col, "row": row, "values": values}),
        );
    }
    for f in features
        .iter()
        .filter(|f| f["properties"]["kind"] == "hex")
        .take(40)
    {
        let p = &f["properties"];
        let picked: serde_json::Map<String, Value> = case
            .keys
            .iter()
            .map(|k| (k.to_string(), p[*k].clone()))
            .collect();
        props.insert(
            p["label"].as_str().unwrap().to_string(),
            Value::Object(picked),
        );
    }
    let expected = dir.join("expected.json");
    let exp =
        json!({"hexes": hexes, "features": features.len(), "keys": case.keys, "props": props});
    std::fs::write(&expected, exp.to_string()).unwrap();
    let grid_arg = dem.map_or("-".to_string(), |g| s(g).to_string());
    let out = Command::new(python)
        .args([
            "-c",
            CHECK,
            s(&tif),
            s(&fgb),
            s(&npy),
            s(&expected),
            &grid_arg,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} on {}: {}",
        case.cmd,
        map_path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            cmd: "viewshed",
            args: vec!["--from", "H7"],
            values: viewshed_values,
            keys: &["label", "verdict", "hindrance", "blind", "level"],
        },
        Case {
            cmd: "blind",
            args: vec!["--from", "H7"],
            values: blind_values,
            keys: &["label", "reason"],
        },
        Case {
            cmd: "exposure",
            args: vec![],
            values: exposure_values,
            keys: &["label", "sees", "seen_by", "terrain"],
        },
        Case {
            cmd: "deploy",
            args: vec!["--zone", "A1:C8", "--watch", "F1:K8", "--count", "2"],
            values: deploy_values,
            keys: &["label", "chosen", "adds"],
        },
    ]
}

#[test]
fn dem_rasters_lie_on_the_dem_and_every_file_holds_the_json_answer() {
    let Some(python) = gdal_python() else {
        println!("skipped: /usr/bin/python3 with osgeo and numpy (python3-gdal) is not installed");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let map = dem_map(dir.path());
    let grid = dir.path().join("dem.tif");
    for case in cases() {
        // The map's own grid (geo.raster) and the same grid given as --tif-grid.
        check(python, dir.path(), &map, &case, Some(&grid), false);
        check(python, dir.path(), &map, &case, Some(&grid), true);
    }
}

#[test]
fn maps_without_a_dem_get_a_pixel_per_hex() {
    let Some(python) = gdal_python() else {
        println!("skipped: /usr/bin/python3 with osgeo and numpy (python3-gdal) is not installed");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps");
    for case in cases() {
        check(
            python,
            dir.path(),
            &root.join("hill-112.json"),
            &case,
            None,
            false,
        );
    }
    let spot = Case {
        cmd: "spot",
        args: vec!["--from", "C3"],
        values: spot_values,
        keys: &["label", "los", "auto", "probability"],
    };
    check(
        python,
        dir.path(),
        &root.join("miniatures-hamlet.json"),
        &spot,
        None,
        false,
    );
}

/// The DEM's raster block survives a load and save, so the map keeps its grid.
#[test]
fn the_dem_grid_is_kept_in_the_map_file() {
    let dir = tempfile::tempdir().unwrap();
    let map = Map::load(&dem_map(dir.path())).unwrap();
    let g = map.geo.as_ref().unwrap().raster.unwrap();
    assert_eq!((g.width, g.height, g.dx, g.dy), (60, 50, 10.0, 10.0));
    assert_eq!((g.left, g.top), (500_000.0, 5_001_000.0));
}

/// An unwritable path, a folder and a full device give one line each, exit non-zero and
/// leave no file; a grid in another CRS or a map without `geo` is refused before work.
#[test]
fn bad_outputs_give_one_line_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let hill = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/hill-112.json");
    let missing = dir.path().join("no/such/folder/v");
    for flag in ["--tif", "--fgb", "--npy"] {
        for (target, why) in [
            (format!("{}.out", missing.display()), "No such file"),
            (s(dir.path()).to_string(), "is a folder"),
            ("/dev/full".to_string(), "No space left"),
        ] {
            let o = hexsight(&["viewshed", hill, "--from", "H7", flag, &target]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{flag} {target}");
            assert_eq!(err.trim().lines().count(), 1, "{flag} {target}: {err}");
            assert!(err.contains(why), "{flag} {target}: {err}");
        }
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let o = hexsight(&[
        "viewshed",
        hill,
        "--from",
        "H7",
        "--tif",
        "/tmp/x.tif",
        "--tif-grid",
        hill,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("geo"), "{err}");
}

/// The decoded pixels of a one- or two-band u32 or u8 GeoTIFF, as numbers.
fn pixels(path: &Path) -> (u32, u32, Vec<u64>) {
    use tiff::decoder::{Decoder, DecodingResult};
    let mut d = Decoder::new(std::fs::File::open(path).unwrap()).unwrap();
    let (w, h) = d.dimensions().unwrap();
    let v = match d.read_image().unwrap() {
        DecodingResult::U8(v) => v.into_iter().map(u64::from).collect(),
        DecodingResult::U32(v) => v.into_iter().map(u64::from).collect(),
        _ => panic!("{}: not u8 or u32", path.display()),
    };
    (w, h, v)
}

/// The report writes its exposure and each key viewshed as GeoTIFFs on the DEM's grid,
/// pixel for pixel the same as the commands' own `--tif`.
#[test]
fn the_report_writes_geotiffs_on_the_dem_grid() {
    let dir = tempfile::tempdir().unwrap();
    let map = dem_map(dir.path());
    let out = dir.path().join("report");
    let o = hexsight(&["report", s(&map), "--out", s(&out), "--key", "H7"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let e = dir.path().join("e.tif");
    let v = dir.path().join("v.tif");
    assert!(
        hexsight(&["exposure", s(&map), "--tif", s(&e)])
            .status
            .success()
    );
    assert!(
        hexsight(&["viewshed", s(&map), "--from", "H7", "--tif", s(&v)])
            .status
            .success()
    );
    for (report, own) in [("exposure.tif", &e), ("viewshed-H7.tif", &v)] {
        let got = pixels(&out.join(report));
        assert_eq!(
            (got.0, got.1),
            (60, 50),
            "{report} lies on the DEM's 60x50 grid"
        );
        assert_eq!(got, pixels(own), "{report}");
    }
}
