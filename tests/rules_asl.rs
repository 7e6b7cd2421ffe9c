//! The `asl` ruleset: rules.md section 2 (seed 000, B20.9) and the general ASL LOS rules
//! it builds on (A6.1-A6.4, A6.7, B9, B10), on the bundled map and on small maps.

mod common;
use common::Rng;
use hexsight_analysis::Map;
use hexsight_analysis::los::line_of_sight;
use hexsight_analysis::query::units::unit_answers;
use hexsight_analysis::rules::Verdict;
use hexsight_analysis::rules::asl::blind_hexes;
use hexsight_analysis::rules::units::FireKind;
use serde_json::{Value, json};
use std::path::Path;

const BUNDLED: &str = include_str!("../maps/asl-stream-crest.json");

fn load(v: &Value) -> Map {
    Map::from_json(&v.to_string(), Path::new("test.json")).unwrap_or_else(|e| panic!("{e}"))
}

fn bundled() -> Value {
    serde_json::from_str(BUNDLED).unwrap()
}

/// A blank 16x10 asl map with the given hexes, hexsides and units.
fn small(hexes: Value, hexsides: Value, units: Value) -> Value {
    json!({"hexsight": 1, "name": "t", "ruleset": "asl", "grid": {"cols": 16, "rows": 10},
           "default": {"terrain": "open", "level": 0}, "hexes": hexes, "hexsides": hexsides, "units": units})
}

fn los(map: &Map, a: &str, b: &str) -> hexsight_analysis::LosResult {
    let r = line_of_sight(map, map.parse_hex(a).unwrap(), map.parse_hex(b).unwrap());
    common::engine_agrees(map, &r);
    r
}

fn details(map: &Map, a: &str, b: &str) -> Value {
    los(map, a, b).to_json(map)["details"].clone()
}

#[test]
fn the_bundled_map_loads_with_its_crest_units() {
    let map = load(&bundled());
    assert_eq!(map.ruleset.name, "asl");
    assert_eq!(map.units.iter().filter(|u| u.state == "crest").count(), 2);
}

#[test]
fn t3_worked_example_crest_tem_from_r2_s2_t1_u2_but_not_from_s3_t2_u3() {
    // Seed 000: a crest unit in T3 gets +2 TEM against fire from R2, S2, T1, U2, but not from
    // S3, T2, U3, which have LOS INTO T3. The bundled map's T3 counter faces N.
    let map = load(&bundled());
    for firer in ["R2", "S2", "T1", "U2"] {
        let d = details(&map, firer, "T3");
        assert_eq!(d["crest_tem"], 2, "{firer}: {d}");
        assert_eq!(d["into"], false, "{firer}");
        assert_eq!(d["affects"], "crest-only", "{firer}");
        let r = los(&map, firer, "T3");
        assert!(r.verdict.sees(), "{firer}: {}", r.reason);
        let m = r.modifiers.iter().find(|m| m.name == "crest TEM").unwrap();
        assert_eq!(m.value, 2);
        assert!(m.text.contains("B20.9"), "{}", m.text);
    }
    for firer in ["S3", "T2", "U3"] {
        let d = details(&map, firer, "T3");
        assert_eq!(d["crest_tem"], 0, "{firer}: {d}");
        assert_eq!(d["into"], true, "{firer}");
        assert_eq!(d["affects"], "in-and-crest", "{firer}");
        let m = los(&map, firer, "T3")
            .modifiers
            .into_iter()
            .find(|m| m.name == "crest TEM")
            .unwrap();
        assert!(
            m.text.contains("A6.3") && m.text.contains("adjacent"),
            "{}",
            m.text
        );
    }
}

#[test]
fn fire_that_misses_the_protected_hexsides_gets_no_crest_tem() {
    // From the south (T6 is in the gully, so use the open hex U6) fire enters T3 from behind.
    let map = load(&bundled());
    let d = details(&map, "V5", "T3");
    assert_eq!(d["crosses_protected"], false, "{d}");
    assert_eq!(d["crest_tem"], 0);
}

