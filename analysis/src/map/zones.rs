//! Zones of hexes as a user names them: rectangles of columns and rows and single
//! hexes (`A1:F10,G3`), the names of the map's own zones (`german-setup`), or both
//! (`german-setup,H5`); and which named zones belong to which side.
//!
//! One reader serves both: [`parse_zone`] reads rectangles and hexes only (as a map
//! file's `zones` values are written), [`resolve`] also reads the map's zone names.

use crate::error::{Error, ErrorKind, Result};
use crate::hex::label::parse_label;
use crate::map::{Map, NamedZone};

/// Most parts (rectangles and single hexes) a zone may list.
pub const MAX_PARTS: usize = 10_000;

/// The map indices of the hexes in a zone of rectangles and hexes, sorted, without
/// repeats.
///
/// Memory and time are bounded by the map, whatever the text: every hex named must
/// be on the map, the hexes are marked in one flag per map hex, and a zone lists at
/// most [`MAX_PARTS`] parts.
pub fn parse_zone(map: &Map, text: &str) -> Result<Vec<usize>> {
    read(map, text, false)
}

/// The map indices of a zone, sorted, without repeats, as [`parse_zone`] reads it
/// except that each part that names one of the map's zones stands for that zone's
/// rectangles and hexes (which count towards [`MAX_PARTS`]).
pub fn resolve(map: &Map, text: &str) -> Result<Vec<usize>> {
    read(map, text, true)
}

/// The non-empty, trimmed parts of a zone's text.
fn parts(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|p| !p.is_empty())
}

/// The one zone reader: with `names`, a part naming a zone of the map is replaced by
/// that zone's parts, and a part that can only be a name must be one.
fn read(map: &Map, text: &str, names: bool) -> Result<Vec<usize>> {
    let shown = crate::error::clip(text, 60);
    let mut literal: Vec<&str> = Vec::new();
    for part in parts(text) {
        if names {
            if let Some(z) = map.zone_named(part) {
                literal.extend(parts(&z.zone).take(MAX_PARTS + 1 - literal.len()));
            } else if is_word(map, part) {
                return Err(unknown(map, part));
            } else {
                literal.push(part);
            }
        } else {
            literal.push(part);
        }
        if literal.len() > MAX_PARTS {
            break;
        }
    }
    if literal.len() > MAX_PARTS {
        return Err(Error::new(
            ErrorKind::Query,
            format!(
                "zone `{shown}` lists more than {MAX_PARTS} parts; join them into rectangles (A1:F10)"
            ),
        ));
    }
    let rows = map.rows as usize;
    let mut inside = vec![false; map.len()];
    for part in literal {
        let pos = |l: &str| -> Result<(u32, u32)> {
            let h = map.parse_hex(l).ok_or_else(|| {
                Error::new(
                    ErrorKind::Query,
                    format!(
                        "`{}` in zone `{shown}` is not a hex of this {}x{} map ({} to {}){}",
                        crate::error::clip(l, 30),
                        map.cols,
                        map.rows,
                        map.label(map.hex_of(0)),
                        map.label(map.hex_of(map.len() - 1)),
                        crate::hex::label::problem(l.trim(), map.first_row)
                            .map(|p| format!(": {p}"))
                            .unwrap_or_default()
                    ),
                )
            })?;
            let (c, r) = map.layout.offset_of(h);
            Ok((c as u32, r as u32))
        };
        let (a, b) = match part.split_once(':') {
            Some((x, y)) => (pos(x)?, pos(y)?),
            None => (pos(part)?, pos(part)?),
        };
        let (r0, r1) = (a.1.min(b.1) as usize, a.1.max(b.1) as usize);
        for c in a.0.min(b.0) as usize..=a.0.max(b.0) as usize {
            inside[c * rows + r0..=c * rows + r1].fill(true);
        }
    }
    let out: Vec<usize> = (0..inside.len()).filter(|&i| inside[i]).collect();
    if out.is_empty() {
        return Err(Error::new(
            ErrorKind::Query,
            format!("zone `{shown}` names no hex (write it like A1:F10,G3)"),
        ));
    }
    Ok(out)
}

/// True for a part that is neither a rectangle nor a hex label (it must be a name).
fn is_word(map: &Map, part: &str) -> bool {
    !map.zones.is_empty() && !part.contains(':') && parse_label(part, map.first_row).is_none()
}

fn unknown(map: &Map, part: &str) -> Error {
    let names: Vec<&str> = map.zones.iter().take(30).map(|z| z.name.as_str()).collect();
    Error::new(
        ErrorKind::Query,
        format!(
            "`{}` is neither a hex nor a zone of this map (its zones: {})",
            crate::error::clip(part, 30),
            names.join(", ")
        ),
    )
}

/// The side of the map's units a named zone belongs to: the first whose name is the
/// zone's name or begins it followed by a hyphen (`german-setup` for `german`), any case.
pub fn side_of<'m>(map: &'m Map, z: &NamedZone) -> Option<&'m str> {
    let name = z.name.to_lowercase();
    map.units.iter().map(|u| u.side.as_str()).find(|s| {
        let s = s.to_lowercase();
        !s.is_empty() && (name == s || name.starts_with(&format!("{s}-")))
    })
}

/// The zones of two sides, when the map names them: the first two zones whose
/// names begin with two different sides of the map's units (`german-setup` or
/// `german` for side `german`, letters in any case), each with its side.
pub fn side_zones(map: &Map) -> Option<[(&str, &NamedZone); 2]> {
    let side_of = |z: &NamedZone| side_of(map, z);
    let mut found: Vec<(&str, &NamedZone)> = Vec::new();
    for z in &map.zones {
        if let Some(side) = side_of(z)
            && found.iter().all(|(s, _)| *s != side)
        {
            found.push((side, z));
        }
        if let [a, b] = found[..] {
            return Some([a, b]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Generator, generate};

    #[test]
    fn rectangles_and_single_hexes() {
        let g = Generator {
            cols: 8,
            rows: 6,
            seed: 1,
            ruleset: "geometric".into(),
            layout: Default::default(),
            dense: false,
        };
        let map = generate(&g).unwrap();
        let z = parse_zone(&map, "B2:A1, H6").unwrap();
        let labels: Vec<String> = z.iter().map(|&i| map.label(map.hex_of(i))).collect();
        assert_eq!(labels, ["A1", "A2", "B1", "B2", "H6"]);
        assert!(
            parse_zone(&map, "Z9")
                .unwrap_err()
                .to_string()
                .contains("`Z9`")
        );
        for bad in [
            "",
            " , ",
            "A1:ZZZZZZZZ99999999999",
            "A1:",
            ":B2",
            "A0",
            "A-1",
        ] {
            let e = parse_zone(&map, bad).unwrap_err().to_string();
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        let many = vec!["A1"; MAX_PARTS + 1].join(",");
        assert!(
            parse_zone(&map, &many)
                .unwrap_err()
                .to_string()
                .contains("parts")
        );
        assert_eq!(
            parse_zone(&map, &vec!["A1:H6"; 1000].join(","))
                .unwrap()
                .len(),
            48
        );
    }
}
