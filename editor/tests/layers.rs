//! Scenario layers in the editor (egui_kittest, no GPU): the layer list, painting
//! into a layer, and the diff overlay checked against the library's `diff`.

mod common;
use common::*;
use egui::accesskit::Role;
use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexsight_analysis::engine::diff::diff;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Selection};
use hexsight_analysis::map::file::same_content;
use hexsight_editor::EditorApp;
use hexsight_editor::app::DiffBase;
use hexsight_editor::canvas::Overlay;
use hexsight_editor::jobs::JobOutput;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn press(h: &mut Harness<'_, EditorApp>, p: Pos2, pressed: bool) {
    h.event(Event::PointerMoved(p));
    h.event(Event::PointerButton {
        pos: p,
        button: PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    });
    h.step();
}

fn click(h: &mut Harness<'_, EditorApp>, label: &str) {
    let p = pos(h, label);
    press(h, p, true);
    press(h, p, false);
    h.run_steps(2);
}

fn terrain(m: &hexsight_analysis::Map, label: &str) -> String {
    let c = m.cell(m.parse_hex(label).unwrap()).unwrap();
    m.ruleset.terrain[c.terrain as usize].id.clone()
}

/// A layer file beside the map: woods in J2 and J3, the blaze in L8 gone.
fn write_layer(dir: &Path) -> PathBuf {
    let p = dir.join("what-if.json");
    std::fs::write(
        &p,
        r#"{"hexsight_layer": 1, "name": "What if",
            "hexes": {"J2": {"terrain": "woods"}, "J3": {"terrain": "woods"}},
            "remove": {"markers": [{"hex": "L8", "kind": "blaze"}]}}"#,
    )
    .unwrap();
    p
}

/// Paints woods in J2 with the terrain brush and a smoke marker in J5.
fn paint_woods_and_smoke(h: &mut Harness<'_, EditorApp>) {
    h.key_press(Key::B);
    h.run_steps(2);
    h.get_by_label("Woods").click();
    h.run_steps(2);
    click(h, "J2");
    h.key_press(Key::M);
    h.run_steps(2);
    click(h, "J5");
}

/// Loading a layer shows the map with it; unticking it in the list shows the map
/// without it; the map and its file stay as they were.
#[test]
fn the_layer_list_toggles_what_the_view_shows() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    let file = std::fs::read(&s.map).unwrap();
    h.state_mut().load_layer(&write_layer(s.dir.path()));
    h.run_steps(2);
    assert_eq!(terrain(h.state().doc.map(), "J2"), "woods");
    assert_eq!(h.state().doc.map().markers.len(), 1, "the blaze is gone");
    assert_eq!(terrain(h.state().doc.file_map(), "J2"), "open");
    h.get_by_role_and_label(Role::CheckBox, "What if").click();
    h.run_steps(2);
    assert!(!h.state().doc.layers()[0].enabled);
    assert_eq!(terrain(h.state().doc.map(), "J2"), "open");
    assert_eq!(h.state().doc.map().markers.len(), 2);
    h.get_by_role_and_label(Role::CheckBox, "What if").click();
    h.run_steps(2);
    assert_eq!(terrain(h.state().doc.map(), "J3"), "woods");
    // Removing it from the list leaves its file; undo brings it back.
    h.get_by_label("Remove").click();
    h.run_steps(2);
    assert!(h.state().doc.layers().is_empty());
    assert_eq!(terrain(h.state().doc.map(), "J2"), "open");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(terrain(h.state().doc.map(), "J2"), "woods");
    assert!(!h.state().doc.map_dirty());
    assert_eq!(
        std::fs::read(&s.map).unwrap(),
        file,
        "the map file is untouched"
    );
}

/// A layer that does not fit the map is refused with one line naming the file
/// and the entry; the list and the map stay as they were.
#[test]
fn a_bad_layer_is_refused_with_one_line_and_loses_nothing() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    h.state_mut().load_layer(&write_layer(s.dir.path()));
    let bad = s.dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"hexsight_layer": 1, "hexes": {"Q99": {"level": 1}}}"#,
    )
    .unwrap();
    h.state_mut().load_layer(&bad);
    h.run_steps(2);
    let problem = h.state().layer_problem.clone().expect("a problem is shown");
    assert!(
        problem.contains("bad.json") && problem.contains("hexes.Q99"),
        "{problem}"
    );
    assert!(!problem.contains('\n'), "{problem}");
    assert!(
        !h.query_all_by_label_contains("hexes.Q99")
            .collect::<Vec<_>>()
            .is_empty(),
        "shown in the window"
    );
    assert_eq!(h.state().doc.layers().len(), 1);
    assert_eq!(terrain(h.state().doc.map(), "J2"), "woods");
}

