//! The overlay panel: which overlay is shown, its options (spotting targets, what
//! the change in sight compares against), and the job runner that computes it.
//!
//! Every overlay is the library's answer (`jobs`, on the engine); this module
//! chooses which job is wanted and when to ask for it.

use crate::canvas::Overlay;
use crate::document::Document;
use crate::jobs::{JobKey, JobKind, JobOutput, Jobs};
use egui::Ui;
use hexsight_analysis::Map;
use hexsight_analysis::hex::Hex;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the diff overlay compares against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DiffBase {
    /// The map as last saved or opened, without layers.
    #[default]
    Saved,
    /// The map as it is now, without layers.
    NoLayers,
}

/// The overlay panel's state.
pub struct OverlayPanel {
    /// The overlay shown, if any.
    pub shown: Option<Overlay>,
    /// Spotting targets that move or fire (else do nothing).
    pub spot_moving: bool,
    /// What the diff overlay compares the shown map against.
    pub diff_against: DiffBase,
    /// How long the map must rest after an edit before the diff overlay is
    /// recomputed (two whole-map analyses; tests set zero).
    pub diff_debounce: Duration,
    /// The overlay jobs (the editor's one runner, for overlays).
    pub jobs: Jobs,
    /// The document generation last seen and when it was first seen.
    changed: (u64, Instant),
}

impl Default for OverlayPanel {
    fn default() -> Self {
        OverlayPanel {
            shown: None,
            spot_moving: false,
            diff_against: DiffBase::Saved,
            diff_debounce: Duration::from_millis(400),
            jobs: Jobs::default(),
            changed: (0, Instant::now()),
        }
    }
}

impl OverlayPanel {
    /// The job the shown overlay wants for `doc`, the selected hex and the range.
    pub fn key(&self, doc: &Document, selected: Option<Hex>, range: u32) -> Option<JobKey> {
        let on_map = selected.filter(|h| doc.map().contains(*h));
        let kind = match self.shown? {
            Overlay::Viewshed | Overlay::Blind => JobKind::Viewshed(on_map?),
            Overlay::Exposure => JobKind::Exposure,
            Overlay::Spotting => JobKind::Spotting(on_map?, self.spot_moving),
            Overlay::Diff => JobKind::Diff {
                from: on_map,
                base: match self.diff_against {
                    DiffBase::Saved => (0, doc.saved_serial()),
                    DiffBase::NoLayers => (1, 0),
                },
            },
        };
        Some(JobKey {
            generation: doc.generation(),
            kind,
            // The diff compares every pair, as `hexsight diff` does.
            range: if matches!(kind, JobKind::Diff { .. }) {
                0
            } else {
                range
            },
        })
    }

    /// Notes when the document last changed (for the diff overlay's debounce).
    pub fn note_change(&mut self, generation: u64) {
        if generation != self.changed.0 {
            self.changed = (generation, Instant::now());
        }
    }

    /// Asks the runner for the job `key` wants (the diff only once the map rests).
    pub fn request(&mut self, ctx: &egui::Context, doc: &Document, key: Option<JobKey>) {
        let diff = key.is_some_and(|k| matches!(k.kind, JobKind::Diff { .. }));
        // A diff made for an older map is of no use: cancelled as soon as an edit comes.
        if diff && self.jobs.running().is_some_and(|r| Some(r) != key) {
            self.jobs.cancel();
        }
        // While a stroke is open the map changes every frame: wait for the stroke to end.
        if doc.editing() {
            return;
        }
        let Some(key) = key else { return };
        let c = ctx.clone();
        if !diff {
            self.jobs
                .request(key, doc.map(), move || c.request_repaint());
            return;
        }
        if self.jobs.settled(key) {
            return;
        }
        // The diff runs the engine twice over every pair: wait until the map rests.
        let rested = self.changed.1.elapsed();
        if rested < self.diff_debounce {
            ctx.request_repaint_after(self.diff_debounce - rested);
            return;
        }
        let before = match self.diff_against {
            DiffBase::Saved => doc.saved_map(),
            DiffBase::NoLayers => Arc::new(doc.file_map().clone()),
        };
        self.jobs
            .request_diff(key, &before, doc.map(), move || c.request_repaint());
    }

    /// The overlay to draw for `key`: its kind, data and whether it is stale (an
    /// older generation's, shown faded while the new one is computed).
    pub fn data(&self, map: &Map, key: Option<JobKey>) -> Option<(Overlay, Arc<JobOutput>, bool)> {
        let overlay = self.shown?;
        let key = key?;
        if let Some(d) = self.jobs.result(key) {
            return Some((overlay, d, false));
        }
        let d = self.jobs.stale_result(key.kind)?;
        (d.len() == map.len()).then_some((overlay, d, true))
    }

    /// The overlay radio buttons and the shown overlay's options.
    pub fn choice_ui(&mut self, ui: &mut Ui, map: &Map) {
        ui.radio_value(&mut self.shown, None, "No overlay");
        ui.radio_value(&mut self.shown, Some(Overlay::Viewshed), "Viewshed")
            .on_hover_text("Hexes the selected hex sees: yellow clear, teal hindered, purple not seen (the report's colours).");
        ui.radio_value(&mut self.shown, Some(Overlay::Blind), "Blind hexes")
            .on_hover_text("Blind hexes of the selected hex (hidden only by a lower obstacle), orange and hatched; other hexes it does not see, darkened.");
        ui.radio_value(&mut self.shown, Some(Overlay::Exposure), "Exposure")
            .on_hover_text("For every hex, how many hexes see it (all pairs: slow on big maps).");
        ui.radio_value(&mut self.shown, Some(Overlay::Diff), "Change in sight")
            .on_hover_text("What changed in sight: red where more hexes see a hex, blue where fewer; rings round the hexes the selected hex gained (red) and lost (blue). Recomputed when the map rests after an edit.");
        if self.shown == Some(Overlay::Diff) {
            ui.horizontal(|ui| {
                ui.label("against");
                ui.selectable_value(&mut self.diff_against, DiffBase::Saved, "the saved map");
                ui.selectable_value(&mut self.diff_against, DiffBase::NoLayers, "no layers");
            });
        }
        match crate::jobs::spotting_unavailable(map) {
            None => {
                ui.radio_value(&mut self.shown, Some(Overlay::Spotting), "Spotting").on_hover_text(
                    "From the selected hex: hexes spotted automatically, and the chance of one spotting test elsewhere in LOS.",
                );
                if self.shown == Some(Overlay::Spotting) {
                    ui.horizontal(|ui| {
                        ui.label("Targets");
                        ui.selectable_value(&mut self.spot_moving, false, "do nothing");
                        ui.selectable_value(&mut self.spot_moving, true, "move or fire");
                    });
                }
            }
            Some(why) => {
                if self.shown == Some(Overlay::Spotting) {
                    self.shown = None;
                }
                ui.add_enabled(false, egui::RadioButton::new(false, "Spotting"))
                    .on_disabled_hover_text(why);
            }
        }
    }
}
