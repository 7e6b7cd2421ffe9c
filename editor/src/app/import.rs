//! File > Import: another tool's data as a new, unsaved map (the open file is not
//! touched; closing the import asks first). A MegaMek `.board` converts at once; a
//! GeoTIFF DEM asks for what `hexsight import dem` takes (hex size, level height,
//! sampling, orientation, ruleset) in a form.

use super::*;
use hexsight_analysis::import::dem::{self, Sample};
use hexsight_analysis::import::geotiff::{self, Raster};

/// The DEM import form: the raster and how to lay hexes over it.
#[derive(Clone, Debug)]
pub struct DemForm {
    /// The DEM's file.
    pub path: PathBuf,
    /// The raster as read, or why it could not be.
    pub raster: Result<Arc<Raster>, String>,
    /// Distance between adjacent hex centres, in the DEM's CRS units.
    pub hex_size: f64,
    /// Height of one level, in the DEM's units.
    pub level_height: f64,
    /// How a hex's elevation is read.
    pub sample: Sample,
    /// Flat or pointy hexes.
    pub orientation: Orientation,
    /// A built-in ruleset.
    pub ruleset: String,
    /// Why the last try failed.
    pub problem: Option<String>,
}

impl DemForm {
    /// A form for the DEM in `path`: hexes of ten pixels, levels of 10 units, `geometric`.
    pub fn new(path: PathBuf) -> DemForm {
        let raster = geotiff::read(&path, "DEM")
            .map(Arc::new)
            .map_err(|e| e.to_string());
        let hex_size = raster.as_ref().map_or(100.0, |r| 10.0 * r.grid.dx);
        DemForm {
            path,
            raster,
            hex_size,
            level_height: 10.0,
            sample: Sample::Centre,
            orientation: Orientation::Flat,
            ruleset: "geometric".into(),
            problem: None,
        }
    }

    /// The map the form asks for, or why not (the importer's one line).
    pub fn import(&self) -> Result<dem::Imported, String> {
        let raster = self.raster.as_ref().map_err(Clone::clone)?;
        let ruleset = Ruleset::builtin(&self.ruleset)
            .ok_or_else(|| format!("`{}` is not a built-in ruleset", self.ruleset))?;
        let name = self
            .path
            .file_stem()
            .map_or("DEM".into(), |s| s.to_string_lossy().into_owned());
        let o = dem::Options {
            name,
            ruleset_ref: self.ruleset.clone(),
            ruleset: Arc::new(ruleset),
            hex_size: self.hex_size,
            level_height: self.level_height,
            sample: self.sample,
            orientation: self.orientation,
        };
        dem::import(raster, None, &o).map_err(|e| e.to_string())
    }
}

impl EditorApp {
    /// Imports a MegaMek board (with the built-in `battletech` ruleset) as a new, unsaved
    /// map; the status bar says what did not convert. A failure leaves the current map.
    pub fn import_board(&mut self, path: &Path) {
        match files::import_board(path) {
            Ok((map, report)) => self.imported(map, path, &report),
            Err(e) => {
                self.error = Some(format!("Could not import {}:\n\n{e}", path.display()));
                self.status = "Import failed".into();
            }
        }
    }

    /// Makes `map`, imported from `path`, the open document, unsaved.
    fn imported(&mut self, map: Map, path: &Path, report: &[String]) {
        let (cols, rows) = (map.cols, map.rows);
        self.set_document(Document::imported(map));
        let mut status = format!(
            "Imported {} ({cols} x {rows}); save it to keep it",
            path.display()
        );
        if !report.is_empty() {
            status += &format!(". Not converted as it was: {}", report.join("; "));
        }
        self.status = status;
    }

    /// Runs the DEM form's import; on success the map is open and the form closes.
    pub fn import_dem(&mut self, f: &DemForm) -> Result<(), String> {
        let done = f.import()?;
        let mut report = Vec::new();
        if done.filled > 0 {
            report.push(format!(
                "{} hexes of no-data took the nearest valid pixel's elevation",
                done.filled
            ));
        }
        self.imported(done.map, &f.path, &report);
        Ok(())
    }

    /// Draws the DEM form; returns whether it stays open.
    pub(super) fn dem_dialog(&mut self, ctx: &egui::Context, mut f: DemForm) -> bool {
        let (mut go, mut cancel) = (false, false);
        egui::Modal::new(egui::Id::unique("import-dem")).show(ctx, |ui| {
            ui.set_max_width(520.0);
            ui.heading("Import a DEM");
            match &f.raster {
                Ok(r) => ui.label(format!(
                    "{}: {} x {} pixels of {} x {}, EPSG:{}",
                    f.path.display(),
                    r.width,
                    r.height,
                    r.grid.dx,
                    r.grid.dy,
                    r.epsg
                )),
                Err(e) => ui.colored_label(Color32::from_rgb(240, 120, 90), e),
            };
            egui::Grid::new("dem-form").num_columns(2).show(ui, |ui| {
                ui.label("Hex size (CRS units between centres)");
                ui.add(egui::DragValue::new(&mut f.hex_size).range(0.001..=1e7));
                ui.end_row();
                ui.label("Level height (DEM units)");
                ui.add(egui::DragValue::new(&mut f.level_height).range(0.001..=1e6));
                ui.end_row();
                ui.label("Elevation of a hex");
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut f.sample, Sample::Centre, "centre pixel");
                    ui.selectable_value(&mut f.sample, Sample::Mean, "mean");
                    ui.selectable_value(&mut f.sample, Sample::Max, "highest");
                });
                ui.end_row();
                ui.label("Hexes");
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut f.orientation, Orientation::Flat, "flat");
                    ui.selectable_value(&mut f.orientation, Orientation::Pointy, "pointy");
                });
                ui.end_row();
                ui.label("Ruleset");
                egui::ComboBox::from_id_salt("dem-ruleset")
                    .selected_text(f.ruleset.clone())
                    .show_ui(ui, |ui| {
                        for name in Ruleset::builtin_names() {
                            ui.selectable_value(&mut f.ruleset, name.to_string(), name);
                        }
                    });
                ui.end_row();
            });
            if let Some(p) = &f.problem {
                ui.colored_label(Color32::from_rgb(240, 120, 90), p);
            }
            ui.horizontal(|ui| {
                go = ui
                    .add_enabled(f.raster.is_ok(), egui::Button::new("Import"))
                    .clicked();
                cancel = ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape));
            });
        });
        if go {
            match self.import_dem(&f) {
                Ok(()) => return false,
                Err(e) => f.problem = Some(e),
            }
        }
        if cancel {
            return false;
        }
        self.dialog = Some(Dialog::ImportDem(f));
        true
    }
}
