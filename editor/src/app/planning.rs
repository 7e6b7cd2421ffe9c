//! Planning in the editor: the side view of the LOS tool's line under its verdict,
//! named zones painted on the map, a sight range over the LOS tool and the
//! overlays, and the deployment search run in the background.
//!
//! Every answer comes from the library (`query::profile`, `query::range`,
//! `query::zones`, `query::deploy`); this module only asks and draws.

use super::*;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::Control;
use hexsight_analysis::map::zones;
use hexsight_analysis::query::deploy::{self, Goal, Plan, Request};
use hexsight_analysis::query::profile::{self, Profile, Sight, StretchEffect};
use hexsight_analysis::rules::LosEffect;
use hexsight_analysis::{Verdict, map::zones::parse_zone};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

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
    /// The deployment search.
    pub deploy_job: DeployJob,
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

/// A finished deployment search and the map generation it read.
#[derive(Clone, Debug)]
pub struct Deployment {
    /// Document generation the plan was computed on.
    pub generation: u64,
    /// The library's answer.
    pub plan: Plan,
}

struct DeployRun {
    cancel: Arc<AtomicBool>,
    done: Arc<AtomicU64>,
    total: Arc<AtomicU64>,
    generation: u64,
    rx: mpsc::Receiver<Result<Plan, String>>,
}

/// The deployment search off the UI thread (as [`crate::jobs`]): cancellable,
/// with progress; one runs at a time.
#[derive(Default)]
pub struct DeployJob {
    running: Option<DeployRun>,
    /// The last answer.
    pub result: Option<Deployment>,
    /// Why the last search gave no answer.
    pub error: Option<String>,
}

