//! The file browser, the typed background placement, PNG export with the
//! background and the geo block in map properties, through egui_kittest (no GPU).

mod common;
use common::*;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexsight_analysis::Map;
use hexsight_editor::EditorApp;
use hexsight_editor::app::{Dialog, PathPurpose, PlacementForm, PropertiesForm};
use hexsight_editor::background::Background;
use std::path::{Path, PathBuf};

/// A folder with a subfolder, maps, a picture, a text file and hidden ones.
fn folder() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(root.join("boards")).unwrap();
    std::fs::create_dir(root.join(".cache")).unwrap();
    std::fs::write(
        root.join("boards/north.json"),
        DEMO.replace("Demo hill", "North board"),
    )
    .unwrap();
    std::fs::write(
        root.join("first.json"),
        DEMO.replace("Demo hill", "First map"),
    )
    .unwrap();
    std::fs::write(root.join(".secret.json"), DEMO).unwrap();
    std::fs::write(root.join("notes.txt"), "not a map").unwrap();
    std::fs::write(root.join("scan.png"), "not listed for maps").unwrap();
    (dir, root)
}

fn browse(h: &mut Harness<'_, EditorApp>, purpose: PathPurpose, text: String) {
    h.state_mut().dialog = Some(Dialog::Path { purpose, text });
    h.run_steps(3);
}

fn browser_dir(h: &Harness<'_, EditorApp>) -> PathBuf {
    match &h.state().dialog {
        Some(Dialog::Browse(b)) => b.dir.clone(),
        d => panic!("no browser open: {d:?}"),
    }
}

