//! Files: loading and atomic saving, recent files, autosave and crash recovery.
//!
//! Recovery files live in the editor's data folder, one per running editor
//! (`recovery-<pid>.json`), so two editors never overwrite each other's work.
//! A clean exit deletes its file; a file left behind by a process that is no
//! longer running is offered for recovery at the next start. An autosave keeps
//! the [`Stamp`] of the map's file as the work started from it, so recovered
//! work saved back is checked against another program's change too.

use crate::stamp::Stamp;
use hexsight_analysis::Map;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// How many recent files are remembered.
pub const RECENT_LIMIT: usize = 10;

/// The editor's data folder: `$HEXSIGHT_EDITOR_HOME`, else
/// `$XDG_DATA_HOME/hexsight-editor`, else `~/.local/share/hexsight-editor`.
pub fn data_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("HEXSIGHT_EDITOR_HOME") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_DATA_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p).join("hexsight-editor");
    }
    if let Some(h) = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")) {
        return PathBuf::from(h).join(".local/share/hexsight-editor");
    }
    std::env::temp_dir().join("hexsight-editor")
}

/// Where the editor keeps its own files.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

/// A recovery file found at start.
#[derive(Clone, Debug)]
pub struct Recovery {
    /// The recovery file itself.
    pub file: PathBuf,
    /// The map's own path, if it had one.
    pub original: Option<PathBuf>,
    /// What that file held when the work started from it, if known.
    pub original_stamp: Option<Stamp>,
    /// When it was written (seconds since the epoch).
    pub saved_at: u64,
    /// The map JSON.
    pub map_json: String,
}

impl Store {
    /// A store in `dir` (created on first write).
    pub fn new(dir: PathBuf) -> Store {
        Store { dir }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn recent_path(&self) -> PathBuf {
        self.dir.join("recent.txt")
    }

    /// Recent files, newest first.
    pub fn recent(&self) -> Vec<PathBuf> {
        std::fs::read_to_string(self.recent_path())
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(PathBuf::from)
            .collect()
    }

    /// Puts `path` first in the recent list.
    pub fn add_recent(&self, path: &Path) -> std::io::Result<()> {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let mut list = self.recent();
        list.retain(|p| *p != path);
        list.insert(0, path);
        list.truncate(RECENT_LIMIT);
        let text: String = list.iter().map(|p| format!("{}\n", p.display())).collect();
        std::fs::create_dir_all(&self.dir)?;
        hexsight_analysis::map::write_atomic(&self.recent_path(), text.as_bytes())
            .map_err(std::io::Error::other)
    }

    fn folders_path(&self) -> PathBuf {
        self.dir.join("recent-folders.txt")
    }

    /// Folders files were last opened from, saved or exported to, newest first.
    pub fn recent_folders(&self) -> Vec<PathBuf> {
        std::fs::read_to_string(self.folders_path())
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(PathBuf::from)
            .collect()
    }

    /// Puts the folder of `file` first in the recent folders.
    pub fn add_recent_folder(&self, file: &Path) -> std::io::Result<()> {
        let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) else {
            return Ok(());
        };
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let mut list = self.recent_folders();
        list.retain(|p| *p != dir);
        list.insert(0, dir);
        list.truncate(RECENT_LIMIT);
        let text: String = list.iter().map(|p| format!("{}\n", p.display())).collect();
        std::fs::create_dir_all(&self.dir)?;
        hexsight_analysis::map::write_atomic(&self.folders_path(), text.as_bytes())
            .map_err(std::io::Error::other)
    }

    /// This process's recovery file.
    pub fn own_recovery(&self) -> PathBuf {
        self.dir
            .join(format!("recovery-{}.json", std::process::id()))
    }

