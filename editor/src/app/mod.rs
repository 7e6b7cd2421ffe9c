//! The eframe app: state, commands and the frame loop; the panels, the canvas
//! input and the dialogs live in the child modules. Map changes go through
//! [`crate::tools`], analysis through [`crate::jobs`], files through [`crate::files`].

mod boards;
mod browser;
mod dialogs;
mod editing;
mod hex_panel;
mod import;
mod layers;
mod los;
mod overlays;
mod panels;
mod planning;
mod properties;
mod trace;

use crate::canvas::{self, EguiSurface, Overlay, Scene, SvgSurface, View};
use crate::commands::Command;
use crate::document::Document;
use crate::files::{self, Recovery, Store};
use crate::jobs::{JobKey, JobKind, JobOutput, Polled};
use crate::stamp::Stamp;
use crate::tools::{self, LevelMode, Tool, ToolSettings};
pub use boards::CombineForm;
pub use browser::{Browser, Outcome};
use egui::{Color32, Key, PointerButton, Pos2, Rect, RichText, Sense, Ui, vec2};
pub use hex_panel::HexPanel;
use hexsight_analysis::hex::{Hex, HexLine, Layout, Orientation, Side, Stagger};
use hexsight_analysis::{LosResult, Map, Ruleset};
pub use import::DemForm;
pub use los::LosPanel;
pub use overlays::{DiffBase, OverlayPanel};
pub use planning::{DeployForm, Planning};
pub use properties::PropertiesForm;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use trace::{Calibration, PlacementForm};

/// The canvas background in exports.
const EXPORT_BACKGROUND: Color32 = Color32::from_rgb(0x2b, 0x2d, 0x31);

/// Seconds between autosaves of unsaved work.
pub const AUTOSAVE_SECS: u64 = 10;

/// An open dialog.
#[derive(Clone, Debug)]
pub enum Dialog {
    /// Ask for a path, then run the action with it: opens the file browser
    /// at `text` (a folder, or a file whose name fills the name field).
    Path {
        /// What the path is for.
        purpose: PathPurpose,
        /// Where the browser starts.
        text: String,
    },
    /// The file browser under way.
    Browse(Box<Browser>),
    /// The background placement typed as numbers.
    Placement(PlacementForm),
    /// New map settings.
    NewMap(NewMapForm),
    /// Map name and scale.
    Properties(PropertiesForm),
    /// Place another board beside the map.
    Combine(CombineForm),
    /// How to lay hexes over a DEM being imported.
    ImportDem(DemForm),
    /// Save, discard or cancel before `pending` runs.
    Unsaved,
    /// Offer recovery of autosaved work.
    Recovery,
}

/// Why a path is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathPurpose {
    /// Open a map.
    Open,
    /// Import a MegaMek board.
    ImportBoard,
    /// Import a GeoTIFF DEM.
    ImportDem,
    /// Save the map here.
    SaveAs,
    /// Export PNG here.
    Png,
    /// Export SVG here.
    Svg,
    /// Pick the board to combine with.
    Combine,
    /// Pick a background picture.
    Background,
    /// Load a scenario layer.
    Layer,
}

/// The new-map form.
#[derive(Clone, Debug)]
pub struct NewMapForm {
    /// Map name.
    pub name: String,
    /// Columns.
    pub cols: u32,
    /// Rows.
    pub rows: u32,
    /// Flat or pointy top.
    pub orientation: Orientation,
    /// Which columns/rows are shifted.
    pub stagger: Stagger,
    /// Built-in ruleset name or a ruleset file path.
    pub ruleset: String,
}

impl Default for NewMapForm {
    fn default() -> Self {
        NewMapForm {
            name: "New map".into(),
            cols: 15,
            rows: 10,
            orientation: Orientation::Flat,
            stagger: Stagger::Odd,
            ruleset: "combat-commander".into(),
        }
    }
}

struct Stroke {
    last: Option<Hex>,
    touched: HashSet<Hex>,
    slope: bool,
}

impl Stroke {
    /// A stroke not yet at any hex; `slope` is what the Slope tool sets.
    fn new(slope: bool) -> Stroke {
        Stroke {
            last: None,
            touched: HashSet::new(),
            slope,
        }
    }
}

