//! `hexsight combine`: two board files become one map whose seam lines answer as
//! on the boards, and mismatched boards are refused in one line.

use hexsight_analysis::{Map, line_of_sight_labels};
use std::path::Path;
mod common;
use common::hexsight;

fn board(dir: &Path, name: &str, ruleset: &str, hexes: &str) -> String {
    let p = dir.join(name);
    let text = format!(
        r#"{{"hexsight":1,"name":"{name}","ruleset":"{ruleset}","grid":{{"cols":6,"rows":5}},
        "hexes":{{{hexes}}}}}"#
    );
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn combine_east_writes_one_map_with_the_second_board_after_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let a = board(dir.path(), "a.json", "combat-commander", "");
    let b = board(
        dir.path(),
        "b.json",
        "combat-commander",
        r#""B3":{"terrain":"woods"}"#,
    );
    let out = dir.path().join("c.json");
    let o = hexsight(&["combine", &a, &b, "--east", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("12 x 5 hexes (A1 to L5)"), "{text}");
    let c = Map::load(&out).unwrap();
    assert_eq!(c.terrain(c.parse_hex("H3").unwrap()).unwrap().id, "woods");
    // F3 to J3 runs along row 3 through H3, the second board's woods.
    let r = line_of_sight_labels(&c, "F3", "J3").unwrap();
    assert_ne!(r.verdict, hexsight_analysis::Verdict::Clear, "{}", r.reason);
}

#[test]
fn combine_refuses_boards_of_different_rulesets_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let a = board(dir.path(), "a.json", "combat-commander", "");
    let b = board(dir.path(), "b.json", "asl", "");
    let out = dir.path().join("c.json");
    let o = hexsight(&["combine", &a, &b, "--south", "--out", out.to_str().unwrap()]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("different rulesets"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!out.exists());
}
