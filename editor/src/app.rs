//! The eframe app: panels, dialogs and the frame loop. Map changes go through
//! [`crate::tools`], analysis through [`crate::jobs`], files through [`crate::files`].

use crate::canvas::{self, EguiSurface, Overlay, Scene, SvgSurface, View};
use crate::commands::Command;
use crate::document::Document;
use crate::files::{self, Recovery, Store};
use crate::jobs::{JobKey, JobKind, JobOutput, Jobs};
use crate::tools::{self, LevelMode, Tool, ToolSettings};
use egui::{Color32, Key, PointerButton, Pos2, Rect, RichText, Sense, Ui, vec2};
use hexsight_analysis::hex::{Hex, HexLine, Layout, Orientation, Side, Stagger};
use hexsight_analysis::rules::Effect;
use hexsight_analysis::{LosResult, Map, Ruleset, line_of_sight};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// Seconds between autosaves of unsaved work.
pub const AUTOSAVE_SECS: u64 = 10;

/// An open dialog.
#[derive(Clone, Debug)]
pub enum Dialog {
    /// Ask for a path, then run the action with it.
    Path {
        /// What the path is for.
        purpose: PathPurpose,
        /// The text field.
        text: String,
    },
    /// New map settings.
    NewMap(NewMapForm),
    /// Map name and scale.
    Properties(PropertiesForm),
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
    /// Save the map here.
    SaveAs,
    /// Export PNG here.
    Png,
    /// Export SVG here.
    Svg,
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

/// The map-properties form.
#[derive(Clone, Debug)]
pub struct PropertiesForm {
    /// Map name.
    pub name: String,
    /// Whether the map has a scale.
    pub has_scale: bool,
    /// Length of one hex.
    pub hex: f64,
    /// Unit of that length.
    pub unit: String,
}

struct Stroke {
    last: Option<Hex>,
    touched: HashSet<Hex>,
    slope: bool,
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
    /// The LOS observer.
    pub los_from: Option<Hex>,
    /// The LOS target (follows the pointer).
    pub los_to: Option<Hex>,
    los: Option<(Hex, Hex, u64, LosResult)>,
    /// The overlay shown, if any.
    pub overlay: Option<Overlay>,
    /// Background analysis.
    pub jobs: Jobs,
    store: Store,
    /// The open dialog.
    pub dialog: Option<Dialog>,
    pending: Option<Command>,
    /// The last message in the status bar.
    pub status: String,
    /// An error shown in a modal until dismissed (a failed load, a failed save).
    pub error: Option<String>,
    recoveries: Vec<Recovery>,
    stroke: Option<Stroke>,
    /// The canvas rectangle in the last frame.
    pub canvas_rect: Rect,
    hover: Option<Hex>,
    hover_side: Option<Side>,
    editing_unit: Option<String>,
    last_autosave: Instant,
    autosaved_generation: Option<u64>,
    exports: Option<mpsc::Receiver<Result<PathBuf, String>>>,
    allow_close: bool,
    title: String,
    /// Exports to run once the first frames are drawn (command line).
    pub script: Option<Script>,
    confirm_overwrite: Option<PathBuf>,
    frame: u64,
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
            tool: Tool::Terrain,
            prev_tool: Tool::Terrain,
            settings: ToolSettings::default(),
            labels: true,
            legend: true,
            selected: None,
            los_from: None,
            los_to: None,
            los: None,
            overlay: None,
            jobs: Jobs::default(),
            store,
            dialog: None,
            pending: None,
            status: "Ready".into(),
            error: None,
            recoveries: Vec::new(),
            stroke: None,
            canvas_rect: Rect::from_min_size(Pos2::ZERO, vec2(800.0, 600.0)),
            hover: None,
            hover_side: None,
            editing_unit: None,
            last_autosave: Instant::now(),
            autosaved_generation: None,
            exports: None,
            allow_close: false,
            title: String::new(),
            script: None,
            confirm_overwrite: None,
            frame: 0,
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
        self.los.as_ref().map(|l| &l.3)
    }

    /// The screen position of a hex centre on the canvas (for tests and scripting).
    pub fn screen_pos(&self, h: Hex) -> Pos2 {
        self.view
            .to_screen(self.canvas_rect.min, self.doc.map().layout.center(h, 1.0))
    }

    // ----- files -------------------------------------------------------------

    /// Opens a map; a failure leaves the current map and shows the loader's message.
    pub fn open(&mut self, path: &Path) {
        match files::load_map(path) {
            Ok(map) => {
                self.set_document(Document::new(map, Some(path.to_path_buf())));
                let _ = self.store.add_recent(path);
                self.status = format!("Opened {}", path.display());
            }
            Err(e) => {
                self.error = Some(format!("Could not open {}:\n\n{e}", path.display()));
                self.status = "Open failed".into();
            }
        }
    }