    /// Writes the autosave for this process atomically; `stamp` is what the
    /// original file held when the work started from it.
    pub fn autosave(
        &self,
        map: &Map,
        original: Option<&Path>,
        stamp: Option<Stamp>,
    ) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let saved_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let doc = json!({
            "hexsight_recovery": 1,
            "original": original.map(|p| p.display().to_string()),
            "original_stamp": stamp.map(Stamp::to_text),
            "saved_at": saved_at,
            "map": map.to_json(),
        });
        let text = serde_json::to_string(&doc).map_err(std::io::Error::other)?;
        hexsight_analysis::map::write_atomic(&self.own_recovery(), text.as_bytes())
            .map_err(std::io::Error::other)
    }

    /// Deletes this process's autosave (after a save or a clean exit).
    pub fn clear_autosave(&self) {
        let _ = std::fs::remove_file(self.own_recovery());
    }

    /// Recovery files left by editors that are no longer running, newest first.
    pub fn leftover_recoveries(&self) -> Vec<Recovery> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = name
                .strip_prefix("recovery-")
                .and_then(|s| s.strip_suffix(".json"))
            else {
                continue;
            };
            let Ok(pid) = pid.parse::<u32>() else {
                continue;
            };
            if pid == std::process::id() || process_alive(pid) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(e.path()) else {
                continue;
            };
            let Ok(v) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let Some(map_json) = v.get("map").and_then(Value::as_str) else {
                continue;
            };
            out.push(Recovery {
                file: e.path(),
                original: v.get("original").and_then(Value::as_str).map(PathBuf::from),
                original_stamp: v
                    .get("original_stamp")
                    .and_then(Value::as_str)
                    .and_then(Stamp::from_text),
                saved_at: v.get("saved_at").and_then(Value::as_u64).unwrap_or(0),
                map_json: map_json.to_string(),
            });
        }
        out.sort_by_key(|r| std::cmp::Reverse(r.saved_at));
        out
    }
}

impl Recovery {
    /// Parses the recovered map; a relative ruleset path resolves beside the original file.
    /// Work whose units break their rules is recovered too (through a hidden
    /// copy beside the original, the only place its ruleset path resolves).
    pub fn load(&self) -> Result<Map, String> {
        let origin = self.original.clone().unwrap_or_else(|| self.file.clone());
        let strict = match Map::from_json(&self.map_json, &origin) {
            Ok(m) => return Ok(m),
            Err(e) => e.to_string(),
        };
        let dir = origin
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let copy = dir.join(format!(".hexsight-recovery-{}.json", std::process::id()));
        if hexsight_analysis::map::write_atomic(&copy, self.map_json.as_bytes()).is_err() {
            return Err(strict);
        }
        let lenient = Map::load_for_editing(&copy);
        let _ = std::fs::remove_file(&copy);
        lenient.map(|(m, _)| m).map_err(|_| strict)
    }
}

/// True when a process with this id runs (Linux: `/proc`); elsewhere assume
/// it does not, so recovery is offered rather than lost.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    proc.is_dir() && proc.join(pid.to_string()).exists()
}

/// One row of a folder listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The full path.
    pub path: PathBuf,
    /// The name shown.
    pub name: String,
    /// A folder (else a file).
    pub is_dir: bool,
    /// A file's length in bytes.
    pub size: Option<u64>,
    /// When it was last changed, in seconds since the epoch.
    pub modified: Option<u64>,
}

/// Most rows a listing holds: a folder of a million files must not stall a frame.
pub const LISTING_LIMIT: usize = 2000;

/// The subfolders of `dir` and its files whose extension is one of `exts`
/// (any case), folders first, each group by name; names starting with a dot
/// only when `hidden`. The error is the system's message (no permission, gone),
/// for the file browser to show instead of a listing.
pub fn read_folder(dir: &Path, exts: &[&str], hidden: bool) -> Result<Vec<Entry>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("Cannot read {}: {e}", dir.display()))?;
    let mut out: Vec<Entry> = rd
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !hidden && name.starts_with('.') {
                return None;
            }
            let path = e.path();
            // Follows links: a link to a folder is browsed as one.
            let is_dir = path.is_dir();
            let wanted = is_dir
                || path
                    .extension()
                    .is_some_and(|x| exts.iter().any(|e| x.eq_ignore_ascii_case(e)));
            if !wanted {
                return None;
            }
            let meta = std::fs::metadata(&path).ok();
            let modified = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_secs());
            Some(Entry {
                size: meta.filter(|m| m.is_file()).map(|m| m.len()),
                modified,
                path,
                name,
                is_dir,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.is_dir
            .cmp(&a.is_dir)
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
            .then_with(|| a.name.cmp(&b.name))
    });
    out.truncate(LISTING_LIMIT);
    Ok(out)
}

/// Loads a map for the editor; the error text is the loader's own message.
/// A file whose units break their family's rules still opens (so they can be
/// fixed), with those problems as the second value.
pub fn load_map(path: &Path) -> Result<(Map, Option<String>), String> {
    Map::load_for_editing(path)
        .map(|(m, p)| (m, p.map(|e| e.to_string())))
        .map_err(|e| e.to_string())
}

