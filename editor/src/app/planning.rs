//! Planning in the editor: named zones painted on the map, a sight range over the
//! LOS tool and the overlays, and the deployment search run in the background (the
//! LOS line's profile is the LOS panel's, in `los`).
//!
//! Every answer comes from the library (`query::range`, `map::zones`,
//! `query::deploy`); this module only asks and draws.

use super::*;
use crate::jobs::{DeployJobs, Polled};
use hexsight_analysis::map::zones::{self, parse_zone};
use hexsight_analysis::query::deploy::{self, Goal, Request};

/// The planning settings and the deployment job.
#[derive(Default)]
pub struct Planning {
    /// Sight range in hexes for the LOS tool, viewshed and exposure; 0: unlimited.
    pub range: u32,
    /// The zone the Zones tool paints.
    pub zone: String,
    /// Draw the map's named zones on the canvas.
    pub hide_zones: bool,
    /// The stroke under way removes hexes (right button or Shift).
    erasing: bool,
    /// The deployment question.
    pub deploy: DeployForm,
    /// The deployment search, on the editor's one job runner.
    pub deploy_job: DeployJobs,
    /// Why the form cannot be asked (no zone picked, an unknown zone).
    pub deploy_error: Option<String>,
}

/// The deploy tool's form: zones by name, as `hexsight deploy` takes them.
#[derive(Clone, Debug)]
pub struct DeployForm {
    /// Where to deploy.
    pub zone: String,
    /// What to watch (may be empty with the hide goal).
    pub watch: String,
    /// Who must not see the chosen hexes (may be empty).
    pub hide_from: String,
    /// How many hexes.
    pub count: usize,
    /// Watch or hide.
    pub goal: Goal,
}

impl Default for DeployForm {
    fn default() -> Self {
        DeployForm {
            zone: String::new(),
            watch: String::new(),
            hide_from: String::new(),
            count: 3,
            goal: Goal::Watch,
        }
    }
}

impl DeployForm {
    /// The library's request for this form on `map`, with the editor's range.
    pub fn request(&self, map: &Map, range: u32) -> Result<Request, String> {
        let resolve = |name: &str| -> Result<Vec<usize>, String> {
            if name.is_empty() {
                Ok(Vec::new())
            } else {
                zones::resolve(map, name).map_err(|e| e.to_string())
            }
        };
        if self.zone.is_empty() {
            return Err("Pick the zone to deploy in.".into());
        }
        let req = Request {
            zone: resolve(&self.zone)?,
            watch: resolve(&self.watch)?,
            hide_from: resolve(&self.hide_from)?,
            count: self.count,
            min_spacing: 0,
            terrain: Vec::new(),
            goal: self.goal,
            range: crate::jobs::range_of(range),
            exact_limit: deploy::EXACT_LIMIT,
        };
        match self.goal {
            Goal::Watch if req.watch.is_empty() => Err("Pick the zone to watch.".into()),
            Goal::Hide if req.hide_from.is_empty() => Err("Pick the zone to hide from.".into()),
            _ => Ok(req),
        }
    }
}

/// A zone's colour on the canvas, by its place in the map's list.
fn zone_color(i: usize) -> Color32 {
    const COLORS: [Color32; 6] = [
        Color32::from_rgb(80, 160, 255),
        Color32::from_rgb(255, 110, 90),
        Color32::from_rgb(190, 120, 255),
        Color32::from_rgb(60, 210, 200),
        Color32::from_rgb(255, 200, 60),
        Color32::from_rgb(240, 120, 200),
    ];
    COLORS[i % COLORS.len()]
}

