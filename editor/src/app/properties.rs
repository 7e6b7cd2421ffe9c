//! Map properties: name, scale, georeference (the `geo` block), ruleset,
//! orientation, stagger, first row and resizing. Each changed property is its own undo step; what a resize or a new
//! layout cuts is shown before Apply and reported after.

use super::*;
use hexsight_analysis::map::relabel::{relayout, renumber, with_ruleset};
use hexsight_analysis::map::resize::{Margins, resize};
use hexsight_analysis::map::{Scale, resolve_ruleset};

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
    /// Built-in ruleset name or ruleset file (relative to the map).
    pub ruleset: String,
    /// Orientation and stagger.
    pub layout: Layout,
    /// Number of the first row in labels.
    pub first_row: u32,
    /// Whether the map has a `geo` block.
    pub georeferenced: bool,
    /// Its CRS as an EPSG code (projected).
    pub epsg: u32,
    /// CRS coordinates of the first hex's centre.
    pub origin: (f64, f64),
    /// Distance between neighbouring hex centres, in CRS units.
    pub geo_hex: f64,
    /// Columns and rows to add (positive) or remove (negative) on each side.
    pub margins: Margins,
    /// What the resize in `margins` would cut: (margins, notes or why not).
    preview: Option<(Margins, Result<Vec<String>, String>)>,
}

impl PropertiesForm {
    /// The form filled in from the map.
    pub fn of(m: &Map) -> PropertiesForm {
        PropertiesForm {
            name: m.name.clone(),
            has_scale: m.scale.is_some(),
            hex: m.scale.as_ref().map_or(40.0, |s| s.hex),
            unit: m.scale.as_ref().map_or("m".into(), |s| s.unit.clone()),
            ruleset: m.ruleset_ref.clone(),
            layout: m.layout,
            first_row: m.first_row,
            georeferenced: m.geo.is_some(),
            // UTM 31N and 100 m hexes: a start that loads, to be typed over.
            epsg: m.geo.as_ref().map_or(32631, |g| g.epsg),
            origin: m.geo.as_ref().map_or((0.0, 0.0), |g| g.origin),
            geo_hex: m.geo.as_ref().map_or(100.0, |g| g.hex_size),
            margins: Margins::default(),
            preview: None,
        }
    }
}

impl EditorApp {
    /// Applies the form, one undo step per changed property. On an error the
    /// steps before it stay applied (each undoable) and the error is returned.
    pub fn apply_properties(&mut self, f: &PropertiesForm) -> Result<Vec<String>, String> {
        self.end_stroke();
        // Checked before any step, so a bad EPSG code changes nothing.
        let geo = f.geo(self.doc.map())?;
        let mut notes = Vec::new();
        if f.ruleset.trim() != self.doc.map().ruleset_ref {
            let origin = self
                .doc
                .path
                .clone()
                .unwrap_or_else(|| PathBuf::from("map.json"));
            let reference = f.ruleset.trim();
            let rs = resolve_ruleset(reference, &origin).map_err(|e| e.to_string())?;
            let m = with_ruleset(self.doc.map(), reference, rs).map_err(|e| e.to_string())?;
            self.doc.edit("Change ruleset", |x| *x = m);
            self.fit_settings();
        }
        if f.layout != self.doc.map().layout {
            let (m, cut) = relayout(self.doc.map(), f.layout);
            notes.extend(cut);
            self.doc.edit("Change orientation", |x| *x = m);
        }
        if f.first_row != self.doc.map().first_row {
            let m = renumber(self.doc.map(), f.first_row);
            self.doc.edit("Renumber rows", |x| *x = m);
        }
        if f.margins != Margins::default() {
            let r = resize(self.doc.map(), f.margins).map_err(|e| e.to_string())?;
            notes.extend(r.notes);
            self.doc.edit("Resize", |x| *x = r.map);
        }
        let name = f.name.clone();
        self.doc.edit("Rename map", |m| m.name = name);
        let scale = f.scale(self.doc.map());
        self.doc.edit("Map scale", |m| m.scale = scale);
        self.doc.edit("Georeference", |m| m.geo = geo);
        // Hexes may have moved or gone: old picks are stale.
        self.selected = None;
        self.line_of_sight.clear();
        self.fit_pending = true;
        Ok(notes)
    }

