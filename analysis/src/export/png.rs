//! Rasterises a [`Scene`] to PNG: hexes filled exactly (pixel centres), lines,
//! circles and text anti-aliased, text from the bundled Ubuntu font.

use super::style::{Circle, Line, Poly, Rgba, Scene};
use crate::hex::layout::distance_to_segment;
use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use image::{Rgba as Px, RgbaImage};

fn blend(img: &mut RgbaImage, x: i64, y: i64, c: Rgba, cover: f64) {
    if x < 0 || y < 0 || x >= img.width() as i64 || y >= img.height() as i64 || cover <= 0.0 {
        return;
    }
    blend_px(&mut img.get_pixel_mut(x as u32, y as u32).0, c, cover);
}

/// Lays `c` over the pixel `p` (RGBA bytes) with the given cover, in 0..=1.
fn blend_px(p: &mut [u8], c: Rgba, cover: f64) {
    let a = cover.min(1.0) * c[3] as f64 / 255.0;
    for (dst, &src) in p.iter_mut().zip(c.iter()).take(3) {
        *dst = (*dst as f64 * (1.0 - a) + src as f64 * a).round() as u8;
    }
    p[3] = 255;
}

/// Rows of pixels drawn together: each layer's shapes are sorted into bands of this
/// many rows, and the bands are drawn in parallel.
const BAND: usize = 32;

/// A band of rows of the image: `w` pixels wide, its first row `first`.
struct Band<'a> {
    px: &'a mut [u8],
    w: usize,
    first: i64,
    rows: i64,
}

impl Band<'_> {
    /// The rows of `y0..=y1` within the band.
    fn rows(&self, y0: i64, y1: i64) -> std::ops::RangeInclusive<i64> {
        y0.max(self.first)..=y1.min(self.first + self.rows - 1)
    }

    /// Lays `c` over pixel (`x`, `y`) with the given cover; outside the band, nothing.
    fn blend(&mut self, x: i64, y: i64, c: Rgba, cover: f64) {
        if x < 0 || x >= self.w as i64 || !self.rows(y, y).contains(&y) || cover <= 0.0 {
            return;
        }
        let at = ((y - self.first) as usize * self.w + x as usize) * 4;
        blend_px(&mut self.px[at..at + 4], c, cover);
    }
}

/// Draws `shapes` in order, band by band in parallel: a shape goes to the bands its
/// rows `rows_of` meet, and `draw` draws it within one band, so every pixel gets the
/// same shapes in the same order as if they were drawn one after another.
fn banded<T: Sync>(
    img: &mut RgbaImage,
    shapes: &[T],
    rows_of: impl Fn(&T) -> (i64, i64),
    draw: impl Fn(&mut Band, &T) + Sync,
) {
    use rayon::prelude::*;
    let (w, h) = (img.width() as usize, img.height() as usize);
    if w == 0 || h == 0 {
        return;
    }
    let mut in_band: Vec<Vec<u32>> = vec![Vec::new(); h.div_ceil(BAND)];
    for (k, shape) in shapes.iter().enumerate() {
        let (y0, y1) = rows_of(shape);
        let (y0, y1) = (y0.max(0), y1.min(h as i64 - 1));
        if y0 <= y1 {
            for band in &mut in_band[y0 as usize / BAND..=y1 as usize / BAND] {
                band.push(k as u32);
            }
        }
    }
    let px: &mut [u8] = img;
    px.par_chunks_mut(w * 4 * BAND)
        .zip(in_band)
        .enumerate()
        .for_each(|(b, (px, here))| {
            let rows = (px.len() / (4 * w)) as i64;
            let mut band = Band {
                px,
                w,
                first: (b * BAND) as i64,
                rows,
            };
            for k in here {
                draw(&mut band, &shapes[k as usize]);
            }
        });
}

