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
    if m.is_multiple_of(2) {
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
        let angle = (fx * ty - fy * tx)
            .atan2(fx * tx + fy * ty)
            .abs()
            .to_degrees();
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

    fn flank() -> Map {
        let path = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../maps/napoleonic-flank.json"
        ));
        Map::load(path).unwrap()
    }

    fn answers(map: &Map, a: &str, b: &str) -> crate::query::units::UnitAnswers {
        let u = |id: &str| map.units.iter().find(|u| u.id == id).unwrap();
        crate::query::units::unit_answers(map, u(a), u(b), crate::rules::units::FireKind::Direct)
    }

    /// A battalion facing away does not see; turned about, it sees; the terrain line
    /// between the two is clear either way (the arc sits above LOS).
    #[test]
    fn the_arc_decides_sees_and_fire_above_the_los() {
        let mut map = flank();
        let los = crate::los::line_of_sight(
            &map,
            map.parse_hex("E5").unwrap(),
            map.parse_hex("E8").unwrap(),
        );
        assert!(los.verdict.sees());
        let x = answers(&map, "1-105e", "95th-lc");
        assert!(!x.sees.ok && !x.targeted.ok && !x.fires.ok, "{x:?}");
        assert!(
            x.sees.reasons[0].starts_with(
                "E8 is outside the front arc of `1-105e` (Infantry battalion: 3 hexsides facing N)"
            ),
            "{:?}",
            x.sees.reasons
        );
        assert_eq!(x.arc.as_deref(), Some("front arc (3 hexsides facing N)"));
        // The skirmishers have no arc: they see the battalion from behind.
        let back = answers(&map, "95th-lc", "1-105e");
        assert!(
            back.sees.ok && back.fires.ok && back.arc.is_none(),
            "{back:?}"
        );
        // Turned to face S, the battalion sees and fires.
        let i = map.units.iter().position(|u| u.id == "1-105e").unwrap();
        map.units[i].facing = Some(3);
        let x = answers(&map, "1-105e", "95th-lc");
        assert!(x.sees.ok && x.targeted.ok && x.fires.ok, "{x:?}");
        // E8 is due S of E5: 60 degrees off SE (inside), 120 degrees off NE (outside).
        map.units[i].facing = Some(2);
        assert!(answers(&map, "1-105e", "95th-lc").sees.ok);
        map.units[i].facing = Some(1);
        assert!(!answers(&map, "1-105e", "95th-lc").sees.ok);
    }

    /// Without an arc in the ruleset the same battalion sees all round; with an arc and
    /// no facing it sees all round and says why.
    #[test]
    fn no_arc_or_no_facing_is_all_round() {
        let mut map = flank();
        let i = map.units.iter().position(|u| u.id == "1-105e").unwrap();
        map.units[i].facing = None;
        let x = answers(&map, "1-105e", "95th-lc");
        assert!(x.sees.ok && x.fires.ok, "{x:?}");
        assert!(
            x.sees
                .reasons
                .iter()
                .any(|r| r.contains("has no facing, so it sees all round")),
            "{:?}",
            x.sees.reasons
        );
        map.units[i].facing = Some(0);
        let mut rs = (*map.ruleset).clone();
        for k in &mut rs.unit_kinds {
            k.arc = None;
        }
        map.ruleset = std::sync::Arc::new(rs);
        let x = answers(&map, "1-105e", "95th-lc");
        assert!(x.sees.ok && x.fires.ok && x.arc.is_none(), "{x:?}");
    }

    /// A bad width is refused at ruleset load, naming the file and the unit kind.
    #[test]
    fn a_bad_arc_width_is_refused_naming_the_file_and_the_kind() {
        let base: serde_json::Value =
            serde_json::from_str(include_str!("../../../maps/rulesets/napoleonic.json")).unwrap();
        for bad in [
            serde_json::json!(0),
            serde_json::json!(7),
            serde_json::json!(2.5),
            serde_json::json!(-3),
            serde_json::json!("three"),
        ] {
            let mut rs = base.clone();
            rs["unit_kinds"][0]["arc"]["hexsides"] = bad.clone();
            let e = crate::rules::Ruleset::from_json(
                &rs.to_string(),
                std::path::Path::new("my-rules.json"),
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.starts_with("my-rules.json: unit_kinds infantry: arc.hexsides: ")
                    && e.contains("1 to 6")
                    && !e.contains('\n'),
                "{bad}: {e}"
            );
        }
        let mut rs = base.clone();
        rs["unit_kinds"][0]["arc"] = serde_json::json!({"hexsides": 3.0, "name": "fire arc"});
        let rs = crate::rules::Ruleset::from_json(&rs.to_string(), std::path::Path::new("r.json"))
            .unwrap();
        assert_eq!(rs.unit_kinds[0].arc.as_ref().unwrap().width(), 3);
        assert_eq!(rs.unit_kinds[0].arc.as_ref().unwrap().label(), "fire arc");
    }
}
