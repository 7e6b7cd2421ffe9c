//! MegaMek boards (`.board` text files) as `battletech` maps.
//!
//! The format is line by line: `size W H`, then `hex CCRR ELEVATION "TERRAIN" "THEME"`
//! for each hex, where `CCRR` is the 1-based column then row (two digits each, more
//! on big boards: the digits split in half) and `TERRAIN` is a `;`-separated list of
//! `name:level[:exits]` items. `tag NAME` lines (board tags) are kept in the map's
//! `notes`; `option ...` lines, `#` comments, blank lines and the closing `end` are
//! accepted and ignored; any other line kind (`fluff`, ...) is counted and reported
//! by name, never refused (a malformed line of a known kind is). MegaMek's grid has
//! flat-topped hexes whose even-numbered columns (02, 04, ...) sit half a hex lower:
//! hexsight's default grid, so `CCRR` is column `CC` (A = 01) and row `RR` of the map.
//!
//! What a hex becomes (one terrain per hex; the first that applies wins):
//! - `building:T` (any type): `building-N` with `N` from `bldg_elev:N` (1 if absent);
//! - `woods:1`, `woods:2`, `woods:3` (or `jungle:N`, the same for sight):
//!   `light-woods`, `heavy-woods`, `ultra-heavy-woods`, standing 2, 2 and 3 levels;
//!   with `foliage_elev:1` (low foliage, 1 level tall) the `-low` terrain of each;
//! - `water:D`: `water-1` to `water-9` (9 stands for 9 or more, reported); the hex's
//!   level stays the board's elevation, which MegaMek gives as the water's surface;
//! - `rough`, `rubble`, `pavement`, `road`; else `clear`.
//!
//! `smoke:1` becomes a `light-smoke` marker and `smoke:2` a `heavy-smoke` one (the
//! other smoke kinds, 3 to 6, hinder as light smoke in MegaMek's LOS and are read so).
//! Building details (`bldg_cf`, `bldg_class`, `bldg_armor`, ...) do not change line of
//! sight and are dropped quietly; every other item is left out and counted by name.

use crate::error::{Error, ErrorKind, Result};
use crate::hex::Layout;
use crate::map::file::MAX_HEXES;
use crate::map::{Map, Marker};
use crate::rules::Ruleset;
use crate::text::MAX_FILE_BYTES;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// The tallest building the `battletech` ruleset has a terrain for (`building-10`).
const MAX_BUILDING: i32 = 10;

/// The deepest water the `battletech` ruleset has a terrain for (`water-9`).
const MAX_DEPTH: i32 = 9;

/// Building items that say nothing about line of sight.
const QUIET: [&str; 6] = [
    "bldg_cf",
    "bldg_class",
    "bldg_armor",
    "bldg_basement_type",
    "bldg_base_collapsed",
    "bldg_fluff",
];

/// A converted board and what did not convert.
pub struct Imported {
    /// The map.
    pub map: Map,
    /// Hexes with at least one item left out.
    pub unknown_hexes: usize,
    /// The items left out (`swamp:1`, `mud:1`), with how many hexes held each.
    pub unknown_items: BTreeMap<String, usize>,
    /// Items read only in part (`water:12` read as depth 9), with how many hexes.
    pub approximated: BTreeMap<String, usize>,
    /// Line kinds not read (`fluff`, ...), with how many lines each.
    pub unknown_lines: BTreeMap<String, usize>,
    /// The board's `tag` lines, kept in the map's `notes`.
    pub tags: Vec<String>,
    /// Hexes the board did not list (left clear at level 0).
    pub missing: usize,
}

