//! Real boards in the editor, through egui_kittest (no GPU): combining a board
//! beside the open map, and the map-properties edits.

mod common;
use common::*;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexsight_analysis::hex::{Hex, Layout, Side, Stagger};
use hexsight_analysis::{Map, line_of_sight};
use hexsight_editor::EditorApp;
use hexsight_editor::app::{CombineForm, Dialog};
use std::path::Path;

fn demo() -> Map {
    Map::from_json(DEMO, Path::new("demo.json")).unwrap()
}

/// Columns `c0..c0 + cols` of `w` as a board of their own, with its markers, units
/// and the hexsides between its own hexes.
fn cut_columns(w: &Map, c0: u32, cols: u32) -> Map {
    let stagger = if c0.is_multiple_of(2) {
        w.layout.stagger
    } else {
        match w.layout.stagger {
            Stagger::Odd => Stagger::Even,
            Stagger::Even => Stagger::Odd,
        }
    };
    let layout = Layout {
        stagger,
        ..w.layout
    };
    let mut b = Map::new(
        "board",
        &w.ruleset_ref,
        w.ruleset.clone(),
        cols,
        w.rows,
        layout,
    );
    let shift = w.layout.hex_at(c0 as i32, 0) - layout.hex_at(0, 0);
    for h in b.hexes().collect::<Vec<_>>() {
        *b.cell_mut(h).unwrap() = *w.cell(h + shift).unwrap();
    }
    let back = |h: Hex| h - shift;
    for (s, f) in &w.hexsides {
        if b.contains(back(s.a)) && b.contains(back(s.b)) {
            let mut f = f.clone();
            f.from = back(f.from);
            b.hexsides.insert(Side::new(back(s.a), back(s.b)), f);
        }
    }
    let on_b = |h: Hex| {
        let (c, _) = w.layout.offset_of(h);
        (c0 as i32..(c0 + cols) as i32).contains(&c)
    };
    for m in w.markers.iter().filter(|m| on_b(m.hex)) {
        b.markers.push(hexsight_analysis::map::Marker {
            hex: back(m.hex),
            ..m.clone()
        });
    }
    for u in w.units.iter().filter(|u| on_b(u.hex)) {
        b.units.push(hexsight_analysis::map::Unit {
            hex: back(u.hex),
            ..u.clone()
        });
    }
    b
}

#[test]
fn combining_two_halves_gives_the_whole_maps_sight_lines_and_undo_restores_the_half() {
    let dir = tempfile::tempdir().unwrap();
    let whole = demo();
    let (a, b) = (cut_columns(&whole, 0, 8), cut_columns(&whole, 8, 7));
    let (pa, pb) = (dir.path().join("a.json"), dir.path().join("b.json"));
    a.save(&pa).unwrap();
    b.save(&pb).unwrap();
    let mut h = harness(&dir.path().join("data"), Some(pa.clone()));
    h.state_mut().dialog = Some(Dialog::Combine(CombineForm::new(pb)));
    h.run_steps(2);
    assert!(h.query_by_label("Result: 15 x 10 hexes").is_some());
    h.get_by_label("Combine").click();
    h.run_steps(3);
    let c = h.state().doc.map().clone();
    assert_eq!((c.cols, c.rows), (15, 10));
    assert_eq!(c.units.len(), whole.units.len(), "units carried over");
    assert_eq!(
        c.hexsides.len(),
        whole.hexsides.len(),
        "no hexside on the H/I seam"
    );
    let mut crossing = 0;
    for x in whole.hexes() {
        for y in whole.hexes() {
            let (lx, ly) = (whole.label(x), whole.label(y));
            // Only lines from the first board's columns (A-H) to the second's.
            if lx.as_bytes()[0] > b'H' || ly.as_bytes()[0] <= b'H' {
                continue;
            }
            let (cx, cy) = (c.parse_hex(&lx).unwrap(), c.parse_hex(&ly).unwrap());
            let (u, v) = (line_of_sight(&whole, x, y), line_of_sight(&c, cx, cy));
            assert_eq!(
                (u.verdict, u.hindrance),
                (v.verdict, v.hindrance),
                "{lx}-{ly}"
            );
            crossing += 1;
        }
    }
    assert_eq!(crossing, 80 * 70);
    assert!(
        h.state().doc.is_dirty(),
        "combined work is unsaved, not written"
    );
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().doc.map().cols, 8, "undo gives the half back");
}

