//! Flood fill.

use super::drop_forbidden_markers;
use hexsight_analysis::Map;
use hexsight_analysis::hex::Hex;
use std::collections::{HashSet, VecDeque};

/// Fills the area connected to `start` that has its terrain and level with
/// `terrain`; returns the number of hexes changed.
pub fn fill(map: &mut Map, start: Hex, terrain: u16) -> usize {
    let Some(&origin) = map.cell(start) else {
        return 0;
    };
    if origin.terrain == terrain || terrain as usize >= map.ruleset.terrain.len() {
        return 0;
    }
    let mut seen = HashSet::from([start]);
    let mut queue = VecDeque::from([start]);
    let mut area = Vec::new();
    while let Some(h) = queue.pop_front() {
        area.push(h);
        for n in h.neighbors() {
            if let Some(c) = map.cell(n)
                && c.terrain == origin.terrain
                && c.level == origin.level
                && seen.insert(n)
            {
                queue.push_back(n);
            }
        }
    }
    for &h in &area {
        if let Some(c) = map.cell_mut(h) {
            c.terrain = terrain;
        }
        drop_forbidden_markers(map, h);
    }
    area.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexsight_analysis::Ruleset;
    use hexsight_analysis::hex::Layout;
    use std::sync::Arc;

    #[test]
    fn fill_stops_at_other_terrain() {
        let rs = Arc::new(Ruleset::builtin("combat-commander").unwrap());
        let mut map = Map::new("t", "combat-commander", rs, 5, 5, Layout::default());
        // A wall of woods down column C splits the map.
        for row in 0..5 {
            map.cell_mut(map.layout.hex_at(2, row)).unwrap().terrain = 1;
        }
        let start = map.layout.hex_at(0, 0);
        let n = fill(&mut map, start, 3);
        assert_eq!(n, 10);
        assert_eq!(map.cell(map.layout.hex_at(4, 4)).unwrap().terrain, 0);
    }
}
