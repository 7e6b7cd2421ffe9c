//! The `miniatures` ruleset: automatic spotting ranges and the spotting test
//! (rules.md section 4, seed 001 rules 8.E to 8.G).

mod common;
use common::Rng;
use hexsight_analysis::Map;
use hexsight_analysis::los::line_of_sight;
use hexsight_analysis::query::spotting::{SpotCell, spot};
use hexsight_analysis::rules::Ruleset;
use hexsight_analysis::rules::miniatures::Activity;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

const BUNDLED: &str = include_str!("../maps/miniatures-hamlet.json");

fn load(v: &Value) -> Map {
    Map::from_json(&v.to_string(), Path::new("test.json")).unwrap_or_else(|e| panic!("{e}"))
}

/// A 30x3 strip of open ground, `scale` cm per hex, with the given hexes.
fn strip(scale: f64, hexes: Value) -> Value {
    json!({"hexsight": 1, "name": "t", "ruleset": "miniatures", "grid": {"cols": 3, "rows": 30},
           "scale": {"hex": scale, "unit": "cm"}, "default": {"terrain": "open", "level": 0}, "hexes": hexes})
}

/// The spot answer for hex `to` seen from B1 (column B runs straight down the strip).
fn cell(m: &Map, to: &str, activity: Activity) -> SpotCell {
    let cells = spot(m, m.parse_hex("B1").unwrap(), activity).unwrap();
    cells.into_iter().find(|c| c.hex == to).unwrap()
}

#[test]
fn the_82_cm_open_ground_example_needs_4_or_more() {
    // 10 hexes of 8.2 cm: 82 cm -> 8 tens -> halved in the clear -> 4 -> 4+ on 1D10 = 7/10.
    let m = load(&strip(8.2, json!({})));
    let c = cell(&m, "B11", Activity::Still);
    assert!((c.distance - 82.0).abs() < 1e-9);
    assert_eq!((c.factor, c.need, c.p_spot), (4.0, Some(4), 0.7), "{c:?}");
    assert!(c.reason.contains("8.G"), "{}", c.reason);
}

#[test]
fn distances_round_to_the_nearest_ten_with_exact_halves_down() {
    // 37 -> 4, 65 -> 6, 72 -> 7 (light cover keeps the factor as it is).
    for (scale, tens) in [(3.7, 4.0), (6.5, 6.0), (7.2, 7.0), (6.6, 7.0)] {
        let m = load(&strip(scale, json!({"B11": {"terrain": "brush"}})));
        let c = cell(&m, "B11", Activity::Still);
        assert_eq!(c.factor, tens, "{} cm", scale * 10.0);
    }
}

#[test]
fn the_factor_is_halved_in_the_clear_and_doubled_in_dense_cover() {
    // 60 cm: clear 3 (needs 3+, 0.8), light 6 (0.5), dense 12 (impossible).
    let m = load(&strip(6.0, json!({"B11": {"terrain": "brush"}})));
    let m2 = load(&strip(6.0, json!({"B11": {"terrain": "open"}})));
    assert_eq!(cell(&m2, "B11", Activity::Still).p_spot, 0.8);
    assert_eq!(cell(&m, "B11", Activity::Still).p_spot, 0.5);
    let dense = load(&strip(6.0, json!({"B11": {"terrain": "woods"}})));
    let d = cell(&dense, "B11", Activity::Still);
    assert_eq!((d.factor, d.p_spot, d.need), (12.0, 0.0, None), "{d:?}");
    // A factor of 3.5 needs 4+: 70 cm in the clear.
    let m3 = load(&strip(7.0, json!({})));
    let c = cell(&m3, "B11", Activity::Still);
    assert_eq!((c.factor, c.need, c.p_spot), (3.5, Some(4), 0.7));
}

#[test]
fn automatic_spotting_ranges_by_cover_and_activity() {
    // 10 cm hexes: B3 is 20 cm away, B5 40 cm, B6 50 cm.
    let table = [
        // (terrain, activity, hex, auto)
        ("open", Activity::Moving, "B26", true), // unlimited
        ("open", Activity::Still, "B5", true),
        ("open", Activity::Still, "B6", false),
        ("brush", Activity::Moving, "B5", true),
        ("brush", Activity::Moving, "B6", false),
        ("brush", Activity::Still, "B3", true),
        ("brush", Activity::Still, "B4", false),
        ("woods", Activity::Moving, "B3", true),
        ("woods", Activity::Moving, "B4", false),
        ("woods", Activity::Still, "B2", true),
        ("woods", Activity::Still, "B3", false),
    ];
    for (terrain, act, hex, auto) in table {
        let m = load(&strip(10.0, json!({hex: {"terrain": terrain}})));
        let c = cell(&m, hex, act);
        assert!(c.los, "{terrain} {hex}");
        assert_eq!(c.auto, auto, "{terrain} {act:?} {hex}: {}", c.reason);
    }
}

#[test]
fn out_of_los_nothing_is_spotted_except_within_10_cm() {
    // Woods between B1 and the targets: B4 (15 cm, 5 cm hexes) is hidden; B3 (10 cm) is
    // spotted automatically by the proximity rule, which does not need LOS.
    let m = load(&strip(5.0, json!({"B2": {"terrain": "woods"}})));
    let far = cell(&m, "B4", Activity::Moving);
    assert!(!far.los && !far.auto, "{far:?}");
    assert_eq!(far.p_spot, 0.0);
    let near = cell(&m, "B3", Activity::Still);
    assert!(!near.los && near.auto, "{near:?}");
    assert_eq!(near.p_spot, 0.0, "no test is possible out of LOS");
    assert!(near.reason.contains("8.E"));
}