#[test]
fn a_board_that_does_not_fit_is_explained_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let whole = demo();
    let pb = dir.path().join("tall.json");
    let mut tall = cut_columns(&whole, 0, 4);
    tall.rows = 10;
    let text = tall.to_json().replace("\"rows\": 10", "\"rows\": 12");
    std::fs::write(&pb, text).unwrap();
    let pa = dir.path().join("a.json");
    whole.save(&pa).unwrap();
    let mut h = harness(&dir.path().join("data"), Some(pa));
    h.state_mut().dialog = Some(Dialog::Combine(CombineForm::new(pb)));
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("as many rows").is_some(),
        "the reason is shown"
    );
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert_eq!(h.state().doc.map().cols, 15);
    assert!(!h.state().doc.is_dirty());
}

/// The bundled map with a sight line and the viewshed shown, exported headless.
fn export_at(scale: f32, out: &Path) -> (egui::Vec2, image::RgbaImage) {
    let dir = tempfile::tempdir().unwrap();
    let map = Path::new(env!("CARGO_MANIFEST_DIR")).join("../maps/hill-112.json");
    let mut h = harness(&dir.path().join("data"), Some(map));
    {
        let app = h.state_mut();
        let m = app.doc.map();
        let (from, to) = (m.parse_hex("C6"), m.parse_hex("H2"));
        app.line_of_sight.from = from;
        app.line_of_sight.to = to;
        app.selected = from;
        app.tool = hexsight_editor::tools::Tool::Los;
        app.overlays.shown = Some(hexsight_editor::canvas::Overlay::Viewshed);
        app.export_scale = scale;
    }
    h.run_steps(3);
    h.state_mut().finish_jobs();
    h.run_steps(3);
    let canvas = h.state().canvas_rect.size();
    h.state_mut().export_png(out);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    (canvas, image::open(out).unwrap().to_rgba8())
}

#[test]
fn png_export_renders_the_view_headless_at_the_chosen_scale() {
    let dir = tempfile::tempdir().unwrap();
    for scale in [1.0, 2.0] {
        let out = dir.path().join(format!("view-{scale}.png"));
        let (canvas, img) = export_at(scale, &out);
        assert_eq!(
            (img.width(), img.height()),
            (
                (canvas.x * scale).round() as u32,
                (canvas.y * scale).round() as u32
            ),
            "pixel size is the canvas times the scale"
        );
        let mut colours = std::collections::HashSet::new();
        for p in img.pixels() {
            colours.insert(p.0);
        }
        assert!(
            colours.len() > 200,
            "only {} colours: blank?",
            colours.len()
        );
        // The legend box's text is drawn: white-ish pixels near the top left.
        let light = (0..200)
            .flat_map(|x| (0..120).map(move |y| (x, y)))
            .filter(|&(x, y)| {
                img.get_pixel(x * scale as u32, y * scale as u32).0[..3]
                    .iter()
                    .all(|&c| c > 200)
            })
            .count();
        assert!(light > 20, "legend text missing ({light} light pixels)");
    }
    if let Ok(keep) = std::env::var("HEXSIGHT_KEEP_EXPORT") {
        std::fs::copy(dir.path().join("view-2.png"), keep).unwrap();
    }
}

#[test]
fn resize_in_map_properties_keeps_labels_says_what_is_cut_and_undoes() {
    let dir = tempfile::tempdir().unwrap();
    let pa = dir.path().join("demo.json");
    std::fs::write(&pa, DEMO).unwrap();
    let mut h = harness(&dir.path().join("data"), Some(pa));
    let before = h.state().doc.map().clone();
    let mut f = hexsight_editor::app::PropertiesForm::of(&before);
    f.margins.east = -2;
    f.margins.south = 1;
    h.state_mut().dialog = Some(Dialog::Properties(f));
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("unit `9/H` in N9 cut").is_some(),
        "the cut is shown before Apply"
    );
    h.get_by_label("Apply").click_accesskit();
    h.run_steps(2);
    let m = h.state().doc.map().clone();
    assert_eq!((m.cols, m.rows), (13, 11));
    for l in ["B7", "C3", "G5", "M3"] {
        let t = |m: &Map| m.terrain(m.parse_hex(l).unwrap()).unwrap().id.clone();
        assert_eq!(t(&m), t(&before), "{l} kept");
    }
    assert!(h.state().error.as_deref().unwrap_or("").contains("9/H"));
    assert_eq!(h.state().doc.undo_label(), Some("Resize"));
    h.state_mut().error = None;
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().doc.map().cols, 15);
    assert_eq!(h.state().doc.map().units.len(), before.units.len());
}