#[test]
fn r3_worked_example_no_tem_from_t4_along_the_depression() {
    // A crest unit in R3 gets no TEM against fire from T4: the firer, IN the gully that
    // joins the stream, has LOS INTO R3 along the depression (the line crosses S4).
    let map = load(&bundled());
    let d = details(&map, "T4", "R3");
    assert_eq!(d["into"], true, "{d}");
    assert_eq!(d["crest_tem"], 0);
    assert_eq!(d["affects"], "in-and-crest");
}

#[test]
fn r3_worked_example_o5_gets_los_into_only_at_level_1() {
    // Seed 000: no TEM for R3 against O5 "if O5 were level 1" (A6.3). At level 0 the shot from
    // O5 crosses R3's protected SW side and gets +2; raise O5 to level 1 and it sees INTO R3.
    let map = load(&bundled());
    let d = details(&map, "O5", "R3");
    assert_eq!(
        (d["into"].clone(), d["crest_tem"].clone()),
        (json!(false), json!(2)),
        "{d}"
    );
    let mut v = bundled();
    v["hexes"]["O5"] = json!({"level": 1});
    let map = load(&v);
    let d = details(&map, "O5", "R3");
    assert_eq!(
        (d["into"].clone(), d["crest_tem"].clone()),
        (json!(true), json!(0)),
        "{d}"
    );
    assert_eq!(d["affects"], "in-and-crest");
}

#[test]
fn no_crest_tem_against_indirect_fire_or_overruns() {
    let mut v = bundled();
    v["units"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "us-mtr", "hex": "S2", "side": "american", "kind": "crew"}));
    let map = load(&v);
    let (a, b) = (map.unit("us-mtr").unwrap(), map.unit("ger-1").unwrap());
    let tem = |fire| {
        unit_answers(&map, a, b, fire)
            .modifiers
            .into_iter()
            .find(|m| m.name == "crest TEM")
            .unwrap()
    };
    assert_eq!(tem(FireKind::Direct).value, 2);
    let ind = tem(FireKind::Indirect);
    assert_eq!(ind.value, 0);
    assert!(
        ind.text.contains("indirect") && ind.text.contains("B20.9"),
        "{}",
        ind.text
    );
    assert_eq!(tem(FireKind::Overrun).value, 0);
}

#[test]
fn a_crest_unit_firing_out_of_its_unprotected_hexsides_makes_area_fire() {
    let map = load(&bundled());
    // T3 faces N: firing at R3 leaves by the SW side (unprotected), at T1 by the N side.
    let out = los(&map, "T3", "R3");
    assert!(
        out.modifiers
            .iter()
            .any(|m| m.name == "area fire" && m.text.contains("B20.9")),
        "{:?}",
        out.modifiers
    );
    let north = los(&map, "T3", "T1");
    assert!(
        !north.modifiers.iter().any(|m| m.name == "area fire"),
        "{:?}",
        north.modifiers
    );
}

#[test]
fn units_in_a_depression_are_seen_only_by_adjacent_higher_or_along_the_depression() {
    let map = load(&bundled());
    // S4 holds only units IN the stream.
    let far = los(&map, "Q5", "S4");
    assert_eq!(far.verdict, Verdict::Blocked);
    assert!(
        far.reason.contains("A6.3") && far.reason.contains("rim"),
        "{}",
        far.reason
    );
    let d = details(&map, "Q5", "S4");
    assert_eq!(
        (
            d["into"].clone(),
            d["rim_visible"].clone(),
            d["affects"].clone()
        ),
        (json!(false), json!(true), json!("none")),
        "LOS reaches the rim only: {d}"
    );
    let adj = details(&map, "R4", "S4");
    assert_eq!(
        (adj["into"].clone(), adj["affects"].clone()),
        (json!(true), json!("in-only")),
        "{adj}"
    );
    let mut wooded = bundled();
    wooded["hexes"]["R4"] = json!({"terrain": "woods"});
    let d2 = details(&load(&wooded), "Q5", "S4");
    assert_eq!(
        d2["rim_visible"], false,
        "woods across the line hide the rim too: {d2}"
    );
    assert!(los(&map, "S5", "S4").verdict.sees(), "adjacent");
    // The level-2 hill at E9 is three levels above the stream floor, but 14 hexes away: its line
    // reaches the stream only at the end, across the rim (A6.3: range must not exceed 3).
    let hill = los(&map, "E9", "S4");
    assert_eq!(hill.verdict, Verdict::Blocked, "{}", hill.reason);
    assert!(hill.reason.contains("A6.3"), "{}", hill.reason);
    // Two hexes away on a level-2 knoll, three levels above the floor, it sees INTO the stream.
    let mut knoll = bundled();
    knoll["hexes"]["S6"] = json!({"level": 2});
    let k = load(&knoll);
    assert!(
        los(&k, "S6", "S4").verdict.sees(),
        "{}",
        los(&k, "S6", "S4").reason
    );
    // IN the gully at T6, LOS runs along the depression to T4 but not out to the open P6.
    assert!(los(&map, "T6", "T4").verdict.sees());
    assert_eq!(los(&map, "T6", "P6").verdict, Verdict::Blocked);
    // The A6.3 rule is reciprocal.
    assert_eq!(los(&map, "S4", "Q5").verdict, Verdict::Blocked);
}