impl Planning {
    /// The range setting of the analysis panel.
    pub fn range_ui(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let label = ui.label("Range");
            ui.add(
                egui::DragValue::new(&mut self.range)
                    .range(0..=9999)
                    .custom_formatter(|n, _| range_text(n))
                    .custom_parser(parse_range),
            )
            .labelled_by(label.id)
            .on_hover_text(
                "How far one sees (night, fog): farther targets are not seen by the LOS tool, \
                 the viewshed and the exposure. 0 or \"unlimited\": no limit.",
            );
        });
    }

    /// The Deploy tool's options: the question, Run/Cancel and the answer.
    /// `map` is the document's at `generation`; choosing a hex of the answer
    /// selects it; what the search is doing goes to `status`.
    pub fn deploy_ui(
        &mut self,
        ui: &mut Ui,
        map: &Map,
        generation: u64,
        selected: &mut Option<Hex>,
        status: &mut String,
    ) {
        let ctx = ui.ctx().clone();
        let names: Vec<String> = map.zones.iter().map(|z| z.name.clone()).collect();
        if names.is_empty() {
            ui.label("Name zones first (Zones tool, Z): deploy chooses hexes of one zone.");
            return;
        }
        let f = &mut self.deploy;
        let combo = |ui: &mut Ui, id: &str, value: &mut String, optional: bool| {
            egui::ComboBox::from_id_salt(("deploy", id))
                .selected_text(if value.is_empty() {
                    "(none)"
                } else {
                    value.as_str()
                })
                .show_ui(ui, |ui| {
                    if optional {
                        ui.selectable_value(value, String::new(), "(none)");
                    }
                    for n in &names {
                        ui.selectable_value(value, n.clone(), n);
                    }
                });
        };
        egui::Grid::new("deployform").num_columns(2).show(ui, |ui| {
            ui.label("Deploy in");
            combo(ui, "zone", &mut f.zone, false);
            ui.end_row();
            ui.label("Watch");
            combo(ui, "watch", &mut f.watch, true);
            ui.end_row();
            ui.label("Hide from");
            combo(ui, "hide", &mut f.hide_from, true);
            ui.end_row();
            ui.label("Count");
            ui.add(egui::DragValue::new(&mut f.count).range(1..=50));
            ui.end_row();
            ui.label("Goal");
            ui.horizontal(|ui| {
                ui.selectable_value(&mut f.goal, Goal::Watch, "watch");
                ui.selectable_value(&mut f.goal, Goal::Hide, "hide");
            });
            ui.end_row();
        });
        if self.range > 0 {
            ui.label(
                RichText::new(format!("Range {} applies.", range_text(self.range.into()))).small(),
            );
        }
        ui.horizontal(|ui| {
            let busy = self.deploy_job.busy();
            if ui.add_enabled(!busy, egui::Button::new("Run")).clicked() {
                match self.deploy.request(map, self.range) {
                    Ok(req) => {
                        let c = ctx.clone();
                        self.deploy_error = None;
                        self.deploy_job
                            .search(map, generation, req, move || c.request_repaint());
                        *status = "Deploy: searching".into();
                    }
                    Err(e) => self.deploy_error = Some(e),
                }
            }
            if let Some((_, frac, _)) = self.deploy_job.progress() {
                ui.add(
                    egui::ProgressBar::new(frac)
                        .desired_width(90.0)
                        .show_percentage(),
                );
                if ui.button("Cancel").clicked() {
                    self.deploy_job.cancel();
                    *status = "Deploy cancelled".into();
                }
                ctx.request_repaint_after(Duration::from_millis(100));
            }
        });
        if let Some(e) = self.deploy_problem() {
            ui.colored_label(Color32::from_rgb(240, 110, 90), e);
        }
        let Some((key, plan)) = self.deploy_job.latest() else {
            return;
        };
        ui.label(
            RichText::new(format!(
                "Sees {} of {} watched hexes ({}, {} candidates)",
                plan.covered,
                plan.of,
                plan.method.as_str(),
                plan.candidates
            ))
            .strong(),
        );
        if key.generation != generation {
            ui.label(RichText::new("The map changed since: Run again.").small());
        }
        for (k, &i) in plan.chosen.iter().enumerate() {
            let h = map.hex_of(i);
            let text = format!(
                "{}. {}: +{} seen, seen by {}",
                k + 1,
                map.label(h),
                plan.adds[k],
                plan.seen_by[k]
            );
            if ui.selectable_label(*selected == Some(h), text).clicked() {
                *selected = Some(h);
            }
        }
        if plan.chosen.is_empty() {
            ui.label("No hex of the zone qualifies.");
        }
    }

    /// The Zones tool's options: the zone to paint and the map's zones.
    /// `brush` is the tools' brush size; deleting a zone is an edit of `doc`.
    pub fn zones_ui(&mut self, ui: &mut Ui, doc: &mut Document, brush: &mut u32) {
        ui.label("Drag to add hexes to the zone; right-drag or Shift+drag removes.");
        ui.horizontal(|ui| {
            let label = ui.label("Zone");
            ui.add(egui::TextEdit::singleline(&mut self.zone).desired_width(140.0))
                .labelled_by(label.id);
        });
        let name = self.zone.trim().to_string();
        if let Some(why) = tools::zones::name_problem(doc.map(), &name) {
            ui.colored_label(Color32::from_rgb(240, 180, 60), why);
        } else if doc.map().zone_named(&name).is_none() {
            ui.label(RichText::new("A new zone: paint its first hex.").small());
        }
        ui.horizontal(|ui| {
            ui.label("Brush");
            for n in 1..=3 {
                ui.selectable_value(brush, n, format!(" {n} "));
            }
        });
        let mut show = !self.hide_zones;
        ui.checkbox(&mut show, "Show zones on the map");
        self.hide_zones = !show;
        let map = doc.map();
        if map.zones.is_empty() {
            ui.label("The map has no zones yet.");
        }
        let listed: Vec<(usize, String, usize)> = map
            .zones
            .iter()
            .enumerate()
            .map(|(i, z)| (i, z.name.clone(), tools::zones::hexes(map, &z.name).len()))
            .collect();
        let mut delete = None;
        for (i, zname, n) in listed {
            ui.horizontal(|ui| {
                swatch(ui, zone_color(i));
                if ui
                    .selectable_label(name == zname, format!("{zname} ({n} hexes)"))
                    .clicked()
                {
                    self.zone = zname.clone();
                }
                if ui
                    .small_button("x")
                    .on_hover_text(format!("Delete zone {zname}"))
                    .clicked()
                {
                    delete = Some(zname.clone());
                }
            });
        }
        if let Some(z) = delete {
            doc.edit(&format!("Delete zone {z}"), |m| {
                m.zones.retain(|x| x.name != z)
            });
        }
    }

    /// Why the deployment has no answer: the form, or the last search's refusal
    /// (when no later search answered).
    fn deploy_problem(&self) -> Option<&str> {
        if let Some(e) = &self.deploy_error {
            return Some(e);
        }
        let job = &self.deploy_job;
        let (key, why) = job.latest_refusal()?;
        job.latest()
            .is_none_or(|(k, _)| k.run < key.run)
            .then_some(why)
    }
}

