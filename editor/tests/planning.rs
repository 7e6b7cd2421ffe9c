//! The planning tools in the window (egui_kittest, no GPU): the profile under the
//! LOS verdict, painted zones, the range setting and the deployment search, each
//! checked against the library's own answer for the same question.

mod common;
use common::*;
use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::Control;
use hexsight_analysis::map::zones::resolve;
use hexsight_analysis::query::deploy::{self, Goal, Request};
use hexsight_analysis::{Map, Verdict, line_of_sight};
use hexsight_editor::EditorApp;
use hexsight_editor::tools::Tool;

fn press(
    h: &mut Harness<'_, EditorApp>,
    p: Pos2,
    button: PointerButton,
    pressed: bool,
    modifiers: Modifiers,
) {
    h.event(Event::PointerMoved(p));
    h.event(Event::PointerButton {
        pos: p,
        button,
        pressed,
        modifiers,
    });
    h.step();
}

fn click(h: &mut Harness<'_, EditorApp>, label: &str) {
    let p = pos(h, label);
    press(h, p, PointerButton::Primary, true, Modifiers::NONE);
    press(h, p, PointerButton::Primary, false, Modifiers::NONE);
    h.run_steps(2);
}

/// A drag over `labels` with `button` held: one stroke.
fn drag(h: &mut Harness<'_, EditorApp>, labels: &[&str], button: PointerButton) {
    let pts: Vec<Pos2> = labels.iter().map(|l| pos(h, l)).collect();
    press(h, pts[0], button, true, Modifiers::NONE);
    for &p in &pts[1..] {
        h.event(Event::PointerMoved(p));
        h.step();
    }
    press(h, *pts.last().unwrap(), button, false, Modifiers::NONE);
    h.run_steps(2);
}

fn key(h: &mut Harness<'_, EditorApp>, k: Key) {
    h.key_press(k);
    h.run_steps(2);
}

fn ctrl(h: &mut Harness<'_, EditorApp>, k: Key) {
    h.key_press_modifiers(Modifiers::COMMAND, k);
    h.run_steps(2);
}

fn labels(map: &Map, idx: &[usize]) -> Vec<String> {
    idx.iter().map(|&i| map.label(map.hex_of(i))).collect()
}

fn zone(h: &Harness<'_, EditorApp>, name: &str) -> Vec<String> {
    let m = h.state().doc.map();
    match m.zone_named(name) {
        Some(_) => labels(m, &resolve(m, name).unwrap()),
        None => Vec::new(),
    }
}

/// The label of the first blocking hex, as `los --json`'s `blocked_by`.
fn blocked_by(map: &Map, r: &hexsight_analysis::LosResult) -> Option<String> {
    r.blocked_by.as_ref().map(|b| map.label(b.place.hex()))
}

#[test]
fn moving_the_los_target_redraws_the_profile_of_the_new_line() {
    let Setup { dir, map } = setup();
    let mut h = harness(&dir.path().join("data"), Some(map));
    key(&mut h, Key::O);
    click(&mut h, "A4");
    for (target, blocked) in [("E4", Some("C4")), ("E5", None), ("H5", Some("G5"))] {
        h.event(Event::PointerMoved(pos(&h, target)));
        h.run_steps(3);
        let app = h.state();
        let m = app.doc.map();
        let p = app.profile().expect("a profile under the verdict");
        let expected = line_of_sight(m, hex(&h, "A4"), hex(&h, target));
        assert_eq!(m.label(p.los.line.to), target);
        assert_eq!(p.los.verdict, expected.verdict, "{target}");
        assert_eq!(blocked_by(m, &p.los), blocked_by(m, &expected), "{target}");
        assert_eq!(blocked_by(m, &p.los).as_deref(), blocked, "{target}");
        // The same stretches as `hexsight profile`.
        let lib = hexsight_analysis::query::profile::profile(m, p.los.line.from, p.los.line.to);
        assert_eq!(p.to_json(m), lib.to_json(m));
        // The panel draws it, named for its line.
        let name = match blocked {
            Some(b) => format!("Profile A4 -> {target}: blocked by {b}"),
            None => format!("Profile A4 -> {target}: {}", expected.verdict.as_str()),
        };
        h.get_by_label(&name);
    }
}

