//! Random unit data on the three new rulesets: loading either succeeds or fails with an error
//! naming a unit, and every query on a loaded map answers without panicking.

mod common;
use common::Rng;

use hexsight_analysis::Map;
use hexsight_analysis::los::line_of_sight;
use hexsight_analysis::query::spotting::spot;
use hexsight_analysis::query::units::unit_answers;
use hexsight_analysis::rules::miniatures::Activity;
use hexsight_analysis::rules::units::FireKind;
use serde_json::{Value, json};
use std::path::Path;

/// A ruleset name with pools of terrain ids, unit kinds and unit states (valid and not).
type Pools = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

#[test]
fn random_units_never_panic() {
    let rulesets: [Pools; 4] = [
        (
            "asl",
            &[
                "open",
                "woods",
                "gully",
                "stream-ford",
                "stream-shallow",
                "grain",
                "building",
            ],
            &["squad", "vehicle", "leader", "tank", ""],
            &["good-order", "crest", "broken", "", "prone"],
        ),
        (
            "napoleonic",
            &["open", "cultivated", "woods", "farm", "town"],
            &[
                "infantry",
                "skirmisher",
                "howitzer",
                "artillery",
                "cavalry",
                "zouave",
            ],
            &["standing", "prone", "", "crest"],
        ),
        (
            "miniatures",
            &["open", "brush", "woods", "building"],
            &["section", "team"],
            &["", "hidden"],
        ),
        (
            "battletech",
            &[
                "clear",
                "light-woods",
                "heavy-woods",
                "water-1",
                "water-2",
                "building-3",
            ],
            &["mech", "vehicle", "infantry", "tank", ""],
            &["standing", "prone", "", "shutdown"],
        ),
    ];
    let facings = ["N", "NE", "SE", "S", "SW", "NW"];
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let (mut loaded, mut refused) = (0, 0);
    for round in 0..150 {
        let (rs, terrain, kinds, states) = rulesets[round % rulesets.len()];
        let mut hexes = serde_json::Map::new();
        for c in 0..6u8 {
            for r in 1..=6 {
                hexes.insert(
                    format!("{}{r}", (b'A' + c) as char),
                    json!({"terrain": rng.pick(terrain), "level": rng.next(3)}),
                );
            }
        }
        let mut units = Vec::new();
        for i in 0..rng.next(6) {
            let mut u = json!({"id": format!("u{i}"), "hex": format!("{}{}", (b'A' + rng.next(6) as u8) as char, 1 + rng.next(6)),
                               "side": rng.pick(&["a", "b"]), "kind": rng.pick(kinds), "state": rng.pick(states)});
            if rng.next(2) == 0 {
                u["facing"] = json!(rng.pick(&facings));
            }
            if rng.next(3) == 0 {
                u["nation"] = json!(rng.pick(&["british", "kgl", "nassau"]));
            }
            units.push(u);
        }
        let hexsides = json!([{"hex": "C3", "side": rng.pick(&facings), "terrain": if rs == "asl" { "cliff" } else if rs == "napoleonic" { "hedge" } else { "none" }}]);
        let mut v = json!({"hexsight": 1, "name": "r", "ruleset": rs, "grid": {"cols": 6, "rows": 6}, "scale": {"hex": 7.5, "unit": "cm"},
                           "hexes": Value::Object(hexes), "units": units});
        if rs != "miniatures" && rs != "battletech" {
            v["hexsides"] = hexsides;
        }
        match Map::from_json(&v.to_string(), Path::new("r.json")) {
            Err(e) => {
                refused += 1;
                let e = e.to_string();
                assert!(e.contains("unit `") || e.contains("level"), "{e}");
            }
            Ok(m) => {
                loaded += 1;
                let hs: Vec<_> = m.hexes().collect();
                for &a in &hs {
                    for &b in &hs {
                        let _ = line_of_sight(&m, a, b).to_json(&m);
                    }
                }
                for a in &m.units {
                    for b in &m.units {
                        for f in [FireKind::Direct, FireKind::Indirect, FireKind::Overrun] {
                            let _ = unit_answers(&m, a, b, f);
                        }
                    }
                }
                if rs == "miniatures" {
                    assert_eq!(spot(&m, hs[0], Activity::Moving).unwrap().len(), m.len());
                }
            }
        }
    }
    assert!(
        loaded > 20 && refused > 20,
        "both outcomes exercised: {loaded} loaded, {refused} refused"
    );
}
