//! The side panels, menu bar and status bar.

use super::*;

impl EditorApp {
    // ----- panels ------------------------------------------------------------

    pub(super) fn menu_bar(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                for c in [Command::New, Command::Open] {
                    menu_item(ui, c, true, cmds);
                }
                ui.menu_button("Open recent", |ui| {
                    let recent = self.store.recent();
                    if recent.is_empty() {
                        ui.label("(none yet)");
                    }
                    for p in recent {
                        if ui.button(p.display().to_string()).clicked() {
                            cmds.push(Command::OpenPath(p));
                        }
                    }
                });
                menu_item(ui, Command::ImportBoard, true, cmds);
                menu_item(ui, Command::ImportDem, true, cmds);
                ui.separator();
                for c in [Command::Save, Command::SaveAs] {
                    menu_item(ui, c, true, cmds);
                }
                ui.separator();
                for c in [Command::ExportPng, Command::ExportSvg] {
                    menu_item(ui, c, true, cmds);
                }
                ui.separator();
                menu_item(ui, Command::Properties, true, cmds);
                menu_item(ui, Command::Combine, true, cmds);
                menu_item(ui, Command::Background, true, cmds);
                ui.separator();
                menu_item(ui, Command::Quit, true, cmds);
            });
            ui.menu_button("Edit", |ui| {
                let undo = self.doc.undo_label().map(|l| format!("Undo {l}"));
                let redo = self.doc.redo_label().map(|l| format!("Redo {l}"));
                let b = egui::Button::new(undo.clone().unwrap_or("Undo".into()))
                    .shortcut_text(Command::Undo.shortcut_text());
                if ui.add_enabled(undo.is_some(), b).clicked() {
                    cmds.push(Command::Undo);
                }
                let b = egui::Button::new(redo.clone().unwrap_or("Redo".into()))
                    .shortcut_text(Command::Redo.shortcut_text());
                if ui.add_enabled(redo.is_some(), b).clicked() {
                    cmds.push(Command::Redo);
                }
            });
            ui.menu_button("View", |ui| {
                for c in [Command::ResetZoom, Command::ZoomIn, Command::ZoomOut] {
                    menu_item(ui, c, true, cmds);
                }
                ui.separator();
                let mut labels = self.labels;
                if ui.checkbox(&mut labels, "Hex labels (G)").changed() {
                    cmds.push(Command::ToggleLabels);
                }
                ui.checkbox(&mut self.legend, "Legend");
                ui.separator();
                self.background_menu(ui);
                ui.separator();
                self.overlay_choice(ui);
            });
            ui.menu_button("Tools", |ui| {
                for t in Tool::ALL {
                    menu_item(ui, Command::Tool(t), true, cmds);
                }
            });
            ui.menu_button("Help", |ui| {
                menu_item(ui, Command::Help, true, cmds);
            });
        });
    }

    pub(super) fn status_bar(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let map = self.doc.map();
            if let Some(h) = self.hover.filter(|h| map.contains(*h)) {
                let c = map.cell(h).copied().unwrap_or_default();
                let t = map
                    .ruleset
                    .terrain
                    .get(c.terrain as usize)
                    .map(|t| t.name.as_str())
                    .unwrap_or("?");
                ui.monospace(format!("{:<5}", map.label(h)));
                ui.label(format!(
                    "{t}, level {}{}",
                    c.level,
                    if c.slope { ", slope" } else { "" }
                ));
                ui.separator();
            }
            if self.doc.is_dirty() {
                ui.colored_label(Color32::from_rgb(240, 180, 60), "modified")
                    .on_hover_text("Unsaved changes (autosaved for recovery)");
                ui.separator();
            }
            ui.label(format!("{}x{} {}", map.cols, map.rows, map.ruleset.name));
            ui.separator();
            ui.label(format!("zoom {:.0}%", self.view.zoom / 24.0 * 100.0));
            ui.separator();
            if let Some((key, frac, secs)) = self.overlays.jobs.progress() {
                let what = match key.kind {
                    JobKind::Viewshed(_) => "viewshed",
                    JobKind::Exposure => "exposure",
                    JobKind::Spotting(..) => "spotting",
                    JobKind::Diff { .. } => "change in sight",
                };
                ui.add(
                    egui::ProgressBar::new(frac)
                        .desired_width(240.0)
                        .text(format!(
                            "{what} {:.0}% ({})",
                            frac * 100.0,
                            crate::jobs::elapsed_and_left(frac, secs)
                        )),
                );
                if ui
                    .small_button("Cancel")
                    .on_hover_text("Cancel the analysis (Esc)")
                    .clicked()
                {
                    self.overlays.jobs.cancel();
                    self.overlays.shown = None;
                    self.status = "Analysis cancelled".into();
                }
                ui.separator();
            }
            ui.label(&self.status);
        });
    }

    pub(super) fn tool_panel(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        ui.add_space(4.0);
        ui.heading("Tools");
        egui::Grid::new("toolgrid")
            .num_columns(2)
            .spacing(vec2(4.0, 4.0))
            .show(ui, |ui| {
                for (i, t) in Tool::ALL.iter().enumerate() {
                    let text = format!("{}  {}", t.name(), t.key().name());
                    let r = ui
                        .add_sized(
                            vec2(104.0, 24.0),
                            egui::Button::selectable(self.tool == *t, text),
                        )
                        .on_hover_text(format!("{} ({})\n{}", t.name(), t.key().name(), t.help()));
                    if r.clicked() {
                        cmds.push(Command::Tool(*t));
                    }
                    if i % 2 == 1 {
                        ui.end_row();
                    }
                }
            });
        ui.separator();
        self.tool_options(ui, cmds);
        ui.separator();
        self.palette(ui, cmds);
    }

    pub(super) fn tool_options(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        let rs = self.doc.map().ruleset.clone();
        if self.tool.is_brush() {
            ui.horizontal(|ui| {
                ui.label("Brush");
                for n in 1..=3 {
                    if ui
                        .selectable_label(self.settings.brush == n, format!(" {n} "))
                        .on_hover_text(format!("Brush size {n} ({n})"))
                        .clicked()
                    {
                        cmds.push(Command::Brush(n));
                    }
                }
            });
        }
        match self.tool {
            Tool::Level => {
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut self.settings.level_mode, LevelMode::Raise, "Raise");
                    ui.selectable_value(&mut self.settings.level_mode, LevelMode::Lower, "Lower");
                    ui.selectable_value(&mut self.settings.level_mode, LevelMode::Set, "Set");
                });
                if self.settings.level_mode == LevelMode::Set {
                    ui.add(
                        egui::Slider::new(&mut self.settings.level, rs.levels.min..=rs.levels.max)
                            .text("level"),
                    );
                }
            }
            Tool::Hexside => {
                if rs.hexsides.is_empty() {
                    ui.label("This ruleset has no hexside features.");
                }
                for (i, h) in rs.hexsides.iter().enumerate() {
                    let col = canvas::hexside_color(self.doc.map(), i);
                    ui.horizontal(|ui| {
                        swatch(ui, col, true);
                        ui.selectable_value(&mut self.settings.hexside, i as u16, &h.name);
                    });
                }
            }
            Tool::Marker => {
                if rs.markers.is_empty() {
                    ui.label("This ruleset has no markers.");
                }
                for (i, m) in rs.markers.iter().enumerate() {
                    let col = canvas::marker_color(self.doc.map(), i);
                    ui.horizontal(|ui| {
                        swatch(ui, col, false);
                        ui.selectable_value(&mut self.settings.marker, i as u16, &m.name);
                    });
                }
            }
            Tool::Unit => {
                ui.label("New units");
                let names = self.doc.map().layout.side_names();
                unit_fields(
                    ui,
                    "template",
                    &mut self.settings.unit.side,
                    &mut self.settings.unit.kind,
                    &mut self.settings.unit.state,
                    &mut self.settings.unit.facing,
                    &names,
                );
            }
            Tool::Los => {
                ui.label("Click an observer, then move over targets.");
            }
            Tool::Zones => self
                .planning
                .zones_ui(ui, &mut self.doc, &mut self.settings.brush),
            Tool::Deploy => {
                self.planning.deploy_ui(
                    ui,
                    self.doc.map(),
                    self.doc.generation(),
                    &mut self.selected,
                    &mut self.status,
                );
            }
            _ => {}
        }
    }

    pub(super) fn palette(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        let map = self.doc.map();
        let rs = map.ruleset.clone();
        ui.heading("Terrain");
        for (i, t) in rs.terrain.iter().enumerate() {
            let col = canvas::terrain_color(map, i);
            let selected = self.settings.terrain as usize == i;
            let r = ui
                .horizontal(|ui| {
                    swatch(ui, col, false);
                    ui.selectable_label(selected, &t.name)
                })
                .inner;
            let los = match &t.los {
                hexsight_analysis::rules::LosEffect::Clear => "clear".to_string(),
                other => format!("{other:?}").to_lowercase(),
            };
            let r = r.on_hover_text(format!("{} (`{}`)\nLOS: {los}", t.name, t.id));
            if r.clicked() {
                self.settings.terrain = i as u16;
                if !matches!(self.tool, Tool::Terrain | Tool::Fill) {
                    cmds.push(Command::Tool(Tool::Terrain));
                }
            }
        }
        ui.add_space(6.0);
        ui.label(
            RichText::new(format!(
                "Levels {} to {}: higher is lighter; brown lines are crests.",
                rs.levels.min, rs.levels.max
            ))
            .small(),
        );
    }

    pub(super) fn inspector(&mut self, ui: &mut Ui, cmds: &mut Vec<Command>) {
        ui.add_space(4.0);
        self.layer_panel(ui);
        ui.separator();
        self.line_of_sight
            .ui(ui, self.doc.map(), self.planning.range);
        ui.separator();
        ui.heading("Overlays");
        self.planning.range_ui(ui);
        self.overlay_choice(ui);
        match (self.overlays.shown, self.selected) {
            (Some(Overlay::Viewshed | Overlay::Blind | Overlay::Spotting), None) => {
                ui.colored_label(
                    Color32::from_rgb(240, 180, 60),
                    "Select a hex (Select or LOS tool) to see its overlay.",
                );
            }
            (Some(o), _) => {
                if let Some(h) = self.selected
                    && o != Overlay::Exposure
                {
                    ui.label(format!("From {}", self.doc.map().label(h)));
                }
                if let Some((_, frac, secs)) = self.overlays.jobs.progress() {
                    ui.horizontal(|ui| {
                        ui.add(
                            egui::ProgressBar::new(frac)
                                .desired_width(160.0)
                                .show_percentage(),
                        );
                        if ui.button("Cancel").clicked() {
                            cmds.push(Command::CancelJob);
                        }
                    });
                    ui.label(crate::jobs::elapsed_and_left(frac, secs));
                }
                // The engine's own line: what it needs, what there is, what to change.
                if let Some(why) = self
                    .overlay_key()
                    .and_then(|k| self.overlays.jobs.refusal(k))
                {
                    ui.colored_label(
                        Color32::from_rgb(240, 110, 90),
                        format!("Not computed: {why}"),
                    );
                }
            }
            _ => {}
        }
        self.overlay_readout(ui);
        ui.separator();
        let target = self.selected.or(self.hover);
        self.hex.ui(ui, &mut self.doc, target);
    }

    /// A window listing every shortcut and what each tool does.
    pub(super) fn help_window(&mut self, ctx: &egui::Context) {
        let mut open = self.show_help;
        egui::Window::new("Keyboard shortcuts")
            .open(&mut open)
            .default_width(460.0)
            .show(ctx, |ui| {
                egui::Grid::new("shortcuts")
                    .striped(true)
                    .num_columns(2)
                    .show(ui, |ui| {
                        for c in Command::with_shortcuts() {
                            ui.monospace(c.shortcut_text());
                            match &c {
                                Command::Tool(t) => ui.label(format!("{}: {}", t.name(), t.help())),
                                c => ui.label(c.label()),
                            };
                            ui.end_row();
                        }
                        for (k, what) in [
                            ("Space+drag", "pan (or middle-drag)"),
                            ("Wheel", "zoom at the pointer"),
                            (
                                "Right-click",
                                "with a painting tool: pick the terrain under the pointer",
                            ),
                            ("Shift+click", "with the unit tool: stack another unit"),
                        ] {
                            ui.monospace(k);
                            ui.label(what);
                            ui.end_row();
                        }
                    });
            });
        self.show_help = open;
    }

    /// The overlay's value under the pointer, and its range.
    pub(super) fn overlay_readout(&mut self, ui: &mut Ui) {
        let Some((kind, data, stale)) = self.overlay_data() else {
            return;
        };
        let map = self.doc.map();
        if let JobOutput::Exposure(v) = data.as_ref() {
            let max = v.iter().copied().max().unwrap_or(0);
            ui.label(format!("From 0 to {max} hexes see a hex."));
        }
        if let JobOutput::Diff(d) = data.as_ref() {
            ui.label(format!(
                "{} pairs gained, {} lost; exposure change {} to {:+}.",
                d.gained,
                d.lost,
                d.seen_by.iter().min().copied().unwrap_or(0),
                d.seen_by.iter().max().copied().unwrap_or(0)
            ));
            if let Some(v) = d.views.first() {
                ui.label(format!(
                    "{} sees {} hexes more, {} fewer.",
                    map.label(map.hex_of(v.from)),
                    v.gained.len(),
                    v.lost.len()
                ));
            }
        }
        if let Some(h) = self.hover
            && let Some(i) = map.index(h)
        {
            let text = match data.as_ref() {
                JobOutput::Viewshed(v) => v.get(i).map(|x| {
                    let from = self.selected.map(|s| map.label(s)).unwrap_or_default();
                    let blind = if x.blind { " (blind hex)" } else { "" };
                    format!(
                        "{}: {} from {from}{blind}",
                        map.label(h),
                        x.verdict.as_str()
                    )
                }),
                JobOutput::Exposure(v) => v
                    .get(i)
                    .map(|n| format!("{}: seen by {n} hexes", map.label(h))),
                JobOutput::Diff(d) => d.seen_by.get(i).map(|n| {
                    let mut t = format!("{}: seen by {n:+} hexes", map.label(h));
                    if let Some(v) = d.views.first() {
                        let from = map.label(map.hex_of(v.from));
                        if v.gained.contains(&i) {
                            t += &format!("; {from} sees it now");
                        } else if v.lost.contains(&i) {
                            t += &format!("; {from} no longer sees it");
                        }
                    }
                    t
                }),
                JobOutput::Spotting(v) => v.get(i).map(|x| {
                    let what = if x.auto {
                        "spotted automatically".to_string()
                    } else if !x.los {
                        "out of LOS".to_string()
                    } else {
                        match x.need {
                            Some(n) => format!("a test needs {n}+ ({:.0}%)", x.p * 100.0),
                            None => "no test can spot it".to_string(),
                        }
                    };
                    format!("{}: {what}", map.label(h))
                }),
            };
            if let Some(t) = text {
                ui.label(t);
            }
        }
        if stale {
            ui.label(
                RichText::new(format!(
                    "{} is being recomputed after the edit.",
                    kind.name()
                ))
                .small(),
            );
        }
    }

    pub(super) fn overlay_choice(&mut self, ui: &mut Ui) {
        self.overlays.choice_ui(ui, self.doc.map());
    }
}