/// Two clicks 0.1 s apart, on a clock set ahead of every earlier click (the
/// harness's own clock runs a quarter second a frame, too slow for a double-click).
fn double_click(h: &mut Harness<'_, EditorApp>, label: &str) {
    static CLOCK: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let t = 1e6 + 100.0 * f64::from(CLOCK.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    h.input_mut().time = Some(t);
    h.get_by_label(label).click();
    h.step();
    h.input_mut().time = Some(t + 0.1);
    h.get_by_label(label).click();
    h.step();
    h.input_mut().time = None;
    h.run_steps(3);
}

#[test]
fn the_browser_lists_folders_and_maps_goes_in_and_up_and_opens_by_double_click() {
    let (_t, root) = folder();
    let mut h = harness(&root.join("data"), None);
    h.key_press_modifiers(Modifiers::COMMAND, Key::O);
    h.run_steps(3);
    h.get_by_label("Open map");
    // Ctrl+O starts in the working folder; go to ours by typing it.
    browse(&mut h, PathPurpose::Open, format!("{}/", root.display()));
    h.get_by_label("boards/");
    h.get_by_label("first.json");
    for hidden in ["notes.txt", "scan.png", ".secret.json", ".cache/"] {
        assert!(h.query_by_label(hidden).is_none(), "{hidden} listed");
    }
    h.get_by_label("Hidden files").click();
    h.run_steps(2);
    h.get_by_label(".secret.json");
    h.get_by_label(".cache/");
    h.get_by_label("Hidden files").click();
    h.run_steps(2);

    double_click(&mut h, "boards/");
    assert_eq!(browser_dir(&h), root.join("boards"));
    h.get_by_label("north.json");
    assert!(h.query_by_label("first.json").is_none());
    h.get_by_label("Up").click();
    h.run_steps(3);
    assert_eq!(browser_dir(&h), root);
    // A part of the path goes there too.
    double_click(&mut h, "boards/");
    let top = root.file_name().unwrap().to_string_lossy().into_owned();
    h.get_by_label(&top).click();
    h.run_steps(3);
    assert_eq!(browser_dir(&h), root);

    double_click(&mut h, "first.json");
    assert!(h.state().dialog.is_none(), "{:?}", h.state().dialog);
    assert_eq!(h.state().doc.map().name, "First map");
    assert_eq!(
        h.state().doc.path.as_deref(),
        Some(root.join("first.json").as_path())
    );
    // The folder is now a quick pick in the next browser.
    assert_eq!(h.state().store().recent_folders(), vec![root.clone()]);
    browse(
        &mut h,
        PathPurpose::Open,
        format!("{}/", root.join("boards").display()),
    );
    // The path bar's part and the quick pick under Places.
    assert_eq!(h.get_all_by_label(&top).count(), 2);
    h.get_all_by_label(&top).last().unwrap().click();
    h.run_steps(3);
    assert_eq!(browser_dir(&h), root);
}

#[test]
fn the_open_button_and_enter_open_the_picked_file_and_escape_cancels() {
    let (_t, root) = folder();
    let mut h = harness(&root.join("data"), None);
    browse(
        &mut h,
        PathPurpose::Open,
        format!("{}/boards/", root.display()),
    );
    h.get_by_label("north.json").click();
    h.run_steps(2);
    h.get_by_label("Open").click();
    h.run_steps(3);
    assert_eq!(h.state().doc.map().name, "North board");

    browse(&mut h, PathPurpose::Open, format!("{}/", root.display()));
    h.key_press(Key::Escape);
    h.run_steps(2);
    assert!(h.state().dialog.is_none(), "Escape closes the browser");
    assert_eq!(h.state().doc.map().name, "North board");

    browse(&mut h, PathPurpose::Open, format!("{}/", root.display()));
    h.get_by_label("first.json").click();
    h.run_steps(2);
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().doc.map().name, "First map");

    // Typed into the name field: a folder's name goes there, a path opens its file.
    browse(&mut h, PathPurpose::Open, format!("{}/", root.display()));
    let set_name = |h: &mut Harness<'_, EditorApp>, text: &str| {
        if let Some(Dialog::Browse(b)) = &mut h.state_mut().dialog {
            b.name = text.into();
        }
        h.run_steps(1);
        h.key_press(Key::Enter);
        h.run_steps(3);
    };
    set_name(&mut h, "boards");
    assert_eq!(browser_dir(&h), root.join("boards"));
    set_name(&mut h, "missing.json");
    h.get_by_label_contains("There is no file");
    assert!(matches!(h.state().dialog, Some(Dialog::Browse(_))));
    let north = root.join("boards/north.json");
    set_name(&mut h, &north.display().to_string());
    assert!(h.state().dialog.is_none());
    assert_eq!(h.state().doc.map().name, "North board");
    assert_eq!(h.state().doc.path.as_deref(), Some(north.as_path()));
}

#[test]
fn the_browser_is_used_from_the_keyboard() {
    let (_t, root) = folder();
    let mut h = harness(&root.join("data"), None);
    browse(&mut h, PathPurpose::Open, format!("{}/", root.display()));
    // Down picks the first row (the folder), Enter goes in.
    h.key_press(Key::ArrowDown);
    h.run_steps(2);
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(browser_dir(&h), root.join("boards"));
    // Backspace goes back up; down twice picks the folder, then the map after it.
    h.key_press(Key::Backspace);
    h.run_steps(3);
    assert_eq!(browser_dir(&h), root);
    for k in [Key::ArrowDown, Key::ArrowDown] {
        h.key_press(k);
        h.run_steps(1);
    }
    let Some(Dialog::Browse(b)) = &h.state().dialog else {
        panic!("the browser closed");
    };
    assert_eq!(
        b.name, "first.json",
        "a file picked by arrow fills the name"
    );
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().doc.map().name, "First map");
}

#[test]
fn a_folder_that_cannot_be_read_is_a_message_in_the_browser() {
    let (_t, root) = folder();
    let mut h = harness(&root.join("data"), None);
    browse(
        &mut h,
        PathPurpose::Open,
        format!("{}/", root.join("gone").display()),
    );
    h.get_by_label_contains("Cannot read");
    // Up still works from there.
    h.get_by_label("Up").click();
    h.run_steps(3);
    h.get_by_label("first.json");
}

