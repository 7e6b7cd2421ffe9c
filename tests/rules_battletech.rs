//! The `battletech` ruleset (Total Warfare line of sight): small hand-made situations
//! with the verdict and the rule the reason must cite. Every case also checks that the
//! engine's whole-map answers agree with the explained query (`common::engine_agrees`).

mod common;
use hexsight_analysis::Map;
use hexsight_analysis::los::line_of_sight;
use hexsight_analysis::rules::Verdict;
use serde_json::{Value, json};
use std::path::Path;

/// An 8x8 clear level-0 board with the given hexes and units.
fn board(hexes: Value, units: Value) -> Map {
    let v = json!({"hexsight": 1, "name": "t", "ruleset": "battletech", "grid": {"cols": 8, "rows": 8},
                   "default": {"terrain": "clear", "level": 0}, "hexes": hexes, "units": units});
    Map::from_json(&v.to_string(), Path::new("t.json")).unwrap_or_else(|e| panic!("{e}"))
}

fn unit(id: &str, hex: &str, kind: &str) -> Value {
    json!({"id": id, "hex": hex, "side": id, "kind": kind})
}

/// The verdict, hindrance and reason from `a` to `b`, after checking the engine and
/// that the rule is reciprocal.
fn los(m: &Map, a: &str, b: &str) -> (Verdict, u32, String) {
    let (ha, hb) = (m.parse_hex(a).unwrap(), m.parse_hex(b).unwrap());
    let r = line_of_sight(m, ha, hb);
    common::engine_agrees(m, &r);
    let back = line_of_sight(m, hb, ha);
    common::engine_agrees(m, &back);
    assert_eq!(
        (back.verdict, back.hindrance),
        (r.verdict, r.hindrance),
        "{b} -> {a} differs from {a} -> {b}"
    );
    (r.verdict, r.hindrance, r.reason)
}

#[test]
fn two_light_woods_hinder_two() {
    let m = board(
        json!({"C2": {"terrain": "light-woods"}, "C3": {"terrain": "light-woods"}}),
        json!([]),
    );
    let (v, h, why) = los(&m, "C1", "C5");
    assert_eq!((v, h), (Verdict::Hindered, 2), "{why}");
    assert!(why.contains("TW, Line of Sight: Woods"), "{why}");
}

#[test]
fn heavy_and_light_woods_make_three_and_block() {
    let m = board(
        json!({"C2": {"terrain": "heavy-woods"}, "C4": {"terrain": "light-woods"}}),
        json!([]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(why.contains("blocking limit of 3"), "{why}");
    // One heavy woods alone only hinders.
    let m = board(json!({"C2": {"terrain": "heavy-woods"}}), json!([]));
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Hindered);
}

#[test]
fn woods_in_the_target_hex_are_not_intervening() {
    let m = board(
        json!({"C1": {"terrain": "heavy-woods"}, "C5": {"terrain": "heavy-woods"}}),
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
}

#[test]
fn a_level_1_hill_between_two_mechs_is_seen_over() {
    let m = board(
        json!({"C3": {"level": 1}}),
        json!([unit("a", "C1", "mech"), unit("b", "C5", "mech")]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Clear, "{why}");
}

#[test]
fn a_level_2_hill_between_two_mechs_blocks() {
    let m = board(json!({"C3": {"level": 2}}), json!([]));
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(
        why.contains("level-2 ground in C3 is higher than both ends (heights 1 and 1)")
            && why.contains("TW, Line of Sight: Intervening Terrain"),
        "{why}"
    );
}

#[test]
fn a_level_1_hill_hides_two_vehicles_that_mechs_would_see_over() {
    let m = board(
        json!({"C3": {"level": 1}}),
        json!([unit("a", "C1", "vehicle"), unit("b", "C5", "vehicle")]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(why.contains("heights 0 and 0"), "{why}");
    // A 'Mech and a vehicle: the 'Mech's height (1) is not exceeded by the hill.
    let m = board(
        json!({"C3": {"level": 1}}),
        json!([unit("a", "C1", "mech"), unit("b", "C5", "vehicle")]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
    // A prone 'Mech is one level tall.
    let m = board(
        json!({"C3": {"level": 1}}),
        json!([unit("a", "C1", "mech"), {"id": "b", "hex": "C5", "side": "b", "kind": "mech", "state": "prone"}]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
    let m = board(
        json!({"C3": {"level": 1}}),
        json!([{"id": "a", "hex": "C1", "side": "a", "kind": "mech", "state": "prone"},
               {"id": "b", "hex": "C5", "side": "b", "kind": "mech", "state": "prone"}]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Blocked);
}

#[test]
fn a_building_taller_than_both_mechs_blocks_and_a_one_level_building_does_not() {
    let m = board(json!({"C3": {"terrain": "building-2"}}), json!([]));
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(
        why.contains("building-2 in C3 rises to level 2") && why.contains("Buildings"),
        "{why}"
    );
    let m = board(json!({"C3": {"terrain": "building-1"}}), json!([]));
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
}

#[test]
fn mechs_on_high_ground_see_over_woods() {
    // Heights 3 and 1: woods on level 0 rise to level 2, not higher than both.
    let m = board(
        json!({"C1": {"level": 2}, "C2": {"terrain": "heavy-woods"}, "C3": {"terrain": "heavy-woods"}}),
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
    // From level 0 the same woods count: 2 + 2 blocks.
    let m = board(
        json!({"C2": {"terrain": "heavy-woods"}, "C3": {"terrain": "heavy-woods"}}),
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Blocked);
}

#[test]
fn mechs_in_depth_1_water_stand_one_level_lower() {
    // The water hexes' level is the surface (0); the 'Mechs stand on the bottom at -1,
    // so their heights are 0 and the level-1 hill is higher than both.
    let m = board(
        json!({"C1": {"terrain": "water-1"}, "C5": {"terrain": "water-1"}, "C3": {"level": 1}}),
        json!([]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(why.contains("heights 0 and 0"), "{why}");
    // Intervening water does nothing.
    let m = board(
        json!({"C2": {"terrain": "water-3"}, "C3": {"terrain": "water-2"}}),
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
}

#[test]
fn a_submerged_mech_neither_sees_nor_is_seen_but_a_hovercraft_is() {
    let m = board(json!({"C5": {"terrain": "water-2"}}), json!([]));
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(
        why.contains("C5 stands in depth-2 water and is submerged"),
        "{why}"
    );
    // Adjacent too: nothing is between, the end itself blocks.
    assert_eq!(los(&m, "C4", "C5").0, Verdict::Blocked);
    let m = board(
        json!({"C5": {"terrain": "water-2"}}),
        json!([unit("h", "C5", "vehicle")]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
}

#[test]
fn a_line_along_a_hexside_takes_the_hex_better_for_the_defender() {
    // C4 -> E4 runs exactly along the hexside D3|D4.
    let m = board(json!({"D3": {"terrain": "building-3"}}), json!([]));
    let (v, _, why) = los(&m, "C4", "E4");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(why.contains("Divided Hexes"), "{why}");
    let m = board(
        json!({"D3": {"terrain": "light-woods"}, "D4": {"terrain": "heavy-woods"}}),
        json!([]),
    );
    let (v, h, why) = los(&m, "C4", "E4");
    assert_eq!((v, h), (Verdict::Hindered, 2), "{why}");
    let m = board(json!({}), json!([]));
    assert_eq!(los(&m, "C4", "E4").0, Verdict::Clear);
}
