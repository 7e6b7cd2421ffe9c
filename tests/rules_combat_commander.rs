//! Every Combat Commander example of `shared/rules.md` section 1 (seed 004: T88, T89,
//! the hedge entry of the terrain chart), each on a small map written for it.
//!
//! Most maps put the action in column A of a flat-top map: A1, A2, ... have their
//! centres on one straight line, so the line between two of them crosses exactly
//! the hexes listed between them.

mod common;

use hexsight_analysis::hex::Crossing;
use hexsight_analysis::rules::combat_commander::movement_cost;
use hexsight_analysis::{LosResult, Map, Verdict, line_of_sight_labels};
use std::path::Path;

/// A 5x10 Combat Commander map with these `hexes`, hexsides and markers.
fn map_with(hexes: &str, hexsides: &str, markers: &str) -> Map {
    let text = format!(
        r#"{{"hexsight":1,"name":"test","ruleset":"combat-commander","grid":{{"cols":5,"rows":10}},
            "hexes":{{{hexes}}},"hexsides":[{hexsides}],"markers":[{markers}]}}"#
    );
    Map::from_json(&text, Path::new("test.json")).unwrap()
}

fn map(hexes: &str) -> Map {
    map_with(hexes, "", "")
}

fn los(m: &Map, a: &str, b: &str) -> LosResult {
    let r = line_of_sight_labels(m, a, b).unwrap();
    common::engine_agrees(m, &r);
    // LOS in Combat Commander is reciprocal: every example is checked both ways.
    let back = line_of_sight_labels(m, b, a).unwrap();
    assert_eq!(
        (r.verdict, r.hindrance),
        (back.verdict, back.hindrance),
        "{a}<->{b} not symmetric"
    );
    r
}

fn verdict(m: &Map, a: &str, b: &str) -> Verdict {
    los(m, a, b).verdict
}