    fn set_document(&mut self, doc: Document) {
        self.doc = doc;
        self.jobs.clear();
        self.fit_pending = true;
        self.selected = None;
        self.los_from = None;
        self.los_to = None;
        self.los = None;
        self.stroke = None;
        self.editing_unit = None;
        self.autosaved_generation = None;
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

    /// Saves to `path`; returns whether it worked.
    pub fn save_to(&mut self, path: &Path) -> bool {
        self.doc.commit();
        match files::save_map(self.doc.map(), path) {
            Ok(()) => {
                self.doc.mark_saved(path.to_path_buf());
                self.store.clear_autosave();
                self.autosaved_generation = None;
                let _ = self.store.add_recent(path);
                self.status = format!("Saved {}", path.display());
                true
            }
            Err(e) => {
                self.error = Some(format!("Could not save {}:\n\n{e}", path.display()));
                false
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
                .autosave(self.doc.map(), self.doc.path.as_deref())
            {
                Ok(()) => self.autosaved_generation = Some(self.doc.generation()),
                Err(e) => self.status = format!("Autosave failed: {e}"),
            }
            self.last_autosave = Instant::now();
        }
    }

    /// Writes the canvas view (map, overlay, LOS, legend) as SVG.
    pub fn export_svg(&mut self, path: &Path) {
        let size = self.canvas_rect.size();
        let overlay = self.overlay_data();
        let scene = Scene {
            map: self.doc.map(),
            view: self.view,
            rect: Rect::from_min_size(Pos2::ZERO, size),
            labels: self.labels,
            overlay: overlay.as_ref().map(|(o, d, s)| (*o, d.as_ref(), *s)),
            los: self.los(),
            hover: None,
            selected: self.selected,
            brush: &[],
            side: None,
        };
        let mut svg = SvgSurface::default();
        scene.draw(&mut svg);
        if self.legend {
            canvas::draw_legend(&mut svg, self.doc.map(), self.overlay, Pos2::new(8.0, 8.0));
        }
        let text = svg.finish(size, Color32::from_rgb(0x2b, 0x2d, 0x31));
        match hexsight_analysis::map::write_atomic(path, text.as_bytes()) {
            Ok(()) => self.status = format!("Exported {}", path.display()),
            Err(e) => self.error = Some(format!("Could not export {}:\n\n{e}", path.display())),
        }
    }

    fn export_png(&mut self, ctx: &egui::Context, path: PathBuf) {
        let (tx, rx) = mpsc::channel();
        let rect = self.canvas_rect;
        let ctx2 = ctx.clone();
        let ppp = ctx.pixels_per_point();
        ctx.request_screenshot(move |img| {
            let _ = tx.send(crate::export::save_png_crop(&img, rect, ppp, &path));
            ctx2.request_repaint();
        });
        self.exports = Some(rx);
        self.status = "Exporting PNG...".into();
    }

    // ----- commands ----------------------------------------------------------

    fn needs_confirmation(cmd: &Command) -> bool {
        matches!(
            cmd,
            Command::New | Command::Open | Command::OpenPath(_) | Command::Quit
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
            Command::Properties => {
                let m = self.doc.map();
                self.dialog = Some(Dialog::Properties(PropertiesForm {
                    name: m.name.clone(),
                    has_scale: m.scale.is_some(),
                    hex: m.scale.as_ref().map_or(40.0, |s| s.hex),
                    unit: m.scale.as_ref().map_or("m".into(), |s| s.unit.clone()),
                }));
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
            Command::CancelJob => {
                if self.jobs.busy() {
                    self.jobs.cancel();
                    self.overlay = None;
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

        self.handle_close_request(&ctx);
        self.handle_shortcuts(&ctx, &mut cmds);
        self.handle_dropped_files(&ctx, &mut cmds);
        if self.jobs.poll() {
            self.status = "Overlay ready".into();
        }
        if let Some(rx) = &self.exports
            && let Ok(r) = rx.try_recv()
        {
            match r {
                Ok(p) => self.status = format!("Exported {}", p.display()),
                Err(e) => self.error = Some(format!("Could not export the PNG:\n\n{e}")),
            }
            self.exports = None;
        }

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

        self.dialogs(&ctx);
        for c in cmds {
            self.run(&ctx, c);
        }
        self.update_los();
        self.request_overlay(&ctx);
        self.autosave(false);
        self.run_script(&ctx);
        if self.doc.is_dirty() {
            ctx.request_repaint_after(Duration::from_secs(AUTOSAVE_SECS));
        }
        if self.jobs.busy() {
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
            self.jobs.poll();
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
            self.export_png(ctx, png);
            ctx.request_repaint();
            return;
        }
        if self.exports.is_none() {
            let quit = script.quit;
            self.script = None;
            if quit {
                if let Some(e) = &self.error {
                    eprintln!("hexsight-editor: {e}");
                }
                self.run(ctx, Command::Quit);
            }
        } else {
            ctx.request_repaint();
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
        if self.dialog.is_some() || self.error.is_some() {
            return;
        }
        let typing = ctx.egui_wants_keyboard_input();
        for c in Command::with_shortcuts() {
            let Some(sc) = c.shortcut() else { continue };
            if c.is_plain_key() && typing {
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

    fn update_los(&mut self) {
        let (Some(from), Some(to)) = (self.los_from, self.los_to) else {
            self.los = None;
            return;
        };
        let generation = self.doc.generation();
        if self
            .los
            .as_ref()
            .is_some_and(|l| l.0 == from && l.1 == to && l.2 == generation)
        {
            return;
        }
        let map = self.doc.map();
        if !map.contains(from) || !map.contains(to) {
            self.los = None;
            return;
        }
        self.los = Some((from, to, generation, line_of_sight(map, from, to)));
    }

    fn overlay_key(&self) -> Option<JobKey> {
        let kind = match self.overlay? {
            Overlay::Viewshed | Overlay::Blind => {
                JobKind::Viewshed(self.selected.filter(|h| self.doc.map().contains(*h))?)
            }
            Overlay::Exposure => JobKind::Exposure,
        };
        Some(JobKey {
            generation: self.doc.generation(),
            kind,
        })
    }

    fn request_overlay(&mut self, ctx: &egui::Context) {
        // While a stroke is open the map changes every frame: wait for the stroke to end.
        if self.doc.editing() {
            return;
        }
        if let Some(key) = self.overlay_key() {
            let c = ctx.clone();
            self.jobs
                .request(key, self.doc.map(), move || c.request_repaint());
        }
    }

    /// The overlay to draw: its kind, data and whether it is stale.
    fn overlay_data(&self) -> Option<(Overlay, Arc<JobOutput>, bool)> {
        let overlay = self.overlay?;
        let key = self.overlay_key()?;
        if let Some(d) = self.jobs.result(key) {
            return Some((overlay, d, false));
        }
        let d = self.jobs.stale_result(key.kind)?;
        let len = match d.as_ref() {
            JobOutput::Viewshed(v) => v.len(),
            JobOutput::Exposure(v) => v.len(),
        };
        (len == self.doc.map().len()).then_some((overlay, d, true))
    }

    /// Waits for the overlay job (tests, scripted screenshots).
    pub fn finish_jobs(&mut self) {
        self.jobs.wait();
    }

    // ----- panels ------------------------------------------------------------

    fn menu_bar(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                for c in [Command::New, Command::Open] {
                    menu_item(ui, c, true, cmds);
                }
                ui.menu_button("Open recent", |ui| {
                    let recent = self.store.recent();
                    if recent.is_empty() {
                        ui.label("(none yet)");
                    }
                    for p in recent {
                        if ui.button(p.display().to_string()).clicked() {
                            cmds.push(Command::OpenPath(p));
                        }
                    }
                });
                ui.separator();
                for c in [Command::Save, Command::SaveAs] {
                    menu_item(ui, c, true, cmds);
                }
                ui.separator();
                for c in [Command::ExportPng, Command::ExportSvg] {
                    menu_item(ui, c, true, cmds);
                }
                ui.separator();
                menu_item(ui, Command::Properties, true, cmds);
                ui.separator();
                menu_item(ui, Command::Quit, true, cmds);
            });
            ui.menu_button("Edit", |ui| {
                let undo = self.doc.undo_label().map(|l| format!("Undo {l}"));
                let redo = self.doc.redo_label().map(|l| format!("Redo {l}"));
                let b = egui::Button::new(undo.clone().unwrap_or("Undo".into()))
                    .shortcut_text(Command::Undo.shortcut_text());
                if ui.add_enabled(undo.is_some(), b).clicked() {
                    cmds.push(Command::Undo);
                }
                let b = egui::Button::new(redo.clone().unwrap_or("Redo".into()))
                    .shortcut_text(Command::Redo.shortcut_text());
                if ui.add_enabled(redo.is_some(), b).clicked() {
                    cmds.push(Command::Redo);
                }
            });
            ui.menu_button("View", |ui| {
                for c in [Command::ResetZoom, Command::ZoomIn, Command::ZoomOut] {
                    menu_item(ui, c, true, cmds);
                }
                ui.separator();
                let mut labels = self.labels;
                if ui.checkbox(&mut labels, "Hex labels (G)").changed() {
                    cmds.push(Command::ToggleLabels);
                }
                ui.checkbox(&mut self.legend, "Legend");
                ui.separator();
                self.overlay_choice(ui);
            });
            ui.menu_button("Tools", |ui| {
                for t in Tool::ALL {
                    menu_item(ui, Command::Tool(t), true, cmds);
                }
            });
        });
    }

    fn status_bar(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let map = self.doc.map();
            if let Some(h) = self.hover.filter(|h| map.contains(*h)) {
                let c = map.cell(h).copied().unwrap_or_default();
                let t = map
                    .ruleset
                    .terrain
                    .get(c.terrain as usize)
                    .map(|t| t.name.as_str())
                    .unwrap_or("?");
                ui.monospace(format!("{:<5}", map.label(h)));
                ui.label(format!(
                    "{t}, level {}{}",
                    c.level,
                    if c.slope { ", slope" } else { "" }
                ));
                ui.separator();
            }
            if self.doc.is_dirty() {
                ui.colored_label(Color32::from_rgb(240, 180, 60), "modified")
                    .on_hover_text("Unsaved changes (autosaved for recovery)");
                ui.separator();
            }
            ui.label(format!("{}x{} {}", map.cols, map.rows, map.ruleset.name));
            ui.separator();
            ui.label(format!("zoom {:.0}%", self.view.zoom / 24.0 * 100.0));
            ui.separator();
            if let Some((kind, frac, secs)) = self.jobs.progress() {
                let what = match kind {
                    JobKind::Viewshed(_) => "viewshed",
                    JobKind::Exposure => "exposure",
                };
                ui.add(
                    egui::ProgressBar::new(frac)
                        .desired_width(120.0)
                        .text(format!("{what} {:.0}% ({secs:.0}s)", frac * 100.0)),
                );
                if ui
                    .small_button("Cancel")
                    .on_hover_text("Cancel the analysis (Esc)")
                    .clicked()
                {
                    self.jobs.cancel();
                    self.overlay = None;
                    self.status = "Analysis cancelled".into();
                }
                ui.separator();
            }
            ui.label(&self.status);
        });
    }

    fn tool_panel(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        ui.add_space(4.0);
        ui.heading("Tools");
        egui::Grid::new("toolgrid")
            .num_columns(2)
            .spacing(vec2(4.0, 4.0))
            .show(ui, |ui| {
                for (i, t) in Tool::ALL.iter().enumerate() {
                    let text = format!("{}  {}", t.name(), t.key().name());
                    let r = ui
                        .add_sized(
                            vec2(104.0, 24.0),
                            egui::Button::selectable(self.tool == *t, text),
                        )
                        .on_hover_text(format!("{} ({})\n{}", t.name(), t.key().name(), t.help()));
                    if r.clicked() {
                        cmds.push(Command::Tool(*t));
                    }
                    if i % 2 == 1 {
                        ui.end_row();
                    }
                }
            });
        ui.separator();
        self.tool_options(ui, cmds);
        ui.separator();
        self.palette(ui, cmds);
    }

    fn tool_options(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        let rs = self.doc.map().ruleset.clone();
        if self.tool.is_brush() {
            ui.horizontal(|ui| {
                ui.label("Brush");
                for n in 1..=3 {
                    if ui
                        .selectable_label(self.settings.brush == n, format!(" {n} "))
                        .on_hover_text(format!("Brush size {n} ({n})"))
                        .clicked()
                    {
                        cmds.push(Command::Brush(n));
                    }
                }
            });
        }
        match self.tool {
            Tool::Level => {
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut self.settings.level_mode, LevelMode::Raise, "Raise");
                    ui.selectable_value(&mut self.settings.level_mode, LevelMode::Lower, "Lower");
                    ui.selectable_value(&mut self.settings.level_mode, LevelMode::Set, "Set");
                });
                if self.settings.level_mode == LevelMode::Set {
                    ui.add(
                        egui::Slider::new(&mut self.settings.level, rs.levels.min..=rs.levels.max)
                            .text("level"),
                    );
                }
            }
            Tool::Hexside => {
                if rs.hexsides.is_empty() {
                    ui.label("This ruleset has no hexside features.");
                }
                for (i, h) in rs.hexsides.iter().enumerate() {
                    let col = canvas::hexside_color(self.doc.map(), i);
                    ui.horizontal(|ui| {
                        swatch(ui, col, true);
                        ui.selectable_value(&mut self.settings.hexside, i as u16, &h.name);
                    });
                }
            }
            Tool::Marker => {
                if rs.markers.is_empty() {
                    ui.label("This ruleset has no markers.");
                }
                for (i, m) in rs.markers.iter().enumerate() {
                    let col = canvas::marker_color(self.doc.map(), i);
                    ui.horizontal(|ui| {
                        swatch(ui, col, false);
                        ui.selectable_value(&mut self.settings.marker, i as u16, &m.name);
                    });
                }
            }
            Tool::Unit => {
                ui.label("New units");
                let names = self.doc.map().layout.side_names();
                unit_fields(
                    ui,
                    "template",
                    &mut self.settings.unit.side,
                    &mut self.settings.unit.kind,
                    &mut self.settings.unit.state,
                    &mut self.settings.unit.facing,
                    &names,
                );
            }
            Tool::Los => {
                ui.label("Click an observer, then move over targets.");
            }
            _ => {}
        }
    }

    fn palette(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        let map = self.doc.map();
        let rs = map.ruleset.clone();
        ui.heading("Terrain");
        for (i, t) in rs.terrain.iter().enumerate() {
            let col = canvas::terrain_color(map, i);
            let selected = self.settings.terrain as usize == i;
            let r = ui
                .horizontal(|ui| {
                    swatch(ui, col, false);
                    ui.selectable_label(selected, &t.name)
                })
                .inner;
            let los = match &t.los {
                hexsight_analysis::rules::LosEffect::Clear => "clear".to_string(),
                other => format!("{other:?}").to_lowercase(),
            };
            let r = r.on_hover_text(format!("{} (`{}`)\nLOS: {los}", t.name, t.id));
            if r.clicked() {
                self.settings.terrain = i as u16;
                if !matches!(self.tool, Tool::Terrain | Tool::Fill) {
                    cmds.push(Command::Tool(Tool::Terrain));
                }
            }
        }
        ui.add_space(6.0);
        ui.label(
            RichText::new(format!(
                "Levels {} to {}: higher is lighter; brown lines are crests.",
                rs.levels.min, rs.levels.max
            ))
            .small(),
        );
    }

    fn inspector(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        ui.add_space(4.0);
        self.los_panel(ui);
        ui.separator();
        ui.heading("Overlays");
        self.overlay_choice(ui);
        match (self.overlay, self.selected) {
            (Some(Overlay::Viewshed | Overlay::Blind), None) => {
                ui.colored_label(
                    Color32::from_rgb(240, 180, 60),
                    "Select a hex (Select or LOS tool) to see its overlay.",
                );
            }
            (Some(o), _) => {
                if let Some(h) = self.selected
                    && o != Overlay::Exposure
                {
                    ui.label(format!("From {}", self.doc.map().label(h)));
                }
                if let Some((_, frac, _)) = self.jobs.progress() {
                    ui.horizontal(|ui| {
                        ui.add(
                            egui::ProgressBar::new(frac)
                                .desired_width(160.0)
                                .show_percentage(),
                        );
                        if ui.button("Cancel").clicked() {
                            cmds.push(Command::CancelJob);
                        }
                    });
                }
            }
            _ => {}
        }
        ui.separator();
        self.hex_panel(ui);
    }

    fn overlay_choice(&mut self, ui: &mut Ui) {
        ui.radio_value(&mut self.overlay, None, "No overlay");
        ui.radio_value(&mut self.overlay, Some(Overlay::Viewshed), "Viewshed")
            .on_hover_text("Hexes the selected hex sees: green clear, amber hindered.");
        ui.radio_value(&mut self.overlay, Some(Overlay::Blind), "Blind hexes")
            .on_hover_text("Hexes the selected hex does not see, darkened.");
        ui.radio_value(&mut self.overlay, Some(Overlay::Exposure), "Exposure")
            .on_hover_text("For every hex, how many hexes see it (all pairs: slow on big maps).");
        ui.add_enabled(false, egui::RadioButton::new(false, "Spotting"))
            .on_disabled_hover_text(format!(
                "The {} ruleset has no spotting rules.",
                self.doc.map().ruleset.name
            ));
    }

    fn los_panel(&mut self, ui: &mut Ui) {
        ui.heading("Line of sight");
        let Some(los) = self.los() else {
            let hint = if self.los_from.is_some() {
                "Move over a target hex."
            } else {
                "LOS tool (O): click an observer hex."
            };
            ui.label(hint);
            return;
        };
        let map = self.doc.map();
        let col = canvas::verdict_color(los.verdict);
        ui.label(
            RichText::new(format!(
                "{} -> {}",
                map.label(los.line.from),
                map.label(los.line.to)
            ))
            .strong(),
        );
        ui.label(
            RichText::new(format!("Verdict: {}", los.verdict.as_str()))
                .color(col)
                .strong()
                .size(16.0),
        );
        if los.hindrance > 0 {
            ui.label(format!("Hindrance: {}", los.hindrance));
        }
        if let Some(b) = &los.blocked_by {
            ui.label(format!(
                "Blocked by: {}",
                b.place
                    .hexes()
                    .iter()
                    .map(|h| map.label(*h))
                    .collect::<Vec<_>>()
                    .join("/")
            ));
        }
        ui.label(RichText::new("Reason").strong());
        ui.label(&los.reason);
        ui.label(RichText::new("Trace").strong());
        let trace: Vec<String> = los
            .trace_json(map)
            .iter()
            .map(|v| match v {
                serde_json::Value::Array(a) => format!(
                    "[{}]",
                    a.iter()
                        .filter_map(|x| x.as_str())
                        .collect::<Vec<_>>()
                        .join("|")
                ),
                v => v.as_str().unwrap_or_default().to_string(),
            })
            .collect();
        ui.monospace(trace.join(" "));
        if !los.events.is_empty() {
            ui.label(RichText::new("Along the line").strong());
            for e in &los.events {
                let (tag, c) = match e.effect {
                    Effect::Block => (
                        "blocks".to_string(),
                        canvas::verdict_color(hexsight_analysis::Verdict::Blocked),
                    ),
                    Effect::Hinder(v) => (
                        format!("hinders {v}"),
                        canvas::verdict_color(hexsight_analysis::Verdict::Hindered),
                    ),
                };
                ui.horizontal_wrapped(|ui| {
                    ui.colored_label(c, tag);
                    ui.label(&e.reason);
                });
            }
        }
        if !los.modifiers.is_empty() {
            ui.label(RichText::new("Modifiers").strong());
            for m in &los.modifiers {
                ui.label(format!("{} {:+}: {}", m.name, m.value, m.text));
            }
        }
        let text = los.explain(map);
        ui.collapsing("Full explanation", |ui| {
            ui.monospace(&text);
            if ui.button("Copy").clicked() {
                ui.ctx().copy_text(text.clone());
            }
        });
    }

    fn hex_panel(&mut self, ui: &mut Ui) {
        let target = self.selected.or(self.hover);
        ui.heading("Hex");
        let map = self.doc.map();
        let Some(h) = target.filter(|h| map.contains(*h)) else {
            ui.label("Hover or select a hex.");
            return;
        };
        let c = map.cell(h).copied().unwrap_or_default();
        let t = map
            .ruleset
            .terrain
            .get(c.terrain as usize)
            .map(|t| t.name.clone())
            .unwrap_or_default();
        ui.label(RichText::new(map.label(h)).strong());
        ui.label(format!(
            "{t}, level {}{}",
            c.level,
            if c.slope { ", slope" } else { "" }
        ));
        for m in map.markers_at(h) {
            ui.label(format!(
                "Marker: {}",
                map.ruleset
                    .markers
                    .get(m.kind as usize)
                    .map(|x| x.name.as_str())
                    .unwrap_or("?")
            ));
        }
        for d in 0..6 {
            if let Some(f) = map.hexside(h, h.neighbor(d)) {
                let name = map
                    .ruleset
                    .hexsides
                    .get(f.kind as usize)
                    .map(|x| x.name.as_str())
                    .unwrap_or("?");
                ui.label(format!("{} side: {name}", map.layout.side_names()[d]));
            }
        }
        let units: Vec<String> = map.units_at(h).map(|u| u.id.clone()).collect();
        for id in units {
            let Some(u) = self.doc.map().unit(&id).cloned() else {
                continue;
            };
            let editing = self.editing_unit.as_deref() == Some(id.as_str());
            ui.horizontal(|ui| {
                swatch(ui, canvas::side_color(&u.side), false);
                if ui
                    .selectable_label(
                        editing,
                        format!("{} ({} {} {})", u.id, u.side, u.kind, u.state),
                    )
                    .clicked()
                {
                    self.editing_unit = if editing { None } else { Some(id.clone()) };
                }
            });
        }
        self.unit_editor(ui);
    }

    fn unit_editor(&mut self, ui: &mut Ui) {
        let Some(id) = self.editing_unit.clone() else {
            return;
        };
        let Some(u) = self.doc.map().unit(&id).cloned() else {
            self.editing_unit = None;
            return;
        };
        ui.group(|ui| {
            ui.label(RichText::new(format!("Unit {id}")).strong());
            let (mut side, mut kind, mut state, mut facing) =
                (u.side.clone(), u.kind.clone(), u.state.clone(), u.facing);
            let names = self.doc.map().layout.side_names();
            unit_fields(
                ui,
                &id,
                &mut side,
                &mut kind,
                &mut state,
                &mut facing,
                &names,
            );
            if (side.as_str(), kind.as_str(), state.as_str(), facing)
                != (u.side.as_str(), u.kind.as_str(), u.state.as_str(), u.facing)
            {
                self.doc.edit("Edit unit", |m| {
                    if let Some(x) = m.units.iter_mut().find(|x| x.id == id) {
                        x.side = side;
                        x.kind = kind;
                        x.state = state;
                        x.facing = facing;
                    }
                });
            }
            if ui.button("Remove unit").clicked() {
                self.doc
                    .edit("Remove unit", |m| m.units.retain(|x| x.id != id));
                self.editing_unit = None;
            }
        });
    }

    // ----- canvas ------------------------------------------------------------

    fn canvas(&mut self, ui: &mut Ui) {
        let rect = ui.available_rect_before_wrap();
        let resp = ui.allocate_rect(rect, Sense::click_and_drag());
        self.canvas_rect = rect;
        ui.painter()
            .rect_filled(rect, 0.0, Color32::from_rgb(0x2b, 0x2d, 0x31));
        if self.fit_pending && rect.width() > 50.0 {
            let legend = if self.legend {
                canvas::LEGEND_WIDTH + 8.0
            } else {
                0.0
            };
            self.view = View::fit(self.doc.map(), rect.size(), legend);
            self.fit_pending = false;
        }
        let ctx = ui.ctx().clone();
        let space = ctx.input(|i| i.key_down(Key::Space)) && !ctx.egui_wants_keyboard_input();

        // Pan and zoom.
        let panning = resp.dragged_by(PointerButton::Middle)
            || (space && resp.dragged_by(PointerButton::Primary));
        if panning {
            self.view.pan += resp.drag_delta();
        }
        if resp.hovered() {
            let (scroll, pinch) = ctx.input(|i| (i.smooth_scroll_delta().y, i.zoom_delta()));
            let factor = pinch * (scroll * 0.0025).exp();
            if (factor - 1.0).abs() > 1e-4
                && let Some(p) = resp.hover_pos()
            {
                self.view.zoom_at(p - rect.min, factor);
            }
        }

        // The hex and side under the pointer.
        let pointer = resp.hover_pos().or_else(|| resp.interact_pointer_pos());
        let map = self.doc.map();
        self.hover = pointer
            .map(|p| map.layout.hex_at_pixel(self.view.to_map(rect.min, p), 1.0))
            .filter(|h| map.contains(*h));
        self.hover_side = match (
            self.tool,
            pointer,
            self.hover.or_else(|| {
                pointer.map(|p| map.layout.hex_at_pixel(self.view.to_map(rect.min, p), 1.0))
            }),
        ) {
            (Tool::Hexside, Some(p), Some(h)) => {
                tools::hexside::nearest_side(map, h, self.view.to_map(rect.min, p), 1.0, 0.4)
            }
            _ => None,
        };
        // The target follows the pointer only when it moves, so a target set
        // otherwise (command line, a click) is not replaced by a resting pointer.
        let moved = ctx.input(|i| i.pointer.delta() != egui::Vec2::ZERO || i.pointer.any_pressed());
        if self.tool == Tool::Los
            && moved
            && let Some(h) = self.hover
        {
            self.los_to = Some(h);
        }

        if !panning && !space {
            self.canvas_actions(&ctx, &resp);
        }
        if resp.hovered() {
            let icon = if space || panning {
                egui::CursorIcon::Grab
            } else if self.tool == Tool::Eyedropper {
                egui::CursorIcon::Cell
            } else {
                egui::CursorIcon::Crosshair
            };
            ctx.set_cursor_icon(icon);
        }

        // Draw.
        let map = self.doc.map();
        let brush = match (self.tool.is_brush(), self.hover) {
            (true, Some(h)) => tools::brush_hexes(map, h, self.settings.brush),
            (false, Some(h))
                if matches!(
                    self.tool,
                    Tool::Fill | Tool::Marker | Tool::Unit | Tool::Eyedropper
                ) =>
            {
                vec![h]
            }
            _ => Vec::new(),
        };
        let overlay = self.overlay_data();
        let scene = Scene {
            map,
            view: self.view,
            rect,
            labels: self.labels,
            overlay: overlay.as_ref().map(|(o, d, s)| (*o, d.as_ref(), *s)),
            los: if self.tool == Tool::Los || self.los_from.is_some() {
                self.los()
            } else {
                None
            },
            hover: if brush.is_empty() { self.hover } else { None },
            selected: self.selected,
            brush: &brush,
            side: self.hover_side,
        };
        let mut surface = EguiSurface {
            ctx: &ctx,
            shapes: Vec::with_capacity(map.len().min(20_000) * 2),
        };
        scene.draw(&mut surface);
        if self.legend {
            canvas::draw_legend(
                &mut surface,
                map,
                self.overlay,
                rect.left_top() + vec2(8.0, 8.0),
            );
        }
        let painter = ui.painter_at(rect);
        painter.extend(surface.shapes);
        if ctx.input(|i| !i.raw.hovered_files.is_empty()) {
            painter.rect_filled(rect, 0.0, Color32::from_black_alpha(120));
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "Drop the map file to open it",
                egui::FontId::proportional(24.0),
                Color32::WHITE,
            );
        }
    }

