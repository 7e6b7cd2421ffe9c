//! PNG export without a window: the canvas's own drawing code paints into egui
//! shapes in a headless egui context, egui tessellates them exactly as for the
//! screen, and a small software rasterizer fills the triangles. So the file is
//! what the canvas shows, at any scale, and it runs (and is tested) in CI.

use crate::canvas::EguiSurface;
use egui::epaint::{ClippedPrimitive, Primitive, Vertex};
use egui::{Color32, ColorImage, Pos2, Rect, TextureId, Vec2, ViewportId};
use std::collections::HashMap;
use std::path::Path;

/// Largest PNG side in pixels: a bigger request is refused rather than
/// allocating gigabytes.
pub const MAX_SIDE: u32 = 16_384;

/// Renders what `draw` paints on a `size` (points) page at `scale` pixels per
/// point over `background`: a picture of `size * scale` pixels.
pub fn render(
    size: Vec2,
    scale: f32,
    background: Color32,
    draw: impl FnOnce(&mut EguiSurface),
) -> Result<ColorImage, String> {
    let (w, h) = pixel_size(size, scale)?;
    let ctx = egui::Context::default();
    let mut input = egui::RawInput {
        screen_rect: Some(Rect::from_min_size(Pos2::ZERO, size)),
        ..Default::default()
    };
    input
        .viewports
        .entry(ViewportId::ROOT)
        .or_default()
        .native_pixels_per_point = Some(scale);
    let mut draw = Some(draw);
    let mut out = ctx.run_ui(input, |ui| {
        let mut surface = EguiSurface {
            ctx: ui.ctx(),
            shapes: Vec::new(),
            fill_alpha: 1.0,
        };
        if let Some(draw) = draw.take() {
            draw(&mut surface);
        }
        ui.painter().extend(surface.shapes);
    });
    let mut textures = HashMap::new();
    for (id, deltas) in &out.textures_delta.set {
        for d in deltas {
            let egui::ImageData::Color(img) = &d.image;
            apply_delta(&mut textures, *id, img, d.pos);
        }
    }
    // Applied above: cleared, or egui's debug builds panic when they are dropped.
    out.textures_delta.clear();
    let primitives = ctx.tessellate(out.shapes, scale);
    let mut canvas = Canvas::new(w, h, background);
    for p in &primitives {
        canvas.primitive(p, scale, &textures);
    }
    Ok(canvas.into_image())
}

/// The picture's size in pixels, refused when empty or beyond [`MAX_SIDE`].
pub fn pixel_size(size: Vec2, scale: f32) -> Result<(u32, u32), String> {
    let (w, h) = ((size.x * scale).round(), (size.y * scale).round());
    if !(w >= 1.0 && h >= 1.0) {
        return Err(format!("a {w} x {h} pixel picture is empty"));
    }
    if w > MAX_SIDE as f32 || h > MAX_SIDE as f32 {
        return Err(format!(
            "a {w} x {h} pixel picture is too big (at most {MAX_SIDE} a side): choose a smaller scale"
        ));
    }
    Ok((w as u32, h as u32))
}

/// Sets a whole texture or a patch of one, as a renderer does.
fn apply_delta(
    textures: &mut HashMap<TextureId, ColorImage>,
    id: TextureId,
    img: &ColorImage,
    pos: Option<[usize; 2]>,
) {
    let Some([x0, y0]) = pos else {
        textures.insert(id, img.clone());
        return;
    };
    let Some(t) = textures.get_mut(&id) else {
        return;
    };
    for y in 0..img.size[1] {
        for x in 0..img.size[0] {
            let (tx, ty) = (x0 + x, y0 + y);
            if tx < t.size[0] && ty < t.size[1] {
                t.pixels[ty * t.size[0] + tx] = img.pixels[y * img.size[0] + x];
            }
        }
    }
}

/// Premultiplied RGBA pixels, 0 to 1, blended in gamma space as egui's renderers do.
struct Canvas {
    w: usize,
    h: usize,
    px: Vec<[f32; 4]>,
}

impl Canvas {
    fn new(w: u32, h: u32, bg: Color32) -> Canvas {
        let c = rgba(bg);
        Canvas {
            w: w as usize,
            h: h as usize,
            px: vec![c; w as usize * h as usize],
        }
    }

