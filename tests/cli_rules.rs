//! The commands added for the asl, napoleonic and miniatures rulesets, run as a user would.

use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hexsight"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn json_of(args: &[&str]) -> Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn spot_json_lists_every_hex_with_los_auto_and_p_spot() {
    let v = json_of(&[
        "spot",
        "maps/miniatures-hamlet.json",
        "--from",
        "R4",
        "--json",
    ]);
    let cells = v.as_array().unwrap();
    assert_eq!(cells.len(), 24 * 18);
    for c in cells {
        let p = c["p_spot"].as_f64().unwrap();
        assert!(c["hex"].is_string() && c["los"].is_boolean() && c["auto"].is_boolean());
        assert!((0.0..=1.0).contains(&p));
        if c["los"] == false {
            assert_eq!(p, 0.0);
        }
    }
    let auto = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .filter(|c| c["auto"] == true)
            .count()
    };
    let moving = json_of(&[
        "spot",
        "maps/miniatures-hamlet.json",
        "--from",
        "R4",
        "--activity",
        "moving",
        "--json",
    ]);
    assert!(
        auto(&moving) > auto(&v),
        "moving targets are spotted further away"
    );
}

#[test]
fn spot_png_writes_a_picture() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("spot.png");
    let out = run(&[
        "spot",
        "maps/miniatures-hamlet.json",
        "--from",
        "H6",
        "--png",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn spot_refuses_bad_arguments_without_panicking() {
    for args in [
        vec![
            "spot",
            "maps/miniatures-hamlet.json",
            "--from",
            "R4",
            "--activity",
            "running",
        ],
        vec!["spot", "maps/miniatures-hamlet.json", "--from", "ZZ99"],
        vec!["spot", "maps/asl-stream-crest.json", "--from", "T3"],
    ] {
        let out = run(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
    let out = run(&["spot", "maps/asl-stream-crest.json", "--from", "T3"]);
    assert!(
        stderr(&out).contains("no spotting table"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn units_gives_three_answers_with_reasons() {
    let v = json_of(&[
        "units",
        "maps/napoleonic-ridge.json",
        "sandham-battery",
        "2-45e",
        "--json",
    ]);
    assert_eq!(v["sees"]["ok"], true);
    assert_eq!(v["can_be_targeted"]["ok"], true);
    assert_eq!(v["can_fire"]["ok"], false);
    assert!(
        v["can_fire"]["reasons"][0]
            .as_str()
            .unwrap()
            .contains("69th-foot")
    );
    assert_eq!(v["from"]["hex"], "G4");
    let text = run(&[
        "units",
        "maps/napoleonic-ridge.json",
        "tirailleurs-28e",
        "1-foot-guards",
    ]);
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(
        s.contains("can see: yes") && s.contains("modifier: prone (+2)"),
        "{s}"
    );
    let missing = run(&["units", "maps/napoleonic-ridge.json", "nobody", "2-45e"]);
    assert!(
        !missing.status.success() && stderr(&missing).contains("no unit `nobody`"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn los_reports_the_asl_crest_tem_and_keeps_its_keys() {
    let v = json_of(&["los", "maps/asl-stream-crest.json", "T1", "T3", "--json"]);
    for k in ["verdict", "hindrance", "blocked_by", "reason", "trace"] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(v["details"]["crest_tem"], 2);
    assert_eq!(v["details"]["affects"], "crest-only");
    assert!(
        v["modifiers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "crest TEM" && m["value"] == 2)
    );
    let adj = json_of(&["los", "maps/asl-stream-crest.json", "T2", "T3", "--json"]);
    assert_eq!(adj["details"]["crest_tem"], 0);
    let ind = json_of(&[
        "units",
        "maps/asl-stream-crest.json",
        "us-1",
        "ger-1",
        "--fire",
        "indirect",
        "--json",
    ]);
    let tem = ind["modifiers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "crest TEM")
        .unwrap()
        .clone();
    assert_eq!(tem["value"], 0);
}

#[test]
fn validate_accepts_the_bundled_maps_and_names_broken_unit_rules() {
    for m in [
        "maps/asl-stream-crest.json",
        "maps/napoleonic-ridge.json",
        "maps/miniatures-hamlet.json",
    ] {
        let out = run(&["validate", m]);
        assert!(out.status.success(), "{m}: {}", stderr(&out));
    }
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string("maps/napoleonic-ridge.json").unwrap())
            .unwrap();
    v["hexes"]["J6"] = serde_json::json!({"level": 1, "terrain": "woods"});
    std::fs::write(&bad, v.to_string()).unwrap();
    let out = run(&["validate", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("unit `95th-lc` in J6") && e.contains("not in woods") && !e.contains("panicked"),
        "{e}"
    );
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string("maps/asl-stream-crest.json").unwrap())
            .unwrap();
    v["units"][0]["hex"] = Value::from("S3");
    std::fs::write(&bad, v.to_string()).unwrap();
    let e = stderr(&run(&["validate", bad.to_str().unwrap()]));
    assert!(
        e.contains("unit `ger-1` in S3") && e.contains("depression"),
        "{e}"
    );
}
