//! Field-of-view arcs: which hexes a unit facing a hexside may see at all.
//!
//! A question above the LOS layer, like the unit answers that call it: the arc never
//! enters the kernels, it only says whether a target's direction is one the unit looks
//! in. The geometry is exact: directions between hex centres are lattice vectors and
//! the arc's boundary rays are lattice vectors too (a hexside's middle or a corner),
//! so membership is the sign of integer cross products, with no angle and no epsilon.
//!
//! Reading: an arc of `k` hexsides is the wedge of `k * 60` degrees centred on the
//! facing direction (from the hex centre through the middle of the facing hexside),
//! boundary rays included. For odd `k` that is exactly the `k` hexsides around the
//! facing one (3: the facing side and its two neighbours, 90 degrees either side);
//! for even `k` the boundary rays pass through the middles of hexsides `facing +- k/2`.
//! A target in the unit's own hex is inside; 6 hexsides is all round.

use crate::hex::{DIRECTIONS, Hex};
use crate::map::{Map, Unit};
use crate::rules::units::{self, ArcSpec};

/// The ray `m` half-steps of 30 degrees from direction 0, as a lattice vector: a side
/// direction for even `m`, the corner between two sides (their sum) for odd `m`.
fn ray(m: usize) -> Hex {
    let m = m % 12;
    if m % 2 == 0 {
        DIRECTIONS[m / 2]
    } else {
        DIRECTIONS[m / 2] + DIRECTIONS[(m / 2 + 1) % 6]
    }
}

/// The axial cross product: its sign is the sign of the Euclidean one (the drawing is a
/// linear map of axial coordinates), positive from direction `i` towards `i + 1`.
fn cross(a: Hex, b: Hex) -> i64 {
    a.q as i64 * b.r as i64 - a.r as i64 * b.q as i64
}

/// True when `to` lies inside the arc of `hexsides` hexsides (1 to 6) of a unit in
/// `from` facing direction `facing`; boundary rays count as inside.
pub fn in_arc(from: Hex, facing: usize, hexsides: u8, to: Hex) -> bool {
    let v = to - from;
    let k = hexsides as usize;
    if v == Hex::default() || k >= 6 {
        return true;
    }
    // Boundary rays at facing -+ k * 30 degrees, in 30-degree half-steps.
    let centre = 2 * (facing % 6);
    let lo = ray(centre + 12 - k);
    let hi = ray(centre + k);
    if k <= 3 {
        // A wedge of at most 180 degrees: from `lo` turning positively up to `hi`.
        cross(lo, v) >= 0 && cross(v, hi) >= 0
    } else {
        // Wider than 180 degrees: outside is the open wedge from `hi` round to `lo`.
        !(cross(hi, v) > 0 && cross(v, lo) > 0)
    }
}

/// A unit's arc as the unit answers use it.
#[derive(Clone, Debug, PartialEq)]
pub enum UnitArc<'a> {
    /// The kind has no arc: the unit sees all round.
    AllRound,
    /// The kind has an arc but the unit no facing: it sees all round, and the answers say so.
    NoFacing(&'a ArcSpec),
    /// The kind's arc about the unit's facing.
    Facing(&'a ArcSpec, usize),
}

/// The arc of unit `u` under its kind's ruleset entry.
pub fn unit_arc<'a>(map: &'a Map, u: &Unit) -> UnitArc<'a> {
    match (units::kind(map, u).and_then(|k| k.arc.as_ref()), u.facing) {
        (None, _) => UnitArc::AllRound,
        (Some(a), None) => UnitArc::NoFacing(a),
        (Some(a), Some(f)) => UnitArc::Facing(a, f % 6),
    }
}

/// `front arc (3 hexsides facing N)`, or `None` for a unit without an arc.
pub fn describe(map: &Map, u: &Unit) -> Option<String> {
    match unit_arc(map, u) {
        UnitArc::AllRound => None,
        UnitArc::NoFacing(a) => Some(format!(
            "{} ({} hexsides) not applied: `{}` has no facing, so it sees all round",
            a.label(),
            a.width(),
            u.id
        )),
        UnitArc::Facing(a, f) => Some(format!(
            "{} ({} hexside{} facing {})",
            a.label(),
            a.width(),
            if a.width() == 1 { "" } else { "s" },
            map.layout.side_names()[f]
        )),
    }
}

