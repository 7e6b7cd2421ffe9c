//! Modal dialogs: the file browser (in `browser`), new map, properties, unsaved changes, recovery, errors,
//! a file changed on disk.

use super::*;

impl EditorApp {
    // ----- dialogs -----------------------------------------------------------

    /// Shows the dialog that is up, if any: an error first, then a save conflict,
    /// then the open dialog. Each dialog's function says whether it stays open.
    pub(super) fn dialogs(&mut self, ctx: &egui::Context) {
        if let Some(err) = self.error.clone() {
            self.error_dialog(ctx, err);
            return;
        }
        if self.conflict.is_some() {
            self.conflict_dialog(ctx);
            return;
        }
        let Some(dialog) = self.dialog.clone() else {
            return;
        };
        let keep = match dialog {
            Dialog::Path { purpose, text } => {
                self.browser_dialog(ctx, Browser::new(purpose, &text))
            }
            Dialog::Browse(b) => self.browser_dialog(ctx, *b),
            Dialog::Placement(f) => self.placement_dialog(ctx, f),
            Dialog::Unsaved => self.unsaved_dialog(ctx),
            Dialog::NewMap(f) => self.new_map_dialog(ctx, f),
            Dialog::Properties(f) => self.properties_dialog(ctx, f),
            Dialog::Combine(f) => self.combine_dialog(ctx, f),
            Dialog::ImportDem(f) => self.dem_dialog(ctx, f),
            Dialog::Recovery => self.recovery_dialog(ctx),
        };
        if !keep {
            self.dialog = None;
        }
    }

    /// A problem, until OK (or Enter, or Escape).
    fn error_dialog(&mut self, ctx: &egui::Context, err: String) {
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
    }

    /// Save, discard or keep the changes before the pending command; false once
    /// it is answered (true also when the answer opened a dialog of its own).
    fn unsaved_dialog(&mut self, ctx: &egui::Context) -> bool {
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
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape)) {
                    choice = Some(2);
                }
            });
        });
        match choice {
            None => true,
            Some(0) => self.save_before_pending(ctx),
            Some(1) => {
                self.store.clear_autosave();
                let Some(c) = self.pending.take() else {
                    return false;
                };
                self.dialog = None;
                self.run_confirmed(ctx, c);
                true
            }
            Some(_) => {
                self.pending = None;
                false
            }
        }
    }

    /// Saves, then runs the pending command; with no file yet, asks where (and
    /// keeps that dialog: true).
    fn save_before_pending(&mut self, ctx: &egui::Context) -> bool {
        let Some(p) = self.doc.path.clone() else {
            self.dialog = Some(Dialog::Path {
                purpose: PathPurpose::SaveAs,
                text: self.dir_hint(),
            });
            return true;
        };
        // Closed first: the pending command may open a dialog of its own.
        self.dialog = None;
        if self.save_to(&p)
            && let Some(c) = self.pending.take()
        {
            self.run_confirmed(ctx, c);
        }
        true
    }

    /// The new map's size, layout and ruleset; false once created or cancelled.
    fn new_map_dialog(&mut self, ctx: &egui::Context, mut f: NewMapForm) -> bool {
        let (mut create, mut keep) = (false, true);
        egui::Modal::new(egui::Id::unique("newmap")).show(ctx, |ui| {
            ui.heading("New map");
            egui::Grid::new("newgrid")
                .num_columns(2)
                .show(ui, |ui| new_map_fields(ui, &mut f));
            ui.horizontal(|ui| {
                if ui.button("Create").clicked() {
                    create = true;
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape)) {
                    keep = false;
                }
            });
        });
        if create {
            match blank_map(&f) {
                Ok(map) => {
                    self.set_document(Document::new(map, None));
                    self.status = "New map".into();
                    return false;
                }
                Err(e) => self.error = Some(e),
            }
        }
        if keep {
            self.dialog = Some(Dialog::NewMap(f));
        }
        keep
    }

    /// Recover or discard each autosaved piece of work found at the start; false
    /// once none is left or the user chose Later.
    fn recovery_dialog(&mut self, ctx: &egui::Context) -> bool {
        let mut action: Option<(usize, bool)> = None;
        let mut later = false;
        egui::Modal::new(egui::Id::unique("recovery")).show(ctx, |ui| {
            ui.heading("Recover unsaved work?");
            ui.label("The editor did not close cleanly last time. Autosaved work was found:");
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
            ui.label(RichText::new("Enter recovers the newest.").small());
        });
        // The default choice from the keyboard: keeping work is never the wrong guess.
        if action.is_none() && !later && ctx.input(|i| i.key_pressed(Key::Enter)) {
            action = Some((0, true));
        }
        if let Some((i, recover)) = action {
            let r = self.recoveries.remove(i);
            if recover {
                self.recover(r);
            } else {
                let _ = std::fs::remove_file(&r.file);
            }
        }
        !(later || self.recoveries.is_empty())
    }

    /// Opens recovered work as an unsaved document, or says why it does not load.
    fn recover(&mut self, r: Recovery) {
        match r.load() {
            Ok(map) => {
                let mut doc = Document::unsaved(map, r.original.clone());
                doc.disk = r.original_stamp;
                self.set_document(doc);
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
    }
}

/// The new map form's rows.
fn new_map_fields(ui: &mut Ui, f: &mut NewMapForm) {
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
        ui.selectable_value(&mut f.orientation, Orientation::Pointy, "Pointy top");
    });
    ui.end_row();
    ui.label("Shifted");
    ui.horizontal(|ui| {
        ui.selectable_value(&mut f.stagger, Stagger::Odd, "Odd");
        ui.selectable_value(&mut f.stagger, Stagger::Even, "Even");
    });
    ui.end_row();
    ui.label("Ruleset");
    super::properties::ruleset_picker(ui, "rs", &mut f.ruleset);
    ui.end_row();
}

