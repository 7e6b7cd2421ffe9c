//! Interaction tests on the editor's state with egui_kittest (no GPU): real
//! pointer and key events go through the same frame code as the window.

mod common;
use common::*;
use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexsight_analysis::Map;
use hexsight_analysis::map::file::same_content;
use hexsight_editor::EditorApp;
use hexsight_editor::files::Store;
use std::path::{Path, PathBuf};

fn press(h: &mut Harness<'_, EditorApp>, p: Pos2, button: PointerButton, pressed: bool) {
    h.event(Event::PointerMoved(p));
    h.event(Event::PointerButton {
        pos: p,
        button,
        pressed,
        modifiers: Modifiers::NONE,
    });
    h.step();
}

fn click(h: &mut Harness<'_, EditorApp>, label: &str) {
    let p = pos(h, label);
    press(h, p, PointerButton::Primary, true);
    press(h, p, PointerButton::Primary, false);
    h.run_steps(2);
}

fn terrain(h: &Harness<'_, EditorApp>, label: &str) -> String {
    let m = h.state().doc.map();
    let c = m.cell(m.parse_hex(label).unwrap()).unwrap();
    m.ruleset.terrain[c.terrain as usize].id.clone()
}

fn key(h: &mut Harness<'_, EditorApp>, k: Key) {
    h.key_press(k);
    h.run_steps(2);
}

fn ctrl(h: &mut Harness<'_, EditorApp>, k: Key) {
    h.key_press_modifiers(Modifiers::COMMAND, k);
    h.run_steps(2);
}

/// A map just opened is looked at before it is edited: the first click selects
/// the hex (the overlays' observer) and changes nothing.
#[test]
fn a_first_click_on_an_opened_map_selects_and_paints_nothing() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    let before = h.state().doc.map().to_json();
    click(&mut h, "J2");
    assert_eq!(h.state().selected, Some(hex(&h, "J2")));
    assert!(!h.state().doc.is_dirty());
    assert_eq!(h.state().doc.map().to_json(), before);
}

#[test]
fn painting_a_hex_changes_the_map_and_undo_restores_it() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::B);
    h.get_by_label("Woods").click();
    h.run_steps(2);
    assert_eq!(terrain(&h, "J2"), "open");
    click(&mut h, "J2");
    assert_eq!(terrain(&h, "J2"), "woods");
    assert!(h.state().doc.is_dirty());
    ctrl(&mut h, Key::Z);
    assert_eq!(terrain(&h, "J2"), "open");
    assert!(
        !h.state().doc.is_dirty(),
        "undoing the only edit is back to the file"
    );
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run_steps(2);
    assert_eq!(terrain(&h, "J2"), "woods");
}

#[test]
fn a_brush_stroke_is_one_undo_step() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::B);
    h.get_by_label("Building").click();
    h.run_steps(2);
    let (a, b, c) = (pos(&h, "J1"), pos(&h, "J2"), pos(&h, "J3"));
    press(&mut h, a, PointerButton::Primary, true);
    for p in [b, c] {
        h.event(Event::PointerMoved(p));
        h.step();
    }
    press(&mut h, c, PointerButton::Primary, false);
    h.run_steps(2);
    for l in ["J1", "J2", "J3"] {
        assert_eq!(terrain(&h, l), "building", "{l}");
    }
    ctrl(&mut h, Key::Z);
    for l in ["J1", "J2", "J3"] {
        assert_eq!(terrain(&h, l), "open", "{l}");
    }
}

#[test]
fn the_level_brush_raises_once_per_stroke_and_the_slope_tool_marks_crests() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::L);
    let p = pos(&h, "M5");
    press(&mut h, p, PointerButton::Primary, true);
    h.run_steps(3);
    press(&mut h, p, PointerButton::Primary, false);
    let m5 = hex(&h, "M5");
    assert_eq!(h.state().doc.map().cell(m5).unwrap().level, 1);
    key(&mut h, Key::K);
    click(&mut h, "M5");
    assert!(h.state().doc.map().cell(m5).unwrap().slope);
}

