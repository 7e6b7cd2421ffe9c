//! The file browser behind Open, Save as, Export, Background image and Combine.
//! It is drawn by egui itself, so it needs no portal, GTK or desktop: it works
//! on a bare X11 session and under egui_kittest like the rest of the window
//! (egui-file-dialog has no egui 0.37 release yet).
//!
//! It lists the folder's subfolders and the files with the purpose's
//! extensions; the file-name field takes a name or a typed path (relative to
//! the folder, absolute, or `~/...`). Saving over another file asks first.

use super::*;
use crate::files::Entry;

/// Height of the places and listing columns, in points.
const BODY_HEIGHT: f32 = 300.0;

/// A browser under way.
#[derive(Clone, Debug)]
pub struct Browser {
    /// What the chosen path is for.
    pub purpose: PathPurpose,
    /// The folder shown.
    pub dir: PathBuf,
    /// The file-name field: a name in `dir`, or a typed path.
    pub name: String,
    /// Show names starting with a dot.
    pub hidden: bool,
    /// A save onto this existing file waits for "Replace".
    pub replace: Option<PathBuf>,
    /// Why the last accept did not go through (no such file, no folder).
    pub message: Option<String>,
    /// The name of a folder being made in `dir` (the New folder row is open).
    pub new_folder: Option<String>,
    focus_new_folder: bool,
    selected: Option<PathBuf>,
    /// The listing of (folder, hidden shown), read once per folder, not per frame.
    listing: Option<(PathBuf, bool, Result<Vec<Entry>, String>)>,
    focus_name: bool,
}

/// What a frame of the browser ended with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Still open.
    Stay,
    /// Cancelled.
    Cancel,
    /// This path was chosen (and, for a save onto an existing file, confirmed).
    Accept(PathBuf),
}

impl PathPurpose {
    /// The browser's heading.
    pub fn title(self) -> &'static str {
        match self {
            PathPurpose::Open => "Open map",
            PathPurpose::ImportBoard => "Import MegaMek board",
            PathPurpose::ImportDem => "Import DEM (GeoTIFF)",
            PathPurpose::SaveAs => "Save map as",
            PathPurpose::Png => "Export view as PNG",
            PathPurpose::Svg => "Export view as SVG",
            PathPurpose::Combine => "Combine with board",
            PathPurpose::Background => "Background image (PNG or JPEG)",
            PathPurpose::Layer => "Load scenario layer",
        }
    }

    /// The file extensions listed (the first is added to a typed name without one).
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            PathPurpose::Open | PathPurpose::SaveAs | PathPurpose::Combine | PathPurpose::Layer => {
                &["json"]
            }
            PathPurpose::ImportBoard => &["board"],
            PathPurpose::ImportDem => &["tif", "tiff"],
            PathPurpose::Png => &["png"],
            PathPurpose::Svg => &["svg"],
            PathPurpose::Background => &["png", "jpg", "jpeg"],
        }
    }

    /// True when the path is written (so it may be new, and replacing asks).
    pub fn writes(self) -> bool {
        matches!(
            self,
            PathPurpose::SaveAs | PathPurpose::Png | PathPurpose::Svg
        )
    }

    fn accept_label(self) -> &'static str {
        match self {
            PathPurpose::Open => "Open",
            PathPurpose::ImportBoard => "Import",
            PathPurpose::ImportDem => "Choose DEM",
            PathPurpose::SaveAs => "Save",
            PathPurpose::Png | PathPurpose::Svg => "Export",
            PathPurpose::Combine => "Choose board",
            PathPurpose::Background => "Use image",
            PathPurpose::Layer => "Load layer",
        }
    }
}

impl Browser {
    /// A browser for `purpose` starting from a typed path: a folder (ending in
    /// `/` or existing) opens there; a file path opens its folder with its
    /// name in the file-name field.
    pub fn new(purpose: PathPurpose, typed: &str) -> Browser {
        let typed = typed.trim();
        let p = expand_home(typed);
        let (dir, name) = if typed.is_empty() || typed.ends_with('/') || p.is_dir() {
            (p, String::new())
        } else {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
            (dir, name)
        };
        let dir = if dir.as_os_str().is_empty() {
            std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
        } else {
            dir
        };
        Browser {
            purpose,
            dir: std::fs::canonicalize(&dir).unwrap_or(dir),
            name: if purpose.writes() {
                name
            } else {
                String::new()
            },
            hidden: false,
            replace: None,
            message: None,
            selected: None,
            listing: None,
            focus_name: purpose.writes(),
            new_folder: None,
            focus_new_folder: false,
        }
    }

