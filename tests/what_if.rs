//! `--layer` on every command that reads a map, `diff` and `viewshed --min-height`,
//! through the binary. The layer puts woods and smoke where the ASL demonstration map
//! has open ground; the same change made by editing a copy of the map file must give
//! every command the same answer.

mod common;
use common::{hexsight, hexsight_ok};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const MAP: &str = "maps/asl-stream-crest.json";

/// The layer file, and a copy of the map with the same change written into it.
fn layer_and_edited(dir: &Path) -> (PathBuf, PathBuf) {
    let layer = json!({"hexsight_layer": 1,
        "hexes": {"F6": {"terrain": "woods"}, "G6": {"terrain": "woods", "level": 1}},
        "add": {"markers": [{"hex": "H7", "kind": "smoke"}]}});
    let lp = dir.join("layer.json");
    std::fs::write(&lp, layer.to_string()).unwrap();
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(MAP).unwrap()).unwrap();
    m["hexes"]["F6"] = json!({"terrain": "woods"});
    m["hexes"]["G6"] = json!({"terrain": "woods", "level": 1});
    let markers = m["markers"].as_array().cloned().unwrap_or_default();
    let mut markers = markers;
    markers.push(json!({"hex": "H7", "kind": "smoke"}));
    m["markers"] = json!(markers);
    let mp = dir.join("edited.json");
    std::fs::write(&mp, m.to_string()).unwrap();
    (lp, mp)
}

/// Every command that reads one map answers a layered map as the edited copy; the
/// layer changes the engine's answers (so the comparison can fail).
#[test]
fn every_map_command_honours_layer_as_an_edited_map() {
    let dir = tempfile::tempdir().unwrap();
    let (layer, edited) = layer_and_edited(dir.path());
    let (l, e) = (layer.to_str().unwrap(), edited.to_str().unwrap());
    let cases: Vec<Vec<&str>> = vec![
        vec!["los", "C5", "J7", "--json"],
        vec!["profile", "C5", "J7", "--json"],
        vec!["viewshed", "--from", "C5", "--json"],
        vec!["viewshed", "--from", "C5", "--min-height", "3", "--json"],
        vec!["blind", "--from", "G6", "--json"],
        vec!["exposure", "--json"],
        vec!["units", "--json"],
        vec!["validate"],
    ];
    let mut differs = 0;
    for args in cases {
        let run = |map: &str, layered: bool| {
            let mut v = vec![args[0], map];
            v.extend(&args[1..]);
            if layered {
                v.extend(["--layer", l]);
            }
            hexsight_ok(&v).replace(map, "MAP")
        };
        let (a, b) = (run(MAP, true), run(e, false));
        assert_eq!(a, b, "{args:?}");
        differs += usize::from(a != run(MAP, false));
    }
    assert!(differs >= 4, "the layer changed only {differs} answers");
    // Files: the matrix and the report's exposure.
    for (name, map, layered) in [("a", MAP, true), ("b", e, false)] {
        let out = dir.path().join(format!("{name}.csv"));
        let mut v = vec!["matrix", map, "--out", out.to_str().unwrap()];
        if layered {
            v.extend(["--layer", l]);
        }
        hexsight_ok(&v);
        let rep = dir.path().join(format!("report-{name}"));
        let mut v = vec!["report", map, "--out", rep.to_str().unwrap(), "--key", "C5"];
        if layered {
            v.extend(["--layer", l]);
        }
        hexsight_ok(&v);
    }
    let read = |p: &str| std::fs::read(dir.path().join(p)).unwrap();
    assert_eq!(read("a.csv"), read("b.csv"));
    let pngs = |d: &str| {
        let mut v: Vec<_> = std::fs::read_dir(dir.path().join(d))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    assert_eq!(pngs("report-a"), pngs("report-b"));
}

/// `diff` against a layer equals `diff` against the edited map; a map against
/// itself is empty; a bad layer is one line naming it.
#[test]
fn diff_against_a_layer_equals_diff_against_the_edited_map() {
    let dir = tempfile::tempdir().unwrap();
    let (layer, edited) = layer_and_edited(dir.path());
    let (l, e) = (layer.to_str().unwrap(), edited.to_str().unwrap());
    let json = |args: &[&str]| -> Value {
        let mut v = vec!["diff", MAP, "--json", "--view", "C5"];
        v.extend(args);
        let mut x: Value = serde_json::from_str(&hexsight_ok(&v)).unwrap();
        x["against"] = json!("");
        x
    };
    let (a, b) = (json(&["--against-layer", l]), json(&["--against", e]));
    assert_eq!(a, b);
    assert!(a["counts"]["gained"].as_u64().unwrap() + a["counts"]["lost"].as_u64().unwrap() > 0);
    let same = json(&["--against", MAP]);
    assert_eq!(
        (
            same["counts"]["gained"].as_u64(),
            same["counts"]["lost"].as_u64()
        ),
        (Some(0), Some(0))
    );
    assert_eq!(same["seen_by_change"], json!({}));
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"hexsight_layer": 1, "add": {"markers": [{"hex": "ZZ99", "kind": "smoke"}]}}"#,
    )
    .unwrap();
    let out = hexsight(&["diff", MAP, "--against-layer", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.lines().count() == 1, "{err}");
    assert!(err.contains("bad.json: add.markers[0] (ZZ99)"), "{err}");
}

