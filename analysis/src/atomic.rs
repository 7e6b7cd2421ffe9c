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

    /// Starts writeback of what was written since the last start.
    fn start_writeback(&mut self) {
        start_writeback(&self.file, self.started, self.written - self.started);
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
        // Readable too, so that it can be mapped for writing (`fill_mapped`).
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(|e| Error::io(&e, path_shown))?;
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

    /// Fills the file with `len` bytes in place, through a shared mapping of it, and
    /// returns true; or returns false, having written nothing, where the target is a
    /// device or FIFO, something was already written, or the file system cannot reserve
    /// the space up front or map the file (the caller then writes through
    /// [`AtomicFile::writer`]).
    ///
    /// Why: buffered writes to one file queue on its lock, so a large file is copied
    /// into the page cache by one thread; through a mapping, `fill` may fill its parts
    /// from several threads at once (the page faults run in parallel), handing each to
    /// [`Pages::done`] when filled. The space is reserved first (`fallocate`), so a full
    /// disk is an error here, never a `SIGBUS` while filling. Meanwhile the old file's
    /// cached pages are dropped, which the rename over it would otherwise do at commit.
    pub fn fill_mapped(
        &mut self,
        len: usize,
        fill: impl FnOnce(&mut [u8], &Pages),
    ) -> Result<bool> {
        if self.tmp.is_none() || len == 0 {
            return Ok(false);
        }
        let out = self.out.as_ref().expect("not yet committed");
        if !out.buffer().is_empty() || out.get_ref().written > 0 {
            return Ok(false);
        }
        let file = &out.get_ref().file;
        if !reserve(file, len as u64).map_err(|e| Error::io(&e, &self.path))? {
            return Ok(false);
        }
        // SAFETY: the file is our own temporary, just created and sized; nothing else
        // maps, truncates or writes it while the mapping lives (until the end of this call).
        let Ok(mut map) = (unsafe { memmap2::MmapOptions::new().len(len).map_mut(file) }) else {
            file.set_len(0).map_err(|e| Error::io(&e, &self.path))?;
            return Ok(false);
        };
        let pages = Pages {
            file,
            start: map.as_ptr() as usize,
        };
        let old = self.path.as_path();
        std::thread::scope(|s| {
            s.spawn(|| forget_cached(old));
            fill(&mut map, &pages);
        });
        Ok(true)
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

/// The file behind a mapping being filled (see [`AtomicFile::fill_mapped`]).
pub struct Pages<'a> {
    file: &'a std::fs::File,
    /// Where the mapping starts in memory.
    start: usize,
}

impl Pages<'_> {
    /// Hands over a filled part of the mapping: its whole pages leave the mapping
    /// (their bytes stay in the page cache, to be written) and the kernel starts
    /// writing them to disk, so the sync at commit waits only for the rest.
    ///
    /// Why unmap first: starting the writeback of a page still mapped makes the kernel
    /// clear its entry in the page table, one page and one cross-core interrupt at a
    /// time (a third of a two-thread `.npy` run on the build box); unmapping a part
    /// clears them all at once. A page the part shares with a neighbour stays mapped
    /// and goes with the sync at commit.
    pub fn done(&self, part: &mut [u8]) {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: a plain query of the system's page size.
            let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
                .unwrap_or(4096)
                .max(1);
            let at = part.as_mut_ptr() as usize;
            let (first, end) = (at.next_multiple_of(page), (at + part.len()) / page * page);
            if end <= first {
                return;
            }
            // SAFETY: whole pages within the live mapping `part` lies in; dropping a
            // shared file mapping's pages keeps their bytes in the file's page cache,
            // and the part is not touched again.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_DONTNEED);
            }
            start_writeback(self.file, (first - self.start) as u64, (end - first) as u64);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (self.start, part);
    }
}