#[test]
fn the_los_tool_shows_the_verdict_for_a_known_pair() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::O);
    click(&mut h, "A4");
    let target = pos(&h, "E4");
    h.event(Event::PointerMoved(target));
    h.run_steps(3);
    // A4 -> E4 passes through the woods in C4.
    h.get_by_label("Verdict: blocked");
    h.get_by_label("Blocked by: C4");
    let los = h.state().los().unwrap();
    assert_eq!(los.verdict, hexsight_analysis::Verdict::Blocked);
    // Moving to a clear target updates the verdict.
    let clear = pos(&h, "E5");
    h.event(Event::PointerMoved(clear));
    h.run_steps(3);
    h.get_by_label("Verdict: clear");
}

#[test]
fn loading_a_broken_file_shows_the_loaders_message() {
    let s = setup();
    let broken = s.dir.path().join("broken.json");
    std::fs::write(&broken, "{\"hexsight\": 1, \"name\": \"x\", \"ruleset\": \"combat-commander\", \"grid\": {\"cols\": 3, \"rows\": 3}, \"hexes\": {\"B2\": {\"terrain\": \"lava\"}}}").unwrap();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    let before = h.state().doc.map().clone();
    let ctx = h.ctx.clone();
    h.state_mut()
        .run(&ctx, hexsight_editor::commands::Command::OpenPath(broken));
    h.run_steps(3);
    h.get_by_label_contains("unknown terrain `lava`");
    assert!(
        same_content(h.state().doc.map(), &before),
        "the open map is kept"
    );
    h.get_by_label("OK").click();
    h.run_steps(2);
    assert!(h.state().error.is_none());
    // Not JSON at all, and a missing file: messages, no panic.
    let garbage = s.dir.path().join("garbage.json");
    std::fs::write(&garbage, "\u{0}\u{1} not json").unwrap();
    h.state_mut().open(&garbage);
    h.run_steps(2);
    assert!(h.state().error.as_deref().unwrap().contains("garbage.json"));
    h.get_by_label("OK").click();
    h.run_steps(2);
    h.state_mut().open(&s.dir.path().join("missing.json"));
    h.run_steps(2);
    assert!(h.state().error.is_some());
}

#[test]
fn save_then_load_round_trips() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    // Saving an unchanged map writes back the same content.
    let copy = s.dir.path().join("copy.json");
    assert!(h.state_mut().save_to(&copy));
    let original = Map::load(&s.map).unwrap();
    let saved = Map::load(&copy).unwrap();
    assert!(same_content(&original, &saved));
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        saved.to_json(),
        "saving is a fixed point"
    );
    // Edit, save with Ctrl+S, load again.
    key(&mut h, Key::M);
    click(&mut h, "J5");
    key(&mut h, Key::U);
    click(&mut h, "K5");
    assert!(h.state().doc.is_dirty());
    ctrl(&mut h, Key::S);
    assert!(!h.state().doc.is_dirty());
    let back = Map::load(&copy).unwrap();
    assert!(same_content(&back, h.state().doc.map()));
    assert_eq!(back.markers_at(hex(&h, "J5")).count(), 1);
    assert_eq!(back.units_at(hex(&h, "K5")).count(), 1);
    assert_eq!(
        h.state()
            .store()
            .recent()
            .first()
            .map(|p| p.file_name().unwrap().to_owned()),
        Some("copy.json".into())
    );
}

#[test]
fn unsaved_changes_are_asked_about_before_a_new_map() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::B);
    click(&mut h, "J2");
    ctrl(&mut h, Key::N);
    h.get_by_label("Unsaved changes");
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert!(h.state().dialog.is_none());
    assert!(h.state().doc.is_dirty(), "cancel keeps the work");
    ctrl(&mut h, Key::N);
    h.get_by_label("Discard").click();
    h.run_steps(2);
    assert!(
        matches!(
            h.state().dialog,
            Some(hexsight_editor::app::Dialog::NewMap(_))
        ),
        "{:?}",
        h.state().dialog
    );
    h.run_steps(3);
    h.get_by_label("Create").click();
    h.run_steps(2);
    assert!(!h.state().doc.is_dirty());
    assert_eq!(h.state().doc.map().name, "New map");
}

