//! Tracing a scanned board: the background picture under the grid (File >
//! Background image, the View menu's opacity and show/hide) and its calibration
//! by clicking the centres of two known hexes or by typing the numbers (hex
//! size in picture pixels, where a known hex's centre is, rotation).

use super::*;
use crate::background::{Background, Placement, relative_name};

/// A calibration under way: the two hexes and the image pixels clicked so far.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// Labels of the two known hexes.
    pub hexes: [String; 2],
    /// Image pixels clicked, in order.
    pub clicks: Vec<(f64, f64)>,
}

/// The background placement as numbers a user can read off the scan: how
/// far apart neighbouring hex centres are in picture pixels (the same for flat
/// and pointy grids), which picture pixel is the centre of a known hex, and the
/// picture's turn. Map units are hex radii, so one hex size of `hex_px` pixels
/// is `sqrt(3) / hex_px` map units per pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacementForm {
    /// Distance between the centres of two neighbouring hexes on the picture, in pixels.
    pub hex_px: f64,
    /// The known hex (its label).
    pub hex: String,
    /// The picture pixel at that hex's centre.
    pub x: f64,
    /// The picture pixel at that hex's centre.
    pub y: f64,
    /// Turn of the picture, in degrees, clockwise on screen.
    pub rotation: f64,
}

impl PlacementForm {
    /// The form that describes `p` on `map`, about its first hex.
    pub fn of(map: &Map, p: &Placement) -> PlacementForm {
        let h = map.hex_of(0);
        let (x, y) = p.to_image(map.layout.center(h, 1.0));
        PlacementForm {
            hex_px: 3f64.sqrt() / p.scale,
            hex: map.label(h),
            x,
            y,
            rotation: p.rotation,
        }
    }

    /// The placement it asks for; the error says which number is wrong.
    pub fn placement(&self, map: &Map) -> Result<Placement, String> {
        if !(self.hex_px.is_finite() && self.hex_px > 0.0) {
            return Err("The hex size must be a positive number of pixels".into());
        }
        if ![self.x, self.y, self.rotation]
            .iter()
            .all(|v| v.is_finite())
        {
            return Err("The centre and the rotation must be numbers".into());
        }
        let h = map
            .parse_hex(self.hex.trim())
            .filter(|h| map.contains(*h))
            .ok_or_else(|| format!("{} is not a hex of this map", self.hex.trim()))?;
        let mut p = Placement {
            scale: 3f64.sqrt() / self.hex_px,
            rotation: self.rotation,
            offset: (0.0, 0.0),
        };
        let (at, want) = (p.to_map((self.x, self.y)), map.layout.center(h, 1.0));
        p.offset = (want.0 - at.0, want.1 - at.1);
        Ok(p)
    }
}

/// The picture as a textured quad on a canvas whose top-left is `origin`.
fn picture_mesh(
    view: &View,
    origin: Pos2,
    bg: &Background,
    tex: egui::TextureId,
    [w, h]: [usize; 2],
) -> egui::Shape {
    let mut mesh = egui::Mesh::with_texture(tex);
    let (w, h) = (w as f64, h as f64);
    for (px, uv) in [
        ((0.0, 0.0), (0.0, 0.0)),
        ((w, 0.0), (1.0, 0.0)),
        ((w, h), (1.0, 1.0)),
        ((0.0, h), (0.0, 1.0)),
    ] {
        mesh.vertices.push(egui::epaint::Vertex {
            pos: view.to_screen(origin, bg.placement.to_map(px)),
            uv: Pos2::new(uv.0, uv.1),
            color: Color32::WHITE,
        });
    }
    mesh.indices = vec![0, 1, 2, 0, 2, 3];
    egui::Shape::mesh(mesh)
}

/// A background read for a PNG export: the placement and the pixels.
pub(super) struct ExportPicture(Background, egui::ColorImage);

impl ExportPicture {
    /// Paints the picture first on an export page; returns how opaque hex fills are over it.
    pub(super) fn paint(self, s: &mut EguiSurface, view: &View) -> f32 {
        let ExportPicture(bg, img) = self;
        let size = img.size;
        let tex = s
            .ctx
            .load_texture("export-background", img, Default::default());
        s.shapes
            .push(picture_mesh(view, Pos2::ZERO, &bg, tex.id(), size));
        1.0 - bg.opacity
    }
}

/// The loaded picture: the file it came from, and its texture (`None`: unreadable).
pub(super) type Picture = (PathBuf, Option<(egui::TextureHandle, [usize; 2])>);

