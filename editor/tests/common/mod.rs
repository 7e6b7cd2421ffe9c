//! What the editor's window tests share: the demo map, a store in a temporary
//! folder, the app in an egui_kittest harness (no GPU), and where a hex lies on
//! screen. Each test file uses its own part of it.
#![allow(dead_code)]

use egui::{Pos2, vec2};
use egui_kittest::Harness;
use hexsight_analysis::hex::Hex;
use hexsight_editor::EditorApp;
use hexsight_editor::files::Store;
use std::path::{Path, PathBuf};

/// The demo map: a hill, woods, hexsides, markers and units.
pub const DEMO: &str = include_str!("../data/demo-hill.json");

/// A temporary folder holding a copy of the demo map.
pub struct Setup {
    pub dir: tempfile::TempDir,
    pub map: PathBuf,
}

/// The demo map copied into a fresh temporary folder.
pub fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("demo.json");
    std::fs::write(&map, DEMO).unwrap();
    Setup { dir, map }
}

/// The editor with its data in `store`, opening `map`, after its first frames.
pub fn harness(store: &Path, map: Option<PathBuf>) -> Harness<'static, EditorApp> {
    let app = EditorApp::new(Store::new(store.to_path_buf()), map);
    let mut h = Harness::builder()
        .with_size(vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut EditorApp| app.show(ui), app);
    h.run_steps(3);
    h
}

/// The hex of the open map with this label.
pub fn hex(h: &Harness<'_, EditorApp>, label: &str) -> Hex {
    h.state().doc.map().parse_hex(label).unwrap()
}

/// Where that hex's centre is on screen.
pub fn pos(h: &Harness<'_, EditorApp>, label: &str) -> Pos2 {
    h.state().screen_pos(hex(h, label))
}
