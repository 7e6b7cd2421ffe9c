//! Terrain brush and eraser.

use super::drop_forbidden_markers;
use hexsight_analysis::Map;
use hexsight_analysis::hex::{Hex, Side};

/// Paints `terrain` into the hexes; returns how many changed.
pub fn paint(map: &mut Map, hexes: &[Hex], terrain: u16) -> usize {
    if terrain as usize >= map.ruleset.terrain.len() {
        return 0;
    }
    let mut changed = 0;
    for &h in hexes {
        if let Some(c) = map.cell_mut(h)
            && c.terrain != terrain
        {
            c.terrain = terrain;
            changed += 1;
            drop_forbidden_markers(map, h);
        }
    }
    changed
}

/// Resets hexes to the map default and removes markers, units and hexsides on them.
pub fn erase(map: &mut Map, hexes: &[Hex]) -> usize {
    let default = map.default;
    let mut changed = 0;
    for &h in hexes {
        if let Some(c) = map.cell_mut(h)
            && *c != default
        {
            *c = default;
            changed += 1;
        }
        map.hex_extra.remove(&h);
        let (m, u) = (map.markers.len(), map.units.len());
        map.markers.retain(|x| x.hex != h);
        map.units.retain(|x| x.hex != h);
        changed += m - map.markers.len() + u - map.units.len();
        let sides: Vec<Side> = map
            .hexsides
            .keys()
            .filter(|s| s.touches(h))
            .copied()
            .collect();
        changed += sides.len();
        for s in sides {
            map.hexsides.remove(&s);
        }
        drop_forbidden_markers(map, h);
    }
    changed
}