impl EditorApp {
    /// Forgets what belonged to the previous map (a new document).
    pub(super) fn forget_planning(&mut self) {
        self.planning.deploy_job.clear();
        self.planning.deploy_error = None;
    }

    /// Polls the deployment search (each frame).
    pub(super) fn poll_planning(&mut self) {
        match self.planning.deploy_job.poll() {
            Polled::Nothing => {}
            Polled::Ready => self.status = "Deployment ready".into(),
            Polled::Refused(e) => self.status = format!("Deploy: {e}"),
        }
    }

    /// Zones tool on the canvas: a drag adds (or, right button or Shift, removes)
    /// the brush's hexes along its path; one stroke is one undo step.
    pub(super) fn zone_actions(&mut self, ctx: &egui::Context, resp: &egui::Response) {
        let (primary, secondary, shift) = ctx.input(|i| {
            (
                i.pointer.primary_down(),
                i.pointer.secondary_down(),
                i.modifiers.shift,
            )
        });
        let down = resp.is_pointer_button_down_on() && (primary || secondary);
        let had_stroke = self.stroke.is_some();
        let clicked =
            resp.clicked_by(PointerButton::Primary) || resp.clicked_by(PointerButton::Secondary);
        let erase = secondary || shift || resp.clicked_by(PointerButton::Secondary);
        if let Some(h) = self.hover
            && (down || (clicked && !had_stroke))
        {
            self.zone_brush(h, erase);
        }
        if (!down && had_stroke) || (clicked && !had_stroke) {
            self.end_stroke();
        }
    }

    fn zone_brush(&mut self, h: Hex, erase: bool) {
        let name = self.planning.zone.trim().to_string();
        if let Some(why) = tools::zones::name_problem(self.doc.map(), &name) {
            self.status = why;
            return;
        }
        if self.stroke.is_none() {
            self.planning.erasing = erase;
            let label = if erase {
                format!("Remove from zone {name}")
            } else {
                format!("Paint zone {name}")
            };
            self.doc.begin(&label);
            self.stroke = Some(Stroke::new(false));
        }
        let Some(brush) = self.stroke_hexes(h) else {
            return;
        };
        let map = self.doc.map();
        if let Some(set) = tools::zones::painted(map, &name, &brush, !self.planning.erasing) {
            tools::zones::set(self.doc.map_mut(), &name, &set);
        }
    }