#[test]
fn save_as_onto_an_existing_file_asks_to_replace_and_writes_only_after_yes() {
    let (_t, root) = folder();
    let first = root.join("first.json");
    let mut h = harness(&root.join("data"), Some(root.join("boards/north.json")));
    browse(&mut h, PathPurpose::SaveAs, first.display().to_string());
    h.get_by_label("Save").click();
    h.run_steps(3);
    h.get_by_label("Replace first.json?");
    assert_eq!(Map::load(&first).unwrap().name, "First map", "not yet");
    // Escape answers the question, not the browser.
    h.key_press(Key::Escape);
    h.run_steps(3);
    assert!(h.query_by_label("Replace first.json?").is_none());
    assert!(matches!(h.state().dialog, Some(Dialog::Browse(_))));
    assert_eq!(Map::load(&first).unwrap().name, "First map");
    h.get_by_label("Save").click();
    h.run_steps(3);
    h.get_by_label("Replace").click();
    h.run_steps(3);
    assert!(h.state().dialog.is_none());
    assert_eq!(Map::load(&first).unwrap().name, "North board");
    assert_eq!(h.state().doc.path.as_deref(), Some(first.as_path()));

    // A new name, typed without its extension, is saved at once as .json.
    browse(&mut h, PathPurpose::SaveAs, format!("{}/", root.display()));
    h.get_by_label("File name:");
    save_named(&mut h, "fresh");
    assert_eq!(
        Map::load(&root.join("fresh.json")).unwrap().name,
        "North board"
    );
}

#[test]
fn export_png_onto_an_existing_picture_asks_first() {
    let (_t, root) = folder();
    let pic = root.join("view.png");
    std::fs::write(&pic, "old").unwrap();
    let mut h = harness(&root.join("data"), Some(root.join("first.json")));
    browse(&mut h, PathPurpose::Png, pic.display().to_string());
    h.get_by_label("Export").click();
    h.run_steps(3);
    h.get_by_label("Replace view.png?");
    assert_eq!(std::fs::read(&pic).unwrap(), b"old");
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert!(image::open(&pic).is_ok(), "{}", h.state().status);
}

/// A one-colour picture as the map's background, hex fills fully clear over it.
fn red_background(h: &mut Harness<'_, EditorApp>, dir: &Path) {
    let scan = dir.join("red.png");
    image::RgbaImage::from_pixel(64, 48, image::Rgba([255, 0, 0, 255]))
        .save(&scan)
        .unwrap();
    h.state_mut().set_background(&scan);
    let mut bg = Background::of(h.state().doc.map()).unwrap();
    bg.opacity = 1.0;
    h.state_mut().doc.edit("opaque", |m| bg.store(m));
    h.run_steps(3);
}

/// The exported pixel a little below the centre of hex `label` (clear of its label).
fn pixel(h: &Harness<'_, EditorApp>, img: &egui::ColorImage, label: &str) -> [u8; 4] {
    let app = h.state();
    let c = app.screen_pos(app.doc.map().parse_hex(label).unwrap()) - app.canvas_rect.min;
    let r = app.view.zoom;
    let (x, y) = (
        (c.x * app.export_scale) as usize,
        ((c.y + 0.45 * r) * app.export_scale) as usize,
    );
    img.pixels[y * img.size[0] + x].to_array()
}

