//! PNG export of the canvas from a window screenshot, so the file shows
//! exactly what is on screen (overlay, LOS line, labels).

use egui::{ColorImage, Rect};
use std::path::{Path, PathBuf};

/// Crops the screenshot to `rect` (points) and writes it as PNG atomically.
pub fn save_png_crop(
    img: &ColorImage,
    rect: Rect,
    pixels_per_point: f32,
    path: &Path,
) -> Result<PathBuf, String> {
    let [w, h] = img.size;
    if w == 0 || h == 0 {
        return Err("the screenshot is empty".into());
    }
    // The screenshot is in pixels; the rectangle in points.
    let ppp = pixels_per_point.max(0.1);
    let clamp = |v: f32, max: usize| ((v * ppp).round().max(0.0) as usize).min(max);
    let (x0, y0, x1, y1) = (
        clamp(rect.min.x, w),
        clamp(rect.min.y, h),
        clamp(rect.max.x, w),
        clamp(rect.max.y, h),
    );
    if x1 <= x0 || y1 <= y0 {
        return Err("the canvas is not visible".into());
    }
    let mut buf = Vec::with_capacity((x1 - x0) * (y1 - y0) * 4);
    for y in y0..y1 {
        for x in x0..x1 {
            buf.extend_from_slice(&img.pixels[y * w + x].to_srgba_unmultiplied());
        }
    }
    encode_png(&buf, (x1 - x0) as u32, (y1 - y0) as u32, path)?;
    Ok(path.to_path_buf())
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
