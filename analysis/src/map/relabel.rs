//! Map properties that change how hexes are laid out or read, keeping content
//! at the same labels: orientation and stagger, the first row's number, the ruleset.

use super::model::{Map, NamedZone};
use crate::error::{Error, ErrorKind, Result};
use crate::hex::{Hex, Layout, Side, label};
use std::collections::BTreeSet;

/// The map drawn with another orientation or stagger, every hex's content at
/// the same label; hexsides whose two hexes are no longer neighbours are cut
/// and listed.
pub fn relayout(m: &Map, layout: Layout) -> (Map, Vec<String>) {
    let mut out = m.clone();
    out.layout = layout;
    let to = |h: Hex| {
        let (c, r) = m.layout.offset_of(h);
        layout.hex_at(c, r)
    };
    let mut notes = Vec::new();
    out.hexsides.clear();
    for (s, f) in &m.hexsides {
        let (a, b) = (to(s.a), to(s.b));
        if a.is_adjacent(b) {
            let mut f = f.clone();
            f.from = to(f.from);
            out.hexsides.insert(Side::new(a, b), f);
        } else {
            notes.push(format!(
                "hexside {} cut: the hexes are no longer neighbours",
                m.side_label(s.a, s.b)
            ));
        }
    }
    for mk in &mut out.markers {
        mk.hex = to(mk.hex);
    }
    for u in &mut out.units {
        u.hex = to(u.hex);
    }
    out.hex_extra = m
        .hex_extra
        .iter()
        .map(|(h, x)| (to(*h), x.clone()))
        .collect();
    (out, notes)
}

/// The map with rows numbered from `first_row`; named zones are rewritten so
/// they keep their hexes.
pub fn renumber(m: &Map, first_row: u32) -> Map {
    let mut out = m.clone();
    out.first_row = first_row;
    out.zones = m
        .zones
        .iter()
        .map(|z| NamedZone {
            name: z.name.clone(),
            zone: renumber_zone(&z.zone, m.first_row, first_row),
        })
        .collect();
    out
}

/// A zone's labels read with rows from `from` and written with rows from `to`
/// (text that is not a label is kept as it is).
fn renumber_zone(zone: &str, from: u32, to: u32) -> String {
    let relabel = |l: &str| match label::parse_label(l.trim(), from) {
        Some((c, r)) => label::format_label(c, r, to),
        None => l.to_string(),
    };
    zone.split(',')
        .map(|part| match part.split_once(':') {
            Some((a, b)) => format!("{}:{}", relabel(a), relabel(b)),
            None => relabel(part),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The map read with another ruleset: terrain, hexside and marker kinds are
/// matched by id. Refused, naming them, when the new ruleset lacks kinds the map uses.
pub fn with_ruleset(
    m: &Map,
    reference: &str,
    rs: std::sync::Arc<crate::ruleset::Ruleset>,
) -> Result<Map> {
    let old = &m.ruleset;
    let find = |ids: Vec<&str>, id: &str| ids.iter().position(|x| *x == id).map(|i| i as u16);
    let terrain: Vec<&str> = rs.terrain.iter().map(|t| t.id.as_str()).collect();
    let hexsides: Vec<&str> = rs.hexsides.iter().map(|t| t.id.as_str()).collect();
    let markers: Vec<&str> = rs.markers.iter().map(|t| t.id.as_str()).collect();
    let mut missing = BTreeSet::new();
    let mut map_kind = |ids: &Vec<&str>, id: &str| {
        let i = find(ids.clone(), id);
        if i.is_none() {
            missing.insert(id.to_string());
        }
        i.unwrap_or(0)
    };
    let mut out = m.clone();
    out.ruleset_ref = reference.to_string();
    out.ruleset = rs.clone();
    out.default.terrain = map_kind(&terrain, &old.terrain[m.default.terrain as usize].id);
    for h in m.hexes() {
        let id = &old.terrain[m.cell(h).expect("hex of the map").terrain as usize].id;
        out.cell_mut(h).expect("same grid").terrain = map_kind(&terrain, id);
    }
    for f in out.hexsides.values_mut() {
        f.kind = map_kind(&hexsides, &old.hexsides[f.kind as usize].id);
    }
    for mk in &mut out.markers {
        mk.kind = map_kind(&markers, &old.markers[mk.kind as usize].id);
    }
    if !missing.is_empty() {
        return Err(Error::new(
            ErrorKind::Invalid,
            format!(
                "ruleset `{reference}` has no {} used by this map",
                missing
                    .into_iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let levels = &rs.levels;
    if m.cells()
        .iter()
        .any(|c| c.level < levels.min || c.level > levels.max)
    {
        return Err(Error::new(
            ErrorKind::Invalid,
            format!(
                "ruleset `{reference}` allows levels {} to {} only, and this map has others",
                levels.min, levels.max
            ),
        ));
    }
    Ok(out)
}