/// A MegaMek board as a map of the built-in `battletech` ruleset, and what did not
/// convert as it was (the importer's report, one line each).
pub fn import_board(path: &Path) -> Result<(Map, Vec<String>), String> {
    use hexsight_analysis::import::megamek;
    let text = megamek::read(path).map_err(|e| e.to_string())?;
    let ruleset = std::sync::Arc::new(
        hexsight_analysis::Ruleset::builtin("battletech")
            .ok_or("the built-in battletech ruleset is missing")?,
    );
    let name = path
        .file_stem()
        .map_or("MegaMek board".into(), |s| s.to_string_lossy().into_owned());
    let done =
        megamek::import(&text, path, &name, "battletech", ruleset).map_err(|e| e.to_string())?;
    let report = done.report();
    Ok((done.map, report))
}

/// A save that worked.
#[derive(Debug)]
pub struct Saved {
    /// Something the user should know (units that break their rules).
    pub warning: Option<String>,
    /// What the file now holds.
    pub stamp: Stamp,
}

/// Saves atomically after checking the file will load again, so the editor
/// never writes a map it could not reopen. Units that break their family's
/// rules do not stop the save (the editor reopens such a file for fixing, and
/// refusing would risk the user's work): they come back as a warning.
pub fn save_map(map: &Map, path: &Path) -> Result<Saved, String> {
    let text = map.to_json();
    let warning = match Map::from_json(&text, path) {
        Ok(_) => None,
        Err(e) => match hexsight_analysis::rules::check_units(map) {
            Err(units) => Some(format!(
                "Saved, but the map's units break their rules, so only the editor will open it until they are fixed:\n\n{units}"
            )),
            Ok(_) => return Err(format!("not saved: the map would not load again: {e}")),
        },
    };
    hexsight_analysis::map::write_atomic(path, text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(Saved {
        warning,
        stamp: Stamp::of(text.as_bytes()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexsight_analysis::Ruleset;
    use hexsight_analysis::hex::Layout;
    use std::sync::Arc;

    #[test]
    fn recent_folders_are_the_folders_of_files_used_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::new(dir.path().join("data"));
        s.add_recent_folder(Path::new("/x/a.json")).unwrap();
        s.add_recent_folder(Path::new("/y/b.png")).unwrap();
        s.add_recent_folder(Path::new("/x/c.svg")).unwrap();
        assert_eq!(
            s.recent_folders(),
            vec![PathBuf::from("/x"), PathBuf::from("/y")]
        );
    }

    #[test]
    fn a_folder_lists_subfolders_then_matching_files_and_hides_dot_names() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["b.json", "A.JSON", "c.txt", ".hidden.json", "pic.png"] {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        std::fs::create_dir(dir.path().join("zone")).unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let names = |hidden| -> Vec<String> {
            read_folder(dir.path(), &["json"], hidden)
                .unwrap()
                .into_iter()
                .map(|e| e.name)
                .collect()
        };
        assert_eq!(names(false), ["zone", "A.JSON", "b.json"]);
        assert_eq!(
            names(true),
            [".git", "zone", ".hidden.json", "A.JSON", "b.json"]
        );
        let err = read_folder(&dir.path().join("gone"), &["json"], false).unwrap_err();
        assert!(err.contains("gone"), "{err}");
    }

    #[test]
    fn recent_files_are_newest_first_without_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::new(dir.path().join("data"));
        s.add_recent(Path::new("/x/a.json")).unwrap();
        s.add_recent(Path::new("/x/b.json")).unwrap();
        s.add_recent(Path::new("/x/a.json")).unwrap();
        assert_eq!(
            s.recent(),
            vec![PathBuf::from("/x/a.json"), PathBuf::from("/x/b.json")]
        );
    }

    #[test]
    fn a_dead_editors_autosave_is_offered_and_loads() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::new(dir.path().to_path_buf());
        let rs = Arc::new(Ruleset::builtin("combat-commander").unwrap());
        let mut map = Map::new("lost work", "combat-commander", rs, 3, 3, Layout::default());
        map.cell_mut(map.layout.hex_at(1, 1)).unwrap().level = 2;
        s.autosave(&map, None, Some(Stamp::of(b"before"))).unwrap();
        assert!(
            s.leftover_recoveries().is_empty(),
            "our own autosave is not a leftover"
        );
        // Pretend it was written by a process that has gone (pid 0 is never a user process).
        std::fs::rename(
            s.own_recovery(),
            dir.path().join("recovery-4294967295.json"),
        )
        .unwrap();
        let found = s.leftover_recoveries();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].original_stamp, Some(Stamp::of(b"before")));
        let back = found[0].load().unwrap();
        assert!(hexsight_analysis::map::file::same_content(&back, &map));
    }
}