    /// The zones and the deployment drawn over the map (canvas and exports).
    pub(super) fn draw_planning(&self, s: &mut impl canvas::Surface, origin: Pos2) {
        let map = self.doc.map();
        let corners = |h: Hex| -> Vec<Pos2> {
            map.layout
                .corners(h, 1.0)
                .iter()
                .map(|&c| self.view.to_screen(origin, c))
                .collect()
        };
        let center = |h: Hex| self.view.to_screen(origin, map.layout.center(h, 1.0));
        let focus = matches!(self.tool, Tool::Zones | Tool::Deploy);
        if !self.planning.hide_zones {
            for (i, z) in map.zones.iter().enumerate() {
                let Ok(hexes) = parse_zone(map, &z.zone) else {
                    continue;
                };
                let active = focus && z.name == self.planning.zone.trim();
                let col = zone_color(i);
                let fill = col.gamma_multiply(if active { 0.35 } else { 0.18 });
                let stroke = egui::Stroke::new(if active { 2.0 } else { 1.2 }, col);
                for &j in &hexes {
                    s.polygon(&corners(map.hex_of(j)), fill, stroke);
                }
                if let Some(&first) = hexes.first() {
                    let c = center(map.hex_of(first));
                    s.text(
                        c - vec2(0.0, self.view.zoom * 0.55),
                        egui::Align2::CENTER_BOTTOM,
                        &z.name,
                        12.0,
                        col,
                    );
                }
            }
        }
        let Some((key, plan)) = self.planning.deploy_job.latest() else {
            return;
        };
        if key.generation != self.doc.generation() || plan.chosen.iter().any(|&i| i >= map.len()) {
            return;
        }
        let ring = Color32::from_rgb(255, 235, 80);
        for (k, &i) in plan.chosen.iter().enumerate() {
            let c = center(map.hex_of(i));
            let r = self.view.zoom * 0.45;
            s.circle(
                c,
                r,
                Color32::from_black_alpha(90),
                egui::Stroke::new(2.5, ring),
            );
            s.text(
                c,
                egui::Align2::CENTER_CENTER,
                &format!("{} +{}", k + 1, plan.adds[k]),
                11.0,
                ring,
            );
        }
    }
}

fn swatch(ui: &mut Ui, col: Color32) {
    let (r, _) = ui.allocate_exact_size(vec2(18.0, 14.0), Sense::hover());
    ui.painter().rect_filled(r, 2.0, col.gamma_multiply(0.6));
    ui.painter().rect_stroke(
        r,
        2.0,
        egui::Stroke::new(1.5, col),
        egui::StrokeKind::Inside,
    );
}

/// The range field's text: "unlimited" for 0, else the hexes.
pub fn range_text(n: f64) -> String {
    match n as u64 {
        0 => "unlimited".into(),
        1 => "1 hex".into(),
        n => format!("{n} hexes"),
    }
}

/// Reads the range field as typed: a number of hexes (with or without the unit),
/// or "unlimited" (or nothing) for no limit.
pub fn parse_range(text: &str) -> Option<f64> {
    let t = text.trim().to_ascii_lowercase();
    if t.is_empty() || t == "unlimited" || t == "none" {
        return Some(0.0);
    }
    let number = t.trim_end_matches("hexes").trim_end_matches("hex").trim();
    number.parse::<u32>().ok().map(f64::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the range field shows reads back as the same range, and what a user
    /// may type is understood.
    #[test]
    fn the_range_field_reads_what_it_shows_and_what_is_typed() {
        for n in [0u32, 1, 2, 37, 9999] {
            let shown = range_text(n.into());
            assert_eq!(parse_range(&shown), Some(n.into()), "{shown}");
        }
        assert_eq!(range_text(0.0), "unlimited");
        assert_eq!(range_text(1.0), "1 hex");
        assert_eq!(range_text(12.0), "12 hexes");
        for (typed, want) in [
            ("5", 5.0),
            (" 7 hexes ", 7.0),
            ("Unlimited", 0.0),
            ("", 0.0),
        ] {
            assert_eq!(parse_range(typed), Some(want), "{typed:?}");
        }
        for bad in ["far", "-3", "2.5 hexes", "hexes"] {
            assert_eq!(parse_range(bad), None, "{bad:?}");
        }
    }
}
