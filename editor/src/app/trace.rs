//! Tracing a scanned board: the background picture under the grid (File >
//! Background image, the View menu's opacity and show/hide) and its calibration
//! by clicking the centres of two known hexes.

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
        let mut mesh = egui::Mesh::with_texture(tex);
        let (w, h) = (w as f64, h as f64);
        for (px, uv) in [
            ((0.0, 0.0), (0.0, 0.0)),
            ((w, 0.0), (1.0, 0.0)),
            ((w, h), (1.0, 1.0)),
            ((0.0, h), (0.0, 1.0)),
        ] {
            let at = self.view.to_screen(rect.min, bg.placement.to_map(px));
            mesh.vertices.push(egui::epaint::Vertex {
                pos: at,
                uv: Pos2::new(uv.0, uv.1),
                color: Color32::WHITE,
            });
        }
        mesh.indices = vec![0, 1, 2, 0, 2, 3];
        painter.add(egui::Shape::mesh(mesh));
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
        let mut cancel = false;
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
                cancel = ui.button("Cancel").clicked();
            });
        if cancel {
            self.calibrating = None;
        }
    }
}
