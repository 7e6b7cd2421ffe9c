//! The sight-line profile against the explained query: on every bundled map (every
//! ruleset), for a sample of observers against every target, the profile's verdict,
//! blocker and hindrance are `los`'s, its stretches cover the line in order, and on
//! the geometric maps each stretch's effect follows from its heights.

use hexsight_analysis::hex::Ratio;
use hexsight_analysis::query::profile::{Profile, StretchEffect, profile};
use hexsight_analysis::{Map, Verdict, line_of_sight};
use std::path::Path;
use std::process::Command;

fn bundled() -> Vec<(String, Map)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "json") {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, Map::load(&p).unwrap()));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn covers_the_line(p: &Profile, what: &str) {
    let s = &p.stretches;
    assert_eq!(s[0].start, Ratio::ZERO, "{what}");
    assert_eq!(s.last().unwrap().end, Ratio::ONE, "{what}");
    for w in s.windows(2) {
        assert_eq!(w[0].end, w[1].start, "{what}");
    }
    assert!(s.iter().all(|x| x.start < x.end), "{what}");
}

fn agrees_with_los(map: &Map, p: &Profile, what: &str) {
    let r = line_of_sight(map, p.los.line.from, p.los.line.to);
    assert_eq!(p.verdict(), r.verdict, "{what}");
    let hindrance: u32 = p.stretches.iter().map(|s| s.hindrance).sum();
    assert_eq!(hindrance, r.hindrance, "{what}");
    let first = p
        .stretches
        .iter()
        .position(|s| s.effect == StretchEffect::Block);
    match &r.blocked_by {
        Some(b) => {
            let i = first.unwrap_or_else(|| panic!("{what}: no blocking stretch"));
            let s = &p.stretches[i];
            assert!(s.start <= b.at && b.at <= s.end, "{what}");
            assert_eq!(p.blocking_stretch(), Some(i), "{what}");
            let json = p.to_json(map);
            assert_eq!(
                json["blocked_by"],
                r.to_json(map)["blocked_by"],
                "{what}: blocked_by as los --json"
            );
        }
        None => assert_eq!(first, None, "{what}"),
    }
}

/// The geometric rule read from the profile's heights: a stretch strictly between
/// the ends blocks when its top is above the sight line at its lower end.
fn heights_explain_geometric(map: &Map, p: &Profile, what: &str) {
    let n = p.stretches.len();
    for s in p.stretches.iter().take(n - 1).skip(1) {
        if s.hexes.len() != 1 || map.markers.iter().any(|m| m.hex == s.hexes[0]) {
            continue;
        }
        let t = if p.eye_to >= p.eye_from {
            s.start
        } else {
            s.end
        };
        let margin = s.top - p.sight_at(t.to_f64());
        if margin.abs() < 1e-9 {
            continue;
        }
        let blocks = s.effect == StretchEffect::Block;
        assert_eq!(blocks, margin > 0.0, "{what}: {:?}", s.hexes);
    }
}

#[test]
fn profiles_agree_with_los_on_every_bundled_map() {
    for (name, map) in bundled() {
        let geometric = matches!(map.ruleset.family.name(), "geometric" | "miniatures");
        let n = map.len();
        let mut blocked = 0;
        for i in (0..n).step_by(11) {
            for j in 0..n {
                let (a, b) = (map.hex_of(i), map.hex_of(j));
                let p = profile(&map, a, b);
                let what = format!("{name} {} -> {}", map.label(a), map.label(b));
                covers_the_line(&p, &what);
                agrees_with_los(&map, &p, &what);
                if geometric {
                    heights_explain_geometric(&map, &p, &what);
                }
                blocked += (p.verdict() == Verdict::Blocked) as usize;
            }
        }
        assert!(blocked > 0, "{name}: some line is blocked");
    }
}

#[test]
fn eyes_are_the_rules_heights() {
    for (name, map) in bundled() {
        let (a, b) = (map.hex_of(0), map.hex_of(map.len() - 1));
        let p = profile(&map, a, b);
        let eye = match map.ruleset.family.name() {
            "geometric" | "miniatures" => map.ruleset.param("observer_eye", 0.25),
            // An empty dry hex holds a standing 'Mech, two levels tall (TW).
            "battletech" => 1.0,
            _ => 0.0,
        };
        assert_eq!(p.eye_from, map.level(a) as f64 + eye, "{name}");
        assert_eq!(p.stretches[0].ground, map.level(a), "{name}");
    }
}

fn hexsight(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hexsight"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn map_path(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("maps")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn cli_json_has_the_documented_shape_and_pictures_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("p.png");
    let svg = dir.path().join("p.svg");
    let out = hexsight(&[
        "profile",
        &map_path("hill-112.json"),
        "H7",
        "B9",
        "--json",
        "--png",
        png.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "from",
            "to",
            "verdict",
            "blocked_by",
            "eye_from",
            "eye_to",
            "stretches"
        ]
    );
    assert_eq!(v["verdict"], "blocked");
    assert_eq!(v["blocked_by"], "C9");
    let s = v["stretches"].as_array().unwrap();
    let keys: Vec<&str> = s[0]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        keys,
        ["start", "end", "hexes", "ground", "top", "effect", "reason"]
    );
    let c9 = s
        .iter()
        .find(|x| x["hexes"] == serde_json::json!(["C9"]))
        .unwrap();
    assert_eq!(c9["effect"], "block");
    assert!(c9["reason"].as_str().unwrap().contains("T88.4.1"));
    assert_eq!(s[0]["reason"], serde_json::Value::Null);
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
}

#[test]
fn cli_refuses_a_hex_off_the_map_on_one_line() {
    let out = hexsight(&["profile", &map_path("hill-112.json"), "H7", "Z99"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("hill-112.json") && err.contains("Z99"),
        "{err}"
    );
}

#[test]
fn the_report_draws_the_profiles_between_key_hexes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let run = hexsight(&[
        "report",
        &map_path("hill-112.json"),
        "--out",
        out,
        "--key",
        "H7,B9,K6",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let index = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    // Keys come sorted by map index: B9, H7, K6.
    for stem in ["profile-B9-H7", "profile-B9-K6", "profile-H7-K6"] {
        assert!(dir.path().join(format!("{stem}.png")).exists(), "{stem}");
        assert!(dir.path().join(format!("{stem}.svg")).exists(), "{stem}");
        assert!(index.contains(&format!("{stem}.png")), "{stem} in the page");
    }
}
