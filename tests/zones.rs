//! Named zones in the map file: kept by load/save round trips, checked on load with
//! one-line errors, and accepted wherever the command line takes a zone.

use hexsight_analysis::Map;
use hexsight_analysis::map::file::same_content;
use hexsight_analysis::map::zones::parse_zone;
use hexsight_analysis::map::zones::resolve;
use std::path::{Path, PathBuf};
mod common;
use common::{hexsight, hexsight_ok};

const ZONES: &str = r#"{"german-setup": "A1:F10,G3", "us-entry": "Q1:T12"}"#;

fn hill_112() -> serde_json::Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/hill-112.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Hill 112 with `zones` set, written beside its ruleset reference (a built-in name).
fn with_zones(dir: &Path, zones: &str) -> PathBuf {
    let mut v = hill_112();
    v["zones"] = serde_json::from_str(zones).unwrap();
    let p = dir.join("zoned.json");
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    p
}

fn refused(args: &[&str]) -> String {
    let out = hexsight(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn zones_survive_load_and_save_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let p = with_zones(dir.path(), ZONES);
    let map = Map::load(&p).unwrap();
    let names: Vec<&str> = map.zones.iter().map(|z| z.name.as_str()).collect();
    assert_eq!(names, ["german-setup", "us-entry"]);
    assert_eq!(map.zone_named("us-entry").unwrap().zone, "Q1:T12");
    let saved = dir.path().join("saved.json");
    map.save(&saved).unwrap();
    let again = Map::load(&saved).unwrap();
    assert!(same_content(&map, &again));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(
        v["zones"],
        serde_json::from_str::<serde_json::Value>(ZONES).unwrap()
    );
    let keys: Vec<&String> = v["zones"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["german-setup", "us-entry"]);
    // A map without zones saves without the key.
    let plain = Map::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/hill-112.json"));
    assert!(!plain.unwrap().to_json().contains("\"zones\""));
}

#[test]
fn names_resolve_to_their_zones_alone_or_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let map = Map::load(&with_zones(dir.path(), ZONES)).unwrap();
    let literal = |t: &str| parse_zone(&map, t).unwrap();
    assert_eq!(resolve(&map, "german-setup").unwrap(), literal("A1:F10,G3"));
    assert_eq!(
        resolve(&map, " us-entry , german-setup,H5").unwrap(),
        literal("Q1:T12,A1:F10,G3,H5")
    );
    assert_eq!(resolve(&map, "B2:C3").unwrap(), literal("B2:C3"));
    let e = resolve(&map, "german-setp").unwrap_err().to_string();
    assert!(
        e.contains("german-setp") && e.contains("german-setup, us-entry"),
        "{e}"
    );
}

#[test]
fn bad_zones_are_refused_on_load_naming_the_place() {
    let dir = tempfile::tempdir().unwrap();
    for (zones, says) in [
        (r#"{"x": "A1:Z99"}"#, "zones.x"),
        (r#"{"x": 3}"#, "zones.x"),
        (r#"{"A1": "B2"}"#, "hex label"),
        (r#"{"my zone": "B2"}"#, "without spaces"),
        (r#"{"": "B2"}"#, "zones."),
        (r#"{"x": ""}"#, "names no hex"),
    ] {
        let p = with_zones(dir.path(), zones);
        let err = refused(&["validate", p.to_str().unwrap()]);
        assert!(
            err.contains("zoned.json") && err.contains(says),
            "{zones}: {err}"
        );
    }
}

#[test]
fn the_command_line_takes_zone_names_wherever_it_takes_zones() {
    let dir = tempfile::tempdir().unwrap();
    let p = with_zones(dir.path(), ZONES);
    let p = p.to_str().unwrap();
    let same = |named: &[&str], literal: &[&str]| {
        assert_eq!(hexsight_ok(named), hexsight_ok(literal), "{named:?}");
    };
    same(
        &["exposure", p, "--from", "german-setup", "--json"],
        &["exposure", p, "--from", "A1:F10,G3", "--json"],
    );
    same(
        &[
            "matrix",
            p,
            "--from",
            "german-setup",
            "--to",
            "us-entry,H5",
            "--out",
            "-",
        ],
        &[
            "matrix",
            p,
            "--from",
            "A1:F10,G3",
            "--to",
            "Q1:T12,H5",
            "--out",
            "-",
        ],
    );
    let out = dir.path().join("report");
    let out = out.to_str().unwrap();
    hexsight_ok(&[
        "report",
        p,
        "--out",
        out,
        "--key",
        "us-entry",
        "--from",
        "german-setup",
    ]);
    let blind = std::fs::read_to_string(dir.path().join("report/blind.json")).unwrap();
    assert!(blind.contains("\"Q1\""), "a key of the named zone: {blind}");
    let err = refused(&["exposure", p, "--from", "german-setp"]);
    assert!(
        err.contains("--from") && err.contains("german-setup"),
        "{err}"
    );
}

#[test]
fn zones_of_two_sides_add_exposure_and_deployments_to_the_report() {
    use hexsight_analysis::map::zones::side_zones;
    let dir = tempfile::tempdir().unwrap();
    // Hill 112's units are of sides `allied` and `axis`.
    let zones = r#"{"start": "H1:H3", "allied-setup": "A1:F12", "Axis-entry": "O1:T12"}"#;
    let p = with_zones(dir.path(), zones);
    let map = Map::load(&p).unwrap();
    let [(a, za), (b, zb)] = side_zones(&map).unwrap();
    assert_eq!(
        (a, za.name.as_str(), b, zb.name.as_str()),
        ("allied", "allied-setup", "axis", "Axis-entry")
    );
    let unpaired = with_zones(dir.path(), ZONES);
    assert!(side_zones(&Map::load(&unpaired).unwrap()).is_none());
    let p = with_zones(dir.path(), zones);
    let p = p.to_str().unwrap();
    let out = dir.path().join("report");
    hexsight_ok(&["report", p, "--out", out.to_str().unwrap(), "--keys", "1"]);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for stem in [
        "exposure-allied-setup",
        "exposure-Axis-entry",
        "deploy-allied-setup",
        "deploy-Axis-entry",
    ] {
        assert!(out.join(format!("{stem}.png")).exists(), "{stem}");
        assert!(index.contains(&format!("{stem}.png")), "{stem}");
    }
    let plan: serde_json::Value = serde_json::from_str(&hexsight_ok(&[
        "deploy",
        p,
        "--zone",
        "allied-setup",
        "--watch",
        "Axis-entry",
        "--count",
        "3",
        "--json",
    ]))
    .unwrap();
    let line = format!(
        "see {} of the {} hexes of Axis-entry",
        plan["covered"], plan["of"]
    );
    assert!(index.contains(&line), "the suggestion is deploy's: {line}");
}
