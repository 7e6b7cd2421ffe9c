//! Hexside features: find the side near the pointer, put or remove a feature.

use hexsight_analysis::Map;
use hexsight_analysis::hex::layout::distance_to_segment;
use hexsight_analysis::hex::{Hex, Side};
use hexsight_analysis::map::HexsideFeature;

/// The side of `h` nearest to the point `p` (map pixels, circumradius `size`),
/// if it is within `reach` of the side's middle.
pub fn nearest_side(map: &Map, h: Hex, p: (f64, f64), size: f64, reach: f64) -> Option<Side> {
    let corners = map.layout.corners(h, size);
    let (mut best, mut best_d) = (None, f64::INFINITY);
    for dir in 0..6 {
        let (a, b) = (corners[dir], corners[(dir + 1) % 6]);
        let d = distance_to_segment(p, a, b);
        if d < best_d {
            best_d = d;
            best = Some(dir);
        }
    }
    let dir = best?;
    (best_d <= reach).then(|| Side::new(h, h.neighbor(dir)))
}

/// Puts feature `kind` on the side; the same feature again removes it.
/// `from` is the hex the user clicked in, which the file will name.
pub fn toggle(map: &mut Map, side: Side, from: Hex, kind: u16) -> bool {
    if kind as usize >= map.ruleset.hexsides.len() {
        return false;
    }
    // The file names a side from an on-map hex; prefer the clicked one.
    let from = if map.contains(from) {
        from
    } else if map.contains(side.a) {
        side.a
    } else {
        side.b
    };
    if !map.contains(from) {
        return false;
    }
    match map.hexsides.get(&side) {
        Some(f) if f.kind == kind => {
            map.hexsides.remove(&side);
        }
        Some(_) | None => {
            map.hexsides.insert(
                side,
                HexsideFeature {
                    kind,
                    from,
                    extra: Default::default(),
                },
            );
        }
    }
    true
}

/// Removes any feature on the side.
pub fn remove(map: &mut Map, side: Side) -> bool {
    map.hexsides.remove(&side).is_some()
}