#[test]
fn unit_answers_follow_the_units_positions() {
    let map = load(&bundled());
    let us1 = map.unit("us-1").unwrap(); // T1
    let crest = map.unit("ger-1").unwrap(); // crest in T3
    let inside = map.unit("ger-2").unwrap(); // IN T3
    let a = unit_answers(&map, us1, crest, FireKind::Direct);
    assert!(a.sees.ok && a.fires.ok, "{a:?}");
    assert_eq!(
        a.modifiers
            .iter()
            .find(|m| m.name == "crest TEM")
            .unwrap()
            .value,
        2
    );
    let b = unit_answers(&map, us1, inside, FireKind::Direct);
    assert!(
        !b.sees.ok,
        "T1 is not adjacent to T3 and at its level: only the rim is seen: {b:?}"
    );
    assert!(b.sees.reasons[0].contains("A6.3"));
    let broken = map.unit("ger-4").unwrap();
    let c = unit_answers(&map, broken, map.unit("us-4").unwrap(), FireKind::Direct);
    assert!(!c.fires.ok, "a broken unit cannot fire: {c:?}");
}

#[test]
fn hindrances_add_up_and_block_at_six() {
    let five = small(
        json!({"C5": {"terrain": "grain"}, "D5": {"terrain": "grain"}, "E5": {"terrain": "brush"}, "F5": {"terrain": "orchard"}, "G5": {"terrain": "grain"}}),
        json!([]),
        json!([]),
    );
    // Flat-top columns: B5 -> J5 is not a straight row, so use a column: C2 -> C9.
    let col = small(
        json!({"C3": {"terrain": "grain"}, "C4": {"terrain": "grain"}, "C5": {"terrain": "brush"}, "C6": {"terrain": "orchard"}, "C7": {"terrain": "grain"}}),
        json!([]),
        json!([]),
    );
    let m = load(&col);
    let r = los(&m, "C2", "C9");
    assert_eq!(
        (r.verdict, r.hindrance),
        (Verdict::Hindered, 5),
        "{}",
        r.reason
    );
    let mut six = col.clone();
    six["hexes"]["C8"] = json!({"terrain": "grain"});
    let r = los(&load(&six), "C2", "C9");
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(
        r.reason.contains("limit of 6") && r.reason.contains("A6.7"),
        "{}",
        r.reason
    );
    let _ = load(&five);
}

#[test]
fn along_a_hexside_only_inherent_terrain_acts_alone() {
    // A2 -> B3 runs exactly along the hexside B2|A3 (flat-top, odd columns lower).
    let m = load(&small(json!({}), json!([]), json!([])));
    let line = los(&m, "A2", "B3");
    assert!(
        line.to_json(&m)["trace"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.is_array()),
        "test geometry: the line must run along a hexside"
    );
    let with = |b2: &str, a3: &str| {
        let v = small(
            json!({"B2": {"terrain": b2}, "A3": {"terrain": a3}}),
            json!([]),
            json!([]),
        );
        let m = load(&v);
        los(&m, "A2", "B3")
    };
    assert_eq!(
        with("woods", "open").verdict,
        Verdict::Clear,
        "woods on one side only (A6.1)"
    );
    assert_eq!(
        with("woods", "woods").verdict,
        Verdict::Blocked,
        "woods on both sides"
    );
    let g = with("grain", "open");
    assert_eq!(
        (g.verdict, g.hindrance),
        (Verdict::Hindered, 1),
        "inherent grain counts along its hexside"
    );
    assert!(g.reason.contains("B.6"), "{}", g.reason);
    let b = with("brush", "grain");
    assert_eq!(
        (b.verdict, b.hindrance),
        (Verdict::Hindered, 1),
        "both inherent: the worse side, not the sum"
    );
    assert_eq!(
        with("woods", "grain").hindrance,
        1,
        "woods alone does not act along the hexside, grain does"
    );
}

