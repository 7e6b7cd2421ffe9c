//! Level brush and slope toggle.

use super::LevelMode;
use hexsight_analysis::Map;
use hexsight_analysis::hex::Hex;

/// Applies the level brush to hexes not yet touched in this stroke (so a
/// stroke raises by one level, however long the pointer lingers).
pub fn apply(
    map: &mut Map,
    hexes: &[Hex],
    mode: LevelMode,
    level: i32,
    touched: &mut std::collections::HashSet<Hex>,
) -> usize {
    let (min, max) = (map.ruleset.levels.min, map.ruleset.levels.max);
    let mut changed = 0;
    for &h in hexes {
        if !touched.insert(h) {
            continue;
        }
        if let Some(c) = map.cell_mut(h) {
            let new = match mode {
                LevelMode::Raise => c.level + 1,
                LevelMode::Lower => c.level - 1,
                LevelMode::Set => level,
            }
            .clamp(min, max);
            if new != c.level {
                c.level = new;
                changed += 1;
            }
        }
    }
    changed
}

/// Sets the slope flag of the hexes to `slope`.
pub fn set_slope(map: &mut Map, hexes: &[Hex], slope: bool) -> usize {
    let mut changed = 0;
    for &h in hexes {
        if let Some(c) = map.cell_mut(h)
            && c.slope != slope
        {
            c.slope = slope;
            changed += 1;
        }
    }
    changed
}
