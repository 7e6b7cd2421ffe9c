//! Writing results: matrix formats, pictures and the report page.
//!
//! Every file is written through [`AtomicFile`]: a temporary file beside the
//! target, renamed over it only when complete, so an interrupted run never
//! leaves a partial file at the target path.

pub mod bin;
pub mod html;
pub mod npy;
pub mod pictures;
pub mod png;
pub mod style;
pub mod svg;

use crate::error::{Error, Result};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written: a temporary beside the target until [`AtomicFile::commit`].
/// Dropping it without committing removes the temporary.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<std::fs::File>>,
}

impl AtomicFile {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let f = std::fs::File::create(&tmp).map_err(|e| Error::io(&e, path))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 20, f)),
        })
    }

    /// The writer.
    pub fn writer(&mut self) -> &mut BufWriter<std::fs::File> {
        self.out.as_mut().expect("not yet committed")
    }

    /// Flushes, syncs and renames over the target.
    pub fn commit(mut self) -> Result<()> {
        let out = self.out.take().expect("committed once");
        let f = out
            .into_inner()
            .map_err(|e| Error::io(e.error(), &self.path))?;
        f.sync_all().map_err(|e| Error::io(&e, &self.path))?;
        std::fs::rename(&self.tmp, &self.path).map_err(|e| Error::io(&e, &self.path))
    }

    /// The target path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.is_some() {
            self.out = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes a whole file atomically with `f` filling it.
pub fn write_with(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    f(file.writer()).map_err(|e| Error::io(&e, path))?;
    file.commit()
}

/// Saves a picture as PNG and/or SVG (same scene).
pub fn save_picture(
    picture: &style::Picture,
    png: Option<&Path>,
    svg: Option<&Path>,
) -> Result<()> {
    if png.is_none() && svg.is_none() {
        return Ok(());
    }
    let scene = picture.scene();
    if let Some(p) = png {
        crate::map::write_atomic(p, &png::png_bytes(&scene))?;
    }
    if let Some(p) = svg {
        crate::map::write_atomic(p, svg::svg_string(&scene).as_bytes())?;
    }
    Ok(())
}
