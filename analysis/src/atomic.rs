//! Files written whole or not at all: a temporary file beside the target, renamed over it
//! only when complete, so a crash or Ctrl-C never leaves half a file at the target path.

use crate::error::{Error, Result};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written: a temporary beside the target until [`AtomicFile::commit`].
/// Dropping it without committing removes the temporary.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<std::fs::File>>,
    committed: bool,
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
            committed: false,
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
        std::fs::rename(&self.tmp, &self.path).map_err(|e| Error::io(&e, &self.path))?;
        self.committed = true;
        Ok(())
    }

    /// The target path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for AtomicFile {
    /// An uncommitted or failed write removes its temporary file.
    fn drop(&mut self) {
        if !self.committed {
            self.out = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.writer()
        .write_all(bytes)
        .map_err(|e| Error::io(&e, path))?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_rename_leaves_the_target_and_no_temporary() {
        let dir = std::env::temp_dir().join(format!("hexsight-atomic-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("target-is-a-dir")).unwrap();
        // Renaming a file over a non-empty directory fails.
        std::fs::write(dir.join("target-is-a-dir/keep"), "x").unwrap();
        assert!(write_atomic(&dir.join("target-is-a-dir"), b"new").is_err());
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("target-is-a-dir")]);
        write_atomic(&dir.join("ok.txt"), b"new").unwrap();
        assert_eq!(std::fs::read(dir.join("ok.txt")).unwrap(), b"new");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
