//! Named zones painted on the map: a zone's hexes are read with the library's
//! own zone reader (`map::zones::parse_zone`, as `--zone` reads them) and
//! written back as column runs (`C3:C7,D4`), which that reader turns into the
//! same hexes, so what is painted is what `hexsight deploy --zone NAME` uses.

use hexsight_analysis::Map;
use hexsight_analysis::hex::Hex;
use hexsight_analysis::map::NamedZone;
use hexsight_analysis::map::file::{ZoneNameProblem, zone_name_problem};
use hexsight_analysis::map::zones::parse_zone;

/// The map indices of the zone called `name`, sorted (empty when there is none).
pub fn hexes(map: &Map, name: &str) -> Vec<usize> {
    map.zone_named(name)
        .and_then(|z| parse_zone(map, &z.zone).ok())
        .unwrap_or_default()
}

/// The zone text for sorted map indices: one `A1:A5` rectangle per run of a
/// column (map indices run down each column), a single label for a lone hex.
pub fn text(map: &Map, sorted: &[usize]) -> String {
    let rows = map.rows as usize;
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 && !(end + 1).is_multiple_of(rows) {
            i += 1;
            end = sorted[i];
        }
        let (a, b) = (map.label(map.hex_of(start)), map.label(map.hex_of(end)));
        parts.push(if start == end { a } else { format!("{a}:{b}") });
        i += 1;
    }
    parts.join(",")
}

/// Why `name` cannot name a zone in the map file, if it cannot (the loader's own
/// rule, [`zone_name_problem`], in the editor's words).
pub fn name_problem(map: &Map, name: &str) -> Option<String> {
    match zone_name_problem(map, name)? {
        _ if name.is_empty() => Some("Type a zone name first.".into()),
        ZoneNameProblem::NotOneWord => {
            Some("A zone name is one word: no spaces, commas or colons.".into())
        }
        ZoneNameProblem::HexLabel => Some(format!("`{name}` is a hex label; pick another name.")),
    }
}

/// Makes the zone `name` hold exactly `sorted` (map indices); an empty zone is
/// removed, as the map file cannot hold a zone of no hex. True when it changed.
pub fn set(map: &mut Map, name: &str, sorted: &[usize]) -> bool {
    let zone = text(map, sorted);
    let at = map.zones.iter().position(|z| z.name == name);
    match (at, zone.is_empty()) {
        (Some(i), true) => {
            map.zones.remove(i);
            true
        }
        (Some(i), false) if map.zones[i].zone != zone => {
            map.zones[i].zone = zone;
            true
        }
        (None, false) => {
            map.zones.push(NamedZone {
                name: name.to_string(),
                zone,
            });
            true
        }
        _ => false,
    }
}

/// The zone `name` with `hexes` added (or removed), as sorted map indices, or
/// `None` when that changes nothing.
pub fn painted(map: &Map, name: &str, brush: &[Hex], add: bool) -> Option<Vec<usize>> {
    let mut out: Vec<usize> = hexes(map, name);
    let before = out.clone();
    let idx: Vec<usize> = brush.iter().filter_map(|&h| map.index(h)).collect();
    if add {
        out.extend(idx);
        out.sort_unstable();
        out.dedup();
    } else {
        out.retain(|i| !idx.contains(i));
    }
    (out != before).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexsight_analysis::Ruleset;
    use hexsight_analysis::hex::Layout;
    use std::sync::Arc;

    fn map() -> Map {
        let rs = Arc::new(Ruleset::builtin("combat-commander").unwrap());
        Map::new("t", "combat-commander", rs, 6, 5, Layout::default())
    }

    #[test]
    fn painted_hexes_read_back_through_the_librarys_zone_reader() {
        let mut m = map();
        let hs: Vec<Hex> = ["B2", "B3", "B4", "C1", "E5", "C2"]
            .iter()
            .map(|l| m.parse_hex(l).unwrap())
            .collect();
        let set_ = painted(&m, "north", &hs, true).unwrap();
        assert!(set(&mut m, "north", &set_));
        assert_eq!(m.zone_named("north").unwrap().zone, "B2:B4,C1:C2,E5");
        let back = hexsight_analysis::map::zones::resolve(&m, "north").unwrap();
        assert_eq!(back, set_);
        // A run stops at the bottom of a column.
        let col = [m.parse_hex("A5").unwrap(), m.parse_hex("B1").unwrap()];
        let s2 = painted(&m, "edge", &col, true).unwrap();
        assert_eq!(text(&m, &s2), "A5,B1");
        // Removing every hex removes the zone.
        let s3 = painted(&m, "north", &hs, false).unwrap();
        assert!(s3.is_empty());
        assert!(set(&mut m, "north", &s3));
        assert!(m.zone_named("north").is_none());
        assert!(
            painted(&m, "north", &hs, false).is_none(),
            "nothing to remove"
        );
    }

    #[test]
    fn names_follow_the_map_files_rules() {
        let m = map();
        assert!(name_problem(&m, "german-setup").is_none());
        for bad in ["", "two words", "a,b", "B3"] {
            assert!(name_problem(&m, bad).is_some(), "{bad}");
        }
    }
}