/// The pixels a polygon may cover, `(x0, x1, y0, y1)` inclusive.
fn bounds(pts: &[(f64, f64)]) -> (i64, i64, i64, i64) {
    let (x0, x1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    (
        x0.floor() as i64,
        x1.ceil() as i64,
        y0.floor() as i64,
        y1.ceil() as i64,
    )
}

/// Fills a polygon's pixels within a band: each pixel whose centre is inside (even-odd
/// rule). Per row, the points where the row's centre line crosses the edges are worked
/// out once, with the arithmetic of the even-odd test at a point; a pixel is inside
/// where an odd number of them lie right of its centre.
fn fill_poly(band: &mut Band, poly: &Poly) {
    let pts = &poly.pts;
    let (x0, x1, y0, y1) = bounds(pts);
    let (xa, xb) = (x0.max(0), x1.min(band.w as i64 - 1));
    let mut cuts = Vec::new();
    for y in band.rows(y0, y1) {
        let yc = y as f64 + 0.5;
        cuts.clear();
        let mut j = pts.len() - 1;
        for i in 0..pts.len() {
            let ((xi, yi), (xj, yj)) = (pts[i], pts[j]);
            if (yi > yc) != (yj > yc) {
                let cut = (xj - xi) * (yc - yi) / (yj - yi) + xi;
                if !cut.is_nan() {
                    cuts.push(cut);
                }
            }
            j = i;
        }
        cuts.sort_by(f64::total_cmp);
        // `passed`: the cuts at or left of the pixel's centre.
        let mut passed = 0;
        for x in xa..=xb {
            let xc = x as f64 + 0.5;
            while passed < cuts.len() && cuts[passed] <= xc {
                passed += 1;
            }
            if (cuts.len() - passed) % 2 == 1 {
                band.blend(x, y, poly.fill, 1.0);
            }
        }
    }
}

/// The rows a line may touch.
fn line_rows(l: &Line) -> (i64, i64) {
    let h = l.width / 2.0 + 1.0;
    (
        (l.a.1.min(l.b.1) - h).floor() as i64,
        (l.a.1.max(l.b.1) + h).ceil() as i64,
    )
}

/// Draws a line within a band, anti-aliased by the pixel centre's distance to it.
fn draw_line(band: &mut Band, l: &Line) {
    let h = l.width / 2.0 + 1.0;
    let (x0, x1) = (l.a.0.min(l.b.0) - h, l.a.0.max(l.b.0) + h);
    let (y0, y1) = line_rows(l);
    for y in band.rows(y0, y1) {
        for x in (x0.floor() as i64).max(0)..=(x1.ceil() as i64).min(band.w as i64 - 1) {
            let d = distance_to_segment((x as f64 + 0.5, y as f64 + 0.5), l.a, l.b);
            band.blend(x, y, l.color, (l.width / 2.0 + 0.5 - d).clamp(0.0, 1.0));
        }
    }
}

/// The rows a circle may touch.
fn circle_rows(c: &Circle) -> (i64, i64) {
    let r = c.r + 2.0;
    ((c.c.1 - r).floor() as i64, (c.c.1 + r).ceil() as i64)
}

/// Draws a circle (with its outline, if any) within a band, anti-aliased.
fn draw_circle(band: &mut Band, c: &Circle) {
    let r = c.r + 2.0;
    let (y0, y1) = circle_rows(c);
    for y in band.rows(y0, y1) {
        for x in (c.c.0 - r).floor() as i64..=(c.c.0 + r).ceil() as i64 {
            let d = ((x as f64 + 0.5 - c.c.0).powi(2) + (y as f64 + 0.5 - c.c.1).powi(2)).sqrt();
            if c.outline {
                let cover = (c.r + 1.5 + 0.5 - d).clamp(0.0, 1.0);
                band.blend(x, y, [0, 0, 0, 255], cover);
            }
            band.blend(x, y, c.fill, (c.r + 0.5 - d).clamp(0.0, 1.0));
        }
    }
}

/// Draws the scene into an image: polygons, then lines, then circles (each layer
/// band by band in parallel), then text.
pub fn render(scene: &Scene) -> RgbaImage {
    let mut img = RgbaImage::from_pixel(scene.width, scene.height, Px([255, 255, 255, 255]));
    banded(
        &mut img,
        &scene.polys,
        |p| {
            let (_, _, y0, y1) = bounds(&p.pts);
            (y0, y1)
        },
        fill_poly,
    );
    banded(&mut img, &scene.lines, line_rows, draw_line);
    banded(&mut img, &scene.circles, circle_rows, draw_circle);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Even-odd rule at one point: the reference the band fill is checked against.
    fn inside(pts: &[(f64, f64)], x: f64, y: f64) -> bool {
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

    /// The scene's shapes drawn one after another over the whole image, polygons
    /// pixel by pixel with the even-odd test at the centre.
    fn render_one_by_one(scene: &Scene) -> RgbaImage {
        let mut img = RgbaImage::from_pixel(scene.width, scene.height, Px([255, 255, 255, 255]));
        for poly in &scene.polys {
            let (x0, x1, y0, y1) = bounds(&poly.pts);
            for y in y0..=y1 {
                for x in x0..=x1 {
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
                    let cover = (l.width / 2.0 + 0.5 - d).clamp(0.0, 1.0);
                    blend(&mut img, x, y, l.color, cover);
                }
            }
        }
        for c in &scene.circles {
            let r = c.r + 2.0;
            for y in (c.c.1 - r).floor() as i64..=(c.c.1 + r).ceil() as i64 {
                for x in (c.c.0 - r).floor() as i64..=(c.c.0 + r).ceil() as i64 {
                    let d = ((x as f64 + 0.5 - c.c.0).powi(2) + (y as f64 + 0.5 - c.c.1).powi(2))
                        .sqrt();
                    if c.outline {
                        let cover = (c.r + 1.5 + 0.5 - d).clamp(0.0, 1.0);
                        blend(&mut img, x, y, [0, 0, 0, 255], cover);
                    }
                    blend(&mut img, x, y, c.fill, (c.r + 0.5 - d).clamp(0.0, 1.0));
                }
            }
        }
        img
    }

    /// Drawing band by band in parallel gives every pixel of drawing the shapes one by
    /// one: polygons (hexes, stars that are not convex and cross themselves, slivers,
    /// corners on pixel centres), lines and circles, across the image's edges and off
    /// it, overlapping and see-through, in images that end mid-band.
    #[test]
    fn bands_draw_as_shapes_drawn_one_by_one() {
        let mut rng = crate::generate::Rng(11);
        let mut unit = || (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let mut polys = Vec::new();
        for k in 0..400 {
            let (cx, cy) = (unit() * 260.0 - 30.0, unit() * 200.0 - 30.0);
            let r = 0.3 + unit() * 25.0;
            let n = 3 + (unit() * 7.0) as usize;
            let star = k % 3 == 0;
            let on_centres = k % 7 == 0;
            let pts = (0..n)
                .map(|i| {
                    let turn = if star { 2.0 } else { 1.0 };
                    let t = std::f64::consts::TAU * turn * i as f64 / n as f64 + unit() * 0.2;
                    let (x, y) = (cx + r * t.cos(), cy + r * t.sin());
                    if on_centres {
                        (x.floor() + 0.5, y.floor() + 0.5)
                    } else {
                        (x, y)
                    }
                })
                .collect();
            let alpha = if k % 2 == 0 { 255 } else { 90 };
            let fill = [(k * 13) as u8, (k * 37) as u8, (k * 91) as u8, alpha];
            polys.push(Poly { pts, fill });
        }
        polys.push(Poly {
            pts: Vec::new(),
            fill: [0, 0, 0, 255],
        });
        let mut lines = Vec::new();
        let mut circles = Vec::new();
        for k in 0..300 {
            let (x, y) = (unit() * 260.0 - 30.0, unit() * 200.0 - 30.0);
            let (dx, dy) = (unit() * 60.0 - 30.0, unit() * 60.0 - 30.0);
            let color = [
                (k * 7) as u8,
                (k * 53) as u8,
                (k * 19) as u8,
                40 + (k % 216) as u8,
            ];
            lines.push(Line {
                a: (x, y),
                b: (x + dx, y + dy),
                color,
                width: 0.5 + unit() * 5.0,
            });
            circles.push(Circle {
                c: (x, y),
                r: unit() * 9.0,
                fill: color,
                outline: k % 2 == 0,
            });
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for (w, h) in [(211, 157), (64, 32), (1, 70), (200, 1)] {
            let scene = Scene {
                width: w,
                height: h,
                polys: polys.clone(),
                lines: lines.clone(),
                circles: circles.clone(),
                texts: Vec::new(),
            };
            let want = render_one_by_one(&scene);
            let got = pool.install(|| render(&scene));
            let differ = want
                .pixels()
                .zip(got.pixels())
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(differ, 0, "{w} x {h}: pixels that differ");
        }
    }
}