impl Imported {
    /// What did not convert as it was, one line each (none when all did).
    pub fn report(&self) -> Vec<String> {
        let list = |m: &BTreeMap<String, usize>, one: &str, many: &str| {
            let all: Vec<String> = m
                .iter()
                .map(|(k, n)| format!("{k} ({n} {})", if *n == 1 { one } else { many }))
                .collect();
            all.join(", ")
        };
        let mut out = Vec::new();
        if self.unknown_hexes > 0 {
            out.push(format!(
                "{} hexes had unknown terrain items, left out: {}",
                self.unknown_hexes,
                list(&self.unknown_items, "hex", "hexes")
            ));
        }
        if !self.approximated.is_empty() {
            out.push(format!(
                "read as the nearest terrain the ruleset has: {}",
                list(&self.approximated, "hex", "hexes")
            ));
        }
        if !self.unknown_lines.is_empty() {
            out.push(format!(
                "board lines not read: {}",
                list(&self.unknown_lines, "line", "lines")
            ));
        }
        if !self.tags.is_empty() {
            out.push(format!(
                "board tags kept in the map's notes: {}",
                self.tags.join(", ")
            ));
        }
        if self.missing > 0 {
            out.push(format!(
                "{} hexes were not on the board (left {} at level 0)",
                self.missing, self.map.ruleset.terrain[0].id
            ));
        }
        out
    }
}

/// Reads a board file as text: a folder, a file over the map files' size limit or
/// text that is not UTF-8 is refused with one line (boards are not JSON, so the map
/// reader's first-bytes check does not apply).
pub fn read(path: &Path) -> Result<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| Error::io(&e, path))?;
    let refuse = |why: String| Err(Error::new(ErrorKind::Io, why).in_file(path));
    if meta.is_dir() {
        return refuse("is a folder, not a MegaMek board file".into());
    }
    let f = std::fs::File::open(path).map_err(|e| Error::io(&e, path))?;
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(&e, path))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return refuse(format!(
            "is larger than {} MiB, the limit for a board file",
            MAX_FILE_BYTES >> 20
        ));
    }
    String::from_utf8(bytes).or_else(|_| refuse("is not UTF-8 text, so not a MegaMek board".into()))
}

/// Converts board `text` read from `path` (named in errors) with `ruleset`, which
/// must have the terrain ids above; `ruleset_ref` is what the map file names.
pub fn import(
    text: &str,
    path: &Path,
    name: &str,
    ruleset_ref: &str,
    ruleset: Arc<Ruleset>,
) -> Result<Imported> {
    let mut map: Option<Map> = None;
    let mut seen = HashSet::new();
    let (mut unknown_hexes, mut unknown_items) = (0, BTreeMap::new());
    let (mut approximated, mut unknown_lines) = (BTreeMap::new(), BTreeMap::new());
    let mut tags = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let bad = |what: String| Error::invalid(format!("line {n}"), what).in_file(path);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words = split(line).map_err(bad)?;
        match words[0].as_str() {
            "end" => break,
            "option" => {}
            "tag" => {
                let tag = words[1..].join(" ");
                if tag.is_empty() {
                    return Err(bad(
                        "a `tag` line without a tag (expected `tag NAME`)".into()
                    ));
                }
                tags.push(tag);
            }
            "size" => {
                if map.is_some() {
                    return Err(bad("a second `size` line".into()));
                }
                let (w, h) = match &words[1..] {
                    [w, h] => (number(w), number(h)),
                    _ => (None, None),
                };
                let (Some(w), Some(h)) = (w, h) else {
                    return Err(bad(format!(
                        "`{}`: expected `size WIDTH HEIGHT` with two positive whole numbers",
                        crate::error::clip(line, 60)
                    )));
                };
                if w == 0 || h == 0 || u64::from(w) * u64::from(h) > MAX_HEXES {
                    return Err(bad(format!(
                        "a {w}x{h} board is not a map size hexsight handles (1 to {MAX_HEXES} hexes)"
                    )));
                }
                map = Some(Map::new(
                    name,
                    ruleset_ref,
                    ruleset.clone(),
                    w,
                    h,
                    Layout::default(),
                ));
            }
            "hex" => {
                let Some(m) = map.as_mut() else {
                    return Err(bad("a `hex` line before the `size` line".into()));
                };
                if !(3..=5).contains(&words.len()) {
                    return Err(bad(format!(
                        "`{}`: expected `hex CCRR ELEVATION \"TERRAIN\" \"THEME\"`",
                        crate::error::clip(line, 60)
                    )));
                }
                let (col, row) = coords(&words[1]).ok_or_else(|| {
                    bad(format!(
                        "`{}` is not a hex number (CCRR: column then row, 1-based)",
                        crate::error::clip(&words[1], 20)
                    ))
                })?;
                if col == 0 || row == 0 || col > m.cols || row > m.rows {
                    return Err(bad(format!(
                        "hex {} is off the {}x{} board",
                        words[1], m.cols, m.rows
                    )));
                }
                if !seen.insert((col, row)) {
                    return Err(bad(format!("hex {} is given twice", words[1])));
                }
                let level: i32 = words[2].parse().map_err(|_| {
                    bad(format!(
                        "elevation `{}` is not a whole number",
                        crate::error::clip(&words[2], 20)
                    ))
                })?;
                let range = m.ruleset.levels;
                if level < range.min || level > range.max {
                    return Err(bad(format!(
                        "elevation {level} is outside the ruleset's levels {} to {}",
                        range.min, range.max
                    )));
                }
                let items = words.get(3).map_or("", String::as_str);
                let read = terrain(items).map_err(bad)?;
                let id = &read.id;
                let t = m.ruleset.terrain_index(id).ok_or_else(|| {
                    bad(format!(
                        "ruleset `{}` has no terrain `{id}`",
                        m.ruleset.name
                    ))
                })?;
                if !read.unknown.is_empty() {
                    unknown_hexes += 1;
                }
                for item in read.unknown {
                    *unknown_items.entry(item).or_insert(0) += 1;
                }
                for item in read.approximated {
                    *approximated.entry(item).or_insert(0) += 1;
                }
                let h = m.layout.hex_at(col as i32 - 1, row as i32 - 1);
                if let Some(smoke) = read.smoke {
                    let kind = m.ruleset.marker_index(smoke).ok_or_else(|| {
                        bad(format!(
                            "ruleset `{}` has no marker `{smoke}`",
                            m.ruleset.name
                        ))
                    })?;
                    m.markers.push(Marker {
                        hex: h,
                        kind: kind as u16,
                        extra: Default::default(),
                    });
                }
                let c = m.cell_mut(h).expect("on the board");
                c.level = level;
                c.terrain = t as u16;
            }
            other => {
                let kind = crate::error::clip(other, 30);
                *unknown_lines.entry(kind).or_insert(0) += 1;
            }
        }
    }
    let mut map = map.ok_or_else(|| {
        Error::invalid("line 1", "no `size WIDTH HEIGHT` line: not a MegaMek board").in_file(path)
    })?;
    if !tags.is_empty() {
        let notes = format!("MegaMek board tags: {}", tags.join(", "));
        map.extra.insert("notes".into(), notes.into());
    }
    let missing = map.len() - seen.len();
    Ok(Imported {
        map,
        unknown_hexes,
        unknown_items,
        approximated,
        unknown_lines,
        tags,
        missing,
    })
}