    /// Shows another folder.
    pub fn enter(&mut self, dir: PathBuf) {
        self.dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        self.selected = None;
        self.message = None;
        self.listing = None;
        self.new_folder = None;
        if !self.purpose.writes() {
            self.name.clear();
        }
    }

    /// Shows the parent folder (nothing above the root).
    pub fn up(&mut self) {
        if let Some(p) = self.dir.parent().map(Path::to_path_buf) {
            self.enter(p);
        }
    }

    /// The folder's listing, read when the folder or the hidden choice changed.
    pub fn entries(&mut self) -> &Result<Vec<Entry>, String> {
        let fresh = self
            .listing
            .as_ref()
            .is_some_and(|(d, h, _)| *d == self.dir && *h == self.hidden);
        if !fresh {
            let read = files::read_folder(&self.dir, self.purpose.extensions(), self.hidden);
            self.listing = Some((self.dir.clone(), self.hidden, read));
        }
        &self.listing.as_ref().expect("just read").2
    }

    /// The path the file-name field names; a written file without an
    /// extension gets the purpose's.
    pub fn target(&self) -> Option<PathBuf> {
        let typed = self.name.trim();
        if typed.is_empty() {
            return None;
        }
        let mut p = self.dir.join(expand_home(typed));
        if self.purpose.writes() && p.extension().is_none() && !p.is_dir() {
            p.set_extension(self.purpose.extensions()[0]);
        }
        Some(p)
    }

    /// OK, Enter or a double-click: a folder is entered; a file to read must
    /// exist; a file to write needs its folder, and asks before replacing
    /// another file (`own`, the map's own file, is saved over without asking).
    pub fn accept(&mut self, own: Option<&Path>) -> Option<PathBuf> {
        self.message = None;
        let Some(target) = self.target().or_else(|| self.selected.clone()) else {
            self.message = Some(if self.purpose.writes() {
                "Type a file name".into()
            } else {
                "Pick a file".into()
            });
            return None;
        };
        if target.is_dir() {
            self.name.clear();
            self.enter(target);
            return None;
        }
        if !self.purpose.writes() {
            if target.is_file() {
                return Some(target);
            }
            self.message = Some(format!("There is no file {}", target.display()));
            return None;
        }
        if !target.parent().is_some_and(Path::is_dir) {
            self.message = Some(format!("There is no folder {}", parent_text(&target)));
            return None;
        }
        if target.exists() && own != Some(target.as_path()) {
            self.replace = Some(target);
            return None;
        }
        Some(target)
    }

    /// Makes the folder named in the New folder row inside the folder shown and shows
    /// it (a save can then go into it); an empty, bad or taken name leaves a message
    /// and the row open.
    pub fn make_folder(&mut self) -> bool {
        let name = self
            .new_folder
            .as_deref()
            .unwrap_or_default()
            .trim()
            .to_string();
        self.message = None;
        if name.is_empty() {
            self.message = Some("Type the new folder's name".into());
            return false;
        }
        if name.contains(['/', std::path::MAIN_SEPARATOR]) || name == "." || name == ".." {
            self.message = Some(format!("{name} is not a folder name"));
            return false;
        }
        let path = self.dir.join(&name);
        match std::fs::create_dir(&path) {
            Ok(()) => {
                self.enter(path);
                // Next comes the file's name (Enter then saves, not New folder again).
                self.focus_name = true;
                true
            }
            Err(e) => {
                self.message = Some(format!("Could not make the folder {name}: {e}"));
                false
            }
        }
    }

    /// The New folder row: its name field, Enter makes it, Escape drops it.
    fn new_folder_ui(&mut self, ui: &mut Ui) {
        let Some(name) = &mut self.new_folder else {
            return;
        };
        let mut make = false;
        ui.horizontal(|ui| {
            ui.label("New folder:");
            let r = ui.add(
                egui::TextEdit::singleline(name)
                    .desired_width(300.0)
                    .hint_text("its name (Enter makes it, Escape drops it)"),
            );
            if std::mem::take(&mut self.focus_new_folder) {
                r.request_focus();
            }
            make = ui.button("Make folder").clicked();
        });
        if make {
            self.make_folder();
        }
    }

