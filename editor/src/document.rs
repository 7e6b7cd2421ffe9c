//! The open map: its path, the dirty flag, its scenario layers and the undo/redo history.
//!
//! History is kept as whole-map snapshots: a map is a few hundred kilobytes at
//! most, so a snapshot per step is cheap and makes every edit (paint, units,
//! properties, layers) undoable by construction, with no per-edit inverse to get wrong.
//!
//! The layers ([`crate::layers`]) are part of each snapshot but saved to their
//! own files: the map file never holds what a layer changes. [`Document::map`]
//! is the map as shown, the map file's content with the enabled layers applied.

use crate::layers::{LayerPaint, Layers, Shown};
use crate::stamp::Stamp;
use hexsight_analysis::Map;
use hexsight_analysis::map::file::same_content;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Most undo steps kept; older ones are dropped first.
pub const UNDO_LIMIT: usize = 200;
/// Hexes kept over all undo snapshots (about 300 MB): a huge map keeps fewer steps
/// rather than running the machine out of memory.
pub const UNDO_HEX_BUDGET: usize = 25_000_000;

/// How many undo steps a map of `hexes` hexes keeps.
pub fn undo_steps(hexes: usize) -> usize {
    (UNDO_HEX_BUDGET / hexes.max(1)).clamp(1, UNDO_LIMIT)
}

#[derive(Clone)]
struct Snapshot {
    map: Map,
    layers: Layers,
    revision: u64,
    map_revision: u64,
    label: String,
}

/// A map being edited.
pub struct Document {
    map: Map,
    /// Where the map is saved; `None` for a new map.
    pub path: Option<PathBuf>,
    /// What the file at `path` held when it was last read or written here:
    /// a save first checks the file still holds it (`None`: not known).
    pub disk: Option<Stamp>,
    undo: Vec<Snapshot>,
    redo: Vec<Snapshot>,
    /// The scenario layers, in apply order.
    layers: Layers,
    /// Identifies the committed content; equal revisions mean equal content.
    revision: u64,
    next_revision: u64,
    /// Identifies the map's own content (layer edits leave it).
    map_revision: u64,
    saved_revision: Option<u64>,
    /// What each layer file held when last read or written here (its JSON text).
    layer_disk: HashMap<PathBuf, String>,
    /// The map as saved or opened (what the diff overlay compares against).
    saved_map: std::sync::Arc<Map>,
    /// Changes whenever `saved_map` does.
    saved_serial: u64,
    /// A paint stroke recorded into a layer rather than the map.
    painting: Option<LayerPaint>,
    /// The map with the enabled layers applied, for the generation it was made at.
    shown: Shown,
    /// The map as it was when the open edit (a brush stroke) began.
    open_edit: Option<Snapshot>,
    /// Bumped on every change, committed or not: overlays key on it.
    generation: u64,
    /// The edit being committed may join the previous step.
    merge_next: bool,
    /// The revision a merging edit left, so only an unbroken run merges.
    last_merge_revision: Option<u64>,
}

impl Document {
    /// A document for a map that matches its file (or a new, empty map).
    /// A map made from another tool's file: no path, and unsaved, so closing asks first.
    pub fn imported(map: Map) -> Document {
        Document {
            saved_revision: None,
            ..Document::new(map, None)
        }
    }

    pub fn new(map: Map, path: Option<PathBuf>) -> Document {
        Document {
            saved_map: std::sync::Arc::new(map.clone()),
            saved_serial: 0,
            map,
            path,
            disk: None,
            undo: Vec::new(),
            redo: Vec::new(),
            layers: Layers::default(),
            revision: 0,
            next_revision: 1,
            map_revision: 0,
            saved_revision: Some(0),
            layer_disk: HashMap::new(),
            painting: None,
            shown: Shown::default(),
            open_edit: None,
            generation: 0,
            merge_next: false,
            last_merge_revision: None,
        }
    }

    /// A document whose content is not on disk yet (recovered work).
    pub fn unsaved(map: Map, path: Option<PathBuf>) -> Document {
        let mut d = Document::new(map, path);
        d.saved_revision = None;
        d
    }

