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
fn a_submerged_mech_and_a_unit_on_land_never_see_each_other_but_a_hovercraft_is_seen() {
    let m = board(json!({"C5": {"terrain": "water-2"}}), json!([]));
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(
        why.contains("C5 is submerged in depth-2 water and the observer stands on dry land")
            && why.contains("TW, Underwater Combat"),
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

/// A unit with its marker list, for smoke.
fn smoky(hexes: Value, markers: Value, units: Value) -> Map {
    let v = json!({"hexsight": 1, "name": "t", "ruleset": "battletech", "grid": {"cols": 8, "rows": 8},
                   "default": {"terrain": "clear", "level": 0}, "hexes": hexes, "markers": markers,
                   "units": units});
    Map::from_json(&v.to_string(), Path::new("t.json")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_hill_next_to_the_attacker_blocks_whatever_the_targets_height() {
    // C1 (level 0, height 1) at the foot of the level-2 hill C2; the target stands on
    // the level-3 hill C5 (height 4). Higher than both ends it is not, but it is next
    // to C1 and higher than C1's height.
    let m = board(json!({"C2": {"level": 2}, "C5": {"level": 3}}), json!([]));
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(
        why.contains("level-2 ground in C2 is next to the observer and higher than its height 1")
            && why.contains("TW, Line of Sight: Intervening Terrain, adjacent hexes"),
        "{why}"
    );
    // From the hilltop the same hex is next to the target: the same rule, the other end.
    let (_, _, back) = los(&m, "C5", "C1");
    assert!(
        back.contains("next to the target and higher than its height 1"),
        "{back}"
    );
    // The other way: one hex further out, the hill is measured against the higher end.
    let m = board(json!({"C3": {"level": 2}, "C5": {"level": 3}}), json!([]));
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Clear, "{why}");
    // And a hill beside the unit no higher than its height does nothing.
    let m = board(json!({"C2": {"level": 1}, "C5": {"level": 3}}), json!([]));
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
}

#[test]
fn a_hill_next_to_the_target_blocks_a_vehicle_behind_it_from_a_higher_mech() {
    // A vehicle in C5 (height 0) behind the level-1 hill C4; the 'Mech on the level-4
    // hill C1 (height 5) is far above it, but C4 is next to the vehicle and higher.
    let m = board(
        json!({"C1": {"level": 4}, "C4": {"level": 1}}),
        json!([unit("a", "C1", "mech"), unit("b", "C5", "vehicle")]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(
        why.contains("next to the target and higher than its height 0"),
        "{why}"
    );
    // A 'Mech in its place (height 1) is not hidden by the level-1 hill.
    let m = board(
        json!({"C1": {"level": 4}, "C4": {"level": 1}}),
        json!([unit("a", "C1", "mech"), unit("b", "C5", "mech")]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
}

#[test]
fn woods_next_to_an_end_count_whatever_the_other_ends_height() {
    // Heavy woods (top 2) in C2 beside C1 (height 1); the target on the level-3 hill C5.
    let m = board(
        json!({"C2": {"terrain": "heavy-woods"}, "C5": {"level": 3}}),
        json!([]),
    );
    let (v, h, why) = los(&m, "C1", "C5");
    assert_eq!((v, h), (Verdict::Hindered, 2), "{why}");
    assert!(
        why.contains("heavy-woods in C2 rises to level 2, next to the observer")
            && why.contains(
                "TW, Line of Sight: Woods; TW, Line of Sight: Intervening Terrain, adjacent hexes"
            ),
        "{why}"
    );
    // Two hexes out the woods are under the higher end's height 4: no effect.
    let m = board(
        json!({"C3": {"terrain": "heavy-woods"}, "C5": {"level": 3}}),
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
}

#[test]
fn ultra_heavy_woods_stand_three_levels_and_block_alone() {
    // 'Mechs on level-1 hills (height 2): heavy woods (top 2) are not higher, ultra
    // woods (top 3) are, and their +3 reaches the limit.
    let hills = |w: &str| json!({"C1": {"level": 1}, "C5": {"level": 1}, "C3": {"terrain": w}});
    let m = board(hills("ultra-heavy-woods"), json!([]));
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(
        why.contains(
            "ultra-heavy-woods in C3 rises to level 3, higher than both ends (heights 2 and 2): +3"
        ),
        "{why}"
    );
    let m = board(hills("heavy-woods"), json!([]));
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
    // From level-2 hills (height 3) the ultra woods are not higher either.
    let m = board(
        json!({"C1": {"level": 2}, "C5": {"level": 2}, "C3": {"terrain": "ultra-heavy-woods"}}),
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
}

#[test]
fn low_foliage_stands_one_level() {
    // Heavy woods of low foliage (top 1) between two 'Mechs (height 1): not higher.
    let m = board(json!({"C3": {"terrain": "heavy-woods-low"}}), json!([]));
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Clear, "{why}");
    // Between two vehicles (height 0) they are, and count +2.
    let m = board(
        json!({"C3": {"terrain": "heavy-woods-low"}}),
        json!([unit("a", "C1", "vehicle"), unit("b", "C5", "vehicle")]),
    );
    let (v, h, why) = los(&m, "C1", "C5");
    assert_eq!((v, h), (Verdict::Hindered, 2), "{why}");
    assert!(
        why.contains("heavy-woods-low in C3 rises to level 1"),
        "{why}"
    );
}

#[test]
fn smoke_hinders_like_woods_of_its_weight_two_levels_tall() {
    let m = smoky(
        json!({}),
        json!([{"hex": "C3", "kind": "light-smoke"}]),
        json!([]),
    );
    let (v, h, why) = los(&m, "C1", "C5");
    assert_eq!((v, h), (Verdict::Hindered, 1), "{why}");
    assert!(
        why.contains("light-smoke in C3 stands to level 2") && why.contains("TW, Smoke"),
        "{why}"
    );
    let m = smoky(
        json!({}),
        json!([{"hex": "C3", "kind": "heavy-smoke"}]),
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").1, 2);
    // Heavy smoke and light woods add up to 3 and block.
    let m = smoky(
        json!({"C2": {"terrain": "light-woods"}}),
        json!([{"hex": "C3", "kind": "heavy-smoke"}]),
        json!([]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    // 'Mechs on level-1 hills (height 2) see over smoke on level 0.
    let m = smoky(
        json!({"C1": {"level": 1}, "C5": {"level": 1}}),
        json!([{"hex": "C3", "kind": "heavy-smoke"}]),
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
}

#[test]
fn smoke_over_low_foliage_counts_each_at_its_own_height() {
    // Light woods of low foliage (top 1) under heavy smoke (top 2): 'Mechs (height 1)
    // see only the smoke, vehicles (height 0) both, 3 points, blocked. No bounds hold
    // such a hex, so the engine walks these lines: the cross-check covers that too.
    let m = smoky(
        json!({"C3": {"terrain": "light-woods-low"}}),
        json!([{"hex": "C3", "kind": "heavy-smoke"}]),
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Hindered);
    assert_eq!(los(&m, "C1", "C5").1, 2);
    let m = smoky(
        json!({"C3": {"terrain": "light-woods-low"}}),
        json!([{"hex": "C3", "kind": "heavy-smoke"}]),
        json!([unit("a", "C1", "vehicle"), unit("b", "C5", "vehicle")]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Blocked);
}

/// Column C as water from C1 to C5 with the given terrain per hex.
fn lake(c: [&str; 5], units: Value) -> Map {
    let hexes: serde_json::Map<String, Value> = c
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("C{}", i + 1), json!({"terrain": t})))
        .collect();
    board(Value::Object(hexes), units)
}

#[test]
fn two_submerged_mechs_see_each_other_through_water() {
    let m = lake(
        ["water-2", "water-2", "water-3", "water-2", "water-2"],
        json!([]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Clear, "{why}");
    // The other way: an island between them blocks the underwater line.
    let m = lake(
        ["water-2", "water-2", "clear", "water-2", "water-2"],
        json!([]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(
        why.contains("C3 is not water, and an underwater line must run through water all along")
            && why.contains("TW, Underwater Combat"),
        "{why}"
    );
}

#[test]
fn a_partly_submerged_mech_sees_a_submerged_one_with_water_all_along() {
    // C1: a 'Mech in depth 1 (partly submerged); C5: one in depth 2 (fully).
    let m = lake(
        ["water-1", "water-1", "water-2", "water-2", "water-2"],
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
    // A hovercraft floating on deep water counts as in the water too.
    let m = lake(
        ["water-3", "water-2", "water-2", "water-2", "water-2"],
        json!([unit("h", "C1", "vehicle")]),
    );
    assert_eq!(los(&m, "C1", "C5").0, Verdict::Clear);
    // A shoal whose bottom (level -1) is higher than both 'Mechs (heights -2) blocks.
    let m = lake(
        ["water-3", "water-3", "water-1", "water-3", "water-3"],
        json!([]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(
        why.contains("bottom of the depth-1 water in C3 (level -1) is higher than both ends"),
        "{why}"
    );
}

#[test]
fn a_unit_on_land_never_sees_a_submerged_mech() {
    // C1 dry; the water runs from C2 to C5. Even next to it: no line.
    let m = lake(
        ["clear", "water-1", "water-2", "water-2", "water-2"],
        json!([]),
    );
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(why.contains("never see each other"), "{why}");
    assert_eq!(
        los(&m, "C1", "C2").0,
        Verdict::Clear,
        "depth 1 is not submerged"
    );
    let m = lake(
        ["clear", "water-2", "water-2", "water-2", "water-2"],
        json!([]),
    );
    assert_eq!(los(&m, "C1", "C2").0, Verdict::Blocked);
}