#[test]
fn a_painted_zone_is_one_undo_step_and_survives_save_and_load() {
    let Setup { dir, map } = setup();
    let mut h = harness(&dir.path().join("data"), Some(map.clone()));
    key(&mut h, Key::Z);
    assert_eq!(h.state().tool, Tool::Zones);
    h.get_by_label("Zone").click();
    h.run_steps(1);
    h.get_by_label("Zone").type_text("german-setup");
    h.run_steps(2);
    assert_eq!(h.state().planning.zone, "german-setup");
    // Leave the text field so tool keys and Ctrl+Z act on the map.
    h.event(Event::PointerMoved(pos(&h, "M9")));
    h.run_steps(1);
    drag(&mut h, &["B2", "B3", "B4"], PointerButton::Primary);
    assert_eq!(zone(&h, "german-setup"), ["B2", "B3", "B4"]);
    click(&mut h, "D6");
    assert_eq!(zone(&h, "german-setup"), ["B2", "B3", "B4", "D6"]);
    // Right-drag removes, as one more step.
    drag(&mut h, &["B3", "B4"], PointerButton::Secondary);
    assert_eq!(zone(&h, "german-setup"), ["B2", "D6"]);
    h.get_by_label("german-setup (2 hexes)");
    ctrl(&mut h, Key::Z);
    assert_eq!(zone(&h, "german-setup"), ["B2", "B3", "B4", "D6"]);
    ctrl(&mut h, Key::Z);
    assert_eq!(zone(&h, "german-setup"), ["B2", "B3", "B4"], "the click");
    ctrl(&mut h, Key::Z);
    assert!(zone(&h, "german-setup").is_empty(), "the whole drag");
    assert!(h.state().doc.map().zones.is_empty());
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run_steps(2);
    assert_eq!(zone(&h, "german-setup"), ["B2", "B3", "B4"]);
    // Saved in the map file and read back by the library.
    ctrl(&mut h, Key::S);
    assert!(!h.state().doc.is_dirty());
    let back = Map::load(&map).unwrap();
    assert_eq!(
        labels(&back, &resolve(&back, "german-setup").unwrap()),
        ["B2", "B3", "B4"]
    );
    let mut h2 = harness(&dir.path().join("data"), Some(map));
    assert_eq!(zone(&h2, "german-setup"), ["B2", "B3", "B4"]);
    key(&mut h2, Key::Z);
    h2.get_by_label("german-setup (3 hexes)");
}

#[test]
fn a_range_of_two_hides_a_hex_three_away_in_the_los_panel_and_the_overlays() {
    let Setup { dir, map } = setup();
    let mut h = harness(&dir.path().join("data"), Some(map));
    let from = hex(&h, "A4");
    let m = h.state().doc.map().clone();
    // A hex three away that A4 sees without a range.
    let target = (0..m.len())
        .map(|i| m.hex_of(i))
        .find(|&t| from.distance(t) == 3 && line_of_sight(&m, from, t).verdict.sees())
        .expect("a seen hex three away");
    let near = (0..m.len())
        .map(|i| m.hex_of(i))
        .find(|&t| from.distance(t) == 2 && line_of_sight(&m, from, t).verdict.sees())
        .expect("a seen hex two away");
    key(&mut h, Key::O);
    click(&mut h, "A4");
    h.event(Event::PointerMoved(h.state().screen_pos(target)));
    h.run_steps(3);
    assert!(h.state().los().unwrap().verdict.sees());
    h.get_by_label("Range");
    h.state_mut().planning.range = 2;
    h.run_steps(3);
    let los = h.state().los().unwrap();
    assert_eq!(los.verdict, Verdict::Blocked);
    assert!(
        los.reason.contains("beyond the range of 2 hexes"),
        "{}",
        los.reason
    );
    h.get_by_label("Verdict: blocked");
    h.event(Event::PointerMoved(h.state().screen_pos(near)));
    h.run_steps(3);
    assert!(
        h.state().los().unwrap().verdict.sees(),
        "two away is still seen"
    );
    // The viewshed overlay follows the same range.
    h.state_mut().overlays.shown = Some(hexsight_editor::canvas::Overlay::Viewshed);
    h.run_steps(2);
    h.state_mut().finish_jobs();
    h.run_steps(2);
    let key = hexsight_editor::jobs::JobKey {
        generation: h.state().doc.generation(),
        kind: hexsight_editor::jobs::JobKind::Viewshed(from),
        range: 2,
    };
    let out = h
        .state()
        .overlays
        .jobs
        .result(key)
        .expect("the ranged viewshed");
    let hexsight_editor::jobs::JobOutput::Viewshed(v) = out.as_ref() else {
        panic!("a viewshed");
    };
    assert_eq!(v[m.index(target).unwrap()].verdict, Verdict::Blocked);
    assert!(v[m.index(near).unwrap()].verdict.sees());
}