    /// The map as shown: the map file's content with the enabled layers applied
    /// (as of the last [`Document::refresh`]; every change through the document refreshes).
    pub fn map(&self) -> &Map {
        self.shown.map().unwrap_or(&self.map)
    }

    /// The map file's own content, without layers (what Save writes).
    pub fn file_map(&self) -> &Map {
        &self.map
    }

    /// The map as last saved or opened, without layers.
    pub fn saved_map(&self) -> std::sync::Arc<Map> {
        self.saved_map.clone()
    }

    /// Changes whenever [`Document::saved_map`] does.
    pub fn saved_serial(&self) -> u64 {
        self.saved_serial
    }

    /// The scenario layers, in apply order.
    pub fn layers(&self) -> &Layers {
        &self.layers
    }

    /// Why an enabled layer could not be applied (one line naming its file and
    /// entry); the view shows the map without it.
    pub fn layer_error(&self) -> Option<&str> {
        self.shown.error()
    }

    /// Brings [`Document::map`] up to date with the content (after a stroke's step).
    pub fn refresh(&mut self) {
        let work = self.painting.as_ref().map(|p| (p.index, &p.work));
        self.shown
            .refresh(self.generation, &self.map, &self.layers, work);
    }

    /// Changes with every edit, undo and redo: the key for derived results.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// True when the content differs from the files (the map's or a layer's).
    pub fn is_dirty(&self) -> bool {
        self.open_edit.is_some() || self.map_dirty() || !self.dirty_layers().is_empty()
    }

    /// True when the map's own content differs from its file.
    pub fn map_dirty(&self) -> bool {
        self.saved_revision != Some(self.map_revision)
    }

    /// The indices of layers whose content differs from their file.
    pub fn dirty_layers(&self) -> Vec<usize> {
        (0..self.layers.len())
            .filter(|&i| {
                let l = &self.layers[i];
                self.layer_disk.get(l.path()).map(String::as_str) != Some(l.text())
            })
            .collect()
    }

    /// Records that layer `i`'s file at `path` now holds its content.
    pub fn mark_layer_saved(&mut self, i: usize) {
        let l = &self.layers[i];
        self.layer_disk
            .insert(l.path().to_path_buf(), l.text().to_string());
    }

    /// Records what the layer file at `path` holds (just read).
    pub fn layer_read(&mut self, path: &Path, text: String) {
        self.layer_disk.insert(path.to_path_buf(), text);
    }

    /// A one-shot change to the layer list (load, new, toggle, move, remove) as one
    /// undo step. Returns whether anything changed.
    pub fn edit_layers(&mut self, label: &str, f: impl FnOnce(&mut Layers)) -> bool {
        self.commit();
        self.begin(label);
        self.generation += 1;
        f(&mut self.layers);
        self.commit()
    }

    /// Starts a stroke painting into layer `index` (enabled for it): the tools then
    /// change the map as seen through that layer ([`Document::target_mut`]), and
    /// the commit records the change into the layer. Fails with the layer's error
    /// when it does not apply.
    pub fn begin_layer(&mut self, label: &str, index: usize) -> Result<(), String> {
        if self.painting.as_ref().is_some_and(|p| p.index == index) {
            return Ok(());
        }
        if index >= self.layers.len() {
            return Err(format!("there is no layer {}", index + 1));
        }
        self.commit();
        let paint = LayerPaint::start(&self.map, &self.layers, index).map_err(|e| e.to_string())?;
        self.begin(label);
        self.layers.set_enabled(index, true);
        self.painting = Some(paint);
        self.generation += 1;
        self.refresh();
        Ok(())
    }

    /// The map the open edit changes: the map itself, or the layer stroke's work.
    pub fn target_mut(&mut self) -> &mut Map {
        if self.painting.is_none() {
            return self.map_mut();
        }
        self.generation += 1;
        &mut self.painting.as_mut().expect("checked").work
    }

    /// A one-shot paint into layer `index` (or the map when `None`), as one undo step.
    pub fn paint(
        &mut self,
        label: &str,
        target: Option<usize>,
        f: impl FnOnce(&mut Map),
    ) -> Result<bool, String> {
        match target {
            None => Ok(self.edit(label, f)),
            Some(i) => {
                self.begin_layer(label, i)?;
                f(self.target_mut());
                Ok(self.commit())
            }
        }
    }