/// Save in the unsaved-changes dialog writes the map and then does what was asked:
/// the new map form opens (it used to be closed again with the saved dialog).
#[test]
fn saving_the_unsaved_changes_goes_on_to_the_new_map() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::B);
    click(&mut h, "J2");
    ctrl(&mut h, Key::N);
    h.get_by_label("Unsaved changes");
    h.get_by_label("Save").click();
    h.run_steps(2);
    assert!(!h.state().doc.is_dirty(), "saved");
    let back = Map::load(&s.map).unwrap();
    assert!(same_content(&back, h.state().doc.map()));
    assert!(
        matches!(
            h.state().dialog,
            Some(hexsight_editor::app::Dialog::NewMap(_))
        ),
        "{:?}",
        h.state().dialog
    );
}

#[test]
fn hexsides_are_put_by_clicking_near_a_side() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::H);
    let (a, b) = (hex(&h, "J2"), hex(&h, "J3"));
    let p = pos(&h, "J2") + (pos(&h, "J3") - pos(&h, "J2")) * 0.45;
    press(&mut h, p, PointerButton::Primary, true);
    press(&mut h, p, PointerButton::Primary, false);
    h.run_steps(2);
    assert!(h.state().doc.map().hexside(a, b).is_some());
    // A saved file names the side from the clicked hex.
    let out = s.dir.path().join("sides.json");
    assert!(h.state_mut().save_to(&out));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("\"hex\": \"J2\"")
    );
}

#[test]
fn overlays_are_computed_in_the_background_and_dropped_after_an_edit() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    h.state_mut().selected = Some(hex(&h, "G5"));
    h.state_mut().overlays.shown = Some(hexsight_editor::canvas::Overlay::Viewshed);
    h.run_steps(2);
    h.state_mut().finish_jobs();
    h.run_steps(2);
    let gen1 = h.state().doc.generation();
    let key = hexsight_editor::jobs::JobKey {
        generation: gen1,
        kind: hexsight_editor::jobs::JobKind::Viewshed(hex(&h, "G5")),
        range: 0,
    };
    assert!(h.state().overlays.jobs.result(key).is_some());
    key_then_paint(&mut h);
    assert!(h.state().doc.generation() != gen1);
    let key2 = hexsight_editor::jobs::JobKey {
        generation: h.state().doc.generation(),
        ..key
    };
    h.state_mut().finish_jobs();
    h.run_steps(2);
    assert!(
        h.state().overlays.jobs.result(key2).is_some(),
        "recomputed after the edit"
    );
    assert!(
        h.state().overlays.jobs.result(key).is_none(),
        "the result for the old map is gone"
    );
}

fn key_then_paint(h: &mut Harness<'_, EditorApp>) {
    key(h, Key::B);
    click(h, "J2");
}

#[test]
fn autosaved_work_is_offered_at_the_next_start() {
    let s = setup();
    let data = s.dir.path().join("data");
    // A previous editor that crashed left this behind.
    let store = Store::new(data.clone());
    let mut map = Map::load(&s.map).unwrap();
    map.name = "unsaved work".into();
    store.autosave(&map, Some(&s.map), None).unwrap();
    std::fs::rename(store.own_recovery(), data.join("recovery-4294967294.json")).unwrap();
    let mut h = harness(&data, None);
    h.get_by_label("Recover unsaved work?");
    h.get_by_label("Recover").click();
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.doc.map().name, "unsaved work");
    assert!(app.doc.is_dirty(), "recovered work is not on disk yet");
    assert_eq!(app.doc.path.as_deref(), Some(s.map.as_path()));
    assert!(!data.join("recovery-4294967294.json").exists());
}

#[test]
fn the_view_exports_to_svg_with_its_overlay() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    h.state_mut().selected = Some(hex(&h, "G5"));
    h.state_mut().overlays.shown = Some(hexsight_editor::canvas::Overlay::Blind);
    h.run_steps(2);
    h.state_mut().finish_jobs();
    h.run_steps(2);
    let out = s.dir.path().join("view.svg");
    h.state_mut().export_svg(&out);
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.matches("<polygon").count() >= 150, "every hex is drawn");
    assert!(svg.contains(">G5</text>") && svg.contains(">blind hex</text>"));
}