#[test]
fn the_deploy_job_chooses_what_the_library_chooses() {
    let Setup { dir, map } = setup();
    let mut h = harness(&dir.path().join("data"), Some(map));
    h.state_mut().doc.edit("zones", |m| {
        m.zones.push(hexsight_analysis::map::NamedZone {
            name: "west".into(),
            zone: "A1:D10".into(),
        });
        m.zones.push(hexsight_analysis::map::NamedZone {
            name: "east".into(),
            zone: "J1:O10".into(),
        });
    });
    key(&mut h, Key::D);
    assert_eq!(h.state().tool, Tool::Deploy);
    {
        let f = &mut h.state_mut().planning.deploy;
        f.zone = "east".into();
        f.watch = "west".into();
        f.count = 3;
        f.goal = Goal::Watch;
    }
    h.run_steps(2);
    h.get_by_label("Run").click();
    h.run_steps(1);
    h.state_mut().planning.deploy_job.wait();
    h.run_steps(2);
    let m = h.state().doc.map().clone();
    let (_, got) = h.state().planning.deploy_job.latest().expect("a plan");
    let req = Request {
        zone: resolve(&m, "east").unwrap(),
        watch: resolve(&m, "west").unwrap(),
        hide_from: Vec::new(),
        count: 3,
        min_spacing: 0,
        terrain: Vec::new(),
        goal: Goal::Watch,
        range: None,
        exact_limit: deploy::EXACT_LIMIT,
    };
    let want = deploy::deploy(&Engine::new(&m), &req, &Control::default()).unwrap();
    assert_eq!(*got, want);
    assert_eq!(got.chosen.len(), 3);
    // Listed in the panel with what each adds.
    for (k, &i) in want.chosen.iter().enumerate() {
        let text = format!(
            "{}. {}: +{} seen, seen by {}",
            k + 1,
            m.label(m.hex_of(i)),
            want.adds[k],
            want.seen_by[k]
        );
        h.get_by_label(&text);
    }
    // With a range, the library's ranged answer.
    h.state_mut().planning.range = 3;
    h.run_steps(1);
    h.get_by_label("Run").click();
    h.run_steps(1);
    h.state_mut().planning.deploy_job.wait();
    h.run_steps(2);
    let ranged = Request {
        range: hexsight_editor::jobs::range_of(3),
        ..req
    };
    let want = deploy::deploy(&Engine::new(&m), &ranged, &Control::default()).unwrap();
    assert_eq!(*h.state().planning.deploy_job.latest().unwrap().1, want);
}

#[test]
fn a_cancelled_deploy_search_leaves_no_answer() {
    let rs = std::sync::Arc::new(hexsight_analysis::Ruleset::builtin("combat-commander").unwrap());
    let mut m = Map::new("t", "combat-commander", rs, 8, 8, Default::default());
    m.zones.push(hexsight_analysis::map::NamedZone {
        name: "a".into(),
        zone: "A1:H8".into(),
    });
    let form = hexsight_editor::app::DeployForm {
        zone: "a".into(),
        watch: "a".into(),
        ..Default::default()
    };
    let req = form.request(&m, 0).unwrap();
    let mut job = hexsight_editor::jobs::DeployJobs::default();
    job.search(&m, 1, req.clone(), || {});
    job.cancel();
    job.wait();
    assert!(job.latest().is_none() && !job.busy());
    job.search(&m, 1, req, || {});
    job.wait();
    let (key, _) = job.latest().expect("an answer");
    assert_eq!((key.generation, key.run), (1, 1), "the second run's answer");
    assert!(
        hexsight_editor::app::DeployForm::default()
            .request(&m, 0)
            .is_err(),
        "no zone picked"
    );
}