    /// Draws the form; returns whether it stays open.
    pub(super) fn properties_dialog(&mut self, ctx: &egui::Context, mut f: PropertiesForm) -> bool {
        let (mut apply, mut cancel) = (false, false);
        if f.preview.as_ref().is_none_or(|(g, _)| *g != f.margins) {
            let cut = if f.margins == Margins::default() {
                Ok(Vec::new())
            } else {
                resize(self.doc.map(), f.margins)
                    .map(|r| r.notes)
                    .map_err(|e| e.to_string())
            };
            f.preview = Some((f.margins, cut));
        }
        let (cols, rows) = (self.doc.map().cols, self.doc.map().rows);
        egui::Modal::new(egui::Id::unique("props")).show(ctx, |ui| {
            ui.set_max_width(560.0);
            ui.heading("Map properties");
            egui::Grid::new("propgrid").num_columns(2).show(ui, |ui| {
                general_rows(ui, &mut f);
                ui.label("Resize");
                ui.vertical(|ui| resize_rows(ui, &mut f, cols, rows));
                ui.end_row();
            });
            if let Some((_, cut)) = &f.preview {
                match cut {
                    Ok(notes) => {
                        for n in notes {
                            ui.colored_label(Color32::from_rgb(240, 180, 60), n);
                        }
                    }
                    Err(e) => {
                        ui.colored_label(Color32::from_rgb(240, 120, 90), e);
                    }
                }
            }
            ui.horizontal(|ui| {
                apply = ui.button("Apply").clicked();
                cancel = ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape));
            });
        });
        if apply {
            match self.apply_properties(&f) {
                Ok(notes) if notes.is_empty() => self.status = "Map properties changed".into(),
                Ok(notes) => {
                    self.status = "Map properties changed; some content was cut".into();
                    self.error = Some(format!(
                        "Changed (Ctrl+Z undoes it):\n\n{}",
                        notes.join("\n")
                    ));
                }
                Err(e) => self.error = Some(format!("Could not change the map:\n\n{e}")),
            }
            return false;
        }
        if cancel {
            return false;
        }
        self.dialog = Some(Dialog::Properties(f));
        true
    }
}

impl PropertiesForm {
    /// The `geo` block the form asks for (the old one's extra keys kept),
    /// checked by the map format's own reader so the file loads again.
    pub fn geo(&self, m: &Map) -> Result<Option<hexsight_analysis::georef::Geo>, String> {
        if !self.georeferenced {
            return Ok(None);
        }
        let mut g = hexsight_analysis::georef::Geo {
            epsg: self.epsg,
            origin: self.origin,
            hex_size: self.geo_hex,
            raster: m.geo.as_ref().and_then(|g| g.raster),
            extra: m.geo.as_ref().map(|g| g.extra.clone()).unwrap_or_default(),
        };
        let v = hexsight_analysis::map::geo::to_value(&g);
        g = hexsight_analysis::map::geo::parse(&v).map_err(|e| e.to_string())?;
        Ok(Some(g))
    }

    /// The scale the form asks for (the old one's extra keys kept).
    fn scale(&self, m: &Map) -> Option<Scale> {
        if !self.has_scale {
            return None;
        }
        if !(self.hex.is_finite() && self.hex > 0.0) {
            return m.scale.clone();
        }
        let extra = m
            .scale
            .as_ref()
            .map(|s| s.extra.clone())
            .unwrap_or_default();
        Some(Scale {
            hex: self.hex,
            unit: self.unit.trim().to_string(),
            extra,
        })
    }
}