#[test]
fn a_100_by_100_map_stays_responsive() {
    let s = setup();
    let mut map = Map::load(&s.map).unwrap();
    map = Map::new(
        "big",
        "combat-commander",
        map.ruleset.clone(),
        100,
        100,
        map.layout,
    );
    for (i, h) in map.hexes().collect::<Vec<_>>().into_iter().enumerate() {
        let c = map.cell_mut(h).unwrap();
        c.terrain = (i % 7 % 6) as u16;
        c.level = (i % 5) as i32;
        c.slope = i % 3 == 0;
    }
    let path = s.dir.path().join("big.json");
    map.save(&path).unwrap();
    let mut h = harness(&s.dir.path().join("data"), Some(path));
    // Whole map in view (the worst case), then zoomed in.
    let t = std::time::Instant::now();
    h.run_steps(10);
    let whole = t.elapsed() / 10;
    h.state_mut().view.zoom = 40.0;
    let t = std::time::Instant::now();
    h.run_steps(10);
    let zoomed = t.elapsed() / 10;
    eprintln!("frame: whole map {whole:?}, zoomed {zoomed:?}");
    assert!(
        whole.as_millis() < 250 && zoomed.as_millis() < 100,
        "whole {whole:?}, zoomed {zoomed:?}"
    );
    // Painting on the big map is one step as well.
    key(&mut h, Key::B);
    click(&mut h, "J2");
    assert!(h.state().doc.undo_label().is_some());
}

#[test]
fn a_new_pointy_top_map_is_painted_where_clicked() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), None);
    let form = hexsight_editor::app::NewMapForm {
        orientation: hexsight_analysis::hex::Orientation::Pointy,
        cols: 8,
        rows: 6,
        ..Default::default()
    };
    h.state_mut().dialog = Some(hexsight_editor::app::Dialog::NewMap(form));
    h.run_steps(3);
    h.get_by_label("Create").click();
    h.run_steps(3);
    assert_eq!(
        h.state().doc.map().layout.orientation,
        hexsight_analysis::hex::Orientation::Pointy
    );
    key(&mut h, Key::B);
    h.get_by_label("Marsh").click();
    h.run_steps(2);
    for l in ["A1", "D3", "H6", "E4"] {
        click(&mut h, l);
        assert_eq!(terrain(&h, l), "marsh", "{l}");
    }
    // Only the clicked hexes changed.
    let m = h.state().doc.map();
    assert_eq!(
        m.hexes()
            .filter(|x| m.cell(*x).unwrap().terrain != 0)
            .count(),
        4
    );
    // Save as a new file and read it back.
    let out = s.dir.path().join("pointy.json");
    assert!(h.state_mut().save_to(&out));
    assert!(same_content(&Map::load(&out).unwrap(), h.state().doc.map()));
}

#[test]
fn open_asks_once_and_save_as_asks_before_replacing_a_file() {
    use hexsight_editor::app::{Dialog, PathPurpose};
    let s = setup();
    let other = s.dir.path().join("other.json");
    std::fs::write(&other, DEMO.replace("Demo hill", "Other map")).unwrap();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::B);
    click(&mut h, "J2");
    ctrl(&mut h, Key::O);
    h.run_steps(2);
    h.get_by_label("Discard").click();
    h.run_steps(3);
    let text = other.display().to_string();
    h.state_mut().dialog = Some(Dialog::Path {
        purpose: PathPurpose::Open,
        text,
    });
    h.run_steps(3);
    h.get_by_label("other.json").click();
    h.run_steps(2);
    h.get_by_label("Open").click();
    h.run_steps(3);
    assert_eq!(
        h.state().doc.map().name,
        "Other map",
        "opened without a second question"
    );
    assert!(h.state().dialog.is_none());

    // Save as over the first map: Save only asks.
    key(&mut h, Key::B);
    click(&mut h, "J3");
    let text = s.map.display().to_string();
    h.state_mut().dialog = Some(Dialog::Path {
        purpose: PathPurpose::SaveAs,
        text,
    });
    h.run_steps(3);
    h.get_by_label("Save").click();
    h.run_steps(3);
    h.get_by_label("Replace demo.json?");
    assert_eq!(
        Map::load(&s.map).unwrap().name,
        "Demo hill",
        "not replaced yet"
    );
    h.get_by_label("Replace").click();
    h.run_steps(3);
    assert_eq!(Map::load(&s.map).unwrap().name, "Other map");
    assert_eq!(h.state().doc.path.as_deref(), Some(s.map.as_path()));
}