/// The editor.
pub struct EditorApp {
    /// The open map.
    pub doc: Document,
    /// Zoom and pan.
    pub view: View,
    fit_pending: bool,
    /// The active tool.
    pub tool: Tool,
    prev_tool: Tool,
    /// Tool options.
    pub settings: ToolSettings,
    /// Show hex labels.
    pub labels: bool,
    /// Show the legend on the canvas.
    pub legend: bool,
    /// The selected hex: source of the overlays.
    pub selected: Option<Hex>,
    /// The LOS panel: the tool's ends and their line, with its profile.
    pub line_of_sight: LosPanel,
    /// Range, zones and deployment (`planning`).
    pub planning: Planning,
    /// The overlay panel: the overlay shown, its options and its jobs.
    pub overlays: OverlayPanel,
    store: Store,
    /// The open dialog.
    pub dialog: Option<Dialog>,
    pending: Option<Command>,
    /// The last message in the status bar.
    pub status: String,
    /// An error shown in a modal until dismissed (a failed load, a failed save).
    pub error: Option<String>,
    /// A save held back because another program changed the file since it was
    /// read or written here: the window asks to overwrite, reload or cancel.
    pub conflict: Option<PathBuf>,
    recoveries: Vec<Recovery>,
    stroke: Option<Stroke>,
    /// The canvas rectangle in the last frame.
    pub canvas_rect: Rect,
    hover: Option<Hex>,
    hover_side: Option<Side>,
    /// The hex panel: the unit being edited.
    pub hex: HexPanel,
    last_autosave: Instant,
    autosaved_generation: Option<u64>,
    /// PNG export scale: pixels per point of the canvas (2: twice the screen size).
    pub export_scale: f32,
    /// The background picture, loaded.
    picture: Option<trace::Picture>,
    /// A background calibration under way.
    pub calibrating: Option<Calibration>,
    allow_close: bool,
    title: String,
    /// Exports to run once the first frames are drawn (command line).
    pub script: Option<Script>,
    /// PNG export draws the background picture too.
    pub export_background: bool,
    show_help: bool,
    frame: u64,
    /// Where painting goes: a layer (index into the document's layers) or the map (`None`).
    pub target: Option<usize>,
    /// The last layer file that could not be loaded, in one line.
    pub layer_problem: Option<String>,
}

/// Exports requested on the command line, run after the window has drawn.
#[derive(Clone, Debug, Default)]
pub struct Script {
    /// Write the view as PNG here.
    pub png: Option<PathBuf>,
    /// Write the view as SVG here.
    pub svg: Option<PathBuf>,
    /// Quit when done.
    pub quit: bool,
}

impl EditorApp {
    /// An editor with its files in `store`, opening `path` if given.
    pub fn new(store: Store, path: Option<PathBuf>) -> EditorApp {
        let mut app = EditorApp {
            doc: Document::new(
                blank_map(&NewMapForm::default()).expect("the built-in ruleset exists"),
                None,
            ),
            view: View::default(),
            fit_pending: true,
            tool: Tool::Select,
            prev_tool: Tool::Terrain,
            settings: ToolSettings::default(),
            labels: true,
            legend: true,
            selected: None,
            line_of_sight: LosPanel::default(),
            planning: Planning::default(),
            overlays: OverlayPanel::default(),
            store,
            dialog: None,
            pending: None,
            status: "Ready".into(),
            error: None,
            conflict: None,
            recoveries: Vec::new(),
            stroke: None,
            canvas_rect: Rect::from_min_size(Pos2::ZERO, vec2(800.0, 600.0)),
            hover: None,
            hover_side: None,
            hex: HexPanel::default(),
            last_autosave: Instant::now(),
            autosaved_generation: None,
            export_scale: 1.0,
            picture: None,
            calibrating: None,
            allow_close: false,
            title: String::new(),
            script: None,
            export_background: false,
            show_help: false,
            frame: 0,
            target: None,
            layer_problem: None,
        };
        app.settings.terrain = app.doc.map().ruleset.terrain.len().min(2).saturating_sub(1) as u16;
        app.recoveries = app.store.leftover_recoveries();
        if !app.recoveries.is_empty() {
            app.dialog = Some(Dialog::Recovery);
        }
        if let Some(p) = path {
            app.open(&p);
        }
        app
    }