    /// The file name for titles and prompts.
    pub fn title(&self) -> String {
        match &self.path {
            Some(p) => p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string()),
            None => "untitled".to_string(),
        }
    }

    /// Starts an edit (a brush stroke is one); no-op if one is already open.
    pub fn begin(&mut self, label: &str) {
        if self.open_edit.is_none() {
            self.open_edit = Some(Snapshot {
                map: self.map.clone(),
                layers: self.layers.clone(),
                revision: self.revision,
                map_revision: self.map_revision,
                label: label.to_string(),
            });
        }
    }

    /// True while an edit is open.
    pub fn editing(&self) -> bool {
        self.open_edit.is_some()
    }

    /// Mutable access inside an open edit (opens one if needed).
    pub fn map_mut(&mut self) -> &mut Map {
        if self.open_edit.is_none() {
            self.begin("edit");
        }
        self.generation += 1;
        &mut self.map
    }

    /// Closes the open edit as one undo step, or drops it if nothing changed.
    /// A layer stroke's change is recorded into its layer here.
    pub fn commit(&mut self) -> bool {
        let merge = std::mem::take(&mut self.merge_next);
        if let Some(p) = self.painting.take() {
            self.generation += 1;
            if let Err(e) = p.record(&mut self.layers) {
                self.shown.fail(e.to_string());
            }
        }
        let Some(before) = self.open_edit.take() else {
            return false;
        };
        let map_changed = !same_content(&before.map, &self.map);
        if !map_changed && before.layers == self.layers {
            self.refresh();
            return false;
        }
        if map_changed {
            self.map_revision = self.next_revision;
        }
        // Typing into a field: one step for the run of keystrokes, not one per key.
        let same_run = merge
            && self.last_merge_revision == Some(self.revision)
            && self.undo.last().is_some_and(|u| u.label == before.label);
        if !same_run {
            self.undo.push(before);
        }
        let keep = undo_steps(self.map.len());
        if self.undo.len() > keep {
            self.undo.drain(..self.undo.len() - keep);
        }
        self.redo.clear();
        self.revision = self.next_revision;
        self.next_revision += 1;
        self.last_merge_revision = merge.then_some(self.revision);
        self.refresh();
        true
    }

    /// Like [`Document::edit`], but consecutive edits with the same label
    /// (keystrokes in one text field) make one undo step.
    pub fn edit_merging(&mut self, label: &str, f: impl FnOnce(&mut Map)) -> bool {
        self.commit();
        self.begin(label);
        f(self.map_mut());
        self.merge_next = true;
        self.commit()
    }

    /// A one-shot edit: open, apply, commit. Returns whether anything changed.
    pub fn edit(&mut self, label: &str, f: impl FnOnce(&mut Map)) -> bool {
        self.commit();
        self.begin(label);
        f(self.map_mut());
        self.commit()
    }

    /// The label of the step undo would revert.
    pub fn undo_label(&self) -> Option<&str> {
        self.undo.last().map(|s| s.label.as_str())
    }

    /// The label of the step redo would reapply.
    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|s| s.label.as_str())
    }

    /// Reverts the last step.
    pub fn undo(&mut self) -> bool {
        self.commit();
        let Some(prev) = self.undo.pop() else {
            return false;
        };
        let current = self.swap(prev);
        self.redo.push(current);
        true
    }

    /// Reapplies the last undone step.
    pub fn redo(&mut self) -> bool {
        self.commit();
        let Some(next) = self.redo.pop() else {
            return false;
        };
        let current = self.swap(next);
        self.undo.push(current);
        true
    }

    /// Puts a snapshot's content in place; returns the content it replaced.
    fn swap(&mut self, s: Snapshot) -> Snapshot {
        let current = Snapshot {
            map: std::mem::replace(&mut self.map, s.map),
            layers: std::mem::replace(&mut self.layers, s.layers),
            revision: self.revision,
            map_revision: self.map_revision,
            label: s.label,
        };
        self.revision = s.revision;
        self.map_revision = s.map_revision;
        self.generation += 1;
        self.refresh();
        current
    }

    /// Records that the current content is what is on disk at `path`, which now holds `disk`.
    pub fn mark_saved(&mut self, path: PathBuf, disk: Stamp) {
        self.commit();
        self.path = Some(path);
        self.disk = Some(disk);
        self.saved_revision = Some(self.map_revision);
        self.saved_map = std::sync::Arc::new(self.map.clone());
        self.saved_serial += 1;
    }

    /// Takes the file's new content (changed by another program) as one undo
    /// step, so the work it replaces is one undo away, and records it as what
    /// is on disk. Returns whether the content changed.
    pub fn reload(&mut self, map: Map, disk: Option<Stamp>) -> bool {
        let changed = self.edit("Reload from disk", |m| *m = map);
        self.disk = disk;
        self.saved_revision = Some(self.map_revision);
        self.saved_map = std::sync::Arc::new(self.map.clone());
        self.saved_serial += 1;
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexsight_analysis::Ruleset;
    use hexsight_analysis::hex::{Hex, Layout};
    use std::sync::Arc;

    fn doc() -> Document {
        let rs = Arc::new(Ruleset::builtin("combat-commander").unwrap());
        Document::new(
            Map::new("t", "combat-commander", rs, 4, 4, Layout::default()),
            None,
        )
    }

    #[test]
    fn a_stroke_is_one_undo_step() {
        let mut d = doc();
        d.begin("paint");
        d.map_mut().cell_mut(Hex::new(0, 0)).unwrap().terrain = 1;
        d.map_mut().cell_mut(Hex::new(1, 0)).unwrap().terrain = 1;
        assert!(d.commit());
        assert!(d.is_dirty());
        assert!(d.undo());
        assert_eq!(d.map().cell(Hex::new(1, 0)).unwrap().terrain, 0);
        assert!(!d.is_dirty(), "undo back to the saved state is clean");
        assert!(d.redo());
        assert_eq!(d.map().cell(Hex::new(0, 0)).unwrap().terrain, 1);
    }

    #[test]
    fn typing_in_a_field_is_one_step_until_something_else_happens() {
        let mut d = doc();
        for name in ["a", "ab", "abc"] {
            d.edit_merging("Rename", |m| m.name = name.into());
        }
        d.edit("paint", |m| m.cell_mut(Hex::new(0, 0)).unwrap().terrain = 1);
        d.edit_merging("Rename", |m| m.name = "abcd".into());
        assert!(d.undo());
        assert_eq!(d.map().name, "abc");
        assert!(d.undo());
        assert!(d.undo());
        assert_eq!(d.map().name, "t");
        assert!(!d.undo());
    }

    #[test]
    fn big_maps_keep_fewer_undo_steps() {
        assert_eq!(undo_steps(150), UNDO_LIMIT);
        assert_eq!(undo_steps(4_000_000), 6);
        assert_eq!(undo_steps(usize::MAX), 1);
    }

    #[test]
    fn an_edit_that_changes_nothing_leaves_no_step() {
        let mut d = doc();
        assert!(!d.edit("noop", |_| {}));
        assert!(d.undo_label().is_none());
        assert!(!d.is_dirty());
    }

    #[test]
    fn a_reload_is_clean_and_undo_brings_back_the_work_it_replaced() {
        let mut d = doc();
        d.edit("paint", |m| m.cell_mut(Hex::new(0, 0)).unwrap().terrain = 1);
        let mut theirs = d.map().clone();
        theirs.name = "changed elsewhere".into();
        theirs.cell_mut(Hex::new(0, 0)).unwrap().terrain = 0;
        assert!(d.reload(theirs, Some(Stamp::of(b"theirs"))));
        assert!(!d.is_dirty(), "the reloaded content is what is on disk");
        assert_eq!(d.map().name, "changed elsewhere");
        assert!(d.undo());
        assert!(d.is_dirty());
        assert_eq!(d.map().cell(Hex::new(0, 0)).unwrap().terrain, 1);
    }
}