#[test]
fn orientation_name_and_first_row_are_separate_undo_steps() {
    let dir = tempfile::tempdir().unwrap();
    let pa = dir.path().join("demo.json");
    std::fs::write(&pa, DEMO).unwrap();
    let mut h = harness(&dir.path().join("data"), Some(pa));
    let before = h.state().doc.map().clone();
    h.state_mut().dialog = Some(Dialog::Properties(
        hexsight_editor::app::PropertiesForm::of(&before),
    ));
    h.run_steps(2);
    h.get_by_label("Pointy top").click_accesskit();
    h.run_steps(1);
    h.get_by_label("0").click_accesskit();
    h.run_steps(1);
    h.get_by_label("Apply").click_accesskit();
    h.run_steps(2);
    let m = h.state().doc.map().clone();
    assert_eq!(
        m.layout.orientation,
        hexsight_analysis::hex::Orientation::Pointy
    );
    assert_eq!(m.first_row, 0);
    // C3 (woods) is now called C2, in the same place in the grid.
    assert_eq!(m.terrain(m.parse_hex("C2").unwrap()).unwrap().id, "woods");
    assert_eq!(h.state().doc.undo_label(), Some("Renumber rows"));
    assert!(h.state_mut().doc.undo());
    assert_eq!(h.state().doc.map().first_row, 1);
    assert_eq!(h.state().doc.undo_label(), Some("Change orientation"));
    assert!(h.state_mut().doc.undo());
    assert_eq!(h.state().doc.map().layout, before.layout);
}

fn press_at(h: &mut Harness<'_, EditorApp>, p: egui::Pos2) {
    for pressed in [true, false] {
        h.event(egui::Event::PointerMoved(p));
        h.event(egui::Event::PointerButton {
            pos: p,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    }
    h.run_steps(2);
}

#[test]
fn a_background_calibrated_by_two_clicks_puts_them_on_the_hex_centres_and_is_saved() {
    use hexsight_editor::background::Background;
    let dir = tempfile::tempdir().unwrap();
    let pa = dir.path().join("demo.json");
    std::fs::write(&pa, DEMO).unwrap();
    let scan = dir.path().join("scan.png");
    image::RgbaImage::from_fn(200, 150, |x, y| {
        image::Rgba([(x % 256) as u8, (y % 256) as u8, 90, 255])
    })
    .save(&scan)
    .unwrap();
    let mut h = harness(&dir.path().join("data"), Some(pa.clone()));
    h.state_mut().set_background(&scan);
    h.run_steps(2);
    let bg = Background::of(h.state().doc.map()).expect("set");
    assert_eq!(bg.image, "scan.png", "saved relative to the map");
    h.state_mut().calibrating = Some(hexsight_editor::app::Calibration {
        hexes: ["B2".into(), "K8".into()],
        clicks: Vec::new(),
    });
    h.run_steps(2);
    // Click two places on the picture: pixels (20, 30) and (150, 120).
    let (q1, q2) = ((20.0, 30.0), (150.0, 120.0));
    let screen = |h: &Harness<'_, EditorApp>, q| {
        let app = h.state();
        app.view
            .to_screen(app.canvas_rect.min, bg.placement.to_map(q))
    };
    let (s1, s2) = (screen(&h, q1), screen(&h, q2));
    press_at(&mut h, s1);
    press_at(&mut h, s2);
    assert!(h.state().calibrating.is_none(), "{}", h.state().status);
    let m = h.state().doc.map().clone();
    let cal = Background::of(&m).unwrap();
    for (q, label) in [(q1, "B2"), (q2, "K8")] {
        let want = m.layout.center(m.parse_hex(label).unwrap(), 1.0);
        let got = cal.placement.to_map(q);
        let off = ((got.0 - want.0).powi(2) + (got.1 - want.1).powi(2)).sqrt();
        assert!(off < 0.1, "{label}: {got:?} vs {want:?}");
    }
    assert_eq!(h.state().doc.undo_label(), Some("Calibrate background"));
    // Saved in the map file and read back.
    assert!(h.state_mut().save_to(&pa));
    let back = Map::load(&pa).unwrap();
    assert_eq!(Background::of(&back), Some(cal));
}

#[test]
fn a_missing_background_image_is_a_message_and_the_map_opens() {
    let dir = tempfile::tempdir().unwrap();
    let pa = dir.path().join("demo.json");
    let text = DEMO.replacen(
        '{',
        r#"{"background": {"image": "gone.png", "scale": 0.1}, "#,
        1,
    );
    std::fs::write(&pa, text).unwrap();
    let mut h = harness(&dir.path().join("data"), Some(pa));
    h.run_steps(2);
    assert_eq!(h.state().doc.map().cols, 15, "the map opened");
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    assert!(
        h.state().status.contains("gone.png"),
        "{}",
        h.state().status
    );
}