impl EditorApp {
    /// Puts `image` under the grid, stretched over the map, half transparent.
    pub fn set_background(&mut self, image: &Path) {
        let size = match image::image_dimensions(image) {
            Ok(s) => s,
            Err(e) => {
                self.error = Some(format!("Could not read {}:\n\n{e}", image.display()));
                return;
            }
        };
        let b = canvas::map_bounds(self.doc.map());
        let scale = f64::from(b.width()) / f64::from(size.0.max(1));
        let bg = Background {
            image: relative_name(image, self.doc.path.as_deref()),
            placement: Placement {
                scale,
                rotation: 0.0,
                offset: (f64::from(b.min.x), f64::from(b.min.y)),
            },
            opacity: 0.5,
            visible: true,
        };
        self.doc.edit("Background image", |m| bg.store(m));
        self.picture = None;
        self.status = "Background set: View > Calibrate background to line it up".into();
    }

    /// The background's texture, loaded once per file; a missing or unreadable
    /// file is a status message, never a failure.
    fn picture(
        &mut self,
        ctx: &egui::Context,
        bg: &Background,
    ) -> Option<(egui::TextureId, [usize; 2])> {
        let path = bg.resolve(self.doc.path.as_deref());
        if self.picture.as_ref().is_none_or(|(p, _)| *p != path) {
            let loaded = image::open(&path).map(|img| {
                let rgba = img.to_rgba8();
                let size = [rgba.width() as usize, rgba.height() as usize];
                let color = egui::ColorImage::from_rgba_unmultiplied(size, rgba.as_raw());
                (
                    ctx.load_texture("background", color, Default::default()),
                    size,
                )
            });
            if let Err(e) = &loaded {
                self.status = format!("Background image {} not shown: {e}", path.display());
            }
            self.picture = Some((path, loaded.ok()));
        }
        let (_, tex) = self.picture.as_ref()?;
        tex.as_ref().map(|(t, s)| (t.id(), *s))
    }

    /// The shown background read for a PNG export (`None`: no background, or hidden);
    /// an unreadable file is an error, not a silently different picture.
    pub(super) fn export_picture(&self) -> Result<Option<ExportPicture>, String> {
        let Some(bg) = Background::of(self.doc.map()).filter(|b| b.visible) else {
            return Ok(None);
        };
        let path = bg.resolve(self.doc.path.as_deref());
        let img = image::open(&path)
            .map_err(|e| format!("background image {}: {e}", path.display()))?
            .to_rgba8();
        let size = [img.width() as usize, img.height() as usize];
        let color = egui::ColorImage::from_rgba_unmultiplied(size, img.as_raw());
        Ok(Some(ExportPicture(bg, color)))
    }

    /// Applies the typed placement as one undo step.
    pub fn apply_placement(&mut self, f: &PlacementForm) -> Result<(), String> {
        let mut bg = Background::of(self.doc.map())
            .ok_or("The map has no background image (File > Background image)")?;
        bg.placement = f.placement(self.doc.map())?;
        self.end_stroke();
        self.doc.edit("Place background", |m| bg.store(m));
        Ok(())
    }