impl DeployJob {
    /// Starts the search for `req` on a copy of `map` (cancelling any running one).
    pub fn start(
        &mut self,
        map: &Map,
        generation: u64,
        req: Request,
        repaint: impl Fn() + Send + 'static,
    ) {
        self.cancel();
        self.error = None;
        let cancel: Arc<AtomicBool> = Arc::default();
        let (done, total): (Arc<AtomicU64>, Arc<AtomicU64>) = (Arc::default(), Arc::default());
        let (tx, rx) = mpsc::channel();
        let map = map.clone();
        let (c, d, t) = (Arc::clone(&cancel), Arc::clone(&done), Arc::clone(&total));
        let spawned = std::thread::Builder::new()
            .name("hexsight-deploy".into())
            .spawn(move || {
                let out = Engine::try_new(&map)
                    .and_then(|engine| {
                        let report = |a: u64, b: u64| {
                            d.store(a, Ordering::Relaxed);
                            t.store(b, Ordering::Relaxed);
                        };
                        let ctl = Control {
                            cancel: c.as_ref(),
                            progress: &report,
                        };
                        deploy::deploy(&engine, &req, &ctl)
                    })
                    .map_err(|e| e.to_string());
                let _ = tx.send(out);
                repaint();
            });
        match spawned {
            Ok(_) => {
                self.running = Some(DeployRun {
                    cancel,
                    done,
                    total,
                    generation,
                    rx,
                })
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Collects a finished search; true when something arrived.
    pub fn poll(&mut self) -> bool {
        let Some(r) = &self.running else {
            return false;
        };
        match r.rx.try_recv() {
            Ok(out) => {
                let r = self.running.take().expect("running");
                self.keep(r, out);
                true
            }
            Err(mpsc::TryRecvError::Empty) => false,
            Err(mpsc::TryRecvError::Disconnected) => {
                self.running = None;
                false
            }
        }
    }

    /// Blocks until the running search ends (tests).
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take()
            && let Ok(out) = r.rx.recv()
        {
            self.keep(r, out);
        }
    }

    fn keep(&mut self, r: DeployRun, out: Result<Plan, String>) {
        if r.cancel.load(Ordering::Relaxed) {
            return;
        }
        match out {
            Ok(plan) => {
                self.result = Some(Deployment {
                    generation: r.generation,
                    plan,
                })
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Stops the running search; its answer is dropped.
    pub fn cancel(&mut self) {
        if let Some(r) = self.running.take() {
            r.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// True while a search runs.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// Fraction done of the running search.
    pub fn progress(&self) -> Option<f32> {
        let r = self.running.as_ref()?;
        let total = r.total.load(Ordering::Relaxed).max(1);
        Some(r.done.load(Ordering::Relaxed) as f32 / total as f32)
    }
}

impl Drop for DeployJob {
    fn drop(&mut self) {
        self.cancel();
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

impl EditorApp {
    /// The profile of the line the LOS panel shows (the library's `query::profile`,
    /// with the range laid over its answer).
    pub fn profile(&self) -> Option<&Profile> {
        self.los.as_ref().map(|l| &l.4)
    }

    /// Recomputes the LOS tool's line when its ends, the map or the range change:
    /// one line's profile is cheap enough for the UI thread.
    pub(super) fn update_los(&mut self) {
        let (Some(from), Some(to)) = (self.los_from, self.los_to) else {
            self.los = None;
            return;
        };
        let (generation, range) = (self.doc.generation(), self.planning.range);
        if self
            .los
            .as_ref()
            .is_some_and(|l| (l.0, l.1, l.2, l.3) == (from, to, generation, range))
        {
            return;
        }
        let map = self.doc.map();
        if !map.contains(from) || !map.contains(to) {
            self.los = None;
            return;
        }
        let mut p = profile::profile(map, from, to);
        if let Some(r) = crate::jobs::range_of(range) {
            p.los = r.los(map, p.los);
        }
        self.los = Some((from, to, generation, range, p));
    }

    /// Forgets what belonged to the previous map (a new document).
    pub(super) fn forget_planning(&mut self) {
        self.planning.deploy_job.cancel();
        self.planning.deploy_job.result = None;
        self.planning.deploy_job.error = None;
    }

    /// Polls the deployment search (each frame).
    pub(super) fn poll_planning(&mut self) {
        if self.planning.deploy_job.poll() {
            self.status = match &self.planning.deploy_job.error {
                Some(e) => format!("Deploy: {e}"),
                None => "Deployment ready".into(),
            };
        }
    }

    /// The range setting of the analysis panel.
    pub(super) fn range_setting(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let label = ui.label("Range");
            ui.add(
                egui::DragValue::new(&mut self.planning.range)
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

    /// The side view under the LOS verdict: ground, what stands on it, the eye
    /// line coloured as seen/hindered/unseen, the blocking point and the dead ground.
    pub(super) fn profile_plot(&self, ui: &mut Ui) {
        let Some(p) = self.profile() else { return };
        let map = self.doc.map();
        let width = ui.available_width().clamp(200.0, 420.0);
        let (rect, resp) = ui.allocate_exact_size(vec2(width, 120.0), Sense::hover());
        let (from, to) = (map.label(p.los.line.from), map.label(p.los.line.to));
        let blocker = p.los.blocked_by.as_ref().map(|b| map.label(b.place.hex()));
        let summary = match &blocker {
            Some(b) => format!("Profile {from} -> {to}: blocked by {b}"),
            None => format!("Profile {from} -> {to}: {}", p.los.verdict.as_str()),
        };
        resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &summary));
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 4.0, Color32::from_rgb(0x1e, 0x20, 0x24));
        let plot = rect.shrink2(vec2(8.0, 14.0));
        let ground = p.stretches.iter().map(|s| s.ground as f64);
        let tops = p.stretches.iter().map(|s| s.top);
        let lo = ground
            .clone()
            .fold(f64::MAX, f64::min)
            .min(p.eye_from.min(p.eye_to))
            - 0.5;
        let hi = ground
            .chain(tops)
            .fold(f64::MIN, f64::max)
            .max(p.eye_from.max(p.eye_to))
            + 0.5;
        let x = |t: f64| plot.left() + plot.width() * t as f32;
        let y = |v: f64| plot.bottom() - plot.height() * ((v - lo) / (hi - lo)) as f32;
        let band = |t0: f64, t1: f64, y0: f32, y1: f32, c: Color32| {
            painter.rect_filled(
                Rect::from_x_y_ranges(x(t0)..=x(t1), y0.min(y1)..=y0.max(y1)),
                0.0,
                c,
            );
        };
        // Faint lines at whole levels, numbered at the left.
        let levels = (lo.ceil() as i32)..=(hi.floor() as i32);
        if levels.clone().count() <= 12 {
            for l in levels {
                let yl = y(l as f64);
                painter.line_segment(
                    [Pos2::new(plot.left(), yl), Pos2::new(plot.right(), yl)],
                    egui::Stroke::new(0.5, Color32::from_gray(60)),
                );
                painter.text(
                    Pos2::new(rect.left() + 1.0, yl),
                    egui::Align2::LEFT_CENTER,
                    l.to_string(),
                    egui::FontId::proportional(9.0),
                    Color32::from_gray(130),
                );
            }
        }
        // Hindering and blocking stretches shaded behind; the dead ground behind a lower blocker.
        for s in &p.stretches {
            let c = match s.effect {
                StretchEffect::Clear => continue,
                StretchEffect::Hinder => Color32::from_rgba_unmultiplied(255, 190, 40, 40),
                StretchEffect::Block => Color32::from_rgba_unmultiplied(230, 50, 40, 50),
            };
            band(
                s.start.to_f64(),
                s.end.to_f64(),
                plot.top(),
                plot.bottom(),
                c,
            );
        }
        if let Some(i) = p.dead_ground() {
            for s in &p.stretches[i..] {
                let g = y(s.top.max(s.ground as f64));
                let c = Color32::from_rgba_unmultiplied(120, 120, 160, 70);
                band(s.start.to_f64(), s.end.to_f64(), plot.top(), g, c);
            }
        }
        // The ground as steps, and what stands on it in the terrain's colour.
        let earth = Color32::from_rgb(150, 118, 80);
        for s in &p.stretches {
            let (t0, t1) = (s.start.to_f64(), s.end.to_f64());
            let g = y(s.ground as f64);
            band(t0, t1, plot.bottom(), g, earth);
            let terrain = s
                .hexes
                .iter()
                .filter_map(|&h| map.cell(h).map(|c| c.terrain as usize))
                .find(|&t| map.ruleset.terrain[t].los != LosEffect::Clear);
            if let Some(t) = terrain {
                let col = canvas::terrain_color(map, t);
                let top = if s.top > s.ground as f64 + 1e-9 {
                    y(s.top)
                } else {
                    g - 4.0
                };
                band(t0, t1, g, top, col);
            }
            if s.slope {
                painter.line_segment(
                    [Pos2::new(x(t0), g), Pos2::new(x(t1), g)],
                    egui::Stroke::new(2.0, Color32::from_rgb(110, 60, 20)),
                );
            }
        }
        // The sight line from eye to eye.
        let at = |t: f64| Pos2::new(x(t), y(p.sight_at(t)));
        for (t0, t1, state) in p.segments() {
            let v = match state {
                Sight::Seen => Verdict::Clear,
                Sight::Hindered => Verdict::Hindered,
                Sight::Unseen => Verdict::Blocked,
            };
            painter.line_segment(
                [at(t0), at(t1)],
                egui::Stroke::new(2.5, canvas::verdict_color(v)),
            );
        }
        let small = egui::FontId::proportional(11.0);
        for (t, label, align) in [
            (0.0, &from, egui::Align2::LEFT_BOTTOM),
            (1.0, &to, egui::Align2::RIGHT_BOTTOM),
        ] {
            painter.circle_filled(at(t), 3.5, Color32::WHITE);
            painter.text(
                at(t) - vec2(0.0, 5.0),
                align,
                label,
                small.clone(),
                Color32::WHITE,
            );
        }
        if let Some(b) = &p.los.blocked_by {
            let c = at(b.at.to_f64());
            let red = canvas::verdict_color(Verdict::Blocked);
            painter.circle(c, 4.5, red, egui::Stroke::new(1.0, Color32::WHITE));
            // Above the line, where there is sky rather than ground.
            let align = if c.x > plot.center().x {
                egui::Align2::RIGHT_BOTTOM
            } else {
                egui::Align2::LEFT_BOTTOM
            };
            painter.text(
                c - vec2(0.0, 7.0),
                align,
                format!("blocked: {}", blocker.as_deref().unwrap_or("")),
                small.clone(),
                red,
            );
        }
        // Where the range ends along the line.
        let dist = p.los.line.from.distance(p.los.line.to);
        if self.planning.range > 0 && dist > self.planning.range {
            let t = self.planning.range as f64 / dist as f64;
            // Beyond the range nothing is seen, whatever the line.
            painter.line_segment(
                [at(t), at(1.0)],
                egui::Stroke::new(2.5, canvas::verdict_color(Verdict::Blocked)),
            );
            painter.line_segment(
                [Pos2::new(x(t), plot.top()), Pos2::new(x(t), plot.bottom())],
                egui::Stroke::new(1.0, Color32::from_gray(200)),
            );
            painter.text(
                Pos2::new(x(t) + 3.0, plot.top()),
                egui::Align2::LEFT_TOP,
                format!("range {}", self.planning.range),
                small,
                Color32::from_gray(200),
            );
        }
        // What the pointer is over.
        if let Some(pos) = resp.hover_pos() {
            let t = ((pos.x - plot.left()) / plot.width()).clamp(0.0, 1.0) as f64;
            if let Some(s) = p
                .stretches
                .iter()
                .find(|s| s.start.to_f64() <= t && t <= s.end.to_f64())
            {
                let hexes: Vec<String> = s.hexes.iter().map(|&h| map.label(h)).collect();
                let tip = format!(
                    "{}: ground {}, top {:.2}, sight {:.2}, {}{}",
                    hexes.join("|"),
                    s.ground,
                    s.top,
                    p.sight_at(t),
                    s.effect.as_str(),
                    s.reason
                        .as_ref()
                        .map(|r| format!("\n{r}"))
                        .unwrap_or_default()
                );
                resp.on_hover_text_at_pointer(tip);
            }
        }
    }

    /// The Zones tool's options: the zone to paint and the map's zones.
    pub(super) fn zone_options(&mut self, ui: &mut Ui) {
        ui.label("Drag to add hexes to the zone; right-drag or Shift+drag removes.");
        ui.horizontal(|ui| {
            let label = ui.label("Zone");
            ui.add(egui::TextEdit::singleline(&mut self.planning.zone).desired_width(140.0))
                .labelled_by(label.id);
        });
        let name = self.planning.zone.trim().to_string();
        if let Some(why) = tools::zones::name_problem(self.doc.map(), &name) {
            ui.colored_label(Color32::from_rgb(240, 180, 60), why);
        } else if self.doc.map().zone_named(&name).is_none() {
            ui.label(RichText::new("A new zone: paint its first hex.").small());
        }
        ui.horizontal(|ui| {
            ui.label("Brush");
            for n in 1..=3 {
                ui.selectable_value(&mut self.settings.brush, n, format!(" {n} "));
            }
        });
        let mut show = !self.planning.hide_zones;
        ui.checkbox(&mut show, "Show zones on the map");
        self.planning.hide_zones = !show;
        let map = self.doc.map();
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
                    self.planning.zone = zname.clone();
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
            self.doc.edit(&format!("Delete zone {z}"), |m| {
                m.zones.retain(|x| x.name != z)
            });
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

    /// The Deploy tool's options: the question, Run/Cancel and the answer.
    pub(super) fn deploy_options(&mut self, ui: &mut Ui, ctx: &egui::Context) {
        let names: Vec<String> = self
            .doc
            .map()
            .zones
            .iter()
            .map(|z| z.name.clone())
            .collect();
        if names.is_empty() {
            ui.label("Name zones first (Zones tool, Z): deploy chooses hexes of one zone.");
            return;
        }
        let f = &mut self.planning.deploy;
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
        if self.planning.range > 0 {
            ui.label(
                RichText::new(format!(
                    "Range {} applies.",
                    range_text(self.planning.range.into())
                ))
                .small(),
            );
        }
        ui.horizontal(|ui| {
            let busy = self.planning.deploy_job.busy();
            if ui.add_enabled(!busy, egui::Button::new("Run")).clicked() {
                match self
                    .planning
                    .deploy
                    .request(self.doc.map(), self.planning.range)
                {
                    Ok(req) => {
                        let c = ctx.clone();
                        self.planning.deploy_job.start(
                            self.doc.map(),
                            self.doc.generation(),
                            req,
                            move || c.request_repaint(),
                        );
                        self.status = "Deploy: searching".into();
                    }
                    Err(e) => self.planning.deploy_job.error = Some(e),
                }
            }
            if let Some(frac) = self.planning.deploy_job.progress() {
                ui.add(
                    egui::ProgressBar::new(frac)
                        .desired_width(90.0)
                        .show_percentage(),
                );
                if ui.button("Cancel").clicked() {
                    self.planning.deploy_job.cancel();
                    self.status = "Deploy cancelled".into();
                }
                ctx.request_repaint_after(Duration::from_millis(100));
            }
        });
        if let Some(e) = &self.planning.deploy_job.error {
            ui.colored_label(Color32::from_rgb(240, 110, 90), e);
        }
        let Some(d) = self.planning.deploy_job.result.clone() else {
            return;
        };
        let map = self.doc.map();
        let plan = &d.plan;
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
        if d.generation != self.doc.generation() {
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
            if ui
                .selectable_label(self.selected == Some(h), text)
                .clicked()
            {
                self.selected = Some(h);
            }
        }
        if plan.chosen.is_empty() {
            ui.label("No hex of the zone qualifies.");
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
        let Some(d) = &self.planning.deploy_job.result else {
            return;
        };
        if d.generation != self.doc.generation() || d.plan.chosen.iter().any(|&i| i >= map.len()) {
            return;
        }
        let ring = Color32::from_rgb(255, 235, 80);
        for (k, &i) in d.plan.chosen.iter().enumerate() {
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
                &format!("{} +{}", k + 1, d.plan.adds[k]),
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
