//! Field-of-view arcs through the command line: `hexsight units` on the bundled
//! flank example, pair and network, text and JSON, and a bad arc in a ruleset file.

use serde_json::Value;
use std::path::Path;
mod common;
use common::{hexsight, hexsight_ok};

fn flank() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("maps/napoleonic-flank.json")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn units_names_the_arc_of_a_unit_facing_away() {
    let p = flank();
    let text = hexsight_ok(&["units", &p, "1-105e", "95th-lc"]);
    assert!(
        text.contains("arc of 1-105e: front arc (3 hexsides facing N)")
            && text.contains("can see: no\n  - E8 is outside the front arc of `1-105e` (Infantry battalion: 3 hexsides facing N)")
            && text.contains("the terrain line alone: LOS from E5 to E8 is clear")
            && text.contains("can fire: no"),
        "{text}"
    );
    // Seen from the skirmishers behind it (no arc), the battalion is a target.
    let back = hexsight_ok(&["units", &p, "95th-lc", "1-105e"]);
    assert!(
        back.contains("can fire: yes") && !back.contains("arc of"),
        "{back}"
    );

    let json: Value =
        serde_json::from_str(&hexsight_ok(&["units", &p, "1-105e", "95th-lc", "--json"])).unwrap();
    assert_eq!(json["sees"]["ok"], false);
    assert_eq!(json["arc"], "front arc (3 hexsides facing N)");
    assert!(
        json["sees"]["reasons"][0]
            .as_str()
            .unwrap()
            .contains("outside the front arc")
    );

    let table = hexsight_ok(&["units", &p]);
    let row = table
        .lines()
        .find(|l| l.starts_with("71st-foot (I6)") && l.contains("batterie-6 (B7)"))
        .unwrap();
    assert!(
        row.contains("no    no        no     see: B7 is outside the front arc of `71st-foot`"),
        "{table}"
    );
    let row = table
        .lines()
        .find(|l| l.starts_with("batterie-6 (B7)") && l.contains("71st-foot (I6)"))
        .unwrap();
    assert!(row.contains("yes   yes       yes"), "{table}");
}

#[test]
fn a_bad_arc_in_a_ruleset_file_is_one_line_naming_the_file_and_the_kind() {
    let dir = std::env::temp_dir().join(format!("hexsight-arcs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rs: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/rulesets/napoleonic.json"),
        )
        .unwrap(),
    )
    .unwrap();
    rs["unit_kinds"][4]["arc"] = serde_json::json!({"hexsides": 7});
    std::fs::write(dir.join("rules.json"), rs.to_string()).unwrap();
    let mut map: Value = serde_json::from_str(&std::fs::read_to_string(flank()).unwrap()).unwrap();
    map["ruleset"] = "rules.json".into();
    std::fs::write(dir.join("map.json"), map.to_string()).unwrap();
    let out = hexsight(&["units", dir.join("map.json").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("rules.json: unit_kinds artillery: arc.hexsides: `7` is not a width")
            && err.trim_end().lines().count() == 1,
        "{err}"
    );
}

#[test]
fn validate_warns_of_a_unit_with_an_arc_but_no_facing() {
    let dir = std::env::temp_dir().join(format!("hexsight-arcs-v-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut map: Value = serde_json::from_str(&std::fs::read_to_string(flank()).unwrap()).unwrap();
    map["units"][0].as_object_mut().unwrap().remove("facing");
    let p = dir.join("map.json");
    std::fs::write(&p, map.to_string()).unwrap();
    let p = p.to_string_lossy().into_owned();
    let out = hexsight(&["validate", &p]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("unit `1-105e` (E5): its kind `infantry` has a front arc of 3 hexsides but the unit has no `facing`, so it sees all round"),
        "{all}"
    );
    let text = hexsight_ok(&["units", &p, "1-105e", "95th-lc"]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        text.contains("can see: yes")
            && text.contains(
                "front arc (3 hexsides) not applied: `1-105e` has no facing, so it sees all round"
            ),
        "{text}"
    );
}

/// The network picture draws each arc's two boundary rays and a facing stub: four
/// units with arcs add twelve lines to the picture of the same map without facings
/// (there, every pair that has a line has it either way already, so only arcs differ).
#[test]
fn the_network_picture_draws_the_arcs() {
    let dir = std::env::temp_dir().join(format!("hexsight-arcs-n-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lines = |map: &str, svg: &Path| {
        hexsight_ok(&["units", map, "--svg", svg.to_str().unwrap()]);
        std::fs::read_to_string(svg)
            .unwrap()
            .matches("<line ")
            .count()
    };
    let with = lines(&flank(), &dir.join("with.svg"));
    let mut map: Value = serde_json::from_str(&std::fs::read_to_string(flank()).unwrap()).unwrap();
    for u in map["units"].as_array_mut().unwrap() {
        u.as_object_mut().unwrap().remove("facing");
    }
    let p = dir.join("map.json");
    std::fs::write(&p, map.to_string()).unwrap();
    let without = lines(p.to_str().unwrap(), &dir.join("without.svg"));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(with, without + 12, "{with} {without}");
}