    /// The typed placement form; returns whether it stays open.
    pub(super) fn placement_dialog(&mut self, ctx: &egui::Context, mut f: PlacementForm) -> bool {
        let (mut apply, mut cancel) = (false, false);
        egui::Modal::new(egui::Id::unique("placement")).show(ctx, |ui| {
            ui.set_max_width(460.0);
            ui.heading("Place background by numbers");
            ui.label("Read these off the picture (in its pixels), e.g. in an image viewer.");
            egui::Grid::new("placement-grid")
                .num_columns(2)
                .show(ui, |ui| {
                    ui.label("Hex size (pixels)");
                    ui.add(
                        egui::DragValue::new(&mut f.hex_px)
                            .range(0.01..=1e5)
                            .speed(0.1),
                    )
                    .on_hover_text("Distance between the centres of two neighbouring hexes");
                    ui.end_row();
                    ui.label("Centre of hex");
                    ui.add(egui::TextEdit::singleline(&mut f.hex).desired_width(60.0));
                    ui.end_row();
                    ui.label("is at pixel x, y");
                    ui.horizontal(|ui| {
                        ui.add(egui::DragValue::new(&mut f.x).speed(0.5));
                        ui.add(egui::DragValue::new(&mut f.y).speed(0.5));
                    });
                    ui.end_row();
                    ui.label("Rotation (degrees)");
                    ui.add(
                        egui::DragValue::new(&mut f.rotation)
                            .range(-360.0..=360.0)
                            .speed(0.1)
                            .suffix("°"),
                    )
                    .on_hover_text("Clockwise on screen");
                    ui.end_row();
                });
            ui.horizontal(|ui| {
                apply = ui.button("Apply").clicked() || ui.input(|i| i.key_pressed(Key::Enter));
                cancel = ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape));
            });
        });
        if apply {
            match self.apply_placement(&f) {
                Ok(()) => self.status = "Background placed (Ctrl+Z undoes it)".into(),
                Err(e) => self.error = Some(e),
            }
            return false;
        }
        if cancel {
            return false;
        }
        self.dialog = Some(Dialog::Placement(f));
        true
    }

    /// Paints the background under the hexes; returns how opaque hex fills
    /// should be over it (1 with no picture shown).
    pub(super) fn paint_background(
        &mut self,
        ctx: &egui::Context,
        painter: &egui::Painter,
        rect: Rect,
    ) -> f32 {
        let Some(bg) = Background::of(self.doc.map()).filter(|b| b.visible) else {
            return 1.0;
        };
        let Some((tex, [w, h])) = self.picture(ctx, &bg) else {
            return 1.0;
        };
        painter.add(picture_mesh(&self.view, rect.min, &bg, tex, [w, h]));
        1.0 - bg.opacity
    }

    /// A click on the canvas while calibrating: records the image pixel under it
    /// and, at the second, lines the picture up. Returns true when it took the click.
    pub(super) fn calibration_click(&mut self, pos: Pos2) -> bool {
        let (Some(cal), Some(bg)) = (self.calibrating.as_mut(), Background::of(self.doc.map()))
        else {
            return false;
        };
        let at = self.view.to_map(self.canvas_rect.min, pos);
        cal.clicks.push(bg.placement.to_image(at));
        if cal.clicks.len() < 2 {
            self.status = format!("Now click the centre of {}", cal.hexes[1]);
            return true;
        }
        let cal = self.calibrating.take().expect("calibrating");
        let map = self.doc.map();
        let centres: Option<Vec<(f64, f64)>> = cal
            .hexes
            .iter()
            .map(|l| map.parse_hex(l).map(|h| map.layout.center(h, 1.0)))
            .collect();
        let placed =
            centres.and_then(|c| Placement::through(cal.clicks[0], c[0], cal.clicks[1], c[1]));
        match placed {
            Some(placement) => {
                let bg = Background { placement, ..bg };
                self.doc.edit("Calibrate background", |m| bg.store(m));
                self.status = format!("Background lined up on {} and {}", cal.hexes[0], cal.hexes[1]);
            }
            None => self.error = Some("Calibration needs two different hexes of this map, clicked at two different places".into()),
        }
        true
    }

    /// The View menu's background entries: show/hide, opacity, calibrate, remove.
    pub(super) fn background_menu(&mut self, ui: &mut Ui) {
        let Some(mut bg) = Background::of(self.doc.map()) else {
            ui.label("No background image (File > Background image)");
            return;
        };
        let before = bg.clone();
        ui.checkbox(&mut bg.visible, "Background image");
        ui.add(egui::Slider::new(&mut bg.opacity, 0.0..=1.0).text("Background opacity"));
        if ui.button("Calibrate background...").clicked() {
            let m = self.doc.map();
            let last = m.label(m.hex_of(m.len() - 1));
            self.calibrating = Some(Calibration {
                hexes: [m.label(m.hex_of(0)), last],
                clicks: Vec::new(),
            });
            ui.close();
        }
        if ui.button("Place background by numbers...").clicked() {
            self.dialog = Some(Dialog::Placement(PlacementForm::of(
                self.doc.map(),
                &bg.placement,
            )));
            ui.close();
        }
        if ui.button("Remove background").clicked() {
            self.doc.edit("Remove background", |m| {
                m.extra.remove(crate::background::KEY);
            });
            return;
        }
        if bg != before {
            self.doc.edit_merging("Background", |m| bg.store(m));
        }
    }

    /// The calibration window: which hexes, how far along, Cancel.
    pub(super) fn calibration_window(&mut self, ctx: &egui::Context) {
        let Some(cal) = self.calibrating.as_mut() else {
            return;
        };
        let (mut cancel, mut typed) = (false, false);
        egui::Window::new("Calibrate background")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::RIGHT_TOP, vec2(-340.0, 40.0))
            .show(ctx, |ui| {
                ui.label(
                    "Type two hexes you can see on the picture, then click their centres on it.",
                );
                for (i, l) in cal.hexes.iter_mut().enumerate() {
                    ui.horizontal(|ui| {
                        ui.label(format!("Hex {}", i + 1));
                        ui.add(egui::TextEdit::singleline(l).desired_width(60.0));
                        if cal.clicks.len() > i {
                            ui.label("clicked");
                        }
                    });
                }
                let next = cal.clicks.len().min(1);
                ui.label(format!(
                    "Click the centre of {} on the picture.",
                    cal.hexes[next]
                ));
                ui.horizontal(|ui| {
                    cancel = ui.button("Cancel").clicked();
                    typed = ui
                        .button("Type the numbers instead...")
                        .on_hover_text("Hex size in pixels, a hex centre's pixel, rotation")
                        .clicked();
                });
            });
        if typed && let Some(bg) = Background::of(self.doc.map()) {
            self.dialog = Some(Dialog::Placement(PlacementForm::of(
                self.doc.map(),
                &bg.placement,
            )));
        }
        if cancel || typed {
            self.calibrating = None;
        }
    }
}