#[test]
fn obstacles_block_at_the_higher_ends_level_and_cast_blind_hexes_below_it() {
    // A 2-level hill at C2; woods (level 0, one level tall) at C4; targets further down column C.
    let v = small(
        json!({"C2": {"level": 2}, "C4": {"terrain": "woods"}}),
        json!([]),
        json!([]),
    );
    let m = load(&v);
    assert_eq!(
        los(&m, "C3", "C6").verdict,
        Verdict::Blocked,
        "same-level woods block (A6.2)"
    );
    let blind = los(&m, "C2", "C5");
    assert_eq!(
        blind.verdict,
        Verdict::Blocked,
        "the hex right behind the woods is blind"
    );
    assert!(
        blind.reason.contains("blind hex") && blind.reason.contains("A6.4"),
        "{}",
        blind.reason
    );
    assert!(
        los(&m, "C2", "C6").verdict.sees(),
        "two hexes behind is visible again"
    );
    // Seen from level 4 the viewer is 3 levels above the woods: still one blind hex (A6.42 minimum).
    let mut high = v.clone();
    high["hexes"]["C2"] = json!({"level": 4});
    assert_eq!(los(&load(&high), "C2", "C5").verdict, Verdict::Blocked);
}

#[test]
fn the_blind_hex_formula() {
    // 1 + range / 5 (A6.41) + levels of the obstacle above the target beyond one (A6.43)
    // - levels of the viewer above the obstacle beyond one (A6.42); at least 1 behind an
    // obstacle, and one fewer (possibly none) behind a bare hill crest (B10.23).
    assert_eq!(blind_hexes(2, 1000, 2, 0, false), 1);
    assert_eq!(blind_hexes(4, 1000, 2, 0, false), 1);
    assert_eq!(blind_hexes(5, 1000, 2, 0, false), 2);
    assert_eq!(blind_hexes(10, 1000, 2, 0, false), 3);
    assert_eq!(
        blind_hexes(2, 2000, 3, 0, false),
        2,
        "a two-level obstacle over a level-0 target"
    );
    assert_eq!(
        blind_hexes(2, 1000, 3, 0, false),
        1,
        "one level of advantage beyond the first: never below 1"
    );
    assert_eq!(blind_hexes(10, 1000, 4, 0, false), 1);
    assert_eq!(
        blind_hexes(2, 1000, 2, 0, true),
        0,
        "a level-1 crest seen from level 2 close by hides nothing"
    );
    assert_eq!(blind_hexes(5, 1000, 2, 0, true), 1);
    assert_eq!(
        blind_hexes(2, 500, 2, 0, false),
        1,
        "half a level rounds up to one"
    );
}

#[test]
fn blind_hexes_grow_with_range_on_long_lines() {
    // A6.41: a viewer on level 2 at C1 and woods (one level tall) on level 0 at C41, range
    // 40: 1 + 40 / 5 = 9 blind hexes, C42 to C50; C51 is seen again. Lines this long make
    // the range term decide how far from the lower end the engine must look (nine hexes
    // back from C50), which shorter maps never ask.
    let v = json!({"hexsight": 1, "name": "t", "ruleset": "asl", "grid": {"cols": 5, "rows": 60},
                   "default": {"terrain": "open", "level": 0},
                   "hexes": {"C1": {"level": 2}, "C41": {"terrain": "woods"}},
                   "hexsides": [], "units": []});
    let m = load(&v);
    assert_eq!(blind_hexes(40, 1000, 2, 0, false), 9);
    for t in ["C42", "C46", "C50"] {
        let r = los(&m, "C1", t);
        assert_eq!(r.verdict, Verdict::Blocked, "{t}: {}", r.reason);
        assert!(r.reason.contains("A6.4"), "{}", r.reason);
    }
    assert!(los(&m, "C1", "C51").verdict.sees());
    assert!(los(&m, "C1", "C40").verdict.sees());
}