#[test]
fn the_png_export_shows_the_background_only_when_asked() {
    let (_t, root) = folder();
    let mut h = harness(&root.join("data"), Some(root.join("first.json")));
    red_background(&mut h, &root);
    let without = h.state().render_view().unwrap();
    h.state_mut().export_background = true;
    let with = h.state().render_view().unwrap();
    let (a, b) = (pixel(&h, &without, "F5"), pixel(&h, &with, "F5"));
    assert_ne!(a, b);
    assert!(
        b[0] > 200 && b[1] < 60 && b[2] < 60,
        "red under clear hexes: {b:?}"
    );
    assert!(
        !(a[0] > 200 && a[1] < 60 && a[2] < 60),
        "no red without it: {a:?}"
    );

    // The same through the export dialog's checkbox.
    h.state_mut().export_background = false;
    let out = root.join("with.png");
    browse(&mut h, PathPurpose::Png, out.display().to_string());
    h.get_by_label("Include the background image").click();
    h.run_steps(2);
    h.get_by_label("Export").click();
    h.run_steps(3);
    let file = image::open(&out).unwrap().to_rgba8();
    assert_eq!(
        file.dimensions(),
        (with.size[0] as u32, with.size[1] as u32)
    );
    let app = h.state();
    let c = app.screen_pos(app.doc.map().parse_hex("F5").unwrap()) - app.canvas_rect.min;
    let p = file.get_pixel(c.x as u32, (c.y + 0.45 * app.view.zoom) as u32);
    assert!(p[0] > 200 && p[1] < 60, "{p:?}");
}

fn placement_round_trip(pointy: bool) {
    let (_t, root) = folder();
    let map = root.join("first.json");
    let mut h = harness(&root.join("data"), Some(map));
    // The demo is flat; the properties form turns it pointy.
    if pointy {
        let mut f = PropertiesForm::of(h.state().doc.map());
        f.layout.orientation = hexsight_analysis::hex::Orientation::Pointy;
        h.state_mut().apply_properties(&f).unwrap();
        h.run_steps(2);
    }
    red_background(&mut h, &root);
    let before = Background::of(h.state().doc.map()).unwrap().placement;
    // View > Place background by numbers...
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Place background by numbers...").click();
    h.run_steps(2);
    let Some(Dialog::Placement(f)) = h.state().dialog.clone() else {
        panic!("no placement form: {:?}", h.state().dialog);
    };
    assert!(
        (f.hex_px - 3f64.sqrt() / before.scale).abs() < 1e-9,
        "{f:?}"
    );
    h.state_mut().dialog = Some(Dialog::Placement(PlacementForm {
        hex_px: 50.0,
        hex: "B2".into(),
        x: 120.0,
        y: 90.0,
        rotation: 0.0,
    }));
    h.run_steps(2);
    h.get_by_label("Apply").click();
    h.run_steps(3);
    assert!(h.state().dialog.is_none());
    let m = h.state().doc.map().clone();
    let p = Background::of(&m).unwrap().placement;
    let at = |l: &str| p.to_image(m.layout.center(m.parse_hex(l).unwrap(), 1.0));
    let b2 = at("B2");
    assert!(
        (b2.0 - 120.0).abs() < 1e-6 && (b2.1 - 90.0).abs() < 1e-6,
        "{b2:?}"
    );
    // Every neighbour of B2 is one hex size away on the picture.
    for l in ["B1", "B3", "A2", "C2"] {
        let q = at(l);
        let d = ((q.0 - b2.0).powi(2) + (q.1 - b2.1).powi(2)).sqrt();
        assert!((d - 50.0).abs() < 1e-6, "{l}: {d}");
    }
    // The form reads the new placement back.
    let again = PlacementForm::of(&m, &p);
    assert!((again.hex_px - 50.0).abs() < 1e-9 && again.rotation == 0.0);
    assert_eq!(h.state().doc.undo_label(), Some("Place background"));
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(
        Background::of(h.state().doc.map()).unwrap().placement,
        before
    );
}

#[test]
fn the_typed_placement_moves_the_picture_and_undo_restores_it_flat() {
    placement_round_trip(false);
}

#[test]
fn the_typed_placement_moves_the_picture_and_undo_restores_it_pointy() {
    placement_round_trip(true);
}

