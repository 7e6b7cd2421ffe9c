//! The canvas: pan, zoom, hit-testing and what each tool does on click or drag.

use super::*;

impl EditorApp {
    // ----- canvas ------------------------------------------------------------

    pub(super) fn canvas(&mut self, ui: &mut Ui) {
        let rect = ui.available_rect_before_wrap();
        let resp = ui.allocate_rect(rect, Sense::click_and_drag());
        self.canvas_rect = rect;
        ui.painter()
            .rect_filled(rect, 0.0, Color32::from_rgb(0x2b, 0x2d, 0x31));
        if self.fit_pending && rect.width() > 50.0 {
            let legend = if self.legend {
                canvas::legend_width(self.doc.map()) + 8.0
            } else {
                0.0
            };
            self.view = View::fit(self.doc.map(), rect.size(), legend);
            self.fit_pending = false;
        }
        let ctx = ui.ctx().clone();
        let space = ctx.input(|i| i.key_down(Key::Space)) && !ctx.egui_wants_keyboard_input();

        // Pan and zoom.
        let panning = resp.dragged_by(PointerButton::Middle)
            || (space && resp.dragged_by(PointerButton::Primary));
        if panning {
            self.view.pan += resp.drag_delta();
        }
        if resp.hovered() {
            let (scroll, pinch) = ctx.input(|i| (i.smooth_scroll_delta(), i.zoom_delta()));
            // Vertical wheel zooms; sideways scrolling (touchpads, Shift+wheel) pans.
            self.view.pan.x += scroll.x;
            let factor = pinch * (scroll.y * 0.0025).exp();
            if (factor - 1.0).abs() > 1e-4
                && let Some(p) = resp.hover_pos()
            {
                self.view.zoom_at(p - rect.min, factor);
            }
        }

        // Arrow keys pan, unless a text field has the keyboard.
        if !ctx.egui_wants_keyboard_input() && self.dialog.is_none() {
            let step = 40.0;
            let d = ctx.input(|i| {
                let k = |key| if i.key_down(key) { 1.0 } else { 0.0 };
                vec2(
                    k(Key::ArrowLeft) - k(Key::ArrowRight),
                    k(Key::ArrowUp) - k(Key::ArrowDown),
                )
            });
            if d != egui::Vec2::ZERO {
                self.view.pan += d * step * ctx.input(|i| i.stable_dt).min(0.1) * 10.0;
                ctx.request_repaint();
            }
        }

        // The hex and side under the pointer.
        let pointer = resp.hover_pos().or_else(|| resp.interact_pointer_pos());
        let map = self.doc.map();
        self.hover = pointer
            .map(|p| map.layout.hex_at_pixel(self.view.to_map(rect.min, p), 1.0))
            .filter(|h| map.contains(*h));
        self.hover_side = match (
            self.tool,
            pointer,
            self.hover.or_else(|| {
                pointer.map(|p| map.layout.hex_at_pixel(self.view.to_map(rect.min, p), 1.0))
            }),
        ) {
            (Tool::Hexside, Some(p), Some(h)) => {
                tools::hexside::nearest_side(map, h, self.view.to_map(rect.min, p), 1.0, 0.4)
            }
            _ => None,
        };
        // The target follows the pointer only when it moves, so a target set
        // otherwise (command line, a click) is not replaced by a resting pointer.
        let moved = ctx.input(|i| i.pointer.delta() != egui::Vec2::ZERO || i.pointer.any_pressed());
        if self.tool == Tool::Los
            && moved
            && let Some(h) = self.hover
        {
            self.line_of_sight.to = Some(h);
        }

        if !panning && !space {
            self.canvas_actions(&ctx, &resp);
        }
        if resp.hovered() {
            let icon = if space || panning {
                egui::CursorIcon::Grab
            } else if self.tool == Tool::Eyedropper {
                egui::CursorIcon::Cell
            } else {
                egui::CursorIcon::Crosshair
            };
            ctx.set_cursor_icon(icon);
        }

        // Draw: the background picture first, under the hexes.
        let fill_alpha = self.paint_background(&ctx, &ui.painter_at(rect), rect);
        let map = self.doc.map();
        let brush = match (self.tool.is_brush(), self.hover) {
            (true, Some(h)) => tools::brush_hexes(map, h, self.settings.brush),
            (false, Some(h))
                if matches!(
                    self.tool,
                    Tool::Fill | Tool::Marker | Tool::Unit | Tool::Eyedropper
                ) =>
            {
                vec![h]
            }
            _ => Vec::new(),
        };
        let overlay = self.overlay_data();
        let scene = Scene {
            map,
            view: self.view,
            rect,
            labels: self.labels,
            overlay: overlay.as_ref().map(|(o, d, s)| (*o, d.as_ref(), *s)),
            los: if self.tool == Tool::Los || self.line_of_sight.from.is_some() {
                self.los()
            } else {
                None
            },
            hover: if brush.is_empty() { self.hover } else { None },
            selected: self.selected,
            brush: &brush,
            side: self.hover_side,
        };
        let mut surface = EguiSurface {
            ctx: &ctx,
            shapes: Vec::with_capacity(map.len().min(20_000) * 2),
            fill_alpha,
        };
        scene.draw(&mut surface);
        self.draw_planning(&mut surface, rect.min);
        // The legend stays opaque over a background picture.
        surface.fill_alpha = 1.0;
        if self.legend {
            canvas::draw_legend(
                &mut surface,
                map,
                self.overlays.shown,
                rect.left_top() + vec2(8.0, 8.0),
            );
        }
        let painter = ui.painter_at(rect);
        painter.extend(surface.shapes);
        if ctx.input(|i| !i.raw.hovered_files.is_empty()) {
            painter.rect_filled(rect, 0.0, Color32::from_black_alpha(120));
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "Drop the map file to open it",
                egui::FontId::proportional(24.0),
                Color32::WHITE,
            );
        }
    }

    pub(super) fn canvas_actions(&mut self, ctx: &egui::Context, resp: &egui::Response) {
        if self.calibrating.is_some() {
            if resp.clicked_by(PointerButton::Primary)
                && let Some(p) = resp.interact_pointer_pos()
            {
                self.calibration_click(p);
            }
            return;
        }
        if self.tool == Tool::Zones {
            self.zone_actions(ctx, resp);
            return;
        }
        let primary_down = ctx.input(|i| i.pointer.primary_down());
        let h = self.hover;
        // Right-click with a painting tool picks the terrain under it, as in most map editors.
        if (self.tool.is_brush() || self.tool == Tool::Fill)
            && resp.clicked_by(PointerButton::Secondary)
            && let Some(c) = h.and_then(|h| self.doc.map().cell(h).copied())
        {
            self.settings.terrain = c.terrain;
            self.settings.level = c.level;
            let name = &self.doc.map().ruleset.terrain[c.terrain as usize].name;
            self.status = format!("Picked {name} level {}", c.level);
            return;
        }
        if self.tool.is_brush() {
            let painting = resp.is_pointer_button_down_on() && primary_down;
            let had_stroke = self.stroke.is_some();
            if painting && let Some(h) = h {
                self.brush_at(h);
            } else if !painting && had_stroke {
                self.end_stroke();
            }
            if resp.clicked_by(PointerButton::Primary)
                && !had_stroke
                && self.stroke.is_none()
                && let Some(h) = h
            {
                // Press and release in one frame: one dab.
                self.brush_at(h);
                self.end_stroke();
            }
            return;
        }
        let Some(h) = h else {
            if self.tool == Tool::Hexside
                && resp.clicked()
                && let Some(side) = self.hover_side
            {
                let kind = self.settings.hexside;
                self.paint("Hexside", |m| {
                    tools::hexside::toggle(m, side, side.a, kind);
                });
            }
            return;
        };
        let primary = resp.clicked_by(PointerButton::Primary);
        let secondary = resp.clicked_by(PointerButton::Secondary);
        if !primary && !secondary {
            return;
        }
        match self.tool {
            Tool::Select => self.selected = if primary { Some(h) } else { None },
            Tool::Fill if primary => {
                let t = self.settings.terrain;
                let mut n = 0;
                self.paint("Fill", |m| n = tools::fill::fill(m, h, t));
                self.status = format!("Filled {n} hexes");
            }
            Tool::Hexside => {
                if let Some(side) = self.hover_side {
                    let kind = self.settings.hexside;
                    if primary {
                        self.paint("Hexside", |m| {
                            tools::hexside::toggle(m, side, h, kind);
                        });
                    } else {
                        self.paint("Remove hexside", |m| {
                            tools::hexside::remove(m, side);
                        });
                    }
                } else {
                    self.status = "Click nearer to a hexside".into();
                }
            }
            Tool::Marker if primary => {
                let kind = self.settings.marker;
                let mut result = Ok(false);
                self.paint("Marker", |m| result = tools::marker::toggle(m, h, kind));
                if let Err(e) = result {
                    self.status = e;
                }
            }
            Tool::Unit => {
                if secondary {
                    let mut removed = None;
                    self.paint("Remove unit", |m| removed = tools::unit::remove_top(m, h));
                    if let Some(u) = removed {
                        self.status = format!("Removed {}", u.id);
                    }
                } else if let Some(u) = self.doc.map().units_at(h).last()
                    && !ctx.input(|i| i.modifiers.shift)
                {
                    self.hex.editing_unit = Some(u.id.clone());
                    self.selected = Some(h);
                } else {
                    let t = self.settings.unit.clone();
                    let mut id = None;
                    self.paint("Place unit", |m| id = tools::unit::place(m, h, &t));
                    self.hex.editing_unit = id;
                    self.selected = Some(h);
                }
            }
            Tool::Eyedropper if primary => {
                if let Some(c) = self.doc.map().cell(h).copied() {
                    self.settings.terrain = c.terrain;
                    self.settings.level = c.level;
                    self.status = format!(
                        "Picked {} level {}",
                        self.doc.map().ruleset.terrain[c.terrain as usize].name,
                        c.level
                    );
                }
                let back = if self.prev_tool == Tool::Eyedropper {
                    Tool::Terrain
                } else {
                    self.prev_tool
                };
                self.set_tool(back);
            }
            Tool::Los => {
                if primary {
                    self.line_of_sight.from = Some(h);
                    self.line_of_sight.to = Some(h);
                    self.selected = Some(h);
                } else {
                    self.line_of_sight.from = None;
                    self.line_of_sight.to = None;
                }
            }
            _ => {}
        }
    }

    /// The hexes the brush covers moving from the stroke's last hex to `h`, without
    /// repeats; `None` when there is no stroke or `h` is where it last was.
    pub(super) fn stroke_hexes(&mut self, h: Hex) -> Option<Vec<Hex>> {
        let stroke = self.stroke.as_mut()?;
        if stroke.last == Some(h) {
            return None;
        }
        // Walk from the last hex so a fast drag leaves no gaps.
        let path: Vec<Hex> = match stroke.last {
            Some(a) => HexLine::new(a, h).hexes().collect(),
            None => vec![h],
        };
        stroke.last = Some(h);
        let mut hexes: Vec<Hex> = Vec::new();
        for p in path {
            for b in tools::brush_hexes(self.doc.map(), p, self.settings.brush) {
                if !hexes.contains(&b) {
                    hexes.push(b);
                }
            }
        }
        Some(hexes)
    }

    pub(super) fn brush_at(&mut self, h: Hex) {
        let tool = self.tool;
        if self.stroke.is_none() {
            let label = match tool {
                Tool::Terrain => "Paint terrain",
                Tool::Level => "Change level",
                Tool::Slope => "Slope",
                _ => "Erase",
            };
            if let Some(i) = self.target {
                if let Err(e) = self.doc.begin_layer(label, i) {
                    self.status = format!("Cannot paint into the layer: {e}");
                    return;
                }
            } else {
                self.doc.begin(label);
            }
            let slope = !self.doc.map().cell(h).is_some_and(|c| c.slope);
            self.stroke = Some(Stroke::new(slope));
        }
        let Some(hexes) = self.stroke_hexes(h) else {
            return;
        };
        let Some(stroke) = self.stroke.as_mut() else {
            return;
        };
        let s = &self.settings;
        let (terrain, mode, level, slope) = (s.terrain, s.level_mode, s.level, stroke.slope);
        let touched = &mut stroke.touched;
        let map = self.doc.target_mut();
        match tool {
            Tool::Terrain => {
                tools::terrain::paint(map, &hexes, terrain);
            }
            Tool::Level => {
                tools::level::apply(map, &hexes, mode, level, touched);
            }
            Tool::Slope => {
                tools::level::set_slope(map, &hexes, slope);
            }
            Tool::Eraser => {
                tools::terrain::erase(map, &hexes);
            }
            _ => {}
        }
        self.doc.refresh();
    }

    /// A one-shot edit by a painting tool, into the target layer or the map.
    pub(super) fn paint(&mut self, label: &str, f: impl FnOnce(&mut Map)) -> bool {
        match self.doc.paint(label, self.target, f) {
            Ok(changed) => changed,
            Err(e) => {
                self.status = format!("Cannot paint into the layer: {e}");
                false
            }
        }
    }
}