#[test]
fn hills_block_when_higher_than_both_and_at_the_crest_line() {
    let v = small(
        json!({"C4": {"level": 1}, "C5": {"level": 1}, "C7": {"level": 1}}),
        json!([]),
        json!([]),
    );
    let m = load(&v);
    let r = los(&m, "C2", "C9");
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(r.reason.contains("B10.2"), "{}", r.reason);
    // From level 0 the first level-1 hex is seen, the one behind it is not (B10.2).
    assert!(los(&m, "C2", "C4").verdict.sees());
    assert_eq!(los(&m, "C2", "C5").verdict, Verdict::Blocked);
    // Same level across the plateau: clear (B10.21).
    assert!(los(&m, "C4", "C5").verdict.sees());
}

#[test]
fn walls_block_same_level_los_unless_they_border_an_end() {
    let v = small(
        json!({"C1": {"level": 1}}),
        json!([{"hex": "C4", "side": "S", "terrain": "wall"}]),
        json!([]),
    );
    let m = load(&v);
    let r = los(&m, "C3", "C6");
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(r.reason.contains("B9.2"), "{}", r.reason);
    assert!(
        los(&m, "C4", "C6").verdict.sees(),
        "the wall is a hexside of the firer's hex"
    );
    assert!(
        los(&m, "C3", "C5").verdict.sees(),
        "the wall is a hexside of the target's hex"
    );
    assert!(
        los(&m, "C1", "C6").verdict.sees(),
        "a level-1 firer sees over it, and walls cast no blind hexes"
    );
}

#[test]
fn smoke_hinders_and_blaze_blocks() {
    let mut v = small(json!({}), json!([]), json!([]));
    v["markers"] = json!([{"hex": "C4", "kind": "smoke"}, {"hex": "E4", "kind": "blaze"}]);
    let m = load(&v);
    let r = los(&m, "C2", "C6");
    assert_eq!((r.verdict, r.hindrance), (Verdict::Hindered, 3));
    assert_eq!(los(&m, "E2", "E6").verdict, Verdict::Blocked);
}