#[test]
fn a_rotated_typed_placement_turns_the_picture() {
    let (_t, root) = folder();
    let mut h = harness(&root.join("data"), Some(root.join("first.json")));
    red_background(&mut h, &root);
    let f = PlacementForm {
        hex_px: 40.0,
        hex: "A1".into(),
        x: 10.0,
        y: 10.0,
        rotation: 90.0,
    };
    h.state_mut().apply_placement(&f).unwrap();
    let m = h.state().doc.map().clone();
    let p = Background::of(&m).unwrap().placement;
    assert!((p.rotation - 90.0).abs() < 1e-9);
    // A picture turned 90 degrees clockwise: its +x runs down the map.
    let a = p.to_map((10.0, 10.0));
    let b = p.to_map((50.0, 10.0));
    assert!((b.0 - a.0).abs() < 1e-9 && b.1 > a.1, "{a:?} {b:?}");
    assert!(
        h.state_mut()
            .apply_placement(&PlacementForm { hex_px: 0.0, ..f })
            .is_err()
    );
}

#[test]
fn the_geo_block_is_edited_in_properties_undone_and_saved() {
    let (_t, root) = folder();
    let path = root.join("first.json");
    let mut h = harness(&root.join("data"), Some(path.clone()));
    assert!(h.state().doc.map().geo.is_none());
    let mut f = PropertiesForm::of(h.state().doc.map());
    f.epsg = 32632;
    f.origin = (500_000.0, 5_400_000.5);
    f.geo_hex = 250.0;
    h.state_mut().dialog = Some(Dialog::Properties(f));
    h.run_steps(2);
    h.get_by_label("Georeferenced").click_accesskit();
    h.run_steps(2);
    // The grown dialog still fits the editor's default window (860 points high).
    let apply = h.get_by_label("Apply").rect();
    assert!(apply.max.y <= 860.0, "{apply:?}");
    h.run_steps(2);
    h.get_by_label("Apply").click_accesskit();
    h.run_steps(3);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    let g = h.state().doc.map().geo.clone().expect("georeferenced");
    assert_eq!(
        (g.epsg, g.origin, g.hex_size),
        (32632, (500_000.0, 5_400_000.5), 250.0)
    );
    assert_eq!(h.state().doc.undo_label(), Some("Georeference"));

    assert!(h.state_mut().save_to(&path));
    let back = Map::load(&path).unwrap();
    assert_eq!(back.geo, Some(g.clone()));
    h.state_mut().open(&path);
    h.run_steps(2);
    assert_eq!(PropertiesForm::of(h.state().doc.map()).epsg, 32632);

    // A geographic CRS is refused, and nothing changes.
    let mut bad = PropertiesForm::of(h.state().doc.map());
    bad.epsg = 4326;
    bad.name = "renamed".into();
    let err = h.state_mut().apply_properties(&bad).unwrap_err();
    assert!(err.contains("geographic"), "{err}");
    assert_eq!(h.state().doc.map().name, "First map");

    // Unticking removes it; undo brings it back.
    let mut off = PropertiesForm::of(h.state().doc.map());
    off.georeferenced = false;
    h.state_mut().apply_properties(&off).unwrap();
    assert!(h.state().doc.map().geo.is_none());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().doc.map().geo, Some(g));
}

#[test]
fn combine_and_background_pick_their_files_in_the_browser() {
    let (_t, root) = folder();
    let scan = root.join("scan.jpg");
    image::RgbImage::from_pixel(8, 8, image::Rgb([10, 200, 10]))
        .save(&scan)
        .unwrap();
    let mut h = harness(&root.join("data"), Some(root.join("first.json")));
    browse(
        &mut h,
        PathPurpose::Combine,
        format!("{}/boards/", root.display()),
    );
    double_click(&mut h, "north.json");
    assert!(
        matches!(h.state().dialog, Some(Dialog::Combine(_))),
        "{:?}",
        h.state().dialog
    );
    h.state_mut().dialog = None;
    h.run_steps(2);
    // Pictures only: the maps are not offered for a background.
    browse(
        &mut h,
        PathPurpose::Background,
        format!("{}/", root.display()),
    );
    assert!(h.query_by_label("first.json").is_none());
    h.get_by_label("scan.png");
    double_click(&mut h, "scan.jpg");
    assert!(h.state().dialog.is_none());
    assert_eq!(
        Background::of(h.state().doc.map()).unwrap().image,
        "scan.jpg"
    );
}