    /// Draws the browser for one frame. `places` are the quick picks (recent
    /// folders); `options` draws the purpose's own settings (PNG scale).
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        places: &[PathBuf],
        own: Option<&Path>,
        mut options: impl FnMut(&mut Ui),
    ) -> Outcome {
        let (enter, escape) =
            ctx.input(|i| (i.key_pressed(Key::Enter), i.key_pressed(Key::Escape)));
        let asking = self.replace.is_some();
        // Enter and Escape go to the New folder row while it is open.
        let naming = self.new_folder.is_some() && !asking;
        let (enter, escape) = if naming {
            if enter {
                self.make_folder();
            } else if escape {
                self.new_folder = None;
            }
            (false, false)
        } else {
            (enter, escape)
        };
        let mut outcome = Outcome::Stay;
        let mut go = enter && !asking;
        let mut open_dir: Option<PathBuf> = None;
        // Backspace or Alt+Up: the parent folder (unless typing in the name field).
        if !asking
            && !ctx.egui_wants_keyboard_input()
            && ctx.input(|i| {
                i.key_pressed(Key::Backspace) || (i.modifiers.alt && i.key_pressed(Key::ArrowUp))
            })
        {
            open_dir = self.dir.parent().map(Path::to_path_buf);
        }
        egui::Modal::new(egui::Id::unique("file-browser")).show(ctx, |ui| {
            ui.set_width(680.0);
            ui.heading(self.purpose.title());
            self.path_bar(ui, &mut open_dir);
            ui.separator();
            ui.horizontal_top(|ui| {
                // A fixed height: the separator spans the row, which must not grow it.
                ui.set_height(BODY_HEIGHT);
                ui.vertical(|ui| {
                    ui.set_width(170.0);
                    self.places(ui, places, &mut open_dir);
                });
                ui.separator();
                ui.vertical(|ui| {
                    go |= self.listing_ui(ui, &mut open_dir);
                });
            });
            ui.separator();
            ui.horizontal(|ui| {
                ui.label("File name:");
                let r = ui.add(
                    egui::TextEdit::singleline(&mut self.name)
                        .desired_width(f32::INFINITY)
                        .hint_text(if self.purpose.writes() {
                            "name, or a path"
                        } else {
                            "pick a file, or type its path"
                        }),
                );
                if std::mem::take(&mut self.focus_name) {
                    r.request_focus();
                }
            });
            options(ui);
            self.new_folder_ui(ui);
            if let Some(m) = &self.message {
                ui.colored_label(Color32::from_rgb(240, 180, 60), m);
            }
            ui.horizontal(|ui| {
                ui.checkbox(&mut self.hidden, "Hidden files");
                // Not in the frame whose Enter or Escape closed the row: that key
                // would also press this button, which had the focus before the row.
                if self.purpose.writes()
                    && self.new_folder.is_none()
                    && ui.button("New folder").clicked()
                    && !naming
                {
                    self.new_folder = Some(String::new());
                    self.focus_new_folder = true;
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if ui.button(self.purpose.accept_label()).clicked() {
                        go = true;
                    }
                    if ui.button("Cancel").clicked() {
                        outcome = Outcome::Cancel;
                    }
                });
            });
        });
        if let Some(d) = open_dir {
            self.enter(d);
        }
        if asking {
            return self.replace_question(ctx, enter, escape);
        }
        if escape {
            return Outcome::Cancel;
        }
        if outcome == Outcome::Cancel {
            return outcome;
        }
        if go && let Some(p) = self.accept(own) {
            return Outcome::Accept(p);
        }
        Outcome::Stay
    }

    /// Parent-folder button and the folder as clickable parts.
    fn path_bar(&mut self, ui: &mut Ui, open_dir: &mut Option<PathBuf>) {
        ui.horizontal_wrapped(|ui| {
            let up = ui
                .add_enabled(self.dir.parent().is_some(), egui::Button::new("Up"))
                .on_hover_text("Parent folder");
            if up.clicked() {
                *open_dir = self.dir.parent().map(Path::to_path_buf);
            }
            let parts: Vec<&Path> = self.dir.ancestors().collect();
            // The deepest few are what matters; the root end is elided.
            const SHOWN: usize = 7;
            if parts.len() > SHOWN {
                ui.label("…");
            }
            for (i, p) in parts.iter().take(SHOWN).rev().enumerate() {
                if i > 0 || parts.len() > SHOWN {
                    ui.label(RichText::new("›").weak());
                }
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| p.display().to_string());
                let here = *p == self.dir.as_path();
                if ui
                    .selectable_label(here, name)
                    .on_hover_text(p.display().to_string())
                    .clicked()
                    && !here
                {
                    *open_dir = Some(p.to_path_buf());
                }
            }
        });
    }

    /// Quick picks: home and the folders files were last used in.
    fn places(&mut self, ui: &mut Ui, recent: &[PathBuf], open_dir: &mut Option<PathBuf>) {
        ui.label(RichText::new("Places").strong());
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut picks: Vec<(String, PathBuf)> = Vec::new();
        if let Some(h) = home.filter(|h| h.is_dir()) {
            picks.push(("Home".into(), h));
        }
        for d in recent.iter().filter(|d| d.is_dir()).take(8) {
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| d.display().to_string());
            picks.push((name, d.clone()));
        }
        if picks.len() <= 1 && recent.is_empty() {
            ui.label(RichText::new("Folders you use show here").weak().small());
        }
        egui::ScrollArea::vertical()
            .id_salt("places")
            .max_height(BODY_HEIGHT - 20.0)
            .show(ui, |ui| {
                ui.with_layout(egui::Layout::top_down_justified(egui::Align::LEFT), |ui| {
                    for (name, d) in picks {
                        let r = ui
                            .selectable_label(d == self.dir, name)
                            .on_hover_text(d.display().to_string());
                        if r.clicked() {
                            *open_dir = Some(d);
                        }
                    }
                });
            });
    }

    /// The folder's rows; returns true when a file was double-clicked.
    fn listing_ui(&mut self, ui: &mut Ui, open_dir: &mut Option<PathBuf>) -> bool {
        self.entries();
        // Taken out for the frame (not cloned: a folder may hold thousands of rows).
        let Some(listing) = self.listing.take() else {
            return false;
        };
        let go = match &listing.2 {
            Ok(rows) => self.rows_ui(ui, rows, open_dir),
            Err(e) => {
                ui.colored_label(Color32::from_rgb(240, 120, 90), e);
                false
            }
        };
        if self.listing.is_none() {
            self.listing = Some(listing);
        }
        go
    }

    fn rows_ui(&mut self, ui: &mut Ui, rows: &[Entry], open_dir: &mut Option<PathBuf>) -> bool {
        if rows.is_empty() {
            let exts: Vec<String> = self
                .purpose
                .extensions()
                .iter()
                .map(|e| format!(".{e}"))
                .collect();
            ui.label(RichText::new(format!("No folders or {} files here", exts.join(" "))).weak());
            return false;
        }
        let mut go = false;
        let row_h = ui.spacing().interact_size.y;
        // Arrow keys move the selection while no text field has the keyboard.
        let step = if ui.ctx().egui_wants_keyboard_input() {
            0
        } else {
            ui.input(|i| {
                let (down, up) = (i.key_pressed(Key::ArrowDown), i.key_pressed(Key::ArrowUp));
                if i.modifiers.alt {
                    0
                } else {
                    i64::from(down) - i64::from(up)
                }
            })
        };
        let mut area = egui::ScrollArea::vertical()
            .id_salt(("listing", self.dir.clone()))
            .auto_shrink([false, false])
            .max_height(BODY_HEIGHT);
        if step != 0 {
            let at = self
                .selected
                .as_ref()
                .and_then(|s| rows.iter().position(|e| e.path == *s));
            let next = at.map_or(0, |i| {
                (i as i64 + step).clamp(0, rows.len() as i64 - 1) as usize
            });
            let e = &rows[next];
            self.selected = Some(e.path.clone());
            self.message = None;
            if !e.is_dir {
                self.name = e.name.clone();
            } else if !self.purpose.writes() {
                // Enter then goes into the folder rather than opening the last file named.
                self.name.clear();
            }
            let full = row_h + ui.spacing().item_spacing.y;
            area = area.vertical_scroll_offset((next as f32 * full - BODY_HEIGHT / 2.0).max(0.0));
        }
        area.show_rows(ui, row_h, rows.len(), |ui, range| {
            ui.with_layout(egui::Layout::top_down_justified(egui::Align::LEFT), |ui| {
                for e in &rows[range] {
                    let text = if e.is_dir {
                        RichText::new(format!("{}/", e.name)).strong()
                    } else {
                        RichText::new(&e.name)
                    };
                    // The row the file-name field names is lit too (Save as starts on the map's file).
                    let sel = self.selected.as_ref() == Some(&e.path)
                        || (!e.is_dir && e.name == self.name.trim());
                    let r = ui.selectable_label(sel, text);
                    // Size and age drawn at the row's right end (not part of its label).
                    let info = [e.size.map(size_text), e.modified.map(super::dialogs::ago)]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join("   ");
                    ui.painter().text(
                        r.rect.right_center() - vec2(6.0, 0.0),
                        egui::Align2::RIGHT_CENTER,
                        info,
                        egui::FontId::proportional(12.0),
                        ui.visuals().weak_text_color(),
                    );
                    if r.clicked() {
                        self.selected = Some(e.path.clone());
                        self.message = None;
                        if !e.is_dir {
                            self.name = e.name.clone();
                        }
                    }
                    if r.double_clicked() {
                        if e.is_dir {
                            *open_dir = Some(e.path.clone());
                        } else {
                            self.name = e.name.clone();
                            go = true;
                        }
                    }
                }
            });
        });
        go
    }

    /// "Replace X?" over the browser: Replace (or Enter) accepts, Cancel (or Escape) goes back.
    fn replace_question(&mut self, ctx: &egui::Context, enter: bool, escape: bool) -> Outcome {
        let Some(path) = self.replace.clone() else {
            return Outcome::Stay;
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (mut yes, mut no) = (enter, escape);
        egui::Modal::new(egui::Id::unique("file-browser-replace")).show(ctx, |ui| {
            ui.set_max_width(460.0);
            ui.heading(format!("Replace {name}?"));
            ui.label(format!(
                "A file with that name already exists in {}. Replacing it overwrites what it holds.",
                parent_text(&path)
            ));
            ui.horizontal(|ui| {
                yes |= ui.button("Replace").clicked();
                no |= ui.button("Cancel").clicked();
            });
        });
        if yes {
            self.replace = None;
            return Outcome::Accept(path);
        }
        if no {
            self.replace = None;
        }
        Outcome::Stay
    }
}