/// Most enemy units listed under a unit: the answers are computed every frame.
const SIGHT_ROWS: usize = 24;

/// What the edited unit sees and can fire at among the other sides' units, from the
/// library's unit answers (so the ruleset's arcs and unit rules apply as on the
/// command line): its arc, then one line per enemy with the first reason of a "no".
pub(super) fn unit_sight(ui: &mut Ui, map: &hexsight_analysis::Map, id: &str) {
    use hexsight_analysis::query::units::unit_answers;
    use hexsight_analysis::rules::units::FireKind;
    let Some(a) = map.unit(id) else {
        return;
    };
    let enemies: Vec<_> = map.units.iter().filter(|b| b.side != a.side).collect();
    if enemies.is_empty() {
        return;
    }
    let answers = unit_answers(map, a, enemies[0], FireKind::Direct);
    if let Some(arc) = &answers.arc {
        ui.label(format!("Arc: {arc}"));
    }
    for b in enemies.iter().take(SIGHT_ROWS) {
        let x = unit_answers(map, a, b, FireKind::Direct);
        let yes = |ok: bool| if ok { "yes" } else { "no" };
        let why = [&x.sees, &x.targeted, &x.fires]
            .into_iter()
            .find(|y| !y.ok)
            .and_then(|y| y.reasons.first())
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        ui.label(format!(
            "{} ({}): sees {}, fires {}{why}",
            b.id,
            map.label(b.hex),
            yes(x.sees.ok),
            yes(x.fires.ok)
        ));
    }
    if enemies.len() > SIGHT_ROWS {
        ui.label(format!("... and {} more", enemies.len() - SIGHT_ROWS));
    }
}

