//! The `geometric` ruleset: 3-D sight lines with exact heights.

use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::Control;
use hexsight_analysis::engine::viewshed::viewshed_of;
use hexsight_analysis::{Map, Ruleset, Verdict, line_of_sight_labels};
use std::path::Path;
use std::sync::Arc;

fn map(hexes: &str) -> Map {
    let text = format!(
        r#"{{"hexsight":1,"name":"g","ruleset":"geometric","grid":{{"cols":5,"rows":10}},"hexes":{{{hexes}}}}}"#
    );
    Map::from_json(&text, Path::new("g.json")).unwrap()
}

/// The explained verdict, after checking that the engine's answer for the pair
/// and in the observer's viewshed is the same (so each example checks both paths).
fn verdict(m: &Map, a: &str, b: &str) -> Verdict {
    let r = line_of_sight_labels(m, a, b).unwrap();
    let (i, j) = (m.index(r.line.from).unwrap(), m.index(r.line.to).unwrap());
    let e = Engine::new(m);
    assert_eq!(e.sight(i, j).verdict, r.verdict, "engine pair {a} -> {b}");
    let v = viewshed_of(&e, i, &Control::default()).unwrap();
    assert_eq!(
        v.targets[j].verdict, r.verdict,
        "engine viewshed {a} -> {b}"
    );
    r.verdict
}

#[test]
fn brush_half_a_level_high_blocks_eyes_a_quarter_level_up() {
    let m = map(r#""A3":{"terrain":"brush"}"#);
    assert_eq!(verdict(&m, "A1", "A5"), Verdict::Blocked);
    assert_eq!(
        verdict(&m, "A1", "A3"),
        Verdict::Clear,
        "the ends never block"
    );
}

#[test]
fn from_higher_ground_the_line_passes_over_lower_woods() {
    // Eyes at 1.25 on both level-1 ends; woods surface at 1.0 on level 0.
    let m = map(r#""A1":{"level":1},"A3":{"terrain":"woods"},"A5":{"level":1}"#);
    assert_eq!(verdict(&m, "A1", "A5"), Verdict::Clear);
    // Down to level 0 (eye 0.25) the line leaves A3 at height 0.75: below the woods.
    let m = map(r#""A1":{"level":1},"A3":{"terrain":"woods"}"#);
    assert_eq!(verdict(&m, "A1", "A4"), Verdict::Blocked);
}

/// A geometric map whose one extra terrain, `post`, has the given height.
fn map_with_post(height: &str, hexes: &str) -> Map {
    let rs = format!(
        r#"{{"hexsight_ruleset":1,"name":"posts","family":"geometric",
            "terrain":[{{"id":"open","los":"clear"}},{{"id":"post","los":"obstacle","height":{height}}}]}}"#
    );
    let rs = Arc::new(Ruleset::from_json(&rs, Path::new("posts.json")).unwrap());
    let text = format!(
        r#"{{"hexsight":1,"name":"g","ruleset":"posts.json","grid":{{"cols":5,"rows":10}},"hexes":{{{hexes}}}}}"#
    );
    Map::from_json_with(&text, Path::new("g.json"), rs).unwrap()
}

#[test]
fn a_surface_exactly_at_the_sight_line_does_not_block() {
    // A1 at level 1 (eye 1.25) to A6 at level 0 (eye 0.25): the line drops 0.2 per
    // hex and leaves A4 (t = 7/10) at exactly 0.55. Strictly above blocks; equal does not.
    let hexes = r#""A1":{"level":1},"A4":{"terrain":"post"}"#;
    assert_eq!(
        verdict(&map_with_post("0.55", hexes), "A1", "A6"),
        Verdict::Clear
    );
    assert_eq!(
        verdict(&map_with_post("0.551", hexes), "A1", "A6"),
        Verdict::Blocked
    );
    assert_eq!(
        verdict(&map_with_post("0.549", hexes), "A1", "A6"),
        Verdict::Clear
    );
}

#[test]
fn a_line_along_a_hexside_is_blocked_only_when_both_sides_rise_above_it() {
    // A3 -> E3 runs along B2|B3 and D2|D3 on this flat-top map.
    assert_eq!(
        verdict(&map(r#""B2":{"terrain":"woods"}"#), "A3", "E3"),
        Verdict::Clear
    );
    assert_eq!(
        verdict(
            &map(r#""B2":{"terrain":"woods"},"B3":{"level":1}"#),
            "A3",
            "E3"
        ),
        Verdict::Blocked
    );
}

#[test]
fn the_geometric_verdict_names_the_blocker_and_the_heights() {
    let m = map(r#""A3":{"terrain":"woods"}"#);
    let r = line_of_sight_labels(&m, "A1", "A5").unwrap();
    assert_eq!(
        r.blocked_by.as_ref().map(|e| m.label(e.place.hex())),
        Some("A3".to_string())
    );
    assert!(
        r.reason.contains("surface") && r.reason.contains("1.00"),
        "{}",
        r.reason
    );
}