/// Types `name` in the open browser's file-name field and presses Enter, which saves
/// (the browser closes).
fn save_named(h: &mut Harness<'_, EditorApp>, name: &str) {
    if let Some(Dialog::Browse(b)) = &mut h.state_mut().dialog {
        b.name = name.into();
    }
    h.run_steps(2);
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert!(h.state().dialog.is_none(), "{:?}", h.state().dialog);
}

fn new_folder_name(h: &mut Harness<'_, EditorApp>, name: &str) {
    match &mut h.state_mut().dialog {
        Some(Dialog::Browse(b)) => b.new_folder = Some(name.into()),
        d => panic!("no browser open: {d:?}"),
    }
    h.run_steps(2);
}

fn browser_message(h: &Harness<'_, EditorApp>) -> Option<String> {
    match &h.state().dialog {
        Some(Dialog::Browse(b)) => b.message.clone(),
        d => panic!("no browser open: {d:?}"),
    }
}

/// Save as can make a folder and save into it: New folder opens a row, a taken or
/// bad name is refused with a message, Enter makes the folder and shows it, Escape
/// drops the row and leaves the browser open; Open has no New folder.
#[test]
fn save_as_makes_a_new_folder_and_saves_into_it() {
    let (_t, root) = folder();
    let mut h = harness(&root.join("data"), Some(root.join("first.json")));
    browse(&mut h, PathPurpose::SaveAs, format!("{}/", root.display()));
    h.get_by_label("New folder").click();
    h.run_steps(3);
    h.get_by_label("Make folder");
    new_folder_name(&mut h, "boards");
    h.key_press(Key::Enter);
    h.run_steps(3);
    let m = browser_message(&h).unwrap_or_default();
    assert!(m.contains("Could not make the folder boards"), "{m}");
    assert_eq!(browser_dir(&h), root);
    new_folder_name(&mut h, "a/b");
    h.get_by_label("Make folder").click();
    h.run_steps(3);
    assert_eq!(
        browser_message(&h).as_deref(),
        Some("a/b is not a folder name")
    );
    assert!(!root.join("a").exists());
    new_folder_name(&mut h, "scenario 2");
    h.key_press(Key::Enter);
    h.run_steps(3);
    let made = root.join("scenario 2");
    assert!(made.is_dir());
    assert_eq!(browser_dir(&h), made);
    assert!(h.query_by_label("Make folder").is_none(), "the row closes");
    // Escape drops a New folder row, not the browser.
    h.get_by_label("New folder").click();
    h.run_steps(3);
    h.key_press(Key::Escape);
    h.run_steps(3);
    assert!(h.query_by_label("Make folder").is_none());
    assert!(matches!(h.state().dialog, Some(Dialog::Browse(_))));
    save_named(&mut h, "fresh");
    assert_eq!(
        Map::load(&made.join("fresh.json")).unwrap().name,
        "First map"
    );
    browse(&mut h, PathPurpose::Open, format!("{}/", root.display()));
    assert!(
        h.query_by_label("New folder").is_none(),
        "reading makes no folder"
    );
}

/// File > Import MegaMek board: a `.board` becomes a new battletech map, unsaved (so
/// closing asks first), and the status bar says what did not convert.
#[test]
fn a_megamek_board_imports_as_a_new_unsaved_map() {
    let (_t, root) = folder();
    let boards = Path::new(env!("CARGO_MANIFEST_DIR")).join("../maps/megamek");
    let boards = std::fs::canonicalize(boards).unwrap();
    let mut h = harness(&root.join("data"), None);
    h.state_mut().run(
        &egui::Context::default(),
        hexsight_editor::commands::Command::ImportBoard,
    );
    h.run_steps(3);
    browse(
        &mut h,
        PathPurpose::ImportBoard,
        format!("{}/", boards.display()),
    );
    h.get_by_label("Import MegaMek board");
    assert!(
        h.query_by_label("ridge.board").is_some(),
        "boards are listed"
    );
    double_click(&mut h, "foothills.board");
    let want = hexsight_analysis::import::megamek::import(
        &std::fs::read_to_string(boards.join("foothills.board")).unwrap(),
        &boards.join("foothills.board"),
        "foothills",
        "battletech",
        std::sync::Arc::new(hexsight_analysis::Ruleset::builtin("battletech").unwrap()),
    )
    .unwrap()
    .map;
    let app = h.state();
    assert!(app.status.starts_with("Imported"), "{}", app.status);
    let doc = &app.doc;
    assert_eq!(doc.map().name, "foothills");
    assert_eq!(
        doc.map().to_json(),
        want.to_json(),
        "the board as `import megamek` reads it"
    );
    assert!(doc.path.is_none() && doc.is_dirty(), "a new, unsaved map");
}

