//! The hex panel: what the selected (or hovered) hex holds, and the editor of
//! one of its units, with the unit's id being typed.

use super::panels::{swatch, unit_fields, unit_sight};
use crate::canvas;
use crate::document::Document;
use egui::{Color32, RichText, Ui};
use hexsight_analysis::hex::Hex;

/// The hex panel's state: the unit being edited and its id as typed.
#[derive(Default)]
pub struct HexPanel {
    /// The id of the unit being edited, if any.
    pub editing_unit: Option<String>,
    /// The unit id field: (unit it belongs to, text typed).
    id_buf: Option<(String, String)>,
}

impl HexPanel {
    /// The panel for `target` (the selected or hovered hex): its terrain,
    /// markers, hexsides and units, and the unit being edited.
    pub fn ui(&mut self, ui: &mut Ui, doc: &mut Document, target: Option<Hex>) {
        ui.heading("Hex");
        let map = doc.map();
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
            let Some(u) = doc.map().unit(&id).cloned() else {
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
        self.unit_editor(ui, doc);
    }

    /// The unit's id, renamed as typed while it stays unique and non-empty
    /// (the loader refuses a file with two units of one id).
    fn unit_id_field(&mut self, ui: &mut Ui, doc: &mut Document, id: &str) {
        if self.id_buf.as_ref().is_none_or(|(for_id, _)| for_id != id) {
            self.id_buf = Some((id.to_string(), id.to_string()));
        }
        let mut text = self
            .id_buf
            .as_ref()
            .map(|b| b.1.clone())
            .unwrap_or_default();
        ui.horizontal(|ui| {
            let label = ui.label("Id");
            ui.add(egui::TextEdit::singleline(&mut text).desired_width(150.0))
                .labelled_by(label.id);
        });
        let new = text.trim().to_string();
        let mut current = id.to_string();
        if new != id {
            let warn = Color32::from_rgb(240, 180, 60);
            if new.is_empty() {
                ui.colored_label(warn, "A unit needs an id.");
            } else if doc.map().unit(&new).is_some() {
                ui.colored_label(warn, format!("`{new}` is already used."));
            } else {
                let old = id.to_string();
                let renamed = new.clone();
                doc.edit_merging("Rename unit", move |m| {
                    if let Some(x) = m.units.iter_mut().find(|x| x.id == old) {
                        x.id = renamed;
                    }
                });
                self.editing_unit = Some(new.clone());
                current = new;
            }
        }
        self.id_buf = Some((current, text));
    }

    /// The edited unit's fields, its id, what it sees and Remove.
    fn unit_editor(&mut self, ui: &mut Ui, doc: &mut Document) {
        let Some(id) = self.editing_unit.clone() else {
            return;
        };
        let Some(u) = doc.map().unit(&id).cloned() else {
            self.editing_unit = None;
            return;
        };
        ui.group(|ui| {
            ui.label(RichText::new(format!("Unit {id}")).strong());
            let (mut side, mut kind, mut state, mut facing) =
                (u.side.clone(), u.kind.clone(), u.state.clone(), u.facing);
            let names = doc.map().layout.side_names();
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
                doc.edit_merging(&format!("Edit unit {id}"), |m| {
                    if let Some(x) = m.units.iter_mut().find(|x| x.id == id) {
                        x.side = side;
                        x.kind = kind;
                        x.state = state;
                        x.facing = facing;
                    }
                });
            }
            self.unit_id_field(ui, doc, &id);
            unit_sight(ui, doc.map(), &id);
            // The family's unit rules (a prone unit in woods, a crest unit out of a depression).
            if let Err(e) = hexsight_analysis::rules::check_units(doc.map()) {
                ui.colored_label(Color32::from_rgb(240, 180, 60), e.to_string());
            }
            if ui.button("Remove unit").clicked() {
                doc.edit("Remove unit", |m| m.units.retain(|x| x.id != id));
                self.editing_unit = None;
            }
        });
    }
}