/// A line's words; a double-quoted word may hold spaces (`"woods:1;road:1:09"`).
fn split(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '"' {
            chars.next();
            let mut w = String::new();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some(c) => w.push(c),
                    None => return Err("a quoted field is not closed (missing `\"`)".into()),
                }
            }
            out.push(w);
        } else {
            let mut w = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                w.push(c);
                chars.next();
            }
            out.push(w);
        }
    }
    Ok(out)
}

fn number(s: &str) -> Option<u32> {
    s.parse().ok()
}

/// `CCRR` (or `CCCRRR` on big boards): the digits split in half.
fn coords(s: &str) -> Option<(u32, u32)> {
    if s.len() < 4 || !s.len().is_multiple_of(2) || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (c, r) = s.split_at(s.len() / 2);
    Some((c.parse().ok()?, r.parse().ok()?))
}

/// What a hex's item list becomes.
#[derive(Debug)]
struct Read {
    /// The terrain id.
    id: String,
    /// The smoke marker's id, if the hex has smoke.
    smoke: Option<&'static str>,
    /// The items left out.
    unknown: Vec<String>,
    /// The items read as the nearest terrain the ruleset has.
    approximated: Vec<String>,
}

/// The terrain, smoke and left-out items of a hex's item list.
fn terrain(items: &str) -> std::result::Result<Read, String> {
    let (mut unknown, mut approximated) = (Vec::new(), Vec::new());
    let (mut building, mut bldg_elev, mut woods, mut water) = (false, None, None, None);
    let (mut low, mut smoke) = (false, None);
    let mut plain: Option<&str> = None;
    let rank = |id: &str| {
        ["road", "pavement", "rubble", "rough"]
            .iter()
            .position(|x| *x == id)
    };
    for item in items.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let mut parts = item.split(':');
        let name = parts.next().unwrap_or_default();
        let level: i32 = match parts.next() {
            Some(l) => l.trim_start_matches('*').parse().map_err(|_| {
                format!(
                    "terrain item `{}`: the level after `:` is not a whole number",
                    crate::error::clip(item, 30)
                )
            })?,
            None => {
                return Err(format!(
                    "terrain item `{}` has no `:level` (items are name:level[:exits])",
                    crate::error::clip(item, 30)
                ));
            }
        };
        match (name, level) {
            ("building", t) if t >= 1 => building = true,
            ("bldg_elev", e) if (1..=MAX_BUILDING).contains(&e) => bldg_elev = Some(e),
            ("woods" | "jungle", w @ 1..=3) => woods = Some(w),
            // MegaMek: low foliage stands 1 level; 2 and 3 are the woods' own height.
            ("foliage_elev", 1) => low = true,
            ("foliage_elev", 2 | 3) => {}
            ("water", 0) => {}
            ("water", d) if d >= 1 => {
                if d > MAX_DEPTH {
                    approximated.push(format!("{name}:{level} as water-{MAX_DEPTH}"));
                }
                water = Some(d.min(MAX_DEPTH));
            }
            ("smoke", 2) => smoke = Some("heavy-smoke"),
            // MegaMek's LOS counts its other smoke kinds (3 to 6) as light smoke.
            ("smoke", 1 | 3..=6) => smoke = smoke.or(Some("light-smoke")),
            ("road" | "pavement" | "rubble" | "rough", _) => {
                if plain.is_none_or(|p| rank(name) > rank(p)) {
                    plain = Some(name);
                }
            }
            (q, _) if QUIET.contains(&q) => {}
            _ => unknown.push(format!("{name}:{level}")),
        }
    }
    let id = if building {
        format!("building-{}", bldg_elev.unwrap_or(1))
    } else if let Some(w) = woods {
        let kind = ["light-woods", "heavy-woods", "ultra-heavy-woods"][w as usize - 1];
        if low {
            format!("{kind}-low")
        } else {
            kind.to_string()
        }
    } else if let Some(d) = water {
        format!("water-{d}")
    } else {
        plain.unwrap_or("clear").to_string()
    };
    Ok(Read {
        id,
        smoke,
        unknown,
        approximated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_become_one_terrain_and_unknown_items_are_listed() {
        let t = |s: &str| terrain(s).unwrap();
        assert_eq!(t("").id, "clear");
        assert_eq!(t("woods:1;foliage_elev:2").id, "light-woods");
        assert_eq!(t("woods:2").id, "heavy-woods");
        assert_eq!(t("woods:3;foliage_elev:3").id, "ultra-heavy-woods");
        assert_eq!(t("jungle:2;foliage_elev:1").id, "heavy-woods-low");
        assert_eq!(
            t("building:2:00;bldg_cf:40;bldg_elev:3;pavement:1").id,
            "building-3"
        );
        assert_eq!(t("water:2").id, "water-2");
        assert_eq!(t("water:5").id, "water-5");
        let deep = t("water:12");
        assert_eq!(
            (deep.id.as_str(), deep.approximated),
            ("water-9", vec!["water:12 as water-9".to_string()])
        );
        assert_eq!(t("road:1:09;rough:1").id, "rough");
        assert_eq!(t("smoke:1").smoke, Some("light-smoke"));
        assert_eq!(t("woods:1;smoke:2").smoke, Some("heavy-smoke"));
        let r = t("woods:1;foliage_elev:1;swamp:1;mud:1");
        assert_eq!(r.id, "light-woods-low");
        assert_eq!(r.unknown, ["swamp:1", "mud:1"]);
        assert!(terrain("woods").unwrap_err().contains("no `:level`"));
        assert!(
            terrain("woods:x")
                .unwrap_err()
                .contains("not a whole number")
        );
    }

    #[test]
    fn hex_numbers_split_in_half() {
        assert_eq!(coords("0107"), Some((1, 7)));
        assert_eq!(coords("120034"), Some((120, 34)));
        assert_eq!(coords("107"), None);
        assert_eq!(coords("01a7"), None);
    }
}