/// A 40x30 GeoTIFF DEM of 10 m pixels in UTM 31N: a slope rising east.
fn write_dem(path: &Path) {
    use tiff::encoder::{TiffEncoder, colortype::Gray32Float};
    use tiff::tags::Tag;
    let (w, h) = (40u32, 30u32);
    let v: Vec<f32> = (0..w * h).map(|i| (i % w) as f32 * 2.0).collect();
    let mut enc = TiffEncoder::new(std::fs::File::create(path).unwrap()).unwrap();
    let mut img = enc.new_image::<Gray32Float>(w, h).unwrap();
    let e = img.encoder();
    e.write_tag(Tag::ModelPixelScaleTag, &[10.0, 10.0, 0.0][..])
        .unwrap();
    e.write_tag(
        Tag::ModelTiepointTag,
        &[0.0, 0.0, 0.0, 500_000.0, 5_001_000.0, 0.0][..],
    )
    .unwrap();
    let keys: [u16; 16] = [1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32631];
    e.write_tag(Tag::GeoKeyDirectoryTag, &keys[..]).unwrap();
    img.write_data(&v).unwrap();
}

/// File > Import DEM: the browser picks a GeoTIFF, the form takes `import dem`'s options,
/// and Import opens the map the library makes of them, new and unsaved.
#[test]
fn a_dem_imports_through_its_form_as_a_new_unsaved_map() {
    use hexsight_analysis::import::dem;
    let (_t, root) = folder();
    write_dem(&root.join("slope.tif"));
    let mut h = harness(&root.join("data"), None);
    browse(
        &mut h,
        PathPurpose::ImportDem,
        format!("{}/", root.display()),
    );
    h.get_by_label("Import DEM (GeoTIFF)");
    double_click(&mut h, "slope.tif");
    let form = match &h.state().dialog {
        Some(Dialog::ImportDem(f)) => f.clone(),
        d => panic!("no DEM form: {d:?}"),
    };
    assert_eq!(form.hex_size, 100.0, "ten pixels by default");
    // The form's fields, as a user would set them.
    if let Some(Dialog::ImportDem(f)) = &mut h.state_mut().dialog {
        f.hex_size = 50.0;
        f.level_height = 5.0;
        f.sample = dem::Sample::Max;
    }
    h.run_steps(2);
    h.get_by_label("Import").click();
    h.run_steps(3);
    assert!(h.state().dialog.is_none(), "the form closes");
    let raster = hexsight_analysis::import::geotiff::read(&root.join("slope.tif"), "DEM").unwrap();
    let want = dem::import(
        &raster,
        None,
        &dem::Options {
            name: "slope".into(),
            ruleset_ref: "geometric".into(),
            ruleset: std::sync::Arc::new(hexsight_analysis::Ruleset::builtin("geometric").unwrap()),
            hex_size: 50.0,
            level_height: 5.0,
            sample: dem::Sample::Max,
            orientation: hexsight_analysis::hex::Orientation::Flat,
        },
    )
    .unwrap()
    .map;
    let app = h.state();
    assert!(app.status.starts_with("Imported"), "{}", app.status);
    assert_eq!(app.doc.map().to_json(), want.to_json());
    assert!(
        app.doc.path.is_none() && app.doc.is_dirty(),
        "a new, unsaved map"
    );
}