    /// The file store (recent files, autosave).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The LOS currently shown, if any.
    pub fn los(&self) -> Option<&LosResult> {
        self.line_of_sight.los()
    }

    /// The profile of the line the LOS panel shows.
    pub fn profile(&self) -> Option<&hexsight_analysis::query::profile::Profile> {
        self.line_of_sight.profile()
    }

    /// The screen position of a hex centre on the canvas (for tests and scripting).
    pub fn screen_pos(&self, h: Hex) -> Pos2 {
        self.view
            .to_screen(self.canvas_rect.min, self.doc.map().layout.center(h, 1.0))
    }

    // ----- files -------------------------------------------------------------

    /// Opens a map; a failure leaves the current map and shows the loader's message.
    pub fn open(&mut self, path: &Path) {
        // Stamped before reading: a change in between shows as a change at save (asks; never lost).
        let disk = Stamp::read(path);
        match files::load_map(path) {
            Ok((map, problems)) => {
                let mut doc = Document::new(map, Some(path.to_path_buf()));
                doc.disk = disk;
                self.set_document(doc);
                let _ = self.store.add_recent(path);
                self.status = format!("Opened {}", path.display());
                if let Some(p) = problems {
                    self.error = Some(format!(
                        "Opened {}, but some units break their rules; fix them with the unit tool:\n\n{p}",
                        path.display()
                    ));
                }
            }
            Err(e) => {
                self.error = Some(format!("Could not open {}:\n\n{e}", path.display()));
                self.status = "Open failed".into();
            }
        }
    }

    fn set_document(&mut self, doc: Document) {
        self.doc = doc;
        self.overlays.jobs.clear();
        self.fit_pending = true;
        self.selected = None;
        self.line_of_sight.clear();
        self.stroke = None;
        self.hex.editing_unit = None;
        self.autosaved_generation = None;
        self.target = None;
        self.layer_problem = None;
        self.forget_planning();
        self.fit_settings();
    }

    /// Keeps the tool settings within the map's ruleset (after a new map or a reload).
    fn fit_settings(&mut self) {
        let rs = &self.doc.map().ruleset;
        self.settings.terrain = self
            .settings
            .terrain
            .min(rs.terrain.len().saturating_sub(1) as u16);
        self.settings.hexside = self
            .settings
            .hexside
            .min(rs.hexsides.len().saturating_sub(1) as u16);
        self.settings.marker = self
            .settings
            .marker
            .min(rs.markers.len().saturating_sub(1) as u16);
        self.settings.level = self.settings.level.clamp(rs.levels.min, rs.levels.max);
    }

    /// Saves to `path`; returns whether it worked. A save over the map's own
    /// file that another program changed meanwhile is held back and asked
    /// about ([`EditorApp::conflict`]).
    pub fn save_to(&mut self, path: &Path) -> bool {
        self.doc.commit();
        // Only layers changed: their files are written and the map file is left alone.
        if !self.doc.map_dirty()
            && self.doc.path.as_deref() == Some(path)
            && !self.doc.dirty_layers().is_empty()
        {
            return self.save_layers();
        }
        if self.changed_on_disk(path) {
            self.conflict = Some(path.to_path_buf());
            self.status = format!("Not saved: {} changed on disk", path.display());
            return false;
        }
        self.write_to(path)
    }

    /// True when `path` is the map's own file and no longer holds what was read or written here.
    pub fn changed_on_disk(&self, path: &Path) -> bool {
        self.doc.path.as_deref() == Some(path) && self.doc.disk.is_some_and(|s| s.changed(path))
    }

    /// Writes the map to `path` without the change-on-disk check. A failure
    /// (read-only folder, full disk) is shown in the window and the work stays
    /// open and marked unsaved (so autosaves go on).
    fn write_to(&mut self, path: &Path) -> bool {
        match files::save_map(self.doc.file_map(), path) {
            Ok(saved) => {
                if let Some(w) = saved.warning {
                    self.error = Some(w);
                }
                self.doc.mark_saved(path.to_path_buf(), saved.stamp);
                self.store.clear_autosave();
                self.autosaved_generation = None;
                let _ = self.store.add_recent(path);
                self.status = format!("Saved {}", path.display());
                self.save_layers()
            }
            Err(e) => {
                self.error = Some(format!(
                    "Could not save {}:\n\n{e}\n\nYour changes are still open and unsaved; \
                     save them elsewhere with Save as.",
                    path.display()
                ));
                self.status = format!("Not saved: {e}");
                // What was waiting for this save (quit, open) must not run now.
                self.pending = None;
                false
            }
        }
    }

