//! The map format's options: pointy-top grids, rows numbered from 0, even stagger,
//! hexsides given from either hex.

use hexsight_analysis::{Map, Verdict, line_of_sight_labels};
use std::path::Path;

fn load(text: &str) -> Map {
    Map::from_json(text, Path::new("t.json")).unwrap()
}

#[test]
fn a_hexside_given_from_either_hex_is_the_same_hexside() {
    let a = load(
        r#"{"hexsight":1,"name":"t","ruleset":"combat-commander","grid":{"cols":3,"rows":8},
        "hexsides":[{"hex":"A3","side":"S","terrain":"hedge"}]}"#,
    );
    let b = load(
        r#"{"hexsight":1,"name":"t","ruleset":"combat-commander","grid":{"cols":3,"rows":8},
        "hexsides":[{"hex":"A4","side":"N","terrain":"hedge"}]}"#,
    );
    assert_eq!(
        a.hexsides.keys().collect::<Vec<_>>(),
        b.hexsides.keys().collect::<Vec<_>>()
    );
    for m in [&a, &b] {
        assert_eq!(
            line_of_sight_labels(m, "A1", "A6").unwrap().verdict,
            Verdict::Blocked
        );
    }
    assert!(
        b.to_json().contains(r#""hex": "A4""#),
        "saved from the hex it was given from"
    );
}

#[test]
fn pointy_top_maps_use_east_and_west_sides_and_rows_of_hexes() {
    let m = load(
        r#"{"hexsight":1,"name":"t","ruleset":"combat-commander","grid":{"cols":8,"rows":3,"orientation":"pointy"},
        "hexes":{"C1":{"terrain":"woods"}},
        "hexsides":[{"hex":"E1","side":"E","terrain":"wall"}]}"#,
    );
    // On a pointy-top grid A1..H1 lie on one straight row.
    assert_eq!(
        line_of_sight_labels(&m, "A1", "E1").unwrap().verdict,
        Verdict::Blocked
    );
    let r = line_of_sight_labels(&m, "D1", "H1").unwrap();
    assert_eq!(r.verdict, Verdict::Blocked);
    assert!(
        r.reason.contains("wall") && r.reason.contains("E1/F1"),
        "{}",
        r.reason
    );
    let err = Map::from_json(
        r#"{"hexsight":1,"name":"t","ruleset":"combat-commander","grid":{"cols":8,"rows":3,"orientation":"pointy"},
        "hexsides":[{"hex":"E1","side":"N","terrain":"wall"}]}"#,
        Path::new("p.json"),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("NW, NE, E, SE, SW, W"), "{err}");
}

#[test]
fn rows_may_be_numbered_from_zero() {
    let m = load(
        r#"{"hexsight":1,"name":"t","ruleset":"geometric","grid":{"cols":3,"rows":3,"first_row":0},
        "hexes":{"B0":{"terrain":"woods"}}}"#,
    );
    let b0 = m.parse_hex("B0").unwrap();
    assert_eq!(m.label(b0), "B0");
    assert!(m.parse_hex("B3").is_none(), "rows run 0 to 2");
    assert!(m.to_json().contains("\"first_row\": 0"));
}

#[test]
fn even_columns_can_be_the_lower_ones() {
    let m = load(
        r#"{"hexsight":1,"name":"t","ruleset":"geometric","grid":{"cols":6,"rows":5,"stagger":"even"}}"#,
    );
    // With even columns lower, B3 -> F3 (odd columns, now the higher ones) runs along hexsides.
    let r = line_of_sight_labels(&m, "B3", "F3").unwrap();
    assert_eq!(r.trace_json(&m).iter().filter(|v| v.is_array()).count(), 2);
    assert!(m.to_json().contains("\"stagger\": \"even\""));
}

#[test]
fn a_map_with_broken_unit_rules_is_refused_but_opens_for_editing() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("prone.json");
    std::fs::write(
        &p,
        r#"{"hexsight":1,"name":"t","ruleset":"napoleonic","grid":{"cols":4,"rows":4},
            "hexes":{"B2":{"terrain":"woods"}},
            "units":[{"id":"52nd","hex":"B2","side":"allied","kind":"infantry","state":"prone"}]}"#,
    )
    .unwrap();
    let err = Map::load(&p).unwrap_err().to_string();
    assert!(
        err.contains("prone.json")
            && err.contains("52nd")
            && err.contains("B2")
            && err.contains("woods"),
        "{err}"
    );
    let (map, problems) = Map::load_for_editing(&p).unwrap();
    assert_eq!(map.units.len(), 1);
    assert_eq!(problems.map(|e| e.to_string()), Some(err));
    // A syntax error still refuses.
    std::fs::write(&p, "{").unwrap();
    assert!(Map::load_for_editing(&p).is_err());
}

/// Hex entries are read key by key: known keys in any order and among unknown
/// ones, `null` for "as the default", a known key given twice or of the wrong type
/// refused with its line, labels compared without regard to case (short and long).
#[test]
fn hex_entries_read_in_any_order_and_refuse_repeats() {
    let map = |hexes: &str| {
        format!(
            r#"{{"hexsight":1,"name":"t","ruleset":"geometric","grid":{{"cols":4,"rows":4}},
"default":{{"terrain":"open","level":1}},
"hexes":{{{hexes}}}}}"#
        )
    };
    let m = load(&map(
        r#""B2":{"note":"a","level":3,"x":[1],"terrain":"woods","slope":true},"C3":{"level":null}"#,
    ));
    let b2 = m.cell(m.parse_hex("B2").unwrap()).unwrap();
    assert_eq!((b2.level, b2.slope), (3, true));
    assert_eq!(m.ruleset.terrain[b2.terrain as usize].id, "woods");
    assert_eq!(m.cell(m.parse_hex("C3").unwrap()).unwrap().level, 1);
    let saved = m.to_json();
    assert!(
        saved.contains("\"note\": \"a\"") && saved.contains("\"x\""),
        "{saved}"
    );
    for (hexes, want) in [
        (r#""B2":{"level":2,"level":3}"#, "duplicate field `level`"),
        (
            r#""B2":{"terrain":"woods","terrain":"woods"}"#,
            "duplicate field `terrain`",
        ),
        (r#""B2":{"slope":1}"#, "invalid type"),
        (r#""B2":{"level":"2"}"#, "not the string \"2\""),
        (r#""B2":{},"b2":{}"#, "duplicate hex entry `b2`"),
        (
            r#""A000000001":{},"a000000001":{}"#,
            "duplicate hex entry `a000000001`",
        ),
        (r#""B2":{},"C3":{},"B2":{}"#, "duplicate hex entry `B2`"),
    ] {
        let e = Map::from_json(&map(hexes), Path::new("t.json"))
            .err()
            .unwrap_or_else(|| panic!("{hexes} loads"))
            .to_string();
        assert!(e.contains(want) && e.contains("line 3"), "{hexes}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}