#[test]
fn a_hedge_blocks_unless_it_is_a_side_of_the_observers_or_targets_hex() {
    // Hedge between A3 and A4 (A3's south side).
    let m = map_with("", r#"{"hex":"A3","side":"S","terrain":"hedge"}"#, "");
    let r = los(&m, "A1", "A6");
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(
        r.reason.contains("hedge") && r.reason.contains("A3/A4"),
        "{}",
        r.reason
    );
    assert_eq!(
        verdict(&m, "A3", "A6"),
        Verdict::Clear,
        "observer's own hexside"
    );
    assert_eq!(
        verdict(&m, "A1", "A4"),
        Verdict::Clear,
        "target's own hexside"
    );
}

#[test]
fn fire_entering_the_target_hex_across_a_hedge_gets_cover() {
    let m = map_with("", r#"{"hex":"A3","side":"S","terrain":"hedge"}"#, "");
    let r = los(&m, "A1", "A4");
    assert!(
        r.modifiers
            .iter()
            .any(|x| x.name == "hexside cover" && x.value == 1),
        "{:?}",
        r.modifiers
    );
    let r = los(&m, "A6", "A4");
    assert!(
        !r.modifiers.iter().any(|x| x.name == "hexside cover"),
        "fire from the other side does not cross it"
    );
}

#[test]
fn crossing_a_hedge_costs_one_more_movement_point() {
    let m = map_with("", r#"{"hex":"A3","side":"S","terrain":"hedge"}"#, "");
    let a3 = m.parse_hex("A3").unwrap();
    let a4 = m.parse_hex("A4").unwrap();
    assert_eq!(movement_cost(&m, a3, a4).unwrap().0, 2.0);
}

#[test]
fn moving_uphill_costs_one_more_and_downhill_does_not() {
    // T88.1: woods level 1 -> woods level 2 costs 3 (2 for woods, 1 uphill); back down 2.
    let m = map(
        r#""A2":{"terrain":"woods","level":1,"slope":true},"A3":{"terrain":"woods","level":2,"slope":true}"#,
    );
    let (a2, a3) = (m.parse_hex("A2").unwrap(), m.parse_hex("A3").unwrap());
    assert_eq!(movement_cost(&m, a2, a3).unwrap().0, 3.0);
    assert_eq!(movement_cost(&m, a3, a2).unwrap().0, 2.0);
    assert!(
        movement_cost(&m, a2, m.parse_hex("A5").unwrap()).is_err(),
        "not adjacent"
    );
}

#[test]
fn height_advantage_gives_minus_one_uphill_and_plus_one_downhill() {
    // T88.2.
    let m = map(r#""A2":{"level":1,"slope":true}"#);
    let fp = |a, b| {
        los(&m, a, b)
            .modifiers
            .iter()
            .find(|x| x.name == "height advantage")
            .map(|x| x.value)
    };
    assert_eq!(fp("A1", "A2"), Some(-1));
    assert_eq!(fp("A2", "A1"), Some(1));
    assert_eq!(fp("A1", "A3"), None);
}

/// A level-1 hill from A3 to A6: slope hexes A3 and A6 at its edges, plateau A4, A5.
fn hill() -> Map {
    map(
        r#""A3":{"level":1,"slope":true},"A4":{"level":1},"A5":{"level":1},"A6":{"level":1,"slope":true}"#,
    )
}

#[test]
fn from_below_only_the_first_slope_hex_above_is_visible() {
    // T88.3.2, first sentence.
    let m = hill();
    assert_eq!(verdict(&m, "A1", "A3"), Verdict::Clear);
    for t in ["A4", "A5", "A6"] {
        let r = los(&m, "A1", t);
        assert_eq!(r.verdict, Verdict::Blocked, "A1 -> {t}");
        assert!(r.reason.contains("T88.3.2"), "{}", r.reason);
        assert_eq!(
            r.blocked_by.unwrap().place.hex(),
            m.parse_hex("A3").unwrap()
        );
    }
}

#[test]
fn from_a_hill_a_lower_hex_is_seen_only_without_an_intervening_crest_as_high() {
    // T88.3.2, second sentence: the crest in the observer's own hex is fine.
    let m = hill();
    assert_eq!(
        verdict(&m, "A3", "A1"),
        Verdict::Clear,
        "crest crossed inside the observer's own slope hex"
    );
    assert_eq!(verdict(&m, "A6", "A9"), Verdict::Clear);
    let r = los(&m, "A4", "A1");
    assert_eq!(
        r.verdict,
        Verdict::Blocked,
        "the plateau hex looks over A3's crest"
    );
    assert!(
        r.reason.contains("crest") && r.reason.contains("T88.3.2"),
        "{}",
        r.reason
    );
    assert_eq!(
        verdict(&m, "A3", "A8"),
        Verdict::Blocked,
        "A6's crest is as high as the observer"
    );
}

#[test]
fn beyond_an_intervening_level_2_hill_a_level_2_observer_sees_only_levels_2_to_4() {
    // T88.3.3 example: observer A1 at level 2, intervening hill A3 at level 2, target A5.
    for (level, expected) in [
        (0, Verdict::Blocked),
        (1, Verdict::Blocked),
        (2, Verdict::Clear),
        (3, Verdict::Clear),
        (4, Verdict::Clear),
    ] {
        let m = map(&format!(
            r#""A1":{{"level":2,"slope":true}},"A3":{{"level":2,"slope":true}},"A5":{{"level":{level},"slope":true}}"#
        ));
        assert_eq!(verdict(&m, "A1", "A5"), expected, "target at level {level}");
    }
}

#[test]
fn beyond_an_intervening_level_3_hill_only_the_first_level_4_slope_hex_is_visible() {
    // T88.3.3 example, second half.
    for (level, expected) in [
        (2, Verdict::Blocked),
        (3, Verdict::Blocked),
        (4, Verdict::Clear),
    ] {
        let m = map(&format!(
            r#""A1":{{"level":2,"slope":true}},"A3":{{"level":3,"slope":true}},"A5":{{"level":{level},"slope":true}}"#
        ));
        assert_eq!(verdict(&m, "A1", "A5"), expected, "target at level {level}");
    }
    let m = map(
        r#""A1":{"level":2,"slope":true},"A3":{"level":3,"slope":true},"A5":{"level":4,"slope":true},"A6":{"level":4}"#,
    );
    assert_eq!(
        verdict(&m, "A1", "A6"),
        Verdict::Blocked,
        "A6 is behind the first level-4 slope hex A5"
    );
}

#[test]
fn a_hill_blocks_los_between_two_lower_hexes() {
    let m = map(r#""A3":{"level":1,"slope":true}"#);
    let r = los(&m, "A1", "A5");
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(r.reason.contains("T88.3.3"), "{}", r.reason);
}

#[test]
fn from_a_level_1_hill_a_level_0_building_does_not_hide_another_level_1_hill() {
    // T88.4 example, and its converse with the building on a level-1 hill.
    let m = map(
        r#""A1":{"level":1,"slope":true},"A3":{"terrain":"building"},"A5":{"level":1,"slope":true}"#,
    );
    assert_eq!(verdict(&m, "A1", "A5"), Verdict::Clear);
    let m = map(
        r#""A1":{"level":1,"slope":true},"A3":{"terrain":"building","level":1,"slope":true},"A5":{"level":1,"slope":true}"#,
    );
    let r = los(&m, "A1", "A5");
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(r.reason.contains("T88.4"), "{}", r.reason);
}

#[test]
fn obstacles_between_two_level_0_hexes_block() {
    for t in ["woods", "building"] {
        let m = map(&format!(r#""A3":{{"terrain":"{t}"}}"#));
        assert_eq!(verdict(&m, "A1", "A5"), Verdict::Blocked, "{t}");
        assert_eq!(
            verdict(&m, "A1", "A3"),
            Verdict::Clear,
            "LOS into the {t} hex itself"
        );
    }
}

#[test]
fn a_blaze_marker_always_blocks_whatever_the_heights() {
    let m = map_with(
        r#""A1":{"level":2,"slope":true},"A5":{"level":2,"slope":true}"#,
        "",
        r#"{"hex":"A3","kind":"blaze"}"#,
    );
    let r = los(&m, "A1", "A5");
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(r.reason.contains("blaze"), "{}", r.reason);
    assert_eq!(
        verdict(&m, "A1", "A3"),
        Verdict::Clear,
        "LOS into the burning hex itself"
    );
}

#[test]
fn from_a_hill_only_the_hex_directly_behind_a_lower_building_is_blind() {
    // T88.4.1 example: from level 1, past a level-0 building, except the hex right behind.
    let m = map(
        r#""A1":{"level":1,"slope":true},"A3":{"terrain":"building"},"A6":{"terrain":"woods"}"#,
    );
    assert_eq!(
        verdict(&m, "A1", "A3"),
        Verdict::Clear,
        "LOS into the lower building is normal"
    );
    let r = los(&m, "A1", "A4");
    assert_eq!(
        r.verdict,
        Verdict::Blocked,
        "A4 is directly behind the building"
    );
    assert!(
        r.reason.contains("blind hex") && r.reason.contains("T88.4.1"),
        "{}",
        r.reason
    );
    assert_eq!(
        verdict(&m, "A1", "A5"),
        Verdict::Clear,
        "hexes beyond the blind hex are visible again"
    );
    assert_eq!(
        verdict(&m, "A1", "A6"),
        Verdict::Clear,
        "a new woods hex is itself visible"
    );
    assert_eq!(
        verdict(&m, "A1", "A7"),
        Verdict::Blocked,
        "and casts its own blind hex"
    );
    assert_eq!(verdict(&m, "A1", "A8"), Verdict::Clear);
}

#[test]
fn a_blind_hex_must_be_at_the_obstacles_level_or_lower() {
    // The hex behind a level-0 building is not blind when it is itself higher
    // than the building (here a level-1 slope hex, seen from level 2).
    let m = map(
        r#""A1":{"level":2,"slope":true},"A3":{"terrain":"building"},"A4":{"level":1,"slope":true}"#,
    );
    assert_eq!(verdict(&m, "A1", "A4"), Verdict::Clear);
}

#[test]
fn from_level_1_a_level_1_building_hides_level_2_only_when_it_is_the_first_hex() {
    // T88.4.1, the converse example.
    let first = map(
        r#""A1":{"level":1,"slope":true},"A2":{"terrain":"building","level":1},"A3":{"level":1},"A4":{"level":2,"slope":true}"#,
    );
    assert_eq!(verdict(&first, "A1", "A4"), Verdict::Blocked);
    let second = map(
        r#""A1":{"level":1,"slope":true},"A2":{"level":1},"A3":{"terrain":"building","level":1},"A4":{"level":2,"slope":true}"#,
    );
    assert_eq!(verdict(&second, "A1", "A4"), Verdict::Clear);
}

#[test]
fn a_lower_hindrance_does_not_hinder_los_into_or_out_of_a_hill_hex() {
    // T88.5.
    let m = map(
        r#""A1":{"level":1,"slope":true},"A3":{"terrain":"brush"},"A5":{"level":1,"slope":true}"#,
    );
    assert_eq!(verdict(&m, "A1", "A5"), Verdict::Clear);
    let r = los(&m, "A1", "A4");
    assert_eq!(
        (r.verdict, r.hindrance),
        (Verdict::Clear, 0),
        "down to level 0: still a lower hindrance"
    );
    let flat = map(r#""A3":{"terrain":"brush"}"#);
    let r = los(&flat, "A1", "A5");
    assert_eq!(
        (r.verdict, r.hindrance),
        (Verdict::Hindered, 1),
        "both ends at the brush's level"
    );
}

#[test]
fn a_hindrance_on_a_hill_hinders_between_hill_hexes_of_its_level_only() {
    let m = map(
        r#""A1":{"level":1,"slope":true},"A2":{"level":1},"A3":{"terrain":"orchard","level":1},"A4":{"level":1},"A5":{"level":1,"slope":true},"A6":{"level":2,"slope":true}"#,
    );
    let r = los(&m, "A1", "A5");
    assert_eq!((r.verdict, r.hindrance), (Verdict::Hindered, 1));
    assert!(r.reason.contains("T88.5"), "{}", r.reason);
    assert_eq!(
        los(&m, "A2", "A6").hindrance,
        0,
        "into a level-2 hex the level-1 orchard is lower"
    );
}

#[test]
fn a_smoke_marker_always_hinders_whatever_the_heights() {
    let m = map_with(
        r#""A1":{"level":2,"slope":true},"A5":{"level":2,"slope":true}"#,
        "",
        r#"{"hex":"A3","kind":"smoke"}"#,
    );
    let r = los(&m, "A1", "A5");
    assert_eq!((r.verdict, r.hindrance), (Verdict::Hindered, 2));
    assert!(r.reason.contains("smoke"), "{}", r.reason);
}

#[test]
fn marsh_hinders_costs_three_and_forbids_fire_from_it() {
    // T89.
    let m = map(r#""A3":{"terrain":"marsh"},"A5":{"terrain":"marsh"}"#);
    let r = los(&m, "A1", "A4");
    assert_eq!((r.verdict, r.hindrance), (Verdict::Hindered, 1));
    let (a2, a3) = (m.parse_hex("A2").unwrap(), m.parse_hex("A3").unwrap());
    assert_eq!(movement_cost(&m, a2, a3).unwrap().0, 3.0);
    let from_marsh = los(&m, "A5", "A1");
    assert!(
        from_marsh
            .modifiers
            .iter()
            .any(|x| x.name == "no fire" && x.text.contains("T89")),
        "{:?}",
        from_marsh.modifiers
    );
    assert!(
        !los(&m, "A1", "A5")
            .modifiers
            .iter()
            .any(|x| x.name == "no fire")
    );
}

#[test]
fn smoke_or_blaze_may_not_be_placed_in_a_marsh_hex() {
    for kind in ["smoke", "blaze"] {
        let text = format!(
            r#"{{"hexsight":1,"name":"t","ruleset":"combat-commander","grid":{{"cols":5,"rows":5}},
               "hexes":{{"B2":{{"terrain":"marsh"}}}},"markers":[{{"hex":"B2","kind":"{kind}"}}]}}"#
        );
        let err = Map::from_json(&text, Path::new("marsh.json"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("marsh.json")
                && err.contains("B2")
                && err.contains(kind)
                && err.contains("marsh"),
            "{err}"
        );
    }
}

#[test]
fn a_line_along_a_hexside_is_blocked_only_when_both_sides_block() {
    // On a flat-top map with odd columns lower, A3 -> E3 runs exactly along the
    // hexsides B2|B3 and D2|D3.
    let m = map("");
    let r = los(&m, "A3", "E3");
    let sides: Vec<_> = r
        .line
        .steps
        .iter()
        .filter(|s| matches!(s.crossing, Crossing::Side(..)))
        .collect();
    assert_eq!(sides.len(), 2, "{:?}", r.trace_json(&m));
    let one = map(r#""B2":{"terrain":"woods"}"#);
    assert_eq!(verdict(&one, "A3", "E3"), Verdict::Clear);
    let both = map(r#""B2":{"terrain":"woods"},"B3":{"terrain":"building"}"#);
    let r = los(&both, "A3", "E3");
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(r.reason.contains("both sides"), "{}", r.reason);
    let hinder = map(r#""B2":{"terrain":"brush"},"B3":{"terrain":"woods"}"#);
    assert_eq!(
        los(&hinder, "A3", "E3").hindrance,
        1,
        "the lesser side: brush"
    );
    assert_eq!(
        los(&map(r#""B2":{"terrain":"brush"}"#), "A3", "E3").hindrance,
        0
    );
}

#[test]
fn a_hex_touched_only_at_a_vertex_has_no_effect() {
    let m = map("");
    // A1 -> E4 is axial offset (4, 1): it passes a vertex a third of the way.
    let r = los(&m, "A1", "E4");
    let touched: Vec<_> = r
        .line
        .steps
        .iter()
        .filter_map(|s| match s.crossing {
            Crossing::Vertex(v) => Some(v),
            _ => None,
        })
        .flatten()
        .filter(|h| !r.line.hexes().any(|x| x == *h))
        .collect();
    assert!(
        !touched.is_empty(),
        "A1 -> E4 passes a vertex: {:?}",
        r.line.steps
    );
    let labels: Vec<String> = touched
        .iter()
        .map(|h| format!(r#""{}":{{"terrain":"woods"}}"#, m.label(*h)))
        .collect();
    let woods = map(&labels.join(","));
    assert_eq!(
        verdict(&woods, "A1", "E4"),
        Verdict::Clear,
        "woods only at the vertex"
    );
    let crossed = r.line.between().iter().find_map(|s| match s.crossing {
        Crossing::Hex(h) => Some(h),
        _ => None,
    });
    let crossed = m.label(crossed.expect("an intervening hex"));
    let blocked = map(&format!(r#""{crossed}":{{"terrain":"woods"}}"#));
    assert_eq!(verdict(&blocked, "A1", "E4"), Verdict::Blocked);
}