    /// Replaces the map with its file's content as one undo step (the file
    /// changed on disk and the user chose to reload).
    fn reload(&mut self, path: &Path) {
        let disk = Stamp::read(path);
        match files::load_map(path) {
            Ok((map, problems)) => {
                let resized = (map.cols, map.rows) != (self.doc.map().cols, self.doc.map().rows);
                self.end_stroke();
                self.doc.reload(map, disk);
                self.fit_settings();
                self.fit_pending |= resized;
                self.status = format!(
                    "Reloaded {} from disk (undo brings back your version)",
                    path.display()
                );
                if let Some(p) = problems {
                    self.error = Some(format!("Some units break their rules:\n\n{p}"));
                }
            }
            Err(e) => {
                self.error = Some(format!("Could not reload {}:\n\n{e}", path.display()));
            }
        }
    }

    fn autosave(&mut self, force: bool) {
        if !self.doc.is_dirty() || self.doc.editing() {
            return;
        }
        let due = force || self.last_autosave.elapsed() >= Duration::from_secs(AUTOSAVE_SECS);
        if due && self.autosaved_generation != Some(self.doc.generation()) {
            match self
                .store
                .autosave(self.doc.file_map(), self.doc.path.as_deref(), self.doc.disk)
            {
                Ok(()) => self.autosaved_generation = Some(self.doc.generation()),
                Err(e) => self.status = format!("Autosave failed: {e}"),
            }
            self.last_autosave = Instant::now();
        }
    }

    /// Draws the canvas view (map, overlay, LOS, legend) on a page the size of the
    /// canvas, from 0,0: the one drawing behind both exports.
    fn draw_view(&self, s: &mut impl canvas::Surface) {
        self.draw_scene(s);
        self.draw_view_legend(s);
    }

    /// The map, overlay and LOS of [`Self::draw_view`], without the legend.
    fn draw_scene(&self, s: &mut impl canvas::Surface) {
        let overlay = self.overlay_data();
        let scene = Scene {
            map: self.doc.map(),
            view: self.view,
            rect: Rect::from_min_size(Pos2::ZERO, self.canvas_rect.size()),
            labels: self.labels,
            overlay: overlay.as_ref().map(|(o, d, s)| (*o, d.as_ref(), *s)),
            los: self.los(),
            hover: None,
            selected: self.selected,
            brush: &[],
            side: None,
        };
        scene.draw(s);
        self.draw_planning(s, Pos2::ZERO);
    }

    /// The legend of [`Self::draw_view`], drawn over the scene.
    fn draw_view_legend(&self, s: &mut impl canvas::Surface) {
        if self.legend {
            canvas::draw_legend(s, self.doc.map(), self.overlays.shown, Pos2::new(8.0, 8.0));
        }
    }

    /// Writes the canvas view as SVG.
    pub fn export_svg(&mut self, path: &Path) {
        let mut svg = SvgSurface::default();
        self.draw_view(&mut svg);
        let text = svg.finish(self.canvas_rect.size(), EXPORT_BACKGROUND);
        match hexsight_analysis::map::write_atomic(path, text.as_bytes()) {
            Ok(()) => self.status = format!("Exported {}", path.display()),
            Err(e) => self.error = Some(format!("Could not export {}:\n\n{e}", path.display())),
        }
    }

    /// Renders the canvas view without a window at `export_scale` pixels per
    /// point, over the background picture when `export_background` asks.
    pub fn render_view(&self) -> Result<egui::ColorImage, String> {
        let size = self.canvas_rect.size();
        let picture = if self.export_background {
            self.export_picture()?
        } else {
            None
        };
        crate::export::render(size, self.export_scale, EXPORT_BACKGROUND, |s| {
            s.fill_alpha = picture.map_or(1.0, |p| p.paint(s, &self.view));
            self.draw_scene(s);
            // The legend stays opaque, as on the canvas.
            s.fill_alpha = 1.0;
            self.draw_view_legend(s);
        })
    }

