//! The `napoleonic` ruleset: units that shape sight lines and prone British/KGL infantry
//! (rules.md section 3, seed 002).

mod common;
use common::Rng;
use hexsight_analysis::Map;
use hexsight_analysis::los::line_of_sight;
use hexsight_analysis::query::units::{UnitAnswers, unit_answers};
use hexsight_analysis::rules::Verdict;
use hexsight_analysis::rules::units::FireKind;
use serde_json::{Value, json};
use std::path::Path;

const BUNDLED: &str = include_str!("../maps/napoleonic-ridge.json");

fn load(v: &Value) -> Map {
    Map::from_json(&v.to_string(), Path::new("test.json")).unwrap_or_else(|e| panic!("{e}"))
}

fn load_err(v: &Value) -> String {
    Map::from_json(&v.to_string(), Path::new("bad.json"))
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

fn unit(id: &str, hex: &str, side: &str, kind: &str, state: &str) -> Value {
    json!({"id": id, "hex": hex, "side": side, "kind": kind, "state": state})
}

/// A 12x10 open field with the given hexes, hexsides and units.
fn field(hexes: Value, hexsides: Value, units: Vec<Value>) -> Value {
    json!({"hexsight": 1, "name": "t", "ruleset": "napoleonic", "grid": {"cols": 12, "rows": 10},
           "default": {"terrain": "open", "level": 0}, "hexes": hexes, "hexsides": hexsides, "units": units})
}

fn answers(m: &Map, a: &str, b: &str) -> UnitAnswers {
    unit_answers(m, m.unit(a).unwrap(), m.unit(b).unwrap(), FireKind::Direct)
}

fn los(m: &Map, a: &str, b: &str) -> Verdict {
    let r = line_of_sight(m, m.parse_hex(a).unwrap(), m.parse_hex(b).unwrap());
    common::engine_agrees(m, &r);
    r.verdict
}

#[test]
fn the_bundled_ridge_loads_and_howitzers_fire_over_the_prone_guards() {
    let m = load(&serde_json::from_str(BUNDLED).unwrap());
    assert!(m.units.iter().filter(|u| u.state == "prone").count() >= 3);
    let a = answers(&m, "bull-howitzers", "1-105e");
    assert!(a.sees.ok && a.fires.ok, "{a:?}");
    assert!(a.fires.reasons[0].contains("howitzers fire over"), "{a:?}");
    let b = answers(&m, "sandham-battery", "2-45e");
    assert!(
        b.sees.ok && !b.fires.ok,
        "the prone 69th in G6 is in the line of fire: {b:?}"
    );
}

#[test]
fn standing_units_block_los_through_their_hex_and_prone_units_do_not() {
    let v = field(
        json!({}),
        json!([]),
        vec![
            unit("a", "C2", "allied", "infantry", "standing"),
            unit("mid", "C4", "french", "infantry", "standing"),
            unit("b", "C7", "french", "infantry", "standing"),
        ],
    );
    let m = load(&v);
    let r = line_of_sight(&m, m.parse_hex("C2").unwrap(), m.parse_hex("C7").unwrap());
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(
        r.reason.contains("standing") && r.reason.contains("prone rule, LOS"),
        "{}",
        r.reason
    );
    let mut prone = v.clone();
    prone["units"][1]["state"] = json!("prone");
    assert_eq!(los(&load(&prone), "C2", "C7"), Verdict::Clear);
    // Without any state a unit stands (the first state of the table).
    let mut bare = v.clone();
    bare["units"][1].as_object_mut().unwrap().remove("state");
    assert_eq!(los(&load(&bare), "C2", "C7"), Verdict::Blocked);
}

#[test]
fn only_artillery_and_skirmishers_may_fire_at_prone_units() {
    let v = field(
        json!({}),
        json!([]),
        vec![
            unit("guards", "E5", "allied", "infantry", "prone"),
            unit("line", "E9", "french", "infantry", "standing"),
            unit("tir", "C8", "french", "skirmisher", "standing"),
            unit("gun", "G8", "french", "artillery", "standing"),
            unit("cav", "F9", "french", "cavalry", "standing"),
        ],
    );
    let m = load(&v);
    let line = answers(&m, "line", "guards");
    assert!(
        line.sees.ok && !line.targeted.ok && !line.fires.ok,
        "{line:?}"
    );
    assert!(
        line.targeted.reasons[0].contains("only artillery and skirmishers"),
        "{line:?}"
    );
    for firer in ["tir", "gun"] {
        let a = answers(&m, firer, "guards");
        assert!(a.sees.ok && a.targeted.ok && a.fires.ok, "{firer}: {a:?}");
        let p = a.modifiers.iter().find(|m| m.name == "prone").unwrap();
        assert_eq!(p.value, 2);
    }
    assert!(!answers(&m, "cav", "guards").targeted.ok);
}

#[test]
fn prone_units_behind_a_hedge_or_in_cultivated_ground_are_not_seen() {
    // E5 has a hedge on its S side; the line from E8 enters E5 across it, the line from C6 does not.
    let v = field(
        json!({"H5": {"terrain": "cultivated"}}),
        json!([{"hex": "E5", "side": "S", "terrain": "hedge"}]),
        vec![
            unit("guards", "E5", "allied", "infantry", "prone"),
            unit("kgl", "H5", "allied", "infantry", "prone"),
            unit("gun", "E8", "french", "artillery", "standing"),
            unit("gun2", "B6", "french", "artillery", "standing"),
            unit("gun3", "H8", "french", "artillery", "standing"),
        ],
    );
    let m = load(&v);
    assert_eq!(
        los(&m, "E8", "E5"),
        Verdict::Clear,
        "LOS itself is clear: a hedge is low"
    );
    let hidden = answers(&m, "gun", "guards");
    assert!(
        !hidden.sees.ok && !hidden.targeted.ok && !hidden.fires.ok,
        "{hidden:?}"
    );
    assert!(hidden.sees.reasons[0].contains("hedge"), "{hidden:?}");
    let flank = answers(&m, "gun2", "guards");
    assert!(
        flank.sees.ok && flank.targeted.ok,
        "from the flank the hedge is not crossed: {flank:?}"
    );
    let rye = answers(&m, "gun3", "kgl");
    assert!(
        !rye.sees.ok,
        "prone in a cultivated hex is unseen from anywhere: {rye:?}"
    );
    assert!(rye.sees.reasons[0].contains("cultivated"));
    // Standing, the same battalion is seen over the hedge.
    let mut standing = v.clone();
    standing["units"][0]["state"] = json!("standing");
    assert!(answers(&load(&standing), "gun", "guards").sees.ok);
    // A wall hides as well.
    let mut wall = v.clone();
    wall["hexsides"][0]["terrain"] = json!("wall");
    assert!(!answers(&load(&wall), "gun", "guards").sees.ok);
}

#[test]
fn friends_block_the_line_of_fire_but_not_the_line_of_sight_except_for_howitzers() {
    let v = field(
        json!({}),
        json!([]),
        vec![
            unit("bty", "E2", "allied", "artillery", "standing"),
            unit("how", "E1", "allied", "howitzer", "standing"),
            unit("guards", "E4", "allied", "infantry", "prone"),
            unit("enemy", "E8", "french", "infantry", "standing"),
            unit("enemy-prone", "E6", "french", "infantry", "prone"),
        ],
    );
    let m = load(&v);
    let bty = answers(&m, "bty", "enemy");
    assert!(bty.sees.ok && bty.targeted.ok && !bty.fires.ok, "{bty:?}");
    assert!(
        bty.fires.reasons[0].contains("guards in E4")
            && bty.fires.reasons[0].contains("line of fire"),
        "{bty:?}"
    );
    let how = answers(&m, "how", "enemy");
    assert!(how.fires.ok, "{how:?}");
    // An enemy prone unit in between does not stop the French line firing at the battery.
    let back = answers(&m, "enemy", "bty");
    assert!(back.sees.ok, "{back:?}");
    assert!(
        !back.fires.ok || back.fires.reasons[0].contains("no friendly"),
        "{back:?}"
    );
    // Prone units cannot fire at all.
    let prone = answers(&m, "guards", "enemy");
    assert!(prone.sees.ok && !prone.fires.ok, "{prone:?}");
    assert!(prone.fires.reasons[0].contains("prone units cannot fire"));
}

#[test]
fn higher_ground_and_woods_block() {
    let v = field(
        json!({"C4": {"level": 1}, "F4": {"terrain": "woods"}}),
        json!([]),
        vec![],
    );
    let m = load(&v);
    assert_eq!(los(&m, "C2", "C7"), Verdict::Blocked);
    assert_eq!(los(&m, "F2", "F7"), Verdict::Blocked);
    assert_eq!(los(&m, "D2", "D7"), Verdict::Clear);
}

#[test]
fn prone_rules_are_checked_on_load_with_a_message_for_each() {
    let bad = |hexes: Value, units: Vec<Value>| load_err(&field(hexes, json!([]), units));
    let woods = bad(
        json!({"C3": {"terrain": "woods"}}),
        vec![unit("x", "C3", "allied", "infantry", "prone")],
    );
    assert!(
        woods.contains("unit `x` in C3")
            && woods.contains("not in woods")
            && woods.contains("open, farm, cultivated"),
        "{woods}"
    );
    let cav = bad(
        json!({}),
        vec![unit("x", "C3", "allied", "cavalry", "prone")],
    );
    assert!(cav.contains("only British/KGL infantry"), "{cav}");
    let mixed = bad(
        json!({}),
        vec![
            unit("x", "C3", "allied", "infantry", "prone"),
            unit("y", "C3", "allied", "skirmisher", "standing"),
        ],
    );
    assert!(mixed.contains("mix prone and standing"), "{mixed}");
    let two = bad(
        json!({}),
        vec![
            unit("x", "C3", "allied", "infantry", "prone"),
            unit("y", "C3", "allied", "infantry", "prone"),
        ],
    );
    assert!(two.contains("at most one battalion"), "{two}");
    let guns = bad(
        json!({}),
        vec![
            unit("x", "C3", "allied", "infantry", "prone"),
            unit("y", "C3", "allied", "artillery", "prone"),
        ],
    );
    assert!(guns.contains("infantry and artillery"), "{guns}");
    let mut nassau = unit("x", "C3", "allied", "infantry", "prone");
    nassau["nation"] = json!("nassau");
    let n = bad(json!({}), vec![nassau]);
    assert!(n.contains("british/kgl"), "{n}");
    let mut brit = unit("a", "D3", "allied", "infantry", "prone");
    brit["nation"] = json!("british");
    let mut nassau_lc = unit("b", "D3", "allied", "skirmisher", "prone");
    nassau_lc["nation"] = json!("nassau");
    let mix = bad(json!({}), vec![brit, nassau_lc]);
    assert!(mix.contains("mixing"), "{mix}");
    let k = bad(
        json!({}),
        vec![unit("x", "C3", "allied", "dragoon", "standing")],
    );
    assert!(
        k.contains("unknown kind `dragoon`") && k.contains("unit `x` in C3"),
        "{k}"
    );
    let s = bad(
        json!({}),
        vec![unit("x", "C3", "allied", "infantry", "kneeling")],
    );
    assert!(s.contains("unknown state `kneeling`"), "{s}");
    // Several broken rules are all listed.
    let many = bad(
        json!({"C3": {"terrain": "woods"}}),
        vec![unit("x", "C3", "allied", "cavalry", "prone")],
    );
    assert!(many.contains("2 broken unit rules"), "{many}");
    // A battalion with its light company may lie prone together.
    load(&field(
        json!({}),
        json!([]),
        vec![
            unit("x", "C3", "allied", "infantry", "prone"),
            unit("y", "C3", "allied", "skirmisher", "prone"),
        ],
    ));
}

#[test]
fn property_hex_los_with_units_is_symmetric() {
    let terrain = [
        "open",
        "open",
        "open",
        "cultivated",
        "woods",
        "farm",
        "town",
    ];
    let mut rng = Rng(0x2545f4914f6cdd1d);
    for _ in 0..40 {
        let mut hexes = serde_json::Map::new();
        let mut units = Vec::new();
        for c in 0..10u8 {
            for r in 1..=8 {
                let label = format!("{}{r}", (b'A' + c) as char);
                let t = terrain[rng.next(terrain.len() as u64) as usize];
                hexes.insert(
                    label.clone(),
                    json!({"terrain": t, "level": if rng.next(6) == 0 { 1 } else { 0 }}),
                );
                if rng.next(6) == 0 {
                    let state = if rng.next(2) == 0 {
                        "standing"
                    } else {
                        "prone"
                    };
                    let n = units.len();
                    units.push(unit(&format!("u{n}"), &label, "allied", "infantry", state));
                }
            }
        }
        let mut v = field(Value::Object(hexes), json!([]), units);
        v["grid"] = json!({"cols": 10, "rows": 8});
        // Random data may break the prone rules; those maps are refused, which is the point.
        let Ok(m) = Map::from_json(&v.to_string(), Path::new("p.json")) else {
            continue;
        };
        let hs: Vec<_> = m.hexes().collect();
        for _ in 0..80 {
            let a = hs[rng.next(hs.len() as u64) as usize];
            let b = hs[rng.next(hs.len() as u64) as usize];
            let (x, y) = (line_of_sight(&m, a, b), line_of_sight(&m, b, a));
            assert_eq!(
                x.verdict,
                y.verdict,
                "{} <-> {}: {} / {}",
                m.label(a),
                m.label(b),
                x.reason,
                y.reason
            );
        }
    }
}