    fn canvas_actions(&mut self, ctx: &egui::Context, resp: &egui::Response) {
        let primary_down = ctx.input(|i| i.pointer.primary_down());
        let h = self.hover;
        if self.tool.is_brush() {
            let painting = resp.is_pointer_button_down_on() && primary_down;
            let had_stroke = self.stroke.is_some();
            if painting && let Some(h) = h {
                self.brush_at(h);
            } else if !painting && had_stroke {
                self.end_stroke();
            }
            if resp.clicked_by(PointerButton::Primary)
                && !had_stroke
                && self.stroke.is_none()
                && let Some(h) = h
            {
                // Press and release in one frame: one dab.
                self.brush_at(h);
                self.end_stroke();
            }
            return;
        }
        let Some(h) = h else {
            if self.tool == Tool::Hexside
                && resp.clicked()
                && let Some(side) = self.hover_side
            {
                let kind = self.settings.hexside;
                self.doc.edit("Hexside", |m| {
                    tools::hexside::toggle(m, side, side.a, kind);
                });
            }
            return;
        };
        let primary = resp.clicked_by(PointerButton::Primary);
        let secondary = resp.clicked_by(PointerButton::Secondary);
        if !primary && !secondary {
            return;
        }
        match self.tool {
            Tool::Select => self.selected = if primary { Some(h) } else { None },
            Tool::Fill if primary => {
                let t = self.settings.terrain;
                let mut n = 0;
                self.doc.edit("Fill", |m| n = tools::fill::fill(m, h, t));
                self.status = format!("Filled {n} hexes");
            }
            Tool::Hexside => {
                if let Some(side) = self.hover_side {
                    let kind = self.settings.hexside;
                    if primary {
                        self.doc.edit("Hexside", |m| {
                            tools::hexside::toggle(m, side, h, kind);
                        });
                    } else {
                        self.doc.edit("Remove hexside", |m| {
                            tools::hexside::remove(m, side);
                        });
                    }
                } else {
                    self.status = "Click nearer to a hexside".into();
                }
            }
            Tool::Marker if primary => {
                let kind = self.settings.marker;
                let mut result = Ok(false);
                self.doc
                    .edit("Marker", |m| result = tools::marker::toggle(m, h, kind));
                if let Err(e) = result {
                    self.status = e;
                }
            }
            Tool::Unit => {
                if secondary {
                    let mut removed = None;
                    self.doc
                        .edit("Remove unit", |m| removed = tools::unit::remove_top(m, h));
                    if let Some(u) = removed {
                        self.status = format!("Removed {}", u.id);
                    }
                } else if let Some(u) = self.doc.map().units_at(h).last()
                    && !ctx.input(|i| i.modifiers.shift)
                {
                    self.editing_unit = Some(u.id.clone());
                    self.selected = Some(h);
                } else {
                    let t = self.settings.unit.clone();
                    let mut id = None;
                    self.doc
                        .edit("Place unit", |m| id = tools::unit::place(m, h, &t));
                    self.editing_unit = id;
                    self.selected = Some(h);
                }
            }
            Tool::Eyedropper if primary => {
                if let Some(c) = self.doc.map().cell(h).copied() {
                    self.settings.terrain = c.terrain;
                    self.settings.level = c.level;
                    self.status = format!(
                        "Picked {} level {}",
                        self.doc.map().ruleset.terrain[c.terrain as usize].name,
                        c.level
                    );
                }
                let back = if self.prev_tool == Tool::Eyedropper {
                    Tool::Terrain
                } else {
                    self.prev_tool
                };
                self.set_tool(back);
            }
            Tool::Los => {
                if primary {
                    self.los_from = Some(h);
                    self.los_to = Some(h);
                    self.selected = Some(h);
                } else {
                    self.los_from = None;
                    self.los_to = None;
                }
            }
            _ => {}
        }
    }