/// Name, scale, ruleset, orientation, stagger and first row.
fn general_rows(ui: &mut Ui, f: &mut PropertiesForm) {
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
    geo_rows(ui, f);
    ui.label("Ruleset");
    ruleset_picker(ui, "props-rs", &mut f.ruleset);
    ui.end_row();
    ui.label("Orientation");
    ui.horizontal(|ui| {
        ui.selectable_value(&mut f.layout.orientation, Orientation::Flat, "Flat top");
        ui.selectable_value(&mut f.layout.orientation, Orientation::Pointy, "Pointy top");
    });
    ui.end_row();
    ui.label("Shifted");
    ui.horizontal(|ui| {
        ui.selectable_value(&mut f.layout.stagger, Stagger::Odd, "Odd");
        ui.selectable_value(&mut f.layout.stagger, Stagger::Even, "Even");
    });
    ui.end_row();
    ui.label("First row");
    ui.horizontal(|ui| {
        ui.selectable_value(&mut f.first_row, 1, "1");
        ui.selectable_value(&mut f.first_row, 0, "0");
    });
    ui.end_row();
}

/// The georeference: EPSG code, first hex's centre and hex size in CRS units
/// (two lines, so the dialog still fits a laptop screen).
/// A built-in ruleset from a list, or any name or file path typed beside it.
pub(super) fn ruleset_picker(ui: &mut Ui, id: &str, ruleset: &mut String) {
    ui.horizontal(|ui| {
        egui::ComboBox::from_id_salt(id)
            .selected_text(ruleset.clone())
            .show_ui(ui, |ui| {
                for n in Ruleset::builtin_names() {
                    ui.selectable_value(ruleset, n.to_string(), n);
                }
            });
        ui.text_edit_singleline(ruleset)
            .on_hover_text("A built-in name or the path of a ruleset file");
    });
}

fn geo_rows(ui: &mut Ui, f: &mut PropertiesForm) {
    ui.checkbox(&mut f.georeferenced, "Georeferenced")
        .on_hover_text("Where the map lies on the ground: GeoJSON overlays and DEM imports use it");
    ui.add_enabled_ui(f.georeferenced, |ui| {
        ui.vertical(|ui| {
            ui.horizontal(|ui| {
                ui.label("EPSG");
                ui.add(
                    egui::DragValue::new(&mut f.epsg)
                        .range(1..=999_999)
                        .speed(0.0),
                )
                .on_hover_text("A projected CRS, e.g. 32631 (WGS 84 / UTM zone 31N)");
                ui.label("hex size");
                ui.add(
                    egui::DragValue::new(&mut f.geo_hex)
                        .range(0.001..=1e7)
                        .speed(1.0),
                )
                .on_hover_text("Distance between neighbouring hex centres, in CRS units");
            });
            ui.horizontal(|ui| {
                ui.label("First hex's centre x");
                ui.add(egui::DragValue::new(&mut f.origin.0).speed(1.0));
                ui.label("y");
                ui.add(egui::DragValue::new(&mut f.origin.1).speed(1.0));
            });
        });
    });
    ui.end_row();
}

/// Columns and rows to add or remove on each side, and the size it gives.
fn resize_rows(ui: &mut Ui, f: &mut PropertiesForm, cols: u32, rows: u32) {
    let g = &mut f.margins;
    for (name, v) in [
        ("West (columns)", &mut g.west),
        ("East (columns)", &mut g.east),
        ("North (rows)", &mut g.north),
        ("South (rows)", &mut g.south),
    ] {
        ui.horizontal(|ui| {
            ui.add(egui::DragValue::new(v).range(-1000..=1000));
            ui.label(name);
        });
    }
    let c = i64::from(cols) + i64::from(g.west) + i64::from(g.east);
    let r = i64::from(rows) + i64::from(g.north) + i64::from(g.south);
    ui.label(format!(
        "{cols} x {rows} becomes {c} x {r} (negative numbers remove)"
    ));
}
