//! The LOS panel: the LOS tool's two ends, the line computed for them with its
//! profile, and the panel that shows the verdict, the library's profile picture,
//! the reason and the trace.
//!
//! Every answer comes from the library (`query::profile`, `query::range`,
//! `export::profile`); this module keeps the line and draws it.

use crate::canvas;
use egui::{Color32, RichText, Sense, Ui, vec2};
use hexsight_analysis::hex::Hex;
use hexsight_analysis::query::profile::{self, Profile};
use hexsight_analysis::rules::Effect;
use hexsight_analysis::{LosResult, Map, Verdict};

/// The line the panel shows: its ends, the document generation and range it was
/// computed for, and its profile (the verdict inside, with the range laid over).
struct Line {
    from: Hex,
    to: Hex,
    generation: u64,
    range: u32,
    profile: Profile,
}

/// The LOS panel's state: the observer, the target and their line.
#[derive(Default)]
pub struct LosPanel {
    /// The LOS observer.
    pub from: Option<Hex>,
    /// The LOS target (follows the pointer).
    pub to: Option<Hex>,
    line: Option<Line>,
}

impl LosPanel {
    /// The line shown, if both ends are set and on the map.
    pub fn los(&self) -> Option<&LosResult> {
        self.line.as_ref().map(|l| &l.profile.los)
    }

    /// The profile of the line shown (the library's `query::profile`, with the
    /// range laid over its answer).
    pub fn profile(&self) -> Option<&Profile> {
        self.line.as_ref().map(|l| &l.profile)
    }

    /// Forgets both ends and the line (a new map).
    pub fn clear(&mut self) {
        *self = LosPanel::default();
    }

    /// Recomputes the line when its ends, the map (`generation`) or the range
    /// change: one line's profile is cheap enough for the UI thread.
    pub fn update(&mut self, map: &Map, generation: u64, range: u32) {
        let (Some(from), Some(to)) = (self.from, self.to) else {
            self.line = None;
            return;
        };
        if self
            .line
            .as_ref()
            .is_some_and(|l| (l.from, l.to, l.generation, l.range) == (from, to, generation, range))
        {
            return;
        }
        if !map.contains(from) || !map.contains(to) {
            self.line = None;
            return;
        }
        let mut profile = profile::profile(map, from, to);
        if let Some(r) = crate::jobs::range_of(range) {
            profile.los = r.los(map, profile.los);
        }
        self.line = Some(Line {
            from,
            to,
            generation,
            range,
            profile,
        });
    }

    /// The panel: the verdict, the profile, what acts along the line and why.
    pub fn ui(&self, ui: &mut Ui, map: &Map, range: u32) {
        ui.heading("Line of sight");
        let Some(los) = self.los() else {
            let hint = if self.from.is_some() {
                "Move over a target hex."
            } else {
                "LOS tool (O): click an observer hex."
            };
            ui.label(hint);
            return;
        };
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
                .color(Color32::WHITE)
                .background_color(canvas::sight_color(los.verdict))
                .strong()
                .size(16.0),
        );
        self.profile_ui(ui, map, range);
        verdict_details(ui, map, los);
    }

    /// The side view under the verdict: the library's picture of the profile
    /// (`export::profile::scene`, the one `hexsight profile` writes) painted at the
    /// panel's width, the range, and the stretches as text.
    fn profile_ui(&self, ui: &mut Ui, map: &Map, range: u32) {
        let Some(p) = self.profile() else { return };
        let (from, to) = (map.label(p.los.line.from), map.label(p.los.line.to));
        let summary = match &p.los.blocked_by {
            Some(b) => format!(
                "Profile {from} -> {to}: blocked by {}",
                map.label(b.place.hex())
            ),
            None => format!("Profile {from} -> {to}: {}", p.los.verdict.as_str()),
        };
        let scene = hexsight_analysis::export::profile::scene(map, p);
        let width = ui.available_width().max(200.0);
        let scale = width / scene.width.max(1) as f32;
        let size = vec2(width, scene.height as f32 * scale);
        let (rect, resp) = ui.allocate_exact_size(size, Sense::hover());
        resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &summary));
        let mut surface = canvas::EguiSurface {
            ctx: ui.ctx(),
            shapes: Vec::new(),
            fill_alpha: 1.0,
        };
        canvas::paint_scene(&mut surface, &scene, rect.min, scale);
        ui.painter_at(rect).extend(surface.shapes);
        // Where the range ends along the line (the verdict above already applies it).
        let dist = p.los.line.from.distance(p.los.line.to);
        if range > 0 && dist > range {
            ui.label(
                RichText::new(format!(
                    "Range {range}: beyond hex {range} of {dist} nothing is seen."
                ))
                .small(),
            );
        }
        // What each stretch is, as `hexsight profile` writes it.
        egui::CollapsingHeader::new("Stretches")
            .id_salt("profile-stretches")
            .show(ui, |ui| {
                ui.label(RichText::new(p.text(map)).monospace().small());
            });
    }
}

/// Hindrance, blocker, reason, trace, events, modifiers and the full explanation.
fn verdict_details(ui: &mut Ui, map: &Map, los: &LosResult) {
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
    ui.monospace(los.trace_text(map));
    if !los.events.is_empty() {
        ui.label(RichText::new("Along the line").strong());
        for e in &los.events {
            let (tag, v) = match e.effect {
                Effect::Block => ("blocks".to_string(), Verdict::Blocked),
                Effect::Hinder(h) => (format!("hinders {h}"), Verdict::Hindered),
            };
            ui.horizontal_wrapped(|ui| {
                ui.label(
                    RichText::new(tag)
                        .color(Color32::WHITE)
                        .background_color(canvas::sight_color(v)),
                );
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
