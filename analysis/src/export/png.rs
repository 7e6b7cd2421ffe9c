//! Rasterises a [`Scene`] to PNG: hexes filled exactly (pixel centres), lines,
//! circles and text anti-aliased, text from the bundled Ubuntu font.

use super::style::{Rgba, Scene};
use crate::hex::layout::distance_to_segment;
use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use image::{Rgba as Px, RgbaImage};

fn blend(img: &mut RgbaImage, x: i64, y: i64, c: Rgba, cover: f64) {
    if x < 0 || y < 0 || x >= img.width() as i64 || y >= img.height() as i64 || cover <= 0.0 {
        return;
    }
    let a = cover.min(1.0) * c[3] as f64 / 255.0;
    let p = img.get_pixel_mut(x as u32, y as u32);
    for (dst, &src) in p.0.iter_mut().zip(c.iter()).take(3) {
        *dst = (*dst as f64 * (1.0 - a) + src as f64 * a).round() as u8;
    }
    p.0[3] = 255;
}

fn inside(pts: &[(f64, f64)], x: f64, y: f64) -> bool {
    // Even-odd rule.
    let mut odd = false;
    let mut j = pts.len() - 1;
    for i in 0..pts.len() {
        let (xi, yi) = pts[i];
        let (xj, yj) = pts[j];
        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
            odd = !odd;
        }
        j = i;
    }
    odd
}

/// Draws the scene into an image.
pub fn render(scene: &Scene) -> RgbaImage {
    let mut img = RgbaImage::from_pixel(scene.width, scene.height, Px([255, 255, 255, 255]));
    for poly in &scene.polys {
        let (x0, x1) = poly
            .pts
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let (y0, y1) = poly
            .pts
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
        for y in y0.floor() as i64..=y1.ceil() as i64 {
            for x in x0.floor() as i64..=x1.ceil() as i64 {
                if inside(&poly.pts, x as f64 + 0.5, y as f64 + 0.5) {
                    blend(&mut img, x, y, poly.fill, 1.0);
                }
            }
        }
    }
    for l in &scene.lines {
        let h = l.width / 2.0 + 1.0;
        let (x0, x1) = (l.a.0.min(l.b.0) - h, l.a.0.max(l.b.0) + h);
        let (y0, y1) = (l.a.1.min(l.b.1) - h, l.a.1.max(l.b.1) + h);
        for y in y0.floor() as i64..=y1.ceil() as i64 {
            for x in x0.floor() as i64..=x1.ceil() as i64 {
                let d = distance_to_segment((x as f64 + 0.5, y as f64 + 0.5), l.a, l.b);
                blend(
                    &mut img,
                    x,
                    y,
                    l.color,
                    (l.width / 2.0 + 0.5 - d).clamp(0.0, 1.0),
                );
            }
        }
    }
    for c in &scene.circles {
        let r = c.r + 2.0;
        for y in (c.c.1 - r).floor() as i64..=(c.c.1 + r).ceil() as i64 {
            for x in (c.c.0 - r).floor() as i64..=(c.c.0 + r).ceil() as i64 {
                let d =
                    ((x as f64 + 0.5 - c.c.0).powi(2) + (y as f64 + 0.5 - c.c.1).powi(2)).sqrt();
                if c.outline {
                    blend(
                        &mut img,
                        x,
                        y,
                        [0, 0, 0, 255],
                        (c.r + 1.5 + 0.5 - d).clamp(0.0, 1.0),
                    );
                }
                blend(&mut img, x, y, c.fill, (c.r + 0.5 - d).clamp(0.0, 1.0));
            }
        }
    }
    let font = FontRef::try_from_slice(epaint_default_fonts::UBUNTU_LIGHT)
        .expect("the bundled font parses");
    for t in &scene.texts {
        let scaled = font.as_scaled(PxScale::from(t.size as f32 * 1.25));
        let width: f32 = t
            .text
            .chars()
            .map(|ch| scaled.h_advance(font.glyph_id(ch)))
            .sum();
        let mut x = if t.centred {
            t.at.0 as f32 - width / 2.0
        } else {
            t.at.0 as f32
        };
        for ch in t.text.chars() {
            let id = font.glyph_id(ch);
            let glyph = id.with_scale_and_position(scaled.scale(), point(x, t.at.1 as f32));
            x += scaled.h_advance(id);
            if let Some(outlined) = font.outline_glyph(glyph) {
                let b = outlined.px_bounds();
                outlined.draw(|gx, gy, cover| {
                    blend(
                        &mut img,
                        b.min.x as i64 + gx as i64,
                        b.min.y as i64 + gy as i64,
                        t.color,
                        cover as f64,
                    );
                });
            }
        }
    }
    img
}

/// PNG bytes of the scene.
pub fn png_bytes(scene: &Scene) -> Vec<u8> {
    let img = render(scene);
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .expect("encoding a PNG into memory cannot fail");
    out.into_inner()
}
