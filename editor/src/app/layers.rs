//! The layer panel: load, create, toggle, reorder and remove the map's scenario
//! layers, choose where painting goes, and save the layers to their own files.

use super::*;
use crate::layers::DocLayer;
use hexsight_analysis::map::layer::Layer;

/// A problem colour for one-line errors in panels.
const PROBLEM: Color32 = Color32::from_rgb(240, 110, 90);

/// What a row of the layer list asked for.
enum RowAction {
    Toggle(usize, bool),
    Up(usize),
    Remove(usize),
}

impl EditorApp {
    /// Loads a layer file onto the top of the list. A file that does not parse or
    /// apply to the shown map is refused with the library's one-line error
    /// (naming the file and the entry); nothing else changes.
    pub fn load_layer(&mut self, path: &Path) {
        if self.doc.layers().iter().any(|l| l.path() == path) {
            self.layer_problem = Some(format!("{}: already in the list", path.display()));
            return;
        }
        let layer = match Layer::load(path).and_then(|l| l.apply(self.doc.map()).map(|_| l)) {
            Ok(l) => l,
            Err(e) => {
                self.status = format!("Layer not loaded: {e}");
                self.layer_problem = Some(e.to_string());
                return;
            }
        };
        let entry = DocLayer::new(layer);
        self.doc.layer_read(path, entry.text().to_string());
        self.doc.edit_layers("Load layer", |ls| ls.push(entry));
        self.layer_problem = None;
        self.status = format!("Loaded layer {}", path.display());
    }

    /// Adds an empty layer on top, saved beside the map (`<map>-layer<N>.json`),
    /// and makes it the painting target.
    pub fn new_layer(&mut self) {
        let (dir, stem) = match &self.doc.path {
            Some(p) => (
                p.parent().map(Path::to_path_buf).unwrap_or_default(),
                p.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "map".into()),
            ),
            None => (
                std::env::current_dir().unwrap_or_default(),
                "untitled".to_string(),
            ),
        };
        let taken = |p: &Path| p.exists() || self.doc.layers().iter().any(|l| l.path() == p);
        let (n, path) = (1..)
            .map(|n| (n, dir.join(format!("{stem}-layer{n}.json"))))
            .find(|(_, p)| !taken(p))
            .expect("some number is free");
        let layer = Layer::empty(&path, &format!("Layer {n}"));
        self.doc
            .edit_layers("New layer", |ls| ls.push(DocLayer::new(layer)));
        self.target = Some(self.doc.layers().len() - 1);
        self.status = format!("New layer {} (saved with the map)", path.display());
    }

    /// Writes every layer changed since it was read or written; false (and the
    /// error shown) if one could not be written.
    pub(super) fn save_layers(&mut self) -> bool {
        for i in self.doc.dirty_layers() {
            let l = &self.doc.layers()[i];
            let path = l.path().to_path_buf();
            match hexsight_analysis::map::file::write_atomic(&path, l.text().as_bytes()) {
                Ok(()) => self.doc.mark_layer_saved(i),
                Err(e) => {
                    self.error = Some(format!(
                        "Could not save the layer {}:\n\n{e}\n\nThe layer is still open and unsaved.",
                        path.display()
                    ));
                    self.pending = None;
                    return false;
                }
            }
        }
        true
    }

    /// The painting target, kept within the list (undo may remove layers).
    pub(super) fn fit_target(&mut self) {
        if self.target.is_some_and(|i| i >= self.doc.layers().len()) {
            self.target = None;
        }
    }

    pub(super) fn layer_panel(&mut self, ui: &mut Ui) {
        self.fit_target();
        ui.heading("Layers");
        ui.horizontal(|ui| {
            if ui
                .button("Load...")
                .on_hover_text("Load a scenario layer file (applied over the map)")
                .clicked()
            {
                self.dialog = Some(Dialog::Path {
                    purpose: PathPurpose::Layer,
                    text: self.dir_hint(),
                });
            }
            if ui
                .button("New")
                .on_hover_text("A new empty layer, saved to its own file beside the map")
                .clicked()
            {
                self.new_layer();
            }
        });
        let dirty = self.doc.dirty_layers();
        let mut action = None;
        for (i, l) in self.doc.layers().iter().enumerate() {
            ui.horizontal(|ui| {
                let mut on = l.enabled;
                let unsaved = if dirty.contains(&i) { " (unsaved)" } else { "" };
                if ui
                    .checkbox(&mut on, format!("{}{unsaved}", l.title()))
                    .on_hover_text(l.path().display().to_string())
                    .changed()
                {
                    action = Some(RowAction::Toggle(i, on));
                }
                if ui
                    .add_enabled(i > 0, egui::Button::new("Up").small())
                    .on_hover_text("Apply earlier")
                    .clicked()
                {
                    action = Some(RowAction::Up(i));
                }
                if ui
                    .small_button("Remove")
                    .on_hover_text("Remove from the list (its file stays)")
                    .clicked()
                {
                    action = Some(RowAction::Remove(i));
                }
            });
        }
        match action {
            Some(RowAction::Toggle(i, on)) => {
                let label = if on { "Layer on" } else { "Layer off" };
                self.doc.edit_layers(label, |ls| ls.set_enabled(i, on));
            }
            Some(RowAction::Up(i)) => {
                self.doc.edit_layers("Move layer", |ls| ls.move_up(i));
                self.target = self.target.map(|t| match t {
                    t if t == i => i - 1,
                    t if t == i - 1 => i,
                    t => t,
                });
            }
            Some(RowAction::Remove(i)) => {
                self.doc.edit_layers("Remove layer", |ls| ls.remove(i));
                self.target = match self.target {
                    Some(t) if t == i => None,
                    Some(t) if t > i => Some(t - 1),
                    t => t,
                };
            }
            None => {}
        }
        if !self.doc.layers().is_empty() {
            ui.horizontal_wrapped(|ui| {
                ui.label("Paint into");
                ui.selectable_value(&mut self.target, None, "the map itself");
                for (i, l) in self.doc.layers().iter().enumerate() {
                    ui.selectable_value(&mut self.target, Some(i), l.title());
                }
            });
        }
        for problem in [self.doc.layer_error(), self.layer_problem.as_deref()]
            .into_iter()
            .flatten()
        {
            ui.colored_label(PROBLEM, problem);
        }
    }
}