/// Asks the kernel to start writing bytes `start..start + len` of `file` to disk (a
/// hint: errors are left to the sync at commit, which reports them; off Linux, nothing).
fn start_writeback(file: &std::fs::File, start: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on an open descriptor with a byte range.
        unsafe {
            libc::sync_file_range(
                file.as_raw_fd(),
                start as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, start, len);
}

/// Drops the cached pages of the file at `path`, if any (a hint; its bytes stay).
fn forget_cached(path: &Path) {
    #[cfg(target_os = "linux")]
    if let Ok(f) = std::fs::File::open(path) {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on an open descriptor.
        unsafe {
            libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = path;
}

/// Reserves `len` bytes on disk for `file` and sets its length: true when done,
/// false where the file system cannot reserve space (it then stays empty), an error
/// where there is no room.
fn reserve(file: &std::fs::File, len: u64) -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let Ok(n) = libc::off64_t::try_from(len) else {
            return Ok(false);
        };
        // SAFETY: a plain system call on an open descriptor with a byte range.
        if unsafe { libc::fallocate64(file.as_raw_fd(), 0, 0, n) } == 0 {
            return Ok(true);
        }
        // No room is an error to report now; any other refusal (a file system that
        // cannot reserve, such as vfat, NFS or a FUSE one) leaves the file to the
        // writer, which meets any real trouble itself.
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOSPC) | Some(libc::EDQUOT) | Some(libc::EFBIG) => Err(e),
            _ => file.set_len(0).map(|()| false),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, len);
        Ok(false)
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

/// A folder written whole or not at all: its files go into a temporary sibling
/// folder, which replaces the target only at [`AtomicDir::commit`]; until then a
/// previous folder at the target stays as it was. Dropping it uncommitted (an error,
/// a full disk) removes the temporary folder, so no partial folder is left.
///
/// Only a new path, an empty folder or a folder holding `keep_if` (a previous
/// report's `index.html`) is replaced, so a folder of other files is never swept away.
pub struct AtomicDir {
    path: PathBuf,
    tmp: PathBuf,
    committed: bool,
}

impl AtomicDir {
    /// Starts writing the folder `path`, refusing one that is a file, or a folder of
    /// other files (one without `keep_if` in it).
    pub fn create(path: &Path, keep_if: &str) -> Result<AtomicDir> {
        // A link to a folder is followed: the folder is replaced, the link stays.
        let real;
        let path = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                real = std::fs::canonicalize(path).map_err(|e| Error::io(&e, path))?;
                real.as_path()
            }
            _ => path,
        };
        let refuse = |why: &str| Err(Error::new(ErrorKind::Io, why).in_file(path));
        match std::fs::metadata(path) {
            Ok(m) if !m.is_dir() => return refuse("is a file, not a folder"),
            Ok(_) => {
                let mut entries = std::fs::read_dir(path).map_err(|e| Error::io(&e, path))?;
                if entries.next().is_some() && !path.join(keep_if).is_file() {
                    return refuse(&format!(
                        "the folder holds other files and no {keep_if}; give a new or empty folder"
                    ));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&e, path)),
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| n != "." && n != "..")
            .ok_or_else(|| {
                Error::new(ErrorKind::Io, "give the folder by name, not `.` or `..`").in_file(path)
            })?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&e, &parent))?;
        let tmp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
        if tmp.exists() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
        std::fs::create_dir(&tmp).map_err(|e| Error::io(&e, path))?;
        Ok(AtomicDir {
            path: path.to_path_buf(),
            tmp,
            committed: false,
        })
    }

    /// The temporary folder the files are written into until the commit.
    pub fn staging(&self) -> &Path {
        &self.tmp
    }

    /// Where to write the file `name` of the folder (inside the temporary folder).
    pub fn file(&self, name: &str) -> PathBuf {
        self.tmp.join(name)
    }

    /// Puts the folder in place: swapped with the previous one in one step where the
    /// system can (Linux), else the previous one moved aside first; then the
    /// previous one is removed.
    pub fn commit(mut self) -> Result<()> {
        let io = |e: std::io::Error| Error::io(&e, &self.path);
        if std::fs::symlink_metadata(&self.path).is_err() {
            std::fs::rename(&self.tmp, &self.path).map_err(io)?;
        } else if exchange(&self.tmp, &self.path).is_err() {
            let old = self.tmp.with_extension("old");
            std::fs::rename(&self.path, &old).map_err(io)?;
            if let Err(e) = std::fs::rename(&self.tmp, &self.path) {
                let _ = std::fs::rename(&old, &self.path);
                return Err(io(e));
            }
            let _ = std::fs::remove_dir_all(&old);
        } else {
            // The previous folder now lies at the temporary path.
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for AtomicDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Swaps two paths in one step (Linux `renameat2` with `RENAME_EXCHANGE`).
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
        };
        let (a, b) = (c(a)?, c(b)?);
        // SAFETY: both paths are NUL-terminated strings that outlive the call.
        let r = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
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

    /// A mapped fill is taken on a fresh temporary file only: not after bytes went
    /// through the writer, and not on a device.
    #[test]
    fn a_mapped_fill_is_taken_on_a_fresh_file_only() {
        let dir = std::env::temp_dir().join(format!("hexsight-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.bin");
        let mut file = AtomicFile::create(&path).unwrap();
        let filled = file
            .fill_mapped(10, |bytes, pages| {
                bytes.copy_from_slice(b"0123456789");
                pages.done(bytes);
            })
            .unwrap();
        assert!(
            filled,
            "a file on the temporary folder's file system is mapped"
        );
        file.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"0123456789");
        let mut file = AtomicFile::create(&path).unwrap();
        file.writer().write_all(b"ab").unwrap();
        assert!(!file.fill_mapped(4, |_, _| panic!("not filled")).unwrap());
        file.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"ab");
        let mut file = AtomicFile::create(Path::new("/dev/null")).unwrap();
        assert!(!file.fill_mapped(4, |_, _| panic!("not filled")).unwrap());
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

    /// A folder is replaced only when complete: an uncommitted one leaves no trace and
    /// the previous folder as it was; a committed one replaces it whole.
    #[test]
    fn a_folder_is_replaced_whole_or_not_at_all() {
        let base = std::env::temp_dir().join(format!("hexsight-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let out = base.join("report");
        let d = AtomicDir::create(&out, "index.html").unwrap();
        write_atomic(&d.file("index.html"), b"first").unwrap();
        d.commit().unwrap();
        assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"first");
        // A run that fails halfway: the previous report stays, nothing else is left.
        let d = AtomicDir::create(&out, "index.html").unwrap();
        write_atomic(&d.file("part.bin"), b"half").unwrap();
        drop(d);
        assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"first");
        assert!(!out.join("part.bin").exists());
        let names: Vec<_> = std::fs::read_dir(&base).unwrap().collect();
        assert_eq!(
            names.len(),
            1,
            "only the report is left in {}",
            base.display()
        );
        // A complete run replaces it, old files gone.
        std::fs::write(out.join("old.svg"), "x").unwrap();
        let d = AtomicDir::create(&out, "index.html").unwrap();
        write_atomic(&d.file("index.html"), b"second").unwrap();
        d.commit().unwrap();
        assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"second");
        assert!(!out.join("old.svg").exists());
        assert_eq!(std::fs::read_dir(&base).unwrap().count(), 1);
        // A link to the report: the folder it points to is replaced, the link stays.
        let link = base.join("link");
        std::os::unix::fs::symlink(&out, &link).unwrap();
        let d = AtomicDir::create(&link, "index.html").unwrap();
        write_atomic(&d.file("index.html"), b"third").unwrap();
        d.commit().unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"third");
        std::fs::remove_file(&link).unwrap();
        // A folder of other files, or a file, is refused.
        let other = base.join("docs");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("notes.txt"), "mine").unwrap();
        let e = AtomicDir::create(&other, "index.html")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("other files") && e.contains("docs"), "{e}");
        let e = AtomicDir::create(&other.join("notes.txt"), "index.html")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not a folder"), "{e}");
        std::fs::remove_dir_all(&base).unwrap();
    }
}
