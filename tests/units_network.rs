//! `hexsight units MAP` without a pair: every unit against every unit of another
//! side, each answer as `hexsight units MAP A B` gives it.

use hexsight_analysis::Map;
use hexsight_analysis::query::units::unit_answers;
use hexsight_analysis::rules::units::FireKind;
use serde_json::Value;
use std::path::Path;
mod common;
use common::{hexsight, hexsight_ok};

fn path(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("maps")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn the_network_lists_every_pair_of_different_sides_as_the_pair_command_answers() {
    for name in [
        "napoleonic-ridge.json",
        "napoleonic-flank.json",
        "asl-stream-crest.json",
        "hill-112.json",
    ] {
        let p = path(name);
        let map = Map::load(Path::new(&p)).unwrap();
        let list: Vec<Value> =
            serde_json::from_str(&hexsight_ok(&["units", &p, "--json"])).unwrap();
        let want: Vec<(&str, &str)> = map
            .units
            .iter()
            .flat_map(|a| map.units.iter().map(move |b| (a, b)))
            .filter(|(a, b)| a.side != b.side)
            .map(|(a, b)| (a.id.as_str(), b.id.as_str()))
            .collect();
        let got: Vec<(&str, &str)> = list
            .iter()
            .map(|v| {
                (
                    v["from"]["id"].as_str().unwrap(),
                    v["to"]["id"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, want, "{name}");
        assert!(!got.is_empty(), "{name} has units of two sides");
        for (k, v) in list.iter().enumerate() {
            let (a, b) = got[k];
            let ans = unit_answers(
                &map,
                map.unit(a).unwrap(),
                map.unit(b).unwrap(),
                FireKind::Direct,
            );
            assert_eq!(
                v["sees"],
                serde_json::to_value(&ans.sees).unwrap(),
                "{name} {a} {b}"
            );
            assert_eq!(v["can_fire"]["ok"], ans.fires.ok);
            // A few pairs through the pair command itself, which must match exactly.
            if k < 3 || k + 1 == list.len() {
                let one: Value =
                    serde_json::from_str(&hexsight_ok(&["units", &p, a, b, "--json"])).unwrap();
                assert_eq!(v, &one, "{name} {a} -> {b}");
            }
        }
        let table = hexsight_ok(&["units", &p]);
        assert_eq!(table.lines().count(), want.len() + 1, "{name}: {table}");
        assert!(table.starts_with("from"), "{table}");
    }
}

#[test]
fn half_a_pair_is_refused_on_one_line() {
    let out = hexsight(&["units", &path("napoleonic-ridge.json"), "sandham-battery"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("TO_UNIT"), "{err}");
}

#[test]
fn the_network_is_drawn_and_a_pair_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let (png, svg) = (dir.path().join("n.png"), dir.path().join("n.svg"));
    let p = path("napoleonic-ridge.json");
    hexsight_ok(&[
        "units",
        &p,
        "--png",
        png.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("sandham-battery"));
    let out = hexsight(&["units", &p, "sandham-battery", "2-45e", "--png", "x.png"]);
    assert_eq!(out.status.code(), Some(2));
}