#[test]
fn brackets_step_through_the_palette_and_the_readout_follows_the_pointer() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    h.get_by_label("Woods").click();
    h.run_steps(2);
    key(&mut h, Key::CloseBracket);
    assert_eq!(h.state().settings.terrain, 2, "woods -> building");
    key(&mut h, Key::OpenBracket);
    key(&mut h, Key::OpenBracket);
    assert_eq!(h.state().settings.terrain, 0);
    key(&mut h, Key::OpenBracket);
    assert_eq!(h.state().settings.terrain, 5, "wraps to the last terrain");
    // Exposure, then hover a hex: its count is shown.
    h.state_mut().overlays.shown = Some(hexsight_editor::canvas::Overlay::Exposure);
    h.run_steps(2);
    h.state_mut().finish_jobs();
    let p = pos(&h, "A1");
    h.event(Event::PointerMoved(p));
    h.run_steps(3);
    h.get_by_label_contains("A1: seen by");
}

#[test]
fn f1_lists_the_shortcuts_and_right_click_picks_terrain() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::F1);
    h.run_steps(2);
    assert!(
        h.query_all_by_label_contains("Eyedropper: Click a hex")
            .count()
            >= 1
    );
    key(&mut h, Key::B);
    h.get_by_label("Marsh").click();
    h.run_steps(2);
    let p = pos(&h, "C3");
    press(&mut h, p, PointerButton::Secondary, true);
    press(&mut h, p, PointerButton::Secondary, false);
    h.run_steps(2);
    assert_eq!(h.state().settings.terrain, 1, "picked the woods of C3");
    assert_eq!(terrain(&h, "C3"), "woods", "right-click does not paint");
}

#[test]
fn the_view_pans_with_arrow_keys_and_fits_with_ctrl_0() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    let fitted = h.state().view;
    h.key_down(Key::ArrowLeft);
    h.run_steps(3);
    h.key_up(Key::ArrowLeft);
    h.run_steps(1);
    assert!(h.state().view.pan.x > fitted.pan.x, "the map moves right");
    h.state_mut().view.zoom *= 3.0;
    ctrl(&mut h, Key::Num0);
    assert_eq!(h.state().view, fitted);
}

#[test]
fn a_placed_unit_is_renamed_as_typed_and_the_rename_is_one_undo_step() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    key(&mut h, Key::U);
    click(&mut h, "K5");
    let k5 = hex(&h, "K5");
    assert_eq!(
        h.state().doc.map().units_at(k5).next().unwrap().id,
        "allied-1"
    );
    h.run_steps(2);
    let field = h.get_by_role_and_label(egui::accesskit::Role::TextInput, "Id");
    field.focus();
    h.run_steps(1);
    for t in ["x", "y"] {
        h.get_by_role_and_label(egui::accesskit::Role::TextInput, "Id")
            .type_text(t);
        h.run_steps(2);
    }
    assert_eq!(
        h.state().doc.map().units_at(k5).next().unwrap().id,
        "allied-1xy"
    );
    h.event(Event::PointerMoved(pos(&h, "A1")));
    h.state_mut().doc.undo();
    assert_eq!(
        h.state().doc.map().units_at(k5).next().unwrap().id,
        "allied-1"
    );
}

