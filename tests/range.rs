//! `--range` against the unranged answers: within the range every answer is
//! unchanged, beyond it the target is blocked with the range as the reason; for
//! `los`, `viewshed`, `exposure`, `matrix` and `report`, on every bundled map.

mod common;

use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Selection, matrix, sight_matrix};
use hexsight_analysis::map::zones::parse_zone;
use hexsight_analysis::query::range::{Range, exposure};
use hexsight_analysis::{Map, Verdict, line_of_sight};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const R: u32 = 4;

fn bundled() -> Vec<(PathBuf, Map)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps");
    let mut out: Vec<(PathBuf, Map)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let m = Map::load(&p).unwrap();
            (p, m)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn range(map: &Map) -> Range {
    Range::parse(map, &R.to_string()).unwrap()
}

fn hexsight(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_hexsight"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(args: &[&str]) -> Value {
    serde_json::from_slice(&hexsight(args).stdout).unwrap()
}

#[test]
fn los_within_is_unchanged_and_beyond_is_blocked_by_the_range() {
    for (path, map) in bundled() {
        let r = range(&map);
        for i in (0..map.len()).step_by(13) {
            for j in 0..map.len() {
                let (a, b) = (map.hex_of(i), map.hex_of(j));
                let plain = line_of_sight(&map, a, b);
                let ranged = r.los(&map, plain.clone());
                if a.distance(b) <= R {
                    assert_eq!(ranged.verdict, plain.verdict);
                    assert_eq!(ranged.hindrance, plain.hindrance);
                    assert_eq!(ranged.reason, plain.reason);
                    assert_eq!(ranged.blocked_by, plain.blocked_by);
                } else {
                    assert_eq!(ranged.verdict, Verdict::Blocked, "{}", path.display());
                    assert!(ranged.blocked_by.is_none());
                    assert!(
                        ranged
                            .reason
                            .contains(&format!("beyond the range of {R} hexes"))
                    );
                }
            }
        }
    }
}

#[test]
fn los_cli_names_the_range_in_scale_units() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/hill-112.json");
    let p = p.to_str().unwrap();
    // H7 -> A1 is 10 hexes of 50 m.
    let beyond = json(&["los", p, "H7", "A1", "--range", "499m", "--json"]);
    assert_eq!(beyond["verdict"], "blocked");
    assert_eq!(beyond["blocked_by"], Value::Null);
    let reason = beyond["reason"].as_str().unwrap();
    assert!(reason.contains("range of 9 hexes (499m)"), "{reason}");
    let within = json(&["los", p, "H7", "A1", "--range", "500m", "--json"]);
    let plain = json(&["los", p, "H7", "A1", "--json"]);
    assert_eq!(within, plain);
}

#[test]
fn viewshed_within_is_unchanged_and_beyond_is_blocked() {
    for (path, map) in bundled() {
        let p = path.to_str().unwrap();
        let from = map.label(map.hex_of(map.len() / 2));
        let plain = common::viewshed_hexes(&json(&["viewshed", p, "--from", &from, "--json"]));
        let ranged = json(&["viewshed", p, "--from", &from, "--json", "--range", "4"]);
        let ranged_blind = ranged["counts"]["blind"].as_u64().unwrap();
        let plain_blind = plain.values().filter(|e| e["blind"] == true).count() as u64;
        let ranged = common::viewshed_hexes(&ranged);
        let a = map.hex_of(map.len() / 2);
        for (label, entry) in &ranged {
            let b = map.parse_hex(label).unwrap();
            if a.distance(b) <= R {
                assert_eq!(entry, &plain[label], "{p} {label}");
            } else {
                let blocked =
                    serde_json::json!({"verdict": "blocked", "hindrance": 0, "blind": false});
                assert_eq!(entry, &blocked, "{p} {label}");
            }
        }
        assert!(ranged_blind <= plain_blind);
    }
}

/// The exposure counts recounted from the whole, unranged matrix, keeping pairs within range.
fn recount(map: &Map, sel: &Selection) -> (Vec<u32>, Vec<u32>) {
    let engine = Engine::new(map);
    let m = matrix(&engine, &Selection::all(map), &Control::default()).unwrap();
    let near = |i: usize, j: usize| map.hex_of(i).distance(map.hex_of(j)) <= R;
    let n = map.len();
    let mut sees = vec![0; n];
    let mut seen_by = vec![0; n];
    for i in 0..n {
        for &t in &sel.to {
            sees[i] += (m.bits.get(i, t) && near(i, t)) as u32;
        }
        for &o in &sel.from {
            seen_by[i] += (m.bits.get(o, i) && near(o, i)) as u32;
        }
    }
    (sees, seen_by)
}

#[test]
fn exposure_counts_only_pairs_within_range() {
    for (path, map) in bundled() {
        let engine = Engine::new(&map);
        let zone = Selection {
            from: parse_zone(&map, "A1:E6").unwrap(),
            to: parse_zone(&map, "C3:H9").unwrap(),
        };
        for sel in [Selection::all(&map), zone] {
            let e = exposure(&engine, &sel, &range(&map), &Control::default()).unwrap();
            assert_eq!(
                (e.sees, e.seen_by),
                recount(&map, &sel),
                "{}",
                path.display()
            );
        }
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/hill-112.json");
    let map = Map::load(&p).unwrap();
    let cli = json(&["exposure", p.to_str().unwrap(), "--range", "4", "--json"]);
    let (sees, seen_by) = recount(&map, &Selection::all(&map));
    for i in 0..map.len() {
        let h = &cli["hexes"][map.label(map.hex_of(i))];
        assert_eq!(
            (h["sees"].as_u64(), h["seen_by"].as_u64()),
            (Some(sees[i] as u64), Some(seen_by[i] as u64))
        );
    }
}

fn csv(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn matrix_and_report_clear_only_the_pairs_beyond_range() {
    for (path, map) in bundled() {
        let p = path.to_str().unwrap();
        let plain = csv(&String::from_utf8(hexsight(&["matrix", p, "--out", "-"]).stdout).unwrap());
        let ranged = csv(&String::from_utf8(
            hexsight(&["matrix", p, "--out", "-", "--range", "4"]).stdout,
        )
        .unwrap());
        assert_eq!(plain[0], ranged[0]);
        for (pr, rr) in plain.iter().zip(&ranged).skip(1) {
            let a = map.parse_hex(&rr[0]).unwrap();
            for (c, label) in ranged[0].iter().enumerate().skip(1) {
                let near = a.distance(map.parse_hex(label).unwrap()) <= R;
                let want = if near { pr[c].as_str() } else { "0" };
                assert_eq!(rr[c], want, "{p} {} -> {label}", rr[0]);
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_str().unwrap();
        hexsight(&["report", p, "--out", out, "--range", "4", "--keys", "1"]);
        let report = csv(&std::fs::read_to_string(dir.path().join("matrix.csv")).unwrap());
        assert_eq!(report, ranged, "{p}: the report's matrix");
    }
}

#[test]
fn hindrance_bytes_beyond_range_are_blocked() {
    let (_, map) = bundled().remove(0);
    let engine = Engine::new(&map);
    let sel = Selection::all(&map);
    let plain = sight_matrix(&engine, &sel, &Control::default()).unwrap();
    let mut ranged = plain.clone();
    range(&map).mask_bytes(&map, &sel, &mut ranged);
    let n = map.len();
    for i in 0..n {
        for j in 0..n {
            let near = map.hex_of(i).distance(map.hex_of(j)) <= R;
            let want = if near { plain[i * n + j] } else { 255 };
            assert_eq!(ranged[i * n + j], want);
        }
    }
}
