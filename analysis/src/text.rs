//! Reading the library's JSON files (maps, rulesets, layers) as text: the size limit,
//! the refusals of folders, devices and non-UTF-8 bytes, and the byte-order mark. It
//! knows no file format, so every layer that reads a file can use it.

use crate::error::{Error, ErrorKind, Result};
use std::path::Path;

/// Largest map or ruleset file read, in bytes (256 MiB).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The text without a leading UTF-8 byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Reads a map or ruleset file (`what`) as text, refusing with one line a folder,
/// a file larger than [`MAX_FILE_BYTES`] (devices such as `/dev/zero` included:
/// at most that much is read) and text that is not UTF-8.
pub fn read_text(path: &Path, what: &str) -> Result<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| Error::io(&e, path))?;
    if meta.is_dir() {
        return Err(
            Error::new(ErrorKind::Io, format!("is a folder, not a {what} file")).in_file(path),
        );
    }
    let too_big = || {
        Error::new(
            ErrorKind::Io,
            format!(
                "is larger than {} MiB, the limit for a {what} file",
                MAX_FILE_BYTES >> 20
            ),
        )
        .in_file(path)
    };
    if meta.is_file() && meta.len() > MAX_FILE_BYTES {
        return Err(too_big());
    }
    if meta.is_file() {
        // The text, and the parsed file beside it: measured, a 45 MB file of plain hex
        // entries peaks at three times its size, a 13 MB one whose every entry holds a
        // key of its own at 22 times; ten is the margin for the files maps are.
        crate::memory::check(
            meta.len().saturating_mul(10),
            &format!(
                "reading this {} MiB {what} file",
                crate::memory::mib(meta.len())
            ),
            "more memory (ulimit -v, the container's limit), or a smaller file",
        )
        .map_err(|e| e.in_file(path))?;
    }
    let f = std::fs::File::open(path).map_err(|e| Error::io(&e, path))?;
    let mut r = f.take(MAX_FILE_BYTES + 1);
    // A device or pipe that does not start like JSON is refused from its first bytes;
    // the rest of a file that starts like JSON is read straight into its place (sized
    // from the file's length), not through the first bytes' buffer.
    let size = if meta.is_file() { meta.len() + 1 } else { 0 };
    let mut bytes = Vec::with_capacity(size as usize);
    let mut chunk = vec![0u8; 1 << 16];
    let mut checked = false;
    let mut scanned = 0;
    loop {
        let n = match r.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(&e, path)),
        };
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..n]);
        let bom = if bytes.starts_with("\u{feff}".as_bytes()) {
            3
        } else {
            0
        };
        let start = if checked {
            None
        } else {
            bytes[scanned.max(bom)..]
                .iter()
                .find(|b| !b.is_ascii_whitespace())
        };
        scanned = bytes.len();
        if let Some(&b) = start {
            checked = true;
            if b != b'{' {
                let shown = if b.is_ascii_graphic() {
                    format!("`{}`", b as char)
                } else {
                    format!("byte 0x{b:02x}")
                };
                return Err(Error::new(
                    ErrorKind::Syntax,
                    format!(
                        "not a {what} file: JSON text starting with `{{` expected, found {shown}"
                    ),
                )
                .at("line 1")
                .in_file(path));
            }
            r.read_to_end(&mut bytes).map_err(|e| Error::io(&e, path))?;
        }
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(too_big());
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorKind::Syntax,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
        .in_file(path)
    })
}