#[test]
fn spotting_is_offered_where_the_ruleset_has_it() {
    let s = setup();
    // Combat Commander has no spotting table: the overlay cannot be chosen.
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    h.state_mut().selected = Some(hex(&h, "G5"));
    h.state_mut().overlays.shown = Some(hexsight_editor::canvas::Overlay::Spotting);
    h.run_steps(3);
    assert_eq!(h.state().overlays.shown, None);
    // The miniatures table has one.
    let minis = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../maps/miniatures-hamlet.json"
    ));
    if !minis.exists() {
        return;
    }
    let mut h = harness(&s.dir.path().join("data2"), Some(minis));
    h.state_mut().selected = Some(hex(&h, "M9"));
    h.state_mut().overlays.shown = Some(hexsight_editor::canvas::Overlay::Spotting);
    h.run_steps(2);
    h.state_mut().finish_jobs();
    h.event(Event::PointerMoved(pos(&h, "M10")));
    h.run_steps(3);
    assert_eq!(
        h.state().overlays.shown,
        Some(hexsight_editor::canvas::Overlay::Spotting)
    );
    h.get_by_label_contains("M10: spotted automatically");
}

#[test]
fn every_bundled_map_opens_and_draws_its_sight_lines() {
    let s = setup();
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../maps"));
    let mut maps: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    maps.sort();
    for (k, path) in maps.into_iter().enumerate() {
        let mut h = harness(&s.dir.path().join(format!("data{k}")), Some(path.clone()));
        assert!(
            h.state().error.is_none(),
            "{}: {:?}",
            path.display(),
            h.state().error
        );
        let (first, last) = {
            let m = h.state().doc.map();
            (m.hex_of(0), m.hex_of(m.len() - 1))
        };
        h.state_mut().selected = Some(first);
        h.state_mut().line_of_sight.from = Some(first);
        h.state_mut().line_of_sight.to = Some(last);
        for o in [
            hexsight_editor::canvas::Overlay::Viewshed,
            hexsight_editor::canvas::Overlay::Blind,
        ] {
            h.state_mut().overlays.shown = Some(o);
            h.run_steps(2);
            h.state_mut().finish_jobs();
            h.run_steps(2);
        }
        h.get_by_label_contains("Verdict: ");
        let out = s.dir.path().join(format!("view{k}.svg"));
        h.state_mut().export_svg(&out);
        assert!(
            std::fs::metadata(&out).unwrap().len() > 1000,
            "{}",
            path.display()
        );
    }
}

#[test]
fn a_map_whose_units_break_their_rules_opens_saves_and_recovers_for_fixing() {
    let s = setup();
    let asl = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../maps/asl-stream-crest.json"
    ));
    if !asl.exists() {
        return;
    }
    // A crest unit on open ground: the strict loader refuses it.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&asl).unwrap()).unwrap();
    v["units"][0]["hex"] = "A1".into();
    v["units"][0]["state"] = "crest".into();
    v["units"][0]["facing"] = "N".into();
    let bad = s.dir.path().join("bad-units.json");
    std::fs::write(&bad, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    assert!(Map::load(&bad).is_err());
    let data = s.dir.path().join("data");
    let mut h = harness(&data, Some(bad.clone()));
    h.run_steps(2);
    assert_eq!(
        h.state().doc.path.as_deref(),
        Some(bad.as_path()),
        "opened for fixing"
    );
    assert!(
        h.state()
            .error
            .as_deref()
            .unwrap()
            .contains("break their rules")
    );
    h.get_by_label("OK").click();
    h.run_steps(2);
    // Saving keeps the work and says why the file is special.
    let out = s.dir.path().join("saved.json");
    assert!(h.state_mut().save_to(&out));
    assert!(h.state().error.is_some());
    assert!(Map::load_for_editing(&out).is_ok());
    // Autosaved work of this kind is recovered too.
    let store = Store::new(data.clone());
    store
        .autosave(h.state().doc.map(), Some(&bad), None)
        .unwrap();
    std::fs::rename(store.own_recovery(), data.join("recovery-4294967293.json")).unwrap();
    let found = store.leftover_recoveries();
    assert_eq!(found.len(), 1);
    assert!(found[0].load().is_ok());
}

fn paint_j2_woods(h: &mut Harness<'_, EditorApp>) {
    key(h, Key::B);
    h.get_by_label("Woods").click();
    h.run_steps(2);
    click(h, "J2");
    assert_eq!(terrain(h, "J2"), "woods");
}