    fn brush_at(&mut self, h: Hex) {
        let tool = self.tool;
        if self.stroke.is_none() {
            let label = match tool {
                Tool::Terrain => "Paint terrain",
                Tool::Level => "Change level",
                Tool::Slope => "Slope",
                _ => "Erase",
            };
            self.doc.begin(label);
            let slope = !self.doc.map().cell(h).is_some_and(|c| c.slope);
            self.stroke = Some(Stroke {
                last: None,
                touched: HashSet::new(),
                slope,
            });
        }
        let Some(stroke) = self.stroke.as_mut() else {
            return;
        };
        if stroke.last == Some(h) {
            return;
        }
        // Walk from the last hex so a fast drag leaves no gaps.
        let path: Vec<Hex> = match stroke.last {
            Some(a) => HexLine::new(a, h).hexes().collect(),
            None => vec![h],
        };
        stroke.last = Some(h);
        let mut hexes: Vec<Hex> = Vec::new();
        for p in path {
            for b in tools::brush_hexes(self.doc.map(), p, self.settings.brush) {
                if !hexes.contains(&b) {
                    hexes.push(b);
                }
            }
        }
        let s = &self.settings;
        let (terrain, mode, level, slope) = (s.terrain, s.level_mode, s.level, stroke.slope);
        let touched = &mut stroke.touched;
        let map = self.doc.map_mut();
        match tool {
            Tool::Terrain => {
                tools::terrain::paint(map, &hexes, terrain);
            }
            Tool::Level => {
                tools::level::apply(map, &hexes, mode, level, touched);
            }
            Tool::Slope => {
                tools::level::set_slope(map, &hexes, slope);
            }
            Tool::Eraser => {
                tools::terrain::erase(map, &hexes);
            }
            _ => {}
        }
    }