/// Painting with a layer as the target: the map is unchanged, the layer holds the
/// change, the map shown equals the same painting done on the map itself; undo
/// takes it back out of the layer; Save writes the layer file and leaves the map's.
#[test]
fn painting_into_a_layer_records_it_there_and_not_in_the_map() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    let file = std::fs::read(&s.map).unwrap();
    h.get_by_label("New").click();
    h.run_steps(2);
    assert_eq!(h.state().target, Some(0), "a new layer is the target");
    paint_woods_and_smoke(&mut h);

    let mut direct = harness(&s.dir.path().join("data2"), Some(s.map.clone()));
    paint_woods_and_smoke(&mut direct);
    assert_eq!(terrain(direct.state().doc.file_map(), "J2"), "woods");

    let doc = &h.state().doc;
    assert!(same_content(
        doc.file_map(),
        &hexsight_analysis::Map::load(&s.map).unwrap()
    ));
    assert!(!doc.map_dirty());
    let text = doc.layers()[0].text().to_string();
    assert!(text.contains("\"J2\"") && text.contains("smoke"), "{text}");
    assert!(
        same_content(doc.map(), direct.state().doc.file_map()),
        "the layered map equals painting the map"
    );

    // Undo the marker, then the terrain: the layer is empty again.
    for _ in 0..2 {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
        h.run_steps(2);
    }
    assert_eq!(terrain(h.state().doc.map(), "J2"), "open");
    assert!(!h.state().doc.layers()[0].text().contains("J2"));
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run_steps(2);
    assert_eq!(terrain(h.state().doc.map(), "J2"), "woods");

    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run_steps(2);
    let layer_path = s.dir.path().join("demo-layer1.json");
    let saved = std::fs::read_to_string(&layer_path).unwrap();
    assert_eq!(saved, h.state().doc.layers()[0].text());
    assert!(!h.state().doc.is_dirty());
    assert_eq!(
        std::fs::read(&s.map).unwrap(),
        file,
        "the map file is untouched"
    );
    // The saved layer is what the CLI's --layer reads, and gives the same map.
    let again = hexsight_analysis::Map::load(&s.map)
        .unwrap()
        .with_layers(&[layer_path])
        .unwrap();
    assert_eq!(terrain(&again, "J2"), "woods");
}

/// The diff overlay's numbers are the library's `diff` of the shown map against
/// the map without layers (and against the saved map after painting); an edit
/// while it rests cancels nothing it needs and starts nothing before the map rests.
#[test]
fn the_diff_overlay_equals_the_librarys_diff() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    h.state_mut().load_layer(&write_layer(s.dir.path()));
    {
        let app = h.state_mut();
        app.overlays.diff_debounce = Duration::ZERO;
        app.overlays.diff_against = DiffBase::NoLayers;
        app.overlays.shown = Some(Overlay::Diff);
        app.selected = app.doc.map().parse_hex("I2");
    }
    let check = |h: &mut Harness<'_, EditorApp>, before: &hexsight_analysis::Map| {
        h.run_steps(2);
        h.state_mut().finish_jobs();
        h.run_steps(2);
        let app = h.state();
        let key = app.overlay_job().expect("a diff job");
        let out = app.overlays.jobs.result(key).expect("the diff is computed");
        let JobOutput::Diff(got) = out.as_ref() else {
            panic!("not a diff")
        };
        let after = app.doc.map();
        let from = after.index(app.selected.unwrap()).unwrap();
        let want = diff(
            &Engine::new(before),
            &Engine::new(after),
            &Selection::all(after),
            &[from],
            &Control::default(),
        )
        .unwrap();
        assert_eq!(**got, want);
        assert!(want.gained + want.lost > 0, "the change changes sight");
        assert!(
            !want.views[0].lost.is_empty(),
            "I2 loses hexes behind the woods"
        );
    };
    let plain = h.state().doc.file_map().clone();
    check(&mut h, &plain);

    // Against the saved map, after painting the map itself.
    h.state_mut().overlays.diff_against = DiffBase::Saved;
    paint_woods_and_smoke(&mut h);
    let saved = hexsight_analysis::Map::load(&s.map).unwrap();
    check(&mut h, &saved);

    // A long rest wanted: an edit starts no diff until the map has rested.
    h.state_mut().overlays.diff_debounce = Duration::from_secs(3600);
    h.key_press(Key::B);
    h.run_steps(2);
    click(&mut h, "K2");
    let key = h.state().overlay_job().unwrap();
    assert!(
        h.state().overlays.jobs.running().is_none(),
        "nothing runs for the old map"
    );
    assert!(h.state().overlays.jobs.result(key).is_none());
}