/// A folder the process cannot write into, if it can make one: `chmod 555`
/// does not stop root, so as root there is none (the other failures still run).
fn read_only_folder(parent: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let dir = parent.join("read-only");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let probe = dir.join("probe");
    if std::fs::write(&probe, "x").is_ok() {
        let _ = std::fs::remove_file(&probe);
        println!(
            "running as root: chmod 555 does not stop writes, so the read-only folder case is left out"
        );
        return None;
    }
    Some(dir)
}

#[test]
fn a_failed_save_shows_in_the_window_and_keeps_the_work_unsaved() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    paint_j2_woods(&mut h);
    // A folder that is a regular file (fails for root too), a read-only folder,
    // and a full disk (/dev/full: every write fails with ENOSPC).
    let mut targets = vec![(s.map.join("under-a-file.json"), "Not a directory")];
    if let Some(ro) = read_only_folder(s.dir.path()) {
        targets.push((ro.join("map.json"), "Permission denied"));
    }
    if Path::new("/dev/full").exists() {
        targets.push((PathBuf::from("/dev/full"), "No space left on device"));
    } else {
        println!("no /dev/full here: the full-disk case is left out");
    }
    for (target, why) in targets {
        // Through Ctrl+S, as the user would save to the map's path.
        h.state_mut().doc.path = Some(target.clone());
        ctrl(&mut h, Key::S);
        let err = h.state().error.clone().unwrap_or_default();
        assert!(
            err.contains("Could not save") && err.contains(why),
            "{target:?}: {err}"
        );
        h.get_by_label_contains("Could not save");
        h.get_by_label_contains("still open and unsaved");
        assert!(
            h.state().status.starts_with("Not saved"),
            "{}",
            h.state().status
        );
        assert!(
            h.state().doc.is_dirty(),
            "{target:?}: the work stays unsaved"
        );
        h.get_by_label("OK").click();
        h.run_steps(2);
        assert!(h.state().doc.is_dirty());
        assert_eq!(terrain(&h, "J2"), "woods", "the work is still open");
    }
    assert_eq!(
        std::fs::read_to_string(&s.map).unwrap(),
        DEMO,
        "the original is untouched"
    );
}

#[test]
fn a_file_changed_on_disk_is_asked_about_before_it_is_overwritten() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    paint_j2_woods(&mut h);
    // Rewriting the same content (a new modification time) is not a change.
    std::fs::write(&s.map, DEMO).unwrap();
    assert!(!h.state().changed_on_disk(&s.map));
    // Another program writes its own version.
    let mut theirs = Map::load(&s.map).unwrap();
    theirs.name = "changed elsewhere".into();
    let theirs_text = theirs.to_json();
    std::fs::write(&s.map, &theirs_text).unwrap();
    assert!(h.state().changed_on_disk(&s.map));

    // Save asks instead of overwriting; Cancel keeps both versions.
    ctrl(&mut h, Key::S);
    h.get_by_label("The file changed on disk");
    assert_eq!(std::fs::read_to_string(&s.map).unwrap(), theirs_text);
    assert!(h.state().doc.is_dirty());
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert!(h.state().conflict.is_none());
    assert_eq!(std::fs::read_to_string(&s.map).unwrap(), theirs_text);
    assert!(h.state().doc.is_dirty());

    // Reload takes their version as one undo step: clean, and undo brings back ours.
    ctrl(&mut h, Key::S);
    h.get_by_label("Reload from disk").click();
    h.run_steps(2);
    assert_eq!(h.state().doc.map().name, "changed elsewhere");
    assert_eq!(terrain(&h, "J2"), "open");
    assert!(!h.state().doc.is_dirty());
    ctrl(&mut h, Key::Z);
    assert_eq!(terrain(&h, "J2"), "woods");
    assert!(h.state().doc.is_dirty());

    // They change it again; Overwrite writes ours over theirs.
    theirs.name = "changed again".into();
    std::fs::write(&s.map, theirs.to_json()).unwrap();
    ctrl(&mut h, Key::S);
    h.get_by_label("Overwrite").click();
    h.run_steps(2);
    assert!(!h.state().doc.is_dirty());
    let back = Map::load(&s.map).unwrap();
    assert!(same_content(&back, h.state().doc.map()));
    // After our own save, the next save does not ask.
    paint_j3_building(&mut h);
    ctrl(&mut h, Key::S);
    assert!(h.state().conflict.is_none() && !h.state().doc.is_dirty());
}