    /// Writes the canvas view as PNG, rendered headless at `export_scale`.
    pub fn export_png(&mut self, path: &Path) {
        match self
            .render_view()
            .and_then(|img| crate::export::save_png(&img, path).map(|()| img.size))
        {
            Ok([w, h]) => self.status = format!("Exported {} ({w} x {h} pixels)", path.display()),
            Err(e) => self.error = Some(format!("Could not export {}:\n\n{e}", path.display())),
        }
    }

    // ----- commands ----------------------------------------------------------

    fn needs_confirmation(cmd: &Command) -> bool {
        matches!(
            cmd,
            Command::New
                | Command::Open
                | Command::OpenPath(_)
                | Command::ImportBoard
                | Command::ImportDem
                | Command::Quit
        )
    }

    /// Runs a command; those that would drop unsaved work ask first.
    pub fn run(&mut self, ctx: &egui::Context, cmd: Command) {
        if Self::needs_confirmation(&cmd) && self.doc.is_dirty() {
            self.doc.commit();
            self.pending = Some(cmd);
            self.dialog = Some(Dialog::Unsaved);
            return;
        }
        self.run_confirmed(ctx, cmd);
    }

    fn run_confirmed(&mut self, ctx: &egui::Context, cmd: Command) {
        match cmd {
            Command::New => self.dialog = Some(Dialog::NewMap(NewMapForm::default())),
            Command::Open => {
                self.dialog = Some(Dialog::Path {
                    purpose: PathPurpose::Open,
                    text: self.dir_hint(),
                })
            }
            Command::OpenPath(p) => self.open(&p),
            Command::ImportBoard => {
                self.dialog = Some(Dialog::Path {
                    purpose: PathPurpose::ImportBoard,
                    text: self.dir_hint(),
                })
            }
            Command::ImportDem => {
                self.dialog = Some(Dialog::Path {
                    purpose: PathPurpose::ImportDem,
                    text: self.dir_hint(),
                })
            }
            Command::Save => match self.doc.path.clone() {
                Some(p) => {
                    self.save_to(&p);
                }
                None => {
                    self.dialog = Some(Dialog::Path {
                        purpose: PathPurpose::SaveAs,
                        text: self.dir_hint(),
                    })
                }
            },
            Command::SaveAs => {
                let text = self
                    .doc
                    .path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| self.dir_hint());
                self.dialog = Some(Dialog::Path {
                    purpose: PathPurpose::SaveAs,
                    text,
                });
            }
            Command::ExportPng => {
                self.dialog = Some(Dialog::Path {
                    purpose: PathPurpose::Png,
                    text: self.export_hint("png"),
                })
            }
            Command::ExportSvg => {
                self.dialog = Some(Dialog::Path {
                    purpose: PathPurpose::Svg,
                    text: self.export_hint("svg"),
                })
            }
            Command::Combine => {
                self.dialog = Some(Dialog::Path {
                    purpose: PathPurpose::Combine,
                    text: self.dir_hint(),
                })
            }
            Command::Background => {
                self.dialog = Some(Dialog::Path {
                    purpose: PathPurpose::Background,
                    text: self.dir_hint(),
                })
            }
            Command::Properties => {
                self.dialog = Some(Dialog::Properties(PropertiesForm::of(self.doc.map())))
            }
            Command::Quit => {
                self.allow_close = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            Command::Undo => {
                self.end_stroke();
                let label = self.doc.undo_label().map(str::to_string);
                self.status = if self.doc.undo() {
                    format!("Undid {}", label.unwrap_or_default())
                } else {
                    "Nothing to undo".into()
                };
            }
            Command::Redo => {
                self.end_stroke();
                let label = self.doc.redo_label().map(str::to_string);
                self.status = if self.doc.redo() {
                    format!("Redid {}", label.unwrap_or_default())
                } else {
                    "Nothing to redo".into()
                };
            }
            Command::ResetZoom => self.fit_pending = true,
            Command::ZoomIn => self.view.zoom_at(self.canvas_rect.size() / 2.0, 1.25),
            Command::ZoomOut => self.view.zoom_at(self.canvas_rect.size() / 2.0, 0.8),
            Command::ToggleLabels => self.labels = !self.labels,
            Command::Tool(t) => self.set_tool(t),
            Command::Brush(n) => self.settings.brush = n.clamp(1, 3),
            Command::Help => self.show_help = !self.show_help,
            Command::PrevKind | Command::NextKind => {
                let step = if cmd == Command::NextKind { 1 } else { -1 };
                let rs = self.doc.map().ruleset.clone();
                let cycle = |i: u16, n: usize| {
                    if n == 0 {
                        0
                    } else {
                        (i as i64 + step).rem_euclid(n as i64) as u16
                    }
                };
                match self.tool {
                    Tool::Hexside => {
                        self.settings.hexside = cycle(self.settings.hexside, rs.hexsides.len())
                    }
                    Tool::Marker => {
                        self.settings.marker = cycle(self.settings.marker, rs.markers.len())
                    }
                    _ => self.settings.terrain = cycle(self.settings.terrain, rs.terrain.len()),
                }
            }
            Command::CancelJob => {
                if self.overlays.jobs.busy() {
                    self.overlays.jobs.cancel();
                    self.overlays.shown = None;
                    self.status = "Analysis cancelled".into();
                }
            }
        }
    }