/// `viewshed --min-height --kind`: a layered map answers as the edited copy, kinds
/// change the answer as their rules say (on dry land a 'Mech, a level taller than a
/// vehicle, is seen wherever a vehicle is, as low; in deep water it is submerged and
/// the vehicle floats), and a bad kind is one line naming the flag.
#[test]
fn min_height_per_kind_follows_the_kinds_and_the_layers() {
    let heights = |args: &[&str]| -> Vec<(String, Option<u64>)> {
        let mut v = vec!["viewshed"];
        v.extend(args);
        v.extend(["--min-height", "3", "--json"]);
        let x: Value = serde_json::from_str(&hexsight_ok(&v)).unwrap();
        x["heights"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, h)| (k.clone(), h.as_u64()))
            .collect()
    };
    let bt = ["maps/battletech-ridge.json", "--from", "E5"];
    let mech = heights(&[&bt[..], &["--kind", "mech", "--observer-kind", "mech"]].concat());
    let vehicle = heights(&[&bt[..], &["--kind", "vehicle", "--observer-kind", "mech"]].concat());
    assert_ne!(mech, vehicle);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(bt[0]).unwrap()).unwrap();
    let water = |l: &str| {
        file["hexes"][l]["terrain"]
            .as_str()
            .is_some_and(|t| t.starts_with("water"))
    };
    let mut submerged = 0;
    for ((l, m), (_, v)) in mech.iter().zip(&vehicle) {
        if water(l) {
            submerged += usize::from(m.is_none() && v.is_some());
        } else if let Some(v) = v {
            assert!(m.is_some_and(|m| m <= *v), "{l}: mech {m:?}, vehicle {v}");
        }
    }
    assert!(
        submerged > 0,
        "no deep water hex hid the 'Mech and showed the vehicle"
    );
    // An observer kind changes what it sees: a prone 'Mech's eye is a level lower.
    let h8 = [bt[0], "--from", "H8", "--kind", "mech", "--observer-kind"];
    assert_ne!(
        heights(&[&h8[..], &["mech"]].concat()),
        heights(&[&h8[..], &["mech:prone"]].concat())
    );
    let dir = tempfile::tempdir().unwrap();
    let (layer, edited) = layer_and_edited(dir.path());
    let asl = ["--from", "C5", "--kind", "squad"];
    assert_eq!(
        heights(&[&[MAP][..], &asl, &["--layer", layer.to_str().unwrap()]].concat()),
        heights(&[&[edited.to_str().unwrap()][..], &asl].concat())
    );
    for (args, want) in [
        (vec!["--kind", "tank"], "--kind: unknown unit kind `tank`"),
        (
            vec!["--kind", "mech", "--observer-kind", "mech:flying"],
            "--observer-kind: unknown unit state `flying`",
        ),
    ] {
        let mut v = vec!["viewshed", bt[0], "--from", "E5", "--min-height"];
        v.extend(args);
        let out = hexsight(&v);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.lines().count() == 1, "{err}");
        assert!(err.contains(want), "{err}");
    }
}