/// `~` and `~/x` as the home folder.
fn expand_home(typed: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    if typed == "~" {
        return home().unwrap_or_else(|| PathBuf::from(typed));
    }
    match (typed.strip_prefix("~/"), home()) {
        (Some(rest), Some(h)) => h.join(rest),
        _ => PathBuf::from(typed),
    }
}

/// A file length for people: `812 B`, `4.2 kB`, `13.0 MB`.
fn size_text(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

fn parent_text(p: &Path) -> String {
    p.parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default()
}

impl EditorApp {
    /// One frame of the file browser and, once a path is chosen, its action.
    /// Returns whether a dialog stays open.
    pub(super) fn browser_dialog(&mut self, ctx: &egui::Context, mut b: Browser) -> bool {
        let places = self.store.recent_folders();
        let own = (b.purpose == PathPurpose::SaveAs)
            .then(|| self.doc.path.clone())
            .flatten();
        let has_background = crate::background::Background::of(self.doc.map()).is_some();
        let purpose = b.purpose;
        let outcome = b.show(ctx, &places, own.as_deref(), |ui| {
            if purpose == PathPurpose::Png {
                self.scale_choice(ui);
                ui.add_enabled(
                    has_background,
                    egui::Checkbox::new(
                        &mut self.export_background,
                        "Include the background image",
                    ),
                )
                .on_disabled_hover_text(
                    "The map has no background image (File > Background image)",
                );
            }
        });
        let path = match outcome {
            Outcome::Stay => {
                self.dialog = Some(Dialog::Browse(Box::new(b)));
                return true;
            }
            Outcome::Cancel => {
                self.pending = None;
                return false;
            }
            Outcome::Accept(p) => p,
        };
        let _ = self.store.add_recent_folder(&path);
        self.dialog = None;
        match purpose {
            // The unsaved-changes question was asked before this dialog opened.
            PathPurpose::Open => self.open(&path),
            PathPurpose::ImportBoard => self.import_board(&path),
            PathPurpose::ImportDem => {
                self.dialog = Some(Dialog::ImportDem(DemForm::new(path)));
                return true;
            }
            PathPurpose::SaveAs => {
                if self.save_to(&path)
                    && let Some(p) = self.pending.take()
                {
                    self.run_confirmed(ctx, p);
                }
            }
            PathPurpose::Png => self.export_png(&path),
            PathPurpose::Svg => self.export_svg(&path),
            PathPurpose::Background => self.set_background(&path),
            PathPurpose::Layer => self.load_layer(&path),
            PathPurpose::Combine => {
                self.dialog = Some(Dialog::Combine(CombineForm::new(path)));
                return true;
            }
        }
        // An action may have opened another dialog (the unsaved prompt's follow-up).
        self.dialog.is_some()
    }
}
