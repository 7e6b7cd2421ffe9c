//! What a map file held when the editor last read or wrote it, so that a change
//! made by another program is noticed before a save overwrites it.
//!
//! A stamp is the file's length and a hash of its bytes, not its modification
//! time: a time can stay the same across a quick rewrite (coarse clocks, tools
//! that keep times) and can change with no change of content (`touch`), and only
//! a change of content is work that a save would lose. The hash is FNV-1a, stated
//! here, so a stamp kept in an autosave means the same to the next version of
//! the editor.

use std::io::Read;
use std::path::Path;

/// The length and content hash of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    hash: u64,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

impl Stamp {
    /// The stamp of these bytes (what the editor just wrote).
    pub fn of(bytes: &[u8]) -> Stamp {
        let mut s = Stamp {
            len: 0,
            hash: FNV_OFFSET,
        };
        s.add(bytes);
        s
    }

    fn add(&mut self, bytes: &[u8]) {
        self.len += bytes.len() as u64;
        for &b in bytes {
            self.hash = (self.hash ^ b as u64).wrapping_mul(FNV_PRIME);
        }
    }

    /// The stamp of the file now, read in pieces (bounded memory whatever its
    /// size); `None` when it cannot be read (gone, not a file, no permission).
    pub fn read(path: &Path) -> Option<Stamp> {
        // Checked before opening: opening a FIFO to read would wait for a writer.
        if !std::fs::metadata(path).ok()?.is_file() {
            return None;
        }
        let mut f = std::fs::File::open(path).ok()?;
        let mut s = Stamp::of(&[]);
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match f.read(&mut buf) {
                Ok(0) => return Some(s),
                Ok(n) => s.add(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    }

    /// True when the file at `path` no longer holds what this stamp recorded.
    /// A file that is gone or unreadable is not "changed": saving recreates it,
    /// or fails with its own message, and no one's content is overwritten.
    pub fn changed(&self, path: &Path) -> bool {
        Stamp::read(path).is_some_and(|now| now != *self)
    }

    /// As text for the autosave file (`LEN:HASH`).
    pub fn to_text(self) -> String {
        format!("{}:{:016x}", self.len, self.hash)
    }

    /// From [`Stamp::to_text`]'s form.
    pub fn from_text(s: &str) -> Option<Stamp> {
        let (len, hash) = s.split_once(':')?;
        Some(Stamp {
            len: len.parse().ok()?,
            hash: u64::from_str_radix(hash, 16).ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_of_the_same_length_is_a_change_and_a_touch_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.json");
        std::fs::write(&p, "{\"level\": 1}").unwrap();
        let s = Stamp::read(&p).unwrap();
        assert_eq!(s, Stamp::of(b"{\"level\": 1}"));
        assert!(!s.changed(&p));
        // Same bytes written again (a new modification time): no change.
        std::fs::write(&p, "{\"level\": 1}").unwrap();
        assert!(!s.changed(&p));
        // Same length, other content, within the same clock tick: a change.
        std::fs::write(&p, "{\"level\": 2}").unwrap();
        assert!(s.changed(&p));
        // Gone: nothing to overwrite.
        std::fs::remove_file(&p).unwrap();
        assert!(!s.changed(&p));
    }

    #[test]
    fn a_fifo_or_a_folder_has_no_stamp_and_reading_it_does_not_wait() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Stamp::read(dir.path()), None);
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(Stamp::read(&fifo), None);
        }
    }

    #[test]
    fn a_stamp_survives_its_text_form() {
        let s = Stamp::of(b"hexsight");
        assert_eq!(Stamp::from_text(&s.to_text()), Some(s));
        assert_eq!(Stamp::from_text("12"), None);
        assert_eq!(Stamp::from_text("x:00"), None);
    }

    #[test]
    fn the_hash_is_fnv1a() {
        // Published FNV-1a 64 test vector.
        assert_eq!(Stamp::of(b"a").hash, 0xaf63_dc4c_8601_ec8c);
    }
}