fn paint_j3_building(h: &mut Harness<'_, EditorApp>) {
    key(h, Key::B);
    h.get_by_label("Building").click();
    h.run_steps(2);
    click(h, "J3");
    assert!(h.state().doc.is_dirty());
}

#[test]
fn recovered_work_is_checked_against_the_file_it_started_from() {
    let s = setup();
    let data = s.dir.path().join("data");
    let store = Store::new(data.clone());
    let mut map = Map::load(&s.map).unwrap();
    map.name = "unsaved work".into();
    let stamp = hexsight_editor::stamp::Stamp::read(&s.map);
    store.autosave(&map, Some(&s.map), stamp).unwrap();
    std::fs::rename(store.own_recovery(), data.join("recovery-4294967292.json")).unwrap();
    // Someone edits the file between the crash and the recovery.
    std::fs::write(&s.map, DEMO.replacen("Demo hill", "Demo hill (theirs)", 1)).unwrap();
    let mut h = harness(&data, None);
    // Enter recovers the newest autosave.
    key(&mut h, Key::Enter);
    assert_eq!(h.state().doc.map().name, "unsaved work");
    ctrl(&mut h, Key::S);
    assert!(h.state().conflict.is_some(), "the save asks first");
    assert!(
        std::fs::read_to_string(&s.map)
            .unwrap()
            .contains("(theirs)")
    );
}

#[test]
fn an_overlay_refused_for_memory_says_why_in_the_window() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    // The engine's memory check with a budget of one byte: refused as a huge map would be.
    h.state_mut().overlays.jobs.memory_limit = Some(1);
    h.state_mut().selected = Some(hex(&h, "G5"));
    h.state_mut().overlays.shown = Some(hexsight_editor::canvas::Overlay::Viewshed);
    for _ in 0..100 {
        h.run_steps(1);
        if h.state().status.starts_with("No overlay") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = h.state().status.clone();
    assert!(
        status.contains("needs about") && status.contains("MiB"),
        "{status}"
    );
    h.run_steps(2);
    h.get_by_label_contains("Not computed: preparing a");
    assert!(
        !h.state().overlays.jobs.busy(),
        "the refused job is not retried every frame"
    );
}

#[test]
fn a_save_asked_for_by_the_unsaved_prompt_also_asks_about_a_changed_file_then_goes_on() {
    let s = setup();
    let mut h = harness(&s.dir.path().join("data"), Some(s.map.clone()));
    paint_j2_woods(&mut h);
    std::fs::write(&s.map, DEMO.replacen("Demo hill", "Demo hill (theirs)", 1)).unwrap();
    // New map -> Save -> the file changed -> Overwrite -> the new-map form.
    ctrl(&mut h, Key::N);
    h.get_by_label("Save").click();
    // The question opens as the prompt closes: a few frames for it to appear.
    h.run_steps(6);
    h.get_by_label("The file changed on disk");
    h.get_by_label("Overwrite").click();
    h.run_steps(2);
    assert!(
        matches!(
            h.state().dialog,
            Some(hexsight_editor::app::Dialog::NewMap(_))
        ),
        "{:?}",
        h.state().dialog
    );
    let back = Map::load(&s.map).unwrap();
    assert_eq!(back.name, "Demo hill", "ours was written");
    // Cancel at the same question keeps the work and opens no new map.
    h.run_steps(4);
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    paint_j3_building(&mut h);
    std::fs::write(&s.map, DEMO).unwrap();
    ctrl(&mut h, Key::N);
    h.get_by_label("Save").click();
    // The question opens as the prompt closes: a few frames for it to appear.
    h.run_steps(6);
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert!(h.state().dialog.is_none() && h.state().conflict.is_none());
    assert!(h.state().doc.is_dirty(), "the work stays open");
}