#[test]
fn the_table_is_data_another_games_table_is_a_file_edit() {
    let mut rs: Value =
        serde_json::from_str(include_str!("../maps/rulesets/miniatures.json")).unwrap();
    rs["spotting"]["die"] = json!(6);
    rs["spotting"]["cover"]["clear"]["still"] = json!(100);
    rs["spotting"]["halves"] = json!("up");
    let rs = Arc::new(Ruleset::from_json(&rs.to_string(), Path::new("custom.json")).unwrap());
    let m =
        Map::from_json_with(&strip(6.5, json!({})).to_string(), Path::new("t.json"), rs).unwrap();
    let c = cell(&m, "B11", Activity::Still);
    // 65 cm rounds up to 7 -> 3.5 -> needs 4+ on 1D6 = 3/6; and it is within 100 cm.
    assert_eq!(
        (c.factor, c.need, c.p_spot, c.auto),
        (3.5, Some(4), 0.5, true),
        "{c:?}"
    );
}

#[test]
fn scales_in_other_units_are_converted() {
    let mut v = strip(2.0, json!({}));
    v["scale"] = json!({"hex": 2, "unit": "in"});
    let m = load(&v);
    // 10 hexes of 2 in = 50.8 cm -> 5 -> 2.5 in the clear -> 3+.
    let c = cell(&m, "B11", Activity::Still);
    assert!((c.distance - 50.8).abs() < 1e-9, "{}", c.distance);
    assert_eq!(c.need, Some(3));
}

#[test]
fn spotting_needs_a_scale_and_a_spotting_table() {
    let mut v = strip(5.0, json!({}));
    v.as_object_mut().unwrap().remove("scale");
    let m = load(&v);
    let e = spot(&m, m.parse_hex("B1").unwrap(), Activity::Still)
        .unwrap_err()
        .to_string();
    assert!(e.contains("scale"), "{e}");
    let mut cc = strip(5.0, json!({}));
    cc["ruleset"] = json!("combat-commander");
    let m = load(&cc);
    let e = spot(&m, m.parse_hex("B1").unwrap(), Activity::Still)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no spotting table"), "{e}");
    let mut furlong = strip(5.0, json!({}));
    furlong["scale"]["unit"] = json!("furlong");
    let m = load(&furlong);
    assert!(spot(&m, m.parse_hex("B1").unwrap(), Activity::Still).is_err());
}

#[test]
fn bad_spotting_tables_are_refused() {
    let mut rs: Value =
        serde_json::from_str(include_str!("../maps/rulesets/miniatures.json")).unwrap();
    rs["spotting"]["die"] = json!(0);
    assert!(
        Ruleset::from_json(&rs.to_string(), Path::new("r.json"))
            .unwrap_err()
            .to_string()
            .contains("die")
    );
    let mut rs2: Value =
        serde_json::from_str(include_str!("../maps/rulesets/miniatures.json")).unwrap();
    rs2["spotting"]["cover"]["dense"]["factor"] = json!(-1);
    assert!(Ruleset::from_json(&rs2.to_string(), Path::new("r.json")).is_err());
}

#[test]
fn the_bundled_table_has_woods_brush_and_a_scale() {
    let m = load(&serde_json::from_str(BUNDLED).unwrap());
    assert_eq!(m.scale.as_ref().unwrap().hex, 5.0);
    let cells = spot(&m, m.parse_hex("R4").unwrap(), Activity::Moving).unwrap();
    assert_eq!(cells.len(), m.len());
    assert!(
        cells.iter().any(|c| !c.los),
        "woods and the rise hide something"
    );
    assert!(
        cells
            .iter()
            .any(|c| c.los && c.cover == hexsight_analysis::rules::Cover::Light)
    );
    for c in &cells {
        assert!((0.0..=1.0).contains(&c.p_spot));
        if !c.los {
            assert_eq!(c.p_spot, 0.0);
        }
    }
}

#[test]
fn property_spotting_is_symmetric_for_equal_cover() {
    // LOS over the table is reciprocal, and on open ground so is every spotting answer.
    let mut rng = Rng(0xdeadbeefcafef00d);
    let terrain = ["open", "open", "open", "woods", "building", "brush"];
    for _ in 0..20 {
        let mut hexes = serde_json::Map::new();
        for c in 0..3u8 {
            for r in 1..=30 {
                hexes.insert(
                    format!("{}{r}", (b'A' + c) as char),
                    json!({"terrain": terrain[rng.next(6) as usize], "level": rng.next(2)}),
                );
            }
        }
        let m = load(&strip(5.0, Value::Object(hexes)));
        let hs: Vec<_> = m.hexes().collect();
        for _ in 0..60 {
            let a = hs[rng.next(hs.len() as u64) as usize];
            let b = hs[rng.next(hs.len() as u64) as usize];
            assert_eq!(
                line_of_sight(&m, a, b).verdict,
                line_of_sight(&m, b, a).verdict,
                "{} {}",
                m.label(a),
                m.label(b)
            );
        }
    }
}