    fn dir_hint(&self) -> String {
        let dir = self
            .doc
            .path
            .as_ref()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        let mut s = dir.display().to_string();
        if !s.ends_with('/') {
            s.push('/');
        }
        s
    }

    fn export_hint(&self, ext: &str) -> String {
        match &self.doc.path {
            Some(p) => p.with_extension(ext).display().to_string(),
            None => format!("{}map.{ext}", self.dir_hint()),
        }
    }

    /// Picks a tool (remembering the previous one for the eyedropper).
    pub fn set_tool(&mut self, t: Tool) {
        self.end_stroke();
        if t != self.tool {
            self.prev_tool = self.tool;
        }
        self.tool = t;
    }

    fn end_stroke(&mut self) {
        if self.stroke.take().is_some() {
            self.doc.commit();
        }
    }

    // ----- frame -------------------------------------------------------------

    /// The whole UI for one frame (eframe's `ui` and the tests call this).
    pub fn show(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        let mut cmds: Vec<Command> = Vec::new();

        self.doc.refresh();
        self.note_change();
        self.handle_close_request(&ctx);
        self.handle_shortcuts(&ctx, &mut cmds);
        self.handle_dropped_files(&ctx, &mut cmds);
        match self.overlays.jobs.poll() {
            Polled::Ready => self.status = "Overlay ready".into(),
            Polled::Refused(why) => self.status = format!("No overlay: {why}"),
            Polled::Nothing => {}
        }
        self.poll_planning();

        egui::Panel::top("menu").show(ui, |ui| self.menu_bar(ui, &mut cmds));
        egui::Panel::bottom("status").show(ui, |ui| self.status_bar(ui));
        egui::Panel::left("tools")
            .resizable(true)
            .default_size(230.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.tool_panel(ui, &mut cmds));
            });
        egui::Panel::right("inspector")
            .resizable(true)
            .default_size(320.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.inspector(ui, &mut cmds));
            });
        egui::CentralPanel::no_frame().show(ui, |ui| self.canvas(ui));

        self.help_window(&ctx);
        self.calibration_window(&ctx);
        self.dialogs(&ctx);
        for c in cmds {
            self.run(&ctx, c);
        }
        self.line_of_sight
            .update(self.doc.map(), self.doc.generation(), self.planning.range);
        self.request_overlay(&ctx);
        self.autosave(false);
        self.run_script(&ctx);
        if self.doc.is_dirty() {
            ctx.request_repaint_after(Duration::from_secs(AUTOSAVE_SECS));
        }
        if self.overlays.jobs.busy() {
            ctx.request_repaint_after(Duration::from_millis(100));
        }
        let title = format!(
            "{}{} — hexsight editor",
            self.doc.title(),
            if self.doc.is_dirty() { " •" } else { "" }
        );
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    fn run_script(&mut self, ctx: &egui::Context) {
        self.frame += 1;
        // A few frames first: the layout settles and the map is fitted.
        if self.script.is_none() || self.frame < 5 {
            if self.script.is_some() {
                ctx.request_repaint();
            }
            return;
        }
        if self.frame == 5 {
            self.finish_jobs();
            self.overlays.jobs.poll();
            ctx.request_repaint();
            return;
        }
        let Some(script) = self.script.as_mut() else {
            return;
        };
        if let Some(svg) = script.svg.take() {
            self.export_svg(&svg);
            ctx.request_repaint();
            return;
        }
        if let Some(png) = script.png.take() {
            self.export_png(&png);
            ctx.request_repaint();
            return;
        }
        let quit = script.quit;
        self.script = None;
        if quit {
            if let Some(e) = &self.error {
                eprintln!("hexsight-editor: {e}");
            }
            self.run(ctx, Command::Quit);
        }
    }

    fn handle_close_request(&mut self, ctx: &egui::Context) {
        if ctx.input(|i| i.viewport().close_requested()) && !self.allow_close {
            if self.doc.is_dirty() {
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                self.doc.commit();
                self.pending = Some(Command::Quit);
                self.dialog = Some(Dialog::Unsaved);
            } else {
                self.allow_close = true;
            }
        }
    }

    fn handle_shortcuts(&mut self, ctx: &egui::Context, cmds: &mut Vec<Command>) {
        if self.dialog.is_some() || self.error.is_some() || self.conflict.is_some() {
            return;
        }
        let typing = ctx.egui_wants_keyboard_input();
        for c in Command::with_shortcuts() {
            let Some(sc) = c.shortcut() else { continue };
            // A text field has its own keys, including its own undo.
            if typing && (c.is_plain_key() || matches!(c, Command::Undo | Command::Redo)) {
                continue;
            }
            if ctx.input_mut(|i| i.consume_shortcut(&sc)) {
                cmds.push(c);
            }
        }
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context, cmds: &mut Vec<Command>) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if let Some(p) = dropped.into_iter().next() {
            cmds.push(Command::OpenPath(p));
        }
    }

    fn overlay_key(&self) -> Option<JobKey> {
        self.overlays
            .key(&self.doc, self.selected, self.planning.range)
    }

    /// The overlay job wanted now, if any (tests and scripting).
    pub fn overlay_job(&self) -> Option<JobKey> {
        self.overlay_key()
    }

    /// Notes when the document last changed (for the diff overlay's debounce).
    fn note_change(&mut self) {
        self.overlays.note_change(self.doc.generation());
    }

    fn request_overlay(&mut self, ctx: &egui::Context) {
        let key = self.overlay_key();
        self.overlays.request(ctx, &self.doc, key);
    }

    /// The overlay to draw: its kind, data and whether it is stale.
    fn overlay_data(&self) -> Option<(Overlay, Arc<JobOutput>, bool)> {
        self.overlays.data(self.doc.map(), self.overlay_key())
    }

    /// Waits for the overlay job (tests, scripted screenshots).
    pub fn finish_jobs(&mut self) {
        self.overlays.jobs.wait();
    }

    /// Called by eframe when the app exits cleanly: the autosave is no longer needed.
    pub fn on_clean_exit(&mut self) {
        self.overlays.jobs.cancel();
        if self.doc.is_dirty() && !self.allow_close {
            // Exiting without our confirmation (killed window manager): keep the work.
            self.autosave(true);
        } else {
            self.store.clear_autosave();
        }
    }
}

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn on_exit(&mut self) {
        self.on_clean_exit();
    }
}

/// A blank map from the new-map form; the error names a bad ruleset.
pub fn blank_map(f: &NewMapForm) -> Result<Map, String> {
    let rs = hexsight_analysis::map::resolve_ruleset(f.ruleset.trim(), Path::new("./new-map.json"))
        .map_err(|e| e.to_string())?;
    let (cols, rows) = (f.cols.clamp(1, 1000), f.rows.clamp(1, 1000));
    Ok(Map::new(
        &f.name,
        f.ruleset.trim(),
        rs,
        cols,
        rows,
        Layout {
            orientation: f.orientation,
            stagger: f.stagger,
        },
    ))
}