impl EditorApp {
    /// The PNG scale buttons, with the picture's size in pixels.
    pub(super) fn scale_choice(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            ui.label("Scale");
            for s in [1.0, 2.0, 3.0, 4.0] {
                ui.selectable_value(&mut self.export_scale, s, format!("{s}x"));
            }
            let size = self.canvas_rect.size() * self.export_scale;
            ui.label(format!("{} x {} pixels", size.x.round(), size.y.round()));
        });
    }

    /// Asks what to do with a save whose file another program changed.
    fn conflict_dialog(&mut self, ctx: &egui::Context) {
        let Some(path) = self.conflict.clone() else {
            return;
        };
        let mut choice = None;
        egui::Modal::new(egui::Id::unique("conflict")).show(ctx, |ui| {
            ui.set_max_width(520.0);
            ui.heading("The file changed on disk");
            ui.label(format!(
                "Another program changed {} since it was opened or saved here. \
                 Saving now would overwrite those changes.",
                path.display()
            ));
            ui.horizontal(|ui| {
                if ui
                    .button("Overwrite")
                    .on_hover_text("Save your version over theirs")
                    .clicked()
                {
                    choice = Some(0);
                }
                if ui
                    .button("Reload from disk")
                    .on_hover_text("Take their version; undo brings back yours")
                    .clicked()
                {
                    choice = Some(1);
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape)) {
                    choice = Some(2);
                }
            });
        });
        let Some(choice) = choice else {
            return;
        };
        self.conflict = None;
        match choice {
            0 => {
                if self.write_to(&path)
                    && let Some(c) = self.pending.take()
                {
                    self.run_confirmed(ctx, c);
                }
            }
            1 => {
                self.pending = None;
                self.reload(&path);
            }
            _ => {
                self.pending = None;
                self.status = "Not saved".into();
            }
        }
    }
}

/// How long ago a time (seconds since the epoch) was, in words.
pub(super) fn ago(t: u64) -> String {
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