    fn primitive(
        &mut self,
        p: &ClippedPrimitive,
        scale: f32,
        tex: &HashMap<TextureId, ColorImage>,
    ) {
        let Primitive::Mesh(mesh) = &p.primitive else {
            return;
        };
        let clip = Rect::from_min_max(
            (p.clip_rect.min.to_vec2() * scale).to_pos2(),
            (p.clip_rect.max.to_vec2() * scale).to_pos2(),
        );
        let texture = tex.get(&mesh.texture_id);
        for t in mesh.indices.chunks_exact(3) {
            let v = [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize]);
            self.triangle(v, scale, clip, texture);
        }
    }

    /// Fills one triangle, pixel centres inside it (top-left rule on shared edges,
    /// so translucent fills are not blended twice along a seam).
    fn triangle(&mut self, v: [Vertex; 3], scale: f32, clip: Rect, tex: Option<&ColorImage>) {
        let p = v.map(|v| (v.pos.x * scale, v.pos.y * scale));
        let area = edge(p[0], p[1], p[2]);
        if area.abs() < 1e-9 {
            return;
        }
        let xs = [p[0].0, p[1].0, p[2].0];
        let ys = [p[0].1, p[1].1, p[2].1];
        let min = |a: [f32; 3]| a[0].min(a[1]).min(a[2]);
        let max = |a: [f32; 3]| a[0].max(a[1]).max(a[2]);
        let x0 = min(xs).max(clip.min.x).max(0.0).floor() as usize;
        let y0 = min(ys).max(clip.min.y).max(0.0).floor() as usize;
        let x1 = (max(xs).min(clip.max.x).ceil().max(0.0) as usize).min(self.w);
        let y1 = (max(ys).min(clip.max.y).ceil().max(0.0) as usize).min(self.h);
        let sign = area.signum();
        let top_left = |a: (f32, f32), b: (f32, f32)| {
            let (dx, dy) = ((b.0 - a.0) * sign, (b.1 - a.1) * sign);
            (dy == 0.0 && dx > 0.0) || dy < 0.0
        };
        let edges = [(1, 2), (2, 0), (0, 1)].map(|(i, j)| top_left(p[i], p[j]));
        let colors = v.map(|v| rgba(v.color));
        for y in y0..y1 {
            for x in x0..x1 {
                let c = (x as f32 + 0.5, y as f32 + 0.5);
                let w = [
                    edge(p[1], p[2], c),
                    edge(p[2], p[0], c),
                    edge(p[0], p[1], c),
                ]
                .map(|e| e * sign);
                let inside = (0..3).all(|i| w[i] > 0.0 || (w[i] == 0.0 && edges[i]));
                if !inside {
                    continue;
                }
                let b = w.map(|e| e / area.abs());
                let mut src = [0.0; 4];
                for (k, s) in src.iter_mut().enumerate() {
                    *s = b[0] * colors[0][k] + b[1] * colors[1][k] + b[2] * colors[2][k];
                }
                if let Some(t) = tex {
                    let u = b[0] * v[0].uv.x + b[1] * v[1].uv.x + b[2] * v[2].uv.x;
                    let vv = b[0] * v[0].uv.y + b[1] * v[1].uv.y + b[2] * v[2].uv.y;
                    let texel = sample(t, u, vv);
                    for k in 0..4 {
                        src[k] *= texel[k];
                    }
                }
                let d = &mut self.px[y * self.w + x];
                for k in 0..4 {
                    d[k] = src[k] + d[k] * (1.0 - src[3]);
                }
            }
        }
    }

    fn into_image(self) -> ColorImage {
        let pixels = self
            .px
            .iter()
            .map(|p| {
                let q = p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
                Color32::from_rgba_premultiplied(q[0], q[1], q[2], q[3])
            })
            .collect();
        ColorImage::new([self.w, self.h], pixels)
    }
}

/// Twice the signed area of (a, b, c): which side of a-b the point c is on.
fn edge(a: (f32, f32), b: (f32, f32), c: (f32, f32)) -> f32 {
    (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
}

fn rgba(c: Color32) -> [f32; 4] {
    c.to_array().map(|x| x as f32 / 255.0)
}

/// Bilinear sample of a premultiplied texture at normalised (u, v).
fn sample(t: &ColorImage, u: f32, v: f32) -> [f32; 4] {
    let (tw, th) = (t.size[0], t.size[1]);
    let x = (u * tw as f32 - 0.5).clamp(0.0, (tw - 1) as f32);
    let y = (v * th as f32 - 0.5).clamp(0.0, (th - 1) as f32);
    let (xi, yi) = (x.floor() as usize, y.floor() as usize);
    let (xj, yj) = ((xi + 1).min(tw - 1), (yi + 1).min(th - 1));
    let (fx, fy) = (x - xi as f32, y - yi as f32);
    let at = |x: usize, y: usize| rgba(t.pixels[y * tw + x]);
    let (a, b, c, d) = (at(xi, yi), at(xj, yi), at(xi, yj), at(xj, yj));
    let mut out = [0.0; 4];
    for k in 0..4 {
        let top = a[k] + (b[k] - a[k]) * fx;
        let bottom = c[k] + (d[k] - c[k]) * fx;
        out[k] = top + (bottom - top) * fy;
    }
    out
}

/// Writes an image as a PNG file through a temporary file and a rename.
pub fn save_png(img: &ColorImage, path: &Path) -> Result<(), String> {
    let rgba: Vec<u8> = img
        .pixels
        .iter()
        .flat_map(|p| p.to_srgba_unmultiplied())
        .collect();
    encode_png(&rgba, img.size[0] as u32, img.size[1] as u32, path)
}

/// Writes RGBA pixels as a PNG file through a temporary file and a rename.
pub fn encode_png(rgba: &[u8], w: u32, h: u32, path: &Path) -> Result<(), String> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(rgba, w, h, image::ExtendedColorType::Rgba8)
        .map_err(|e| e.to_string())?;
    hexsight_analysis::map::write_atomic(path, &out).map_err(|e| e.to_string())
}