fn load_err(v: &Value) -> String {
    Map::from_json(&v.to_string(), Path::new("bad.json"))
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_unit_data_is_a_clear_error_naming_unit_and_hex() {
    let gully = json!({"D4": {"terrain": "gully"}, "D5": {"terrain": "stream-ford"}, "E5": {"terrain": "stream-bridge"}});
    let cases = [
        (
            json!({"id": "x", "hex": "C3", "side": "a", "kind": "squad", "state": "crest", "facing": "N"}),
            "only in depression hexes",
        ),
        (
            json!({"id": "x", "hex": "D4", "side": "a", "kind": "vehicle", "state": "crest", "facing": "N"}),
            "only Good Order infantry",
        ),
        (
            json!({"id": "x", "hex": "D4", "side": "a", "kind": "cavalry", "state": "crest", "facing": "N"}),
            "only Good Order infantry",
        ),
        (
            json!({"id": "x", "hex": "D5", "side": "a", "kind": "squad", "state": "crest", "facing": "N"}),
            "bridge or ford",
        ),
        (
            json!({"id": "x", "hex": "E5", "side": "a", "kind": "squad", "state": "crest", "facing": "N"}),
            "bridge or ford",
        ),
        (
            json!({"id": "x", "hex": "D4", "side": "a", "kind": "squad", "state": "crest"}),
            "needs a `facing`",
        ),
        (
            json!({"id": "x", "hex": "C3", "side": "a", "kind": "panzer"}),
            "unknown kind `panzer`",
        ),
        (
            json!({"id": "x", "hex": "C3", "side": "a", "kind": "squad", "state": "pinned"}),
            "unknown state `pinned`",
        ),
    ];
    for (unit, want) in cases {
        let hex = unit["hex"].as_str().unwrap().to_string();
        let e = load_err(&small(gully.clone(), json!([]), json!([unit])));
        assert!(e.contains(want), "{e}");
        assert!(
            e.contains("unit `x`") && e.contains(&hex),
            "names unit and hex: {e}"
        );
    }
    // No Crest Status with a cliff among the protected hexsides.
    let cliff = small(
        gully.clone(),
        json!([{"hex": "D4", "side": "NE", "terrain": "cliff"}]),
        json!([{"id": "x", "hex": "D4", "side": "a", "kind": "squad", "state": "crest", "facing": "N"}]),
    );
    assert!(load_err(&cliff).contains("cliff"), "{}", load_err(&cliff));
    // Facing away from the cliff is fine.
    let ok = small(
        gully,
        json!([{"hex": "D4", "side": "NE", "terrain": "cliff"}]),
        json!([{"id": "x", "hex": "D4", "side": "a", "kind": "squad", "state": "crest", "facing": "SW"}]),
    );
    load(&ok);
}

#[test]
fn property_los_between_hexes_is_symmetric() {
    let terrain = [
        "open",
        "open",
        "open",
        "woods",
        "grain",
        "brush",
        "orchard",
        "building",
        "gully",
        "stream-shallow",
    ];
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for _ in 0..40 {
        let mut hexes = serde_json::Map::new();
        for c in 0..8u8 {
            for r in 1..=7 {
                let t = terrain[rng.next(terrain.len() as u64) as usize];
                let lvl = if rng.next(4) == 0 { rng.next(3) } else { 0 };
                hexes.insert(
                    format!("{}{r}", (b'A' + c) as char),
                    json!({"terrain": t, "level": lvl}),
                );
            }
        }
        let mut sides = Vec::new();
        for _ in 0..6 {
            let h = format!("{}{}", (b'A' + rng.next(8) as u8) as char, 1 + rng.next(7));
            let side = ["N", "NE", "SE", "S", "SW", "NW"][rng.next(6) as usize];
            let t = ["wall", "hedge"][rng.next(2) as usize];
            sides.push(json!({"hex": h, "side": side, "terrain": t}));
        }
        let mut v = small(Value::Object(hexes), json!([]), json!([]));
        v["grid"] = json!({"cols": 8, "rows": 7});
        v["hexsides"] = Value::Array(sides);
        let Ok(m) = Map::from_json(&v.to_string(), Path::new("p.json")) else {
            continue;
        };
        let hexes: Vec<_> = m.hexes().collect();
        for _ in 0..60 {
            let a = hexes[rng.next(hexes.len() as u64) as usize];
            let b = hexes[rng.next(hexes.len() as u64) as usize];
            let (x, y) = (line_of_sight(&m, a, b), line_of_sight(&m, b, a));
            assert_eq!(
                (x.verdict, x.hindrance),
                (y.verdict, y.hindrance),
                "{} <-> {}: {} / {}",
                m.label(a),
                m.label(b),
                x.reason,
                y.reason
            );
        }
    }
}

#[test]
fn crest_status_movement_costs() {
    use hexsight_analysis::rules::asl::{enter_crest_cost, leave_crest_cost};
    // Gully D4 (COT 2), shallow stream E4 (3), deep stream F4 (4) for the deep-stream case.
    let v = small(
        json!({"D4": {"terrain": "gully"}, "D5": {"terrain": "gully"}, "F4": {"terrain": "stream-deep"}, "H4": {"terrain": "stream-shallow"}, "C4": {"terrain": "woods"}, "J4": {"terrain": "stream-ford"}}),
        json!([]),
        json!([]),
    );
    let m = load(&v);
    let h = |l: &str| m.parse_hex(l).unwrap();
    let dir = |a: &str, b: &str| h(a).direction_to(h(b)).unwrap();
    assert_eq!(
        enter_crest_cost(&m, h("D4"), 0, None).unwrap().0,
        2.0,
        "from IN"
    );
    assert_eq!(
        enter_crest_cost(&m, h("D4"), dir("D4", "D3"), Some(h("D3")))
            .unwrap()
            .0,
        1.0,
        "gully COT 2 - 1"
    );
    assert_eq!(
        enter_crest_cost(&m, h("H4"), dir("H4", "H3"), Some(h("H3")))
            .unwrap()
            .0,
        2.0,
        "shallow stream 3 - 1"
    );
    assert_eq!(
        enter_crest_cost(&m, h("F4"), dir("F4", "F3"), Some(h("F3")))
            .unwrap()
            .0,
        3.0,
        "deep stream 4 - 1"
    );
    let along = enter_crest_cost(&m, h("D4"), dir("D4", "D5"), Some(h("D5")))
        .unwrap_err()
        .to_string();
    assert!(along.contains("along the depression"), "{along}");
    let wrong_side = enter_crest_cost(&m, h("D4"), dir("D4", "D3"), Some(h("C4")))
        .unwrap_err()
        .to_string();
    assert!(wrong_side.contains("middle hexside"), "{wrong_side}");
    assert!(
        enter_crest_cost(&m, h("J4"), 0, None).is_err(),
        "no crest at a ford"
    );
    // Leaving: back IN 2 MF; across a protected side into woods 1 + 2; not to a depression hex.
    let f = dir("D4", "D3");
    assert_eq!(leave_crest_cost(&m, h("D4"), f, None).unwrap().0, 2.0);
    assert_eq!(
        leave_crest_cost(&m, h("D4"), f, Some(h("D3"))).unwrap().0,
        2.0,
        "1 + open 1"
    );
    assert_eq!(
        h("D4").neighbor((f + 5) % 6),
        h("C4"),
        "C4 is across the NW protected hexside"
    );
    assert_eq!(
        leave_crest_cost(&m, h("D4"), f, Some(h("C4"))).unwrap().0,
        3.0,
        "1 + woods 2"
    );
    assert!(
        leave_crest_cost(&m, h("D4"), f, Some(h("E5"))).is_err(),
        "not across a protected hexside"
    );
    assert!(
        leave_crest_cost(&m, h("D4"), f, Some(h("D5")))
            .unwrap_err()
            .to_string()
            .contains("crest to crest")
    );
}

#[test]
fn a_lower_hill_crest_casts_blind_hexes_only_at_range() {
    // Viewer on level 2 at C1. A level-1 crest at C4 (range 3) hides nothing behind it; one at
    // C6 (range 5) hides the hex directly behind it (B10.23 with A6.41).
    let near = load(&small(
        json!({"C1": {"level": 2}, "C4": {"level": 1}}),
        json!([]),
        json!([]),
    ));
    assert!(
        los(&near, "C1", "C5").verdict.sees(),
        "{}",
        los(&near, "C1", "C5").reason
    );
    let far = load(&small(
        json!({"C1": {"level": 2}, "C6": {"level": 1}}),
        json!([]),
        json!([]),
    ));
    let r = los(&far, "C1", "C7");
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(
        r.reason.contains("hill crest") && r.reason.contains("B10.23"),
        "{}",
        r.reason
    );
    assert!(los(&far, "C1", "C8").verdict.sees());
}

#[test]
fn los_into_a_depression_counts_range_against_height() {
    // A gully down column D (D2-D9). A6.3: beyond range D (levels above the floor) the line must
    // stay inside the depression.
    let mut hexes = serde_json::Map::new();
    for r in 2..=9 {
        hexes.insert(format!("D{r}"), json!({"terrain": "gully"}));
    }
    let v = small(Value::Object(hexes.clone()), json!([]), json!([]));
    let m = load(&v);
    // From D1 (level 0, at the head of the gully) the line drops into it at once: LOS INTO D6.
    assert!(
        los(&m, "D1", "D6").verdict.sees(),
        "{}",
        los(&m, "D1", "D6").reason
    );
    // From F3 (level 0) to D5 the line crosses open ground two hexes out: only the rim.
    let side = los(&m, "F3", "D5");
    assert_eq!(side.verdict, Verdict::Blocked, "{}", side.reason);
    assert!(
        side.reason.contains("A6.3") && side.reason.contains("rim"),
        "{}",
        side.reason
    );
    // The same hex raised to level 2 (three above the floor) sees INTO D5 at range 2.
    hexes.insert("F3".into(), json!({"level": 2}));
    let high = load(&small(Value::Object(hexes.clone()), json!([]), json!([])));
    assert!(
        los(&high, "F3", "D5").verdict.sees(),
        "{}",
        los(&high, "F3", "D5").reason
    );
    // At level 1 (two above the floor) but five hexes away it does not.
    hexes.insert("I3".into(), json!({"level": 1}));
    let far = load(&small(Value::Object(hexes), json!([]), json!([])));
    assert_eq!(
        los(&far, "I3", "D5").verdict,
        Verdict::Blocked,
        "{}",
        los(&far, "I3", "D5").reason
    );
}
