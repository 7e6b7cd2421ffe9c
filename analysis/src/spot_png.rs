//! A small PNG of a spotting answer: each hex filled by its spot probability, hexes out of
//! LOS grey, automatically spotted hexes marked with a white dot, the observer in red.
//! Kept apart from the rules so that the shared picture module can replace it later.

use crate::error::{Error, Result};
use crate::hex::Hex;
use crate::map::Map;
use crate::rules::miniatures::SpotCell;
use image::{Rgb, RgbImage};
use std::path::Path;

/// Hex circumradius in pixels for small maps.
const SIZE: f64 = 14.0;
/// Largest picture drawn, in pixels; big maps get smaller hexes (at least 2 pixels).
const MAX_PIXELS: f64 = 40e6;

/// Draws the cells (in the map's hex order) and writes a PNG to `path`.
pub fn write_spot_png(map: &Map, from: Hex, cells: &[SpotCell], path: &Path) -> Result<()> {
    if cells.len() != map.len() {
        return Err(Error::new(
            crate::error::ErrorKind::Query,
            format!(
                "{} spotting cells for a map of {} hexes",
                cells.len(),
                map.len()
            ),
        ));
    }
    let layout = map.layout;
    // A hex of circumradius s covers about 2.6 s^2 pixels.
    let size = SIZE
        .min((MAX_PIXELS / (2.6 * map.len() as f64)).sqrt())
        .max(2.0);
    let centers: Vec<(f64, f64)> = map.hexes().map(|h| layout.center(h, size)).collect();
    let min_x = centers.iter().map(|c| c.0).fold(f64::MAX, f64::min) - size;
    let min_y = centers.iter().map(|c| c.1).fold(f64::MAX, f64::min) - size;
    let max_x = centers.iter().map(|c| c.0).fold(f64::MIN, f64::max) + size;
    let max_y = centers.iter().map(|c| c.1).fold(f64::MIN, f64::max) + size;
    let (w, hgt) = (
        (max_x - min_x).ceil() as u32 + 1,
        (max_y - min_y).ceil() as u32 + 1,
    );
    let mut img = RgbImage::from_pixel(w, hgt, Rgb([255, 255, 255]));
    for y in 0..hgt {
        for x in 0..w {
            let p = (x as f64 + min_x, y as f64 + min_y);
            let h = layout.hex_at_pixel(p, size);
            let Some(i) = map.index(h) else { continue };
            let c = &cells[i];
            let (cx, cy) = centers[i];
            let d = ((p.0 - cx).powi(2) + (p.1 - cy).powi(2)).sqrt();
            let colour = if h == from {
                Rgb([220, 30, 30])
            } else if c.auto && d < size * 0.22 {
                Rgb([255, 255, 255])
            } else if !c.los {
                Rgb([150, 150, 150])
            } else {
                let col = colorous::VIRIDIS.eval_continuous(c.p_spot.clamp(0.0, 1.0));
                Rgb([col.r, col.g, col.b])
            };
            // A thin darker rim shows the hex outline.
            let rim = d > size * 0.83;
            img.put_pixel(
                x,
                y,
                if rim {
                    Rgb([colour[0] / 2, colour[1] / 2, colour[2] / 2])
                } else {
                    colour
                },
            );
        }
    }
    img.save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| Error::io(&std::io::Error::other(e.to_string()), path))
}
