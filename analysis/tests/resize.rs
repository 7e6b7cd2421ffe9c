//! Map properties: resizing keeps content in place and says what is cut; layout,
//! row numbering and ruleset changes keep content at its labels.

use hexsight_analysis::hex::{Layout, Orientation, Stagger};
use hexsight_analysis::line_of_sight_labels;
use hexsight_analysis::map::relabel::{relayout, renumber, with_ruleset};
use hexsight_analysis::map::resize::{Margins, resize};
use hexsight_analysis::map::{Map, resolve_ruleset};
use std::path::Path;

fn demo() -> Map {
    let text = include_str!("../../editor/tests/data/demo-hill.json");
    Map::from_json(text, Path::new("demo.json")).unwrap()
}

fn terrain(m: &Map, label: &str) -> String {
    m.terrain(m.parse_hex(label).unwrap()).unwrap().id.clone()
}

#[test]
fn growing_east_and_south_keeps_every_label() {
    let m = demo();
    let g = Margins {
        east: 3,
        south: 2,
        ..Default::default()
    };
    let r = resize(&m, g).unwrap();
    assert_eq!((r.map.cols, r.map.rows), (m.cols + 3, m.rows + 2));
    for h in m.hexes() {
        let l = m.label(h);
        assert_eq!(terrain(&r.map, &l), terrain(&m, &l), "{l}");
    }
    assert_eq!(r.map.units.len(), m.units.len());
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}

#[test]
fn adding_one_column_west_moves_labels_but_not_the_ground() {
    let m = demo();
    let r = resize(
        &m,
        Margins {
            west: 1,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        r.notes.iter().any(|n| n.contains("A1 is now B1")),
        "{:?}",
        r.notes
    );
    assert_ne!(
        r.map.layout.stagger, m.layout.stagger,
        "an odd shift swaps the stagger"
    );
    // Every sight line answers as before, one column along.
    for (a, b) in [("C6", "H2"), ("A1", "O10"), ("D6", "K6")] {
        let next = |l: &str| format!("{}{}", (l.as_bytes()[0] + 1) as char, &l[1..]);
        let before = line_of_sight_labels(&m, a, b).unwrap();
        let after = line_of_sight_labels(&r.map, &next(a), &next(b)).unwrap();
        assert_eq!(
            (before.verdict, before.hindrance),
            (after.verdict, after.hindrance),
            "{a}-{b}"
        );
    }
}

#[test]
fn shrinking_lists_what_is_cut() {
    let m = demo();
    // The last two columns (N, O) hold unit 9/H in N9.
    let r = resize(
        &m,
        Margins {
            east: -2,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.map.cols, m.cols - 2);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("9/H") && n.contains("N9")),
        "{:?}",
        r.notes
    );
    assert_eq!(r.map.units.len(), m.units.len() - 1);
    let e = resize(
        &m,
        Margins {
            north: -10,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("at least one"), "{e}");
}

#[test]
fn orientation_rows_and_ruleset_keep_content_at_its_labels() {
    let m = demo();
    let (p, _) = relayout(
        &m,
        Layout {
            orientation: Orientation::Pointy,
            stagger: Stagger::Even,
        },
    );
    for h in m.hexes() {
        let l = m.label(h);
        assert_eq!(terrain(&p, &l), terrain(&m, &l), "{l}");
    }
    let u = &m.units[0];
    assert_eq!(p.label(p.unit(&u.id).unwrap().hex), m.label(u.hex));

    let mut z = m.clone();
    z.zones.push(hexsight_analysis::map::NamedZone {
        name: "west".into(),
        zone: "A1:C10,D5".into(),
    });
    let r = renumber(&z, 0);
    assert_eq!(r.zone_named("west").unwrap().zone, "A0:C9,D4");
    assert_eq!(terrain(&r, "C2"), terrain(&m, "C3"));

    let asl = resolve_ruleset("asl", Path::new("t.json")).unwrap();
    let e = with_ruleset(&m, "asl", asl).unwrap_err().to_string();
    assert!(e.contains("has no"), "{e}");
    let cc = resolve_ruleset("combat-commander", Path::new("t.json")).unwrap();
    let same = with_ruleset(&m, "combat-commander", cc).unwrap();
    assert_eq!(same.cells(), m.cells());
}