fn menu_item(ui: &mut Ui, c: Command, enabled: bool, cmds: &mut Vec<Command>) {
    let b = egui::Button::new(c.label()).shortcut_text(c.shortcut_text());
    if ui.add_enabled(enabled, b).clicked() {
        cmds.push(c);
    }
}

pub(super) fn swatch(ui: &mut Ui, col: Color32, thin: bool) {
    let size = if thin {
        vec2(18.0, 6.0)
    } else {
        vec2(18.0, 14.0)
    };
    let (r, _) = ui.allocate_exact_size(size, Sense::hover());
    ui.painter().rect_filled(r, 2.0, col);
    ui.painter().rect_stroke(
        r,
        2.0,
        egui::Stroke::new(1.0, Color32::from_black_alpha(140)),
        egui::StrokeKind::Inside,
    );
}

pub(super) fn unit_fields(
    ui: &mut Ui,
    id: &str,
    side: &mut String,
    kind: &mut String,
    state: &mut String,
    facing: &mut Option<usize>,
    names: &[&str; 6],
) {
    egui::Grid::new(("unitfields", id))
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Side");
            ui.add(egui::TextEdit::singleline(side).desired_width(120.0));
            ui.end_row();
            ui.label("Kind");
            ui.add(egui::TextEdit::singleline(kind).desired_width(120.0));
            ui.end_row();
            ui.label("State");
            egui::ComboBox::from_id_salt(("state", id))
                .selected_text(if state.is_empty() {
                    "(none)"
                } else {
                    state.as_str()
                })
                .show_ui(ui, |ui| {
                    for s in tools::unit::STATES {
                        ui.selectable_value(
                            state,
                            s.to_string(),
                            if s.is_empty() { "(none)" } else { s },
                        );
                    }
                });
            ui.end_row();
            ui.label("Facing");
            egui::ComboBox::from_id_salt(("facing", id))
                .selected_text(facing.map_or("(none)", |f| names[f % 6]))
                .show_ui(ui, |ui| {
                    ui.selectable_value(facing, None, "(none)");
                    for (i, n) in names.iter().enumerate() {
                        ui.selectable_value(facing, Some(i), *n);
                    }
                });
            ui.end_row();
        });
    if state == "crest" && facing.is_none() {
        ui.colored_label(
            Color32::from_rgb(240, 180, 60),
            "A crest state needs a facing.",
        );
    }
}
