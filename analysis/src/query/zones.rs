//! Zones as a user names them: rectangles and hexes (`A1:F10,G3`), the names of the
//! map's zones (`german-setup`), or both (`german-setup,H5`); and which named zones
//! belong to which side.

use crate::engine::zone::parse_zone;
use crate::error::{Error, ErrorKind, Result};
use crate::hex::label::parse_label;
use crate::map::{Map, NamedZone};

/// The map indices of a zone, sorted, without repeats: each part that names one
/// of the map's zones stands for that zone's rectangles and hexes.
pub fn resolve(map: &Map, text: &str) -> Result<Vec<usize>> {
    let mut parts = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match map.zone_named(part) {
            Some(z) => parts.push(z.zone.as_str()),
            None if is_word(map, part) => return Err(unknown(map, part)),
            None => parts.push(part),
        }
    }
    parse_zone(map, &parts.join(","))
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