    // ----- dialogs -----------------------------------------------------------

    fn dialogs(&mut self, ctx: &egui::Context) {
        if let Some(err) = self.error.clone() {
            let mut close = false;
            egui::Modal::new(egui::Id::unique("error")).show(ctx, |ui| {
                ui.set_max_width(520.0);
                ui.heading("Problem");
                ui.label(RichText::new(err).monospace());
                if ui.button("OK").clicked()
                    || ui.input(|i| i.key_pressed(Key::Enter) || i.key_pressed(Key::Escape))
                {
                    close = true;
                }
            });
            if close {
                self.error = None;
            }
            return;
        }
        let Some(dialog) = self.dialog.clone() else {
            return;
        };
        let mut keep = true;
        match dialog {
            Dialog::Path { purpose, mut text } => {
                let title = match purpose {
                    PathPurpose::Open => "Open map",
                    PathPurpose::SaveAs => "Save map as",
                    PathPurpose::Png => "Export view as PNG",
                    PathPurpose::Svg => "Export view as SVG",
                };
                let ext = match purpose {
                    PathPurpose::Open | PathPurpose::SaveAs => "json",
                    PathPurpose::Png => "png",
                    PathPurpose::Svg => "svg",
                };
                let mut go = false;
                let confirm = self.confirm_overwrite.clone();
                egui::Modal::new(egui::Id::unique("path")).show(ctx, |ui| {
                    ui.set_min_width(520.0);
                    ui.heading(title);
                    ui.label("Path:");
                    let r =
                        ui.add(egui::TextEdit::singleline(&mut text).desired_width(f32::INFINITY));
                    if r.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                        go = true;
                    }
                    if let Some(c) = &confirm
                        && c.as_path() == Path::new(text.trim())
                    {
                        ui.colored_label(
                            Color32::from_rgb(240, 180, 60),
                            format!("{} exists. Press OK again to replace it.", c.display()),
                        );
                    }
                    // A small browser: the folder of the typed path, folders first.
                    let (dir, entries) = files::list_dir(text.trim(), ext);
                    ui.label(RichText::new(format!("In {}", dir.display())).small());
                    egui::ScrollArea::vertical()
                        .max_height(220.0)
                        .id_salt("browse")
                        .show(ui, |ui| {
                            if let Some(parent) = dir.parent()
                                && ui.link("../").clicked()
                            {
                                text = format!("{}/", parent.display());
                            }
                            for (path, is_dir) in entries {
                                let name = path
                                    .file_name()
                                    .map(|n| n.to_string_lossy().into_owned())
                                    .unwrap_or_default();
                                let shown = if is_dir { format!("{name}/") } else { name };
                                let r = ui.link(shown);
                                if r.clicked() {
                                    text = if is_dir {
                                        format!("{}/", path.display())
                                    } else {
                                        path.display().to_string()
                                    };
                                }
                                if !is_dir && r.double_clicked() {
                                    go = true;
                                }
                            }
                        });
                    if purpose == PathPurpose::Open {
                        let recent = self.store.recent();
                        if !recent.is_empty() {
                            ui.label("Recent:");
                            for p in recent {
                                if ui.link(p.display().to_string()).clicked() {
                                    text = p.display().to_string();
                                }
                            }
                        }
                    }
                    ui.horizontal(|ui| {
                        if ui.button("OK").clicked() {
                            go = true;
                        }
                        if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape))
                        {
                            keep = false;
                            self.pending = None;
                        }
                    });
                });
                let path = PathBuf::from(text.trim());
                if go && (text.trim().is_empty() || text.trim().ends_with('/') || path.is_dir()) {
                    go = false;
                    self.status = "Type or pick a file name".into();
                }
                // Replacing another file needs a second OK: it may be someone's work.
                let replaces = purpose != PathPurpose::Open
                    && path.exists()
                    && self.doc.path.as_deref() != Some(path.as_path());
                if go && replaces && self.confirm_overwrite.as_ref() != Some(&path) {
                    go = false;
                    self.confirm_overwrite = Some(path.clone());
                }
                if go {
                    keep = false;
                    self.confirm_overwrite = None;
                    match purpose {
                        // The unsaved-changes question was asked before this dialog opened.
                        PathPurpose::Open => self.open(&path),
                        PathPurpose::SaveAs => {
                            if self.save_to(&path)
                                && let Some(p) = self.pending.take()
                            {
                                self.run_confirmed(ctx, p);
                            }
                        }
                        PathPurpose::Png => self.export_png(ctx, path),
                        PathPurpose::Svg => self.export_svg(&path),
                    }
                } else if keep {
                    self.dialog = Some(Dialog::Path { purpose, text });
                } else {
                    self.confirm_overwrite = None;
                }
            }
            Dialog::Unsaved => {
                let mut choice = None;
                egui::Modal::new(egui::Id::unique("unsaved")).show(ctx, |ui| {
                    ui.heading("Unsaved changes");
                    ui.label(format!("Save the changes to {}?", self.doc.title()));
                    ui.horizontal(|ui| {
                        if ui.button("Save").clicked() {
                            choice = Some(0);
                        }
                        if ui.button("Discard").clicked() {
                            choice = Some(1);
                        }
                        if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape))
                        {
                            choice = Some(2);
                        }
                    });
                });
                match choice {
                    Some(0) => {
                        keep = false;
                        match self.doc.path.clone() {
                            Some(p) => {
                                if self.save_to(&p)
                                    && let Some(c) = self.pending.take()
                                {
                                    self.run_confirmed(ctx, c);
                                }
                            }
                            None => {
                                self.dialog = Some(Dialog::Path {
                                    purpose: PathPurpose::SaveAs,
                                    text: self.dir_hint(),
                                });
                                return;
                            }
                        }
                    }
                    Some(1) => {
                        keep = false;
                        self.store.clear_autosave();
                        if let Some(c) = self.pending.take() {
                            self.dialog = None;
                            self.run_confirmed(ctx, c);
                            return;
                        }
                    }
                    Some(_) => {
                        keep = false;
                        self.pending = None;
                    }
                    None => {}
                }
            }
            Dialog::NewMap(mut f) => {
                let mut create = false;
                egui::Modal::new(egui::Id::unique("newmap")).show(ctx, |ui| {
                    ui.heading("New map");
                    egui::Grid::new("newgrid").num_columns(2).show(ui, |ui| {
                        ui.label("Name");
                        ui.text_edit_singleline(&mut f.name);
                        ui.end_row();
                        ui.label("Columns");
                        ui.add(egui::DragValue::new(&mut f.cols).range(1..=1000));
                        ui.end_row();
                        ui.label("Rows");
                        ui.add(egui::DragValue::new(&mut f.rows).range(1..=1000));
                        ui.end_row();
                        ui.label("Orientation");
                        ui.horizontal(|ui| {
                            ui.selectable_value(&mut f.orientation, Orientation::Flat, "Flat top");
                            ui.selectable_value(
                                &mut f.orientation,
                                Orientation::Pointy,
                                "Pointy top",
                            );
                        });
                        ui.end_row();
                        ui.label("Shifted");
                        ui.horizontal(|ui| {
                            ui.selectable_value(&mut f.stagger, Stagger::Odd, "Odd");
                            ui.selectable_value(&mut f.stagger, Stagger::Even, "Even");
                        });
                        ui.end_row();
                        ui.label("Ruleset");
                        ui.horizontal(|ui| {
                            egui::ComboBox::from_id_salt("rs")
                                .selected_text(f.ruleset.clone())
                                .show_ui(ui, |ui| {
                                    for n in Ruleset::builtin_names() {
                                        ui.selectable_value(&mut f.ruleset, n.to_string(), n);
                                    }
                                });
                            ui.text_edit_singleline(&mut f.ruleset)
                                .on_hover_text("A built-in name or the path of a ruleset file");
                        });
                        ui.end_row();
                    });
                    ui.horizontal(|ui| {
                        if ui.button("Create").clicked() {
                            create = true;
                        }
                        if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape))
                        {
                            keep = false;
                        }
                    });
                });
                if create {
                    match blank_map(&f) {
                        Ok(map) => {
                            keep = false;
                            self.set_document(Document::new(map, None));
                            self.status = "New map".into();
                        }
                        Err(e) => self.error = Some(e),
                    }
                }
                if keep {
                    self.dialog = Some(Dialog::NewMap(f));
                }
            }
            Dialog::Properties(mut f) => {
                let mut apply = false;
                egui::Modal::new(egui::Id::unique("props")).show(ctx, |ui| {
                    ui.heading("Map properties");
                    egui::Grid::new("propgrid").num_columns(2).show(ui, |ui| {
                        ui.label("Name");
                        ui.text_edit_singleline(&mut f.name);
                        ui.end_row();
                        ui.checkbox(&mut f.has_scale, "Scale");
                        ui.add_enabled_ui(f.has_scale, |ui| {
                            ui.horizontal(|ui| {
                                ui.add(
                                    egui::DragValue::new(&mut f.hex)
                                        .range(0.001..=1e6)
                                        .speed(1.0),
                                );
                                ui.add(egui::TextEdit::singleline(&mut f.unit).desired_width(50.0));
                                ui.label("per hex");
                            });
                        });
                        ui.end_row();
                    });
                    ui.horizontal(|ui| {
                        if ui.button("Apply").clicked() {
                            apply = true;
                        }
                        if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape))
                        {
                            keep = false;
                        }
                    });
                });
                if apply {
                    keep = false;
                    let f2 = f.clone();
                    self.doc.edit("Map properties", |m| {
                        m.name = f2.name.clone();
                        if !f2.has_scale {
                            m.scale = None;
                        } else if f2.hex.is_finite() && f2.hex > 0.0 {
                            let extra = m
                                .scale
                                .as_ref()
                                .map(|s| s.extra.clone())
                                .unwrap_or_default();
                            m.scale = Some(hexsight_analysis::map::Scale {
                                hex: f2.hex,
                                unit: f2.unit.trim().to_string(),
                                extra,
                            });
                        }
                    });
                } else if keep {
                    self.dialog = Some(Dialog::Properties(f));
                }
            }
            Dialog::Recovery => {
                let mut action: Option<(usize, bool)> = None;
                let mut later = false;
                egui::Modal::new(egui::Id::unique("recovery")).show(ctx, |ui| {
                    ui.heading("Recover unsaved work?");
                    ui.label(
                        "The editor did not close cleanly last time. Autosaved work was found:",
                    );
                    for (i, r) in self.recoveries.iter().enumerate() {
                        ui.horizontal(|ui| {
                            let what = r
                                .original
                                .as_ref()
                                .map(|p| p.display().to_string())
                                .unwrap_or("untitled map".into());
                            ui.label(format!("{what} ({})", ago(r.saved_at)));
                            if ui.button("Recover").clicked() {
                                action = Some((i, true));
                            }
                            if ui.button("Discard").clicked() {
                                action = Some((i, false));
                            }
                        });
                    }
                    if ui
                        .button("Later")
                        .on_hover_text("Keep the recovery files and decide at the next start")
                        .clicked()
                    {
                        later = true;
                    }
                });
                if let Some((i, recover)) = action {
                    let r = self.recoveries.remove(i);
                    if recover {
                        match r.load() {
                            Ok(map) => {
                                self.set_document(Document::unsaved(map, r.original.clone()));
                                // Our own autosave takes over before the old file goes.
                                self.autosave(true);
                                let _ = std::fs::remove_file(&r.file);
                                self.status = "Recovered unsaved work: save it to keep it".into();
                                self.recoveries.clear();
                            }
                            Err(e) => {
                                self.error = Some(format!(
                                    "The recovery file {} does not load:\n\n{e}",
                                    r.file.display()
                                ))
                            }
                        }
                    } else {
                        let _ = std::fs::remove_file(&r.file);
                    }
                }
                if later || self.recoveries.is_empty() {
                    keep = false;
                }
            }
        }
        if !keep {
            self.dialog = None;
        }
    }

    /// Called by eframe when the app exits cleanly: the autosave is no longer needed.
    pub fn on_clean_exit(&mut self) {
        self.jobs.cancel();
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

fn menu_item(ui: &mut Ui, c: Command, enabled: bool, cmds: &mut Vec<Command>) {
    let b = egui::Button::new(c.label()).shortcut_text(c.shortcut_text());
    if ui.add_enabled(enabled, b).clicked() {
        cmds.push(c);
    }
}

fn swatch(ui: &mut Ui, col: Color32, thin: bool) {
    let size = if thin {
        vec2(18.0, 6.0)
    } else {
        vec2(18.0, 14.0)
    };
    let (r, _) = ui.allocate_exact_size(size, Sense::hover());
    ui.painter().rect_filled(r, 2.0, col);
    ui.painter().rect_stroke(
        r,
        2.0,
        egui::Stroke::new(1.0, Color32::from_black_alpha(140)),
        egui::StrokeKind::Inside,
    );
}

fn unit_fields(
    ui: &mut Ui,
    id: &str,
    side: &mut String,
    kind: &mut String,
    state: &mut String,
    facing: &mut Option<usize>,
    names: &[&str; 6],
) {
    egui::Grid::new(("unitfields", id))
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Side");
            ui.add(egui::TextEdit::singleline(side).desired_width(120.0));
            ui.end_row();
            ui.label("Kind");
            ui.add(egui::TextEdit::singleline(kind).desired_width(120.0));
            ui.end_row();
            ui.label("State");
            egui::ComboBox::from_id_salt(("state", id))
                .selected_text(if state.is_empty() {
                    "(none)"
                } else {
                    state.as_str()
                })
                .show_ui(ui, |ui| {
                    for s in tools::unit::STATES {
                        ui.selectable_value(
                            state,
                            s.to_string(),
                            if s.is_empty() { "(none)" } else { s },
                        );
                    }
                });
            ui.end_row();
            ui.label("Facing");
            egui::ComboBox::from_id_salt(("facing", id))
                .selected_text(facing.map_or("(none)", |f| names[f % 6]))
                .show_ui(ui, |ui| {
                    ui.selectable_value(facing, None, "(none)");
                    for (i, n) in names.iter().enumerate() {
                        ui.selectable_value(facing, Some(i), *n);
                    }
                });
            ui.end_row();
        });
    if state == "crest" && facing.is_none() {
        ui.colored_label(
            Color32::from_rgb(240, 180, 60),
            "A crest state needs a facing.",
        );
    }
}

fn ago(t: u64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let s = now.saturating_sub(t);
    match s {
        0..60 => format!("{s} s ago"),
        60..3600 => format!("{} min ago", s / 60),
        3600..86400 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86400),
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
