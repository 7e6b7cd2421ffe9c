//! Writing results: matrix formats, pictures and the report page.
//!
//! Every file is written through [`AtomicFile`]: a temporary file beside the
//! target, renamed over it only when complete, so an interrupted run never
//! leaves a partial file at the target path.

pub mod bin;
pub mod geojson;
pub mod html;
pub mod npy;
pub mod npz;
pub mod overlays;
pub mod page;
pub mod per_hex;
pub mod pictures;
pub mod png;
pub mod profile;
pub mod raster;
pub mod style;
pub mod svg;
pub mod vector;

pub use crate::atomic::AtomicFile;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Writes a whole file atomically with `f` filling it.
pub fn write_with(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    f(file.writer()).map_err(|e| Error::io(&e, path))?;
    file.commit()
}

/// Saves a picture as PNG and/or SVG (same scene); `picture` is drawn only when one is asked.
pub fn save_picture<'a>(
    picture: impl FnOnce() -> style::Picture<'a>,
    png: Option<&Path>,
    svg: Option<&Path>,
) -> Result<()> {
    if png.is_none() && svg.is_none() {
        return Ok(());
    }
    save_scene(&picture().scene(), png, svg)
}

/// Saves a scene as PNG and/or SVG.
pub fn save_scene(scene: &style::Scene, png: Option<&Path>, svg: Option<&Path>) -> Result<()> {
    if let Some(p) = png {
        crate::map::write_atomic(p, &png::png_bytes(scene))?;
    }
    if let Some(p) = svg {
        crate::map::write_atomic(p, svg::svg_string(scene).as_bytes())?;
    }
    Ok(())
}