/// Why `a` cannot see into `hex`, if `hex` is outside its arc.
pub fn outside(map: &Map, a: &Unit, hex: Hex) -> Option<String> {
    let UnitArc::Facing(arc, f) = unit_arc(map, a) else {
        return None;
    };
    if in_arc(a.hex, f, arc.width(), hex) {
        return None;
    }
    let kind = units::kind(map, a)
        .map(|k| if k.name.is_empty() { &k.id } else { &k.name })
        .cloned()
        .unwrap_or_default();
    Some(format!(
        "{} is outside the {} of `{}` ({kind}: {} hexside{} facing {}): a unit sees only within its arc",
        map.label(hex),
        arc.label(),
        a.id,
        arc.width(),
        if arc.width() == 1 { "" } else { "s" },
        map.layout.side_names()[f]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex::{Layout, Orientation};

    /// The float reference: the angle between the facing direction and the target's,
    /// from the drawn centres, against `k * 30` degrees.
    fn reference(layout: Layout, facing: usize, k: u8, v: Hex) -> (bool, bool) {
        let o = layout.center(Hex::default(), 1.0);
        let c = layout.center(v, 1.0);
        let f = layout.center(DIRECTIONS[facing], 1.0);
        let (tx, ty) = (c.0 - o.0, c.1 - o.1);
        let (fx, fy) = (f.0 - o.0, f.1 - o.1);
        let angle = (fx * ty - fy * tx).atan2(fx * tx + fy * ty).abs().to_degrees();
        let half = k as f64 * 30.0;
        let boundary = (angle - half).abs() < 1e-9;
        (angle <= half + 1e-9, boundary)
    }

    /// Every hex within 6 of a unit, every facing, every width, both orientations,
    /// against the float angle; the boundary rays are inside.
    #[test]
    fn arc_membership_matches_the_angle_reference() {
        let mut boundaries = 0;
        for orientation in [Orientation::Flat, Orientation::Pointy] {
            let layout = Layout {
                orientation,
                ..Layout::default()
            };
            for facing in 0..6 {
                for k in 1..=6u8 {
                    for q in -6i32..=6 {
                        for r in -6i32..=6 {
                            let v = Hex::new(q, r);
                            if v.distance(Hex::default()) > 6 || v == Hex::default() {
                                continue;
                            }
                            let (want, boundary) = reference(layout, facing, k, v);
                            let from = Hex::new(3, -7);
                            let got = in_arc(from, facing, k, from + v);
                            assert_eq!(got, want, "{orientation:?} facing {facing} k {k} v {v:?}");
                            if boundary {
                                assert!(got, "boundary {v:?} facing {facing} k {k}");
                                boundaries += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(boundaries > 100, "{boundaries}");
    }

    /// The boundary cases by hand (flat-top, facing N = direction 0).
    #[test]
    fn boundary_rays_are_inside() {
        let o = Hex::default();
        // 3 hexsides: due east and due west (90 degrees) are inside, one step back is not.
        assert!(in_arc(o, 0, 3, Hex::new(2, -1)));
        assert!(in_arc(o, 0, 3, Hex::new(-2, 1)));
        assert!(!in_arc(o, 0, 3, Hex::new(2, 0)));
        assert!(!in_arc(o, 0, 3, DIRECTIONS[3]));
        // The two front neighbours' neighbours: NE and NW are inside 3, not inside 1.
        assert!(in_arc(o, 0, 3, DIRECTIONS[1]) && in_arc(o, 0, 3, DIRECTIONS[5]));
        assert!(!in_arc(o, 0, 1, DIRECTIONS[1]));
        // 1 hexside: the corner rays (30 degrees) are inside.
        assert!(in_arc(o, 0, 1, Hex::new(1, -2)) && in_arc(o, 0, 1, Hex::new(-1, -1)));
        assert!(!in_arc(o, 0, 1, Hex::new(1, -1)));
        // 2 hexsides: the neighbour sides at 60 degrees are on the boundary.
        assert!(in_arc(o, 0, 2, DIRECTIONS[1]) && in_arc(o, 0, 2, DIRECTIONS[5]));
        assert!(!in_arc(o, 0, 2, Hex::new(2, -1)));
        // 5 hexsides: 150 degrees is inside, straight back is not; 6 is all round.
        assert!(in_arc(o, 0, 5, Hex::new(1, 1)) && !in_arc(o, 0, 5, DIRECTIONS[3]));
        assert!(in_arc(o, 0, 6, DIRECTIONS[3]));
        // The unit's own hex.
        assert!(in_arc(o, 0, 1, o));
    }
}
