//! Field-of-view arcs in the window (egui_kittest, no GPU): the selected unit's arc
//! is drawn, and the unit panel's answers come from the library and honour the arc.

mod common;
use common::*;
use egui::{Event, Key, Modifiers, PointerButton};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexsight_editor::EditorApp;

const FLANK: &str = include_str!("../../maps/napoleonic-flank.json");

fn click(h: &mut Harness<'_, EditorApp>, label: &str) {
    let p = pos(h, label);
    for pressed in [true, false] {
        h.event(Event::PointerMoved(p));
        h.event(Event::PointerButton {
            pos: p,
            button: PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        h.step();
    }
    h.run_steps(2);
}

/// Arc outlines in an SVG export: polylines in the arc colour at `alpha` (the SVG
/// writes the colour back from egui's premultiplied form, as the canvas made it).
fn arc_lines(svg: &str, alpha: f32) -> usize {
    let [r, g, b, _] = hexsight_editor::canvas::ARC.to_srgba_unmultiplied();
    let a = (alpha * 255.0) as u8;
    let [r, g, b, a] = egui::Color32::from_rgba_unmultiplied(r, g, b, a).to_srgba_unmultiplied();
    let stroke = format!(
        "stroke=\"rgb({r},{g},{b})\" stroke-opacity=\"{:.3}\"",
        a as f32 / 255.0
    );
    svg.lines()
        .filter(|l| l.starts_with("<polyline") && l.contains(&stroke))
        .count()
}

#[test]
fn the_selected_units_arc_is_drawn_and_its_answers_honour_it() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("flank.json");
    std::fs::write(&map, FLANK).unwrap();
    let mut h = harness(&dir.path().join("data"), Some(map));
    h.key_press(Key::U);
    h.run_steps(2);
    click(&mut h, "E5");
    h.get_by_label("Unit 1-105e");

    // Its answers, from the library: the skirmishers behind it are not seen.
    h.get_by_label_contains("Arc: front arc (3 hexsides facing N)");
    h.get_by_label_contains(
        "95th-lc (E8): sees no, fires no: E8 is outside the front arc of `1-105e`",
    );
    h.get_by_label_contains("52nd-foot (E1): sees yes, fires yes");

    // Drawn: the selected battalion's wedge strongly, the three other arcs faintly
    // (the skirmishers have none).
    let svg_path = dir.path().join("view.svg");
    h.state_mut().export_svg(&svg_path);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert_eq!(arc_lines(&svg, 0.9), 1, "the selected unit's arc");
    assert_eq!(arc_lines(&svg, 0.4), 3, "the other arcs");

    // Turned about, it sees them; the panel follows the edit.
    h.state_mut().doc.edit("Face S", |m| {
        m.units
            .iter_mut()
            .find(|u| u.id == "1-105e")
            .unwrap()
            .facing = Some(3);
    });
    h.run_steps(3);
    h.get_by_label_contains("Arc: front arc (3 hexsides facing S)");
    h.get_by_label_contains("95th-lc (E8): sees yes, fires yes");
    assert!(
        h.query_by_label_contains("95th-lc (E8): sees no").is_none(),
        "the old answer is gone"
    );
}
