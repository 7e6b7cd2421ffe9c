//! Files written whole or not at all: a temporary file beside the target, renamed over it
//! only when complete, so a crash or Ctrl-C never leaves half a file at the target path.
//!
//! Only regular files (and paths that do not exist yet) are written that way. A path
//! that is a device, a FIFO or a socket, or a symbolic link to one (`/dev/null`,
//! `/dev/stdout`, a named pipe), is opened and written in place: renaming over it
//! would replace the device or pipe with a regular file. A symbolic link to a regular
//! file is followed, so the link stays and its target gets the new content. A folder
//! is refused.

use crate::error::{Error, ErrorKind, Result};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file that asks the kernel to start writing each few MiB to disk as soon as
/// they are written, so the sync at commit waits only for the tail, and the page
/// cache never holds a large backlog for the flusher to catch up with (`.npy` of a
/// 100x100 map's matrix, 100 MB, on the build box: 50 ms less end to end on one
/// thread, 10 ms on two, whose copy already overlapped the next batch).
pub struct Outgoing {
    file: std::fs::File,
    /// Bytes written so far.
    written: u64,
    /// Bytes whose writeback has been started.
    started: u64,
}

impl Outgoing {
    /// Writeback is started for each this many bytes.
    const STEP: u64 = 8 << 20;

    fn new(file: std::fs::File) -> Outgoing {
        Outgoing {
            file,
            written: 0,
            started: 0,
        }
    }

    /// Starts writeback of what was written since the last start (a hint: errors
    /// are left to the sync at commit, which reports them).
    fn start_writeback(&mut self) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: a plain system call on an open descriptor with a byte range.
            unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    self.started as libc::off64_t,
                    (self.written - self.started) as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
        self.started = self.written;
    }
}

impl Write for Outgoing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= Self::STEP {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// A file being written: a temporary beside the target until [`AtomicFile::commit`]
/// (or, for a device or FIFO, the target itself). Dropping it without committing
/// removes the temporary.
pub struct AtomicFile {
    path: PathBuf,
    tmp: Option<PathBuf>,
    out: Option<BufWriter<Outgoing>>,
    committed: bool,
}

/// How a path is written.
enum Target {
    /// Temporary file beside `PathBuf`, then rename over it.
    Replace(PathBuf),
    /// Opened and written in place (device, FIFO, socket).
    InPlace,
}

fn target_of(path: &Path) -> Result<Target> {
    match std::fs::metadata(path) {
        // A new path (or a dangling link: written as a new file beside it).
        Err(_) => Ok(Target::Replace(path.to_path_buf())),
        Ok(m) if m.is_dir() => {
            Err(Error::new(ErrorKind::Io, "is a folder; give a file name to write").in_file(path))
        }
        Ok(m) if m.is_file() => {
            // Follow a link to a regular file so the link itself survives.
            let is_link = std::fs::symlink_metadata(path)
                .map(|l| l.file_type().is_symlink())
                .unwrap_or(false);
            Ok(Target::Replace(if is_link {
                std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
            } else {
                path.to_path_buf()
            }))
        }
        Ok(_) => Ok(Target::InPlace),
    }
}

impl AtomicFile {
    /// Starts writing `path`: through a temporary file when it is a regular file or
    /// new, in place when it is a device or FIFO (see the module note).
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let real = match target_of(path)? {
            Target::InPlace => {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| Error::io(&e, path))?;
                return Ok(AtomicFile {
                    path: path.to_path_buf(),
                    tmp: None,
                    out: Some(BufWriter::with_capacity(1 << 20, Outgoing::new(f))),
                    committed: false,
                });
            }
            Target::Replace(real) => real,
        };
        let path_shown = path;
        let path = real.as_path();
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let f = std::fs::File::create(&tmp).map_err(|e| Error::io(&e, path_shown))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp: Some(tmp),
            out: Some(BufWriter::with_capacity(1 << 20, Outgoing::new(f))),
            committed: false,
        })
    }

    /// The writer.
    pub fn writer(&mut self) -> &mut BufWriter<Outgoing> {
        self.out.as_mut().expect("not yet committed")
    }

    /// Flushes, syncs and renames over the target (a device or FIFO: flushes).
    pub fn commit(mut self) -> Result<()> {
        let out = self.out.take().expect("committed once");
        let f = out
            .into_inner()
            .map_err(|e| Error::io(e.error(), &self.path))?
            .file;
        let Some(tmp) = &self.tmp else {
            self.committed = true;
            return Ok(());
        };
        f.sync_all().map_err(|e| Error::io(&e, &self.path))?;
        std::fs::rename(tmp, &self.path).map_err(|e| Error::io(&e, &self.path))?;
        self.committed = true;
        Ok(())
    }

    /// True when the target is written in place (a device or FIFO), not renamed over.
    pub fn in_place(&self) -> bool {
        self.tmp.is_none()
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
            if let Some(tmp) = &self.tmp {
                let _ = std::fs::remove_file(tmp);
            }
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
    fn devices_and_fifos_are_written_in_place_and_links_to_files_kept() {
        let dir = std::env::temp_dir().join(format!("hexsight-inplace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // /dev/null stays a device.
        write_atomic(Path::new("/dev/null"), b"gone").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        // A link to /dev/null stays a link to it.
        let link = dir.join("null-link");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        write_atomic(&link, b"gone").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // A link to a regular file: the target gets the bytes, the link stays.
        let real = dir.join("real.txt");
        std::fs::write(&real, "old").unwrap();
        let link2 = dir.join("file-link");
        std::os::unix::fs::symlink(&real, &link2).unwrap();
        write_atomic(&link2, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link2)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        // A folder is refused with a message.
        let e = write_atomic(&dir, b"x").unwrap_err().to_string();
        assert!(e.contains("folder"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file of several writeback steps, written in pieces that straddle them,
    /// arrives whole and in order.
    #[test]
    fn a_file_pushed_out_step_by_step_keeps_every_byte() {
        let dir = std::env::temp_dir().join(format!("hexsight-outgoing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.bin");
        let want: Vec<u8> = (0..(2 * Outgoing::STEP + 12_345))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        let mut file = AtomicFile::create(&path).unwrap();
        for piece in want.chunks(3 << 20 | 7) {
            file.writer().write_all(piece).unwrap();
        }
        // Writeback was started for all but the last step's worth.
        let started = file.writer().get_ref().started;
        let left = want.len() as u64 - started;
        assert!(
            started >= Outgoing::STEP && left < Outgoing::STEP,
            "started up to {started}"
        );
        file.commit().unwrap();
        assert!(
            std::fs::read(&path).unwrap() == want,
            "the bytes read back differ"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
