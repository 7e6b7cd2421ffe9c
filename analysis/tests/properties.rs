//! Properties every ruleset must keep, on random maps: reciprocity (both built-in
//! families are symmetric), adjacent hexes and a hex itself are always seen, and
//! adding an obstacle never clears a blocked line.

use hexsight_analysis::hex::{Crossing, Hex, Layout, Orientation, Side, Stagger};
use hexsight_analysis::map::{HexsideFeature, Marker};
use hexsight_analysis::{Map, Ruleset, Verdict, line_of_sight};
use proptest::prelude::*;
use std::sync::Arc;

/// A random map from a seed: hills with slopes, terrain, hedges, markers.
fn random_map(ruleset: &str, cols: u32, rows: u32, flat: bool, seed: u64) -> Map {
    let rs = Arc::new(Ruleset::builtin(ruleset).unwrap());
    let layout = Layout {
        orientation: if flat {
            Orientation::Flat
        } else {
            Orientation::Pointy
        },
        stagger: Stagger::Odd,
    };
    let mut m = Map::new("random", ruleset, rs.clone(), cols, rows, layout);
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n.max(1)
    };
    let hexes: Vec<Hex> = m.hexes().collect();
    let max_level = rs.levels.max.min(4) as u64;
    for &h in &hexes {
        let c = m.cell_mut(h).unwrap();
        c.terrain = if next(3) == 0 {
            next(rs.terrain.len() as u64) as u16
        } else {
            0
        };
        c.level = if next(3) == 0 {
            next(max_level + 1) as i32
        } else {
            0
        };
        c.slope = next(2) == 0;
    }
    if !rs.hexsides.is_empty() {
        for _ in 0..hexes.len() / 4 {
            let h = hexes[next(hexes.len() as u64) as usize];
            let n = h.neighbor(next(6) as usize);
            m.hexsides.insert(
                Side::new(h, n),
                HexsideFeature {
                    kind: next(rs.hexsides.len() as u64) as u16,
                    from: h,
                    extra: Default::default(),
                },
            );
        }
    }
    if !rs.markers.is_empty() {
        for _ in 0..hexes.len() / 10 {
            let h = hexes[next(hexes.len() as u64) as usize];
            let kind = next(rs.markers.len() as u64) as u16;
            if !m.markers.iter().any(|x| x.hex == h && x.kind == kind) {
                m.markers.push(Marker {
                    hex: h,
                    kind,
                    extra: Default::default(),
                });
            }
        }
    }
    m
}

fn pick(m: &Map, x: f64) -> Hex {
    m.hex_of(((x * m.len() as f64) as usize).min(m.len() - 1))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn los_is_reciprocal(ruleset in prop::sample::select(vec!["geometric", "combat-commander"]),
                         cols in 2u32..20, rows in 2u32..20, flat: bool, seed: u64, a in 0f64..1.0, b in 0f64..1.0) {
        let m = random_map(ruleset, cols, rows, flat, seed);
        let (x, y) = (pick(&m, a), pick(&m, b));
        let there = line_of_sight(&m, x, y);
        let back = line_of_sight(&m, y, x);
        prop_assert_eq!((there.verdict, there.hindrance), (back.verdict, back.hindrance), "{} {}", there.reason, back.reason);
    }

    #[test]
    fn a_hex_sees_itself_and_its_neighbours(ruleset in prop::sample::select(vec!["geometric", "combat-commander"]),
                                            cols in 2u32..20, rows in 2u32..20, flat: bool, seed: u64, a in 0f64..1.0) {
        let m = random_map(ruleset, cols, rows, flat, seed);
        let x = pick(&m, a);
        prop_assert!(line_of_sight(&m, x, x).verdict.sees());
        for n in x.neighbors() {
            if m.contains(n) {
                let r = line_of_sight(&m, x, n);
                prop_assert_eq!(r.verdict, Verdict::Clear, "{}", r.reason);
            }
        }
    }

    #[test]
    fn adding_an_obstacle_never_clears_a_blocked_line(ruleset in prop::sample::select(vec!["geometric", "combat-commander"]),
                                                      cols in 2u32..20, rows in 2u32..20, flat: bool, seed: u64,
                                                      a in 0f64..1.0, b in 0f64..1.0, c in 0f64..1.0, what in 0u8..4) {
        let m = random_map(ruleset, cols, rows, flat, seed);
        let (x, y) = (pick(&m, a), pick(&m, b));
        let before = line_of_sight(&m, x, y);
        let mut m2 = m.clone();
        let h = pick(&m, c);
        let rs = m.ruleset.clone();
        match what {
            0 => m2.cell_mut(h).unwrap().terrain = rs.terrain_index("woods").unwrap() as u16,
            1 => m2.cell_mut(h).unwrap().terrain = rs.terrain_index("building").unwrap() as u16,
            2 => {
                if let Some(k) = rs.marker_index("blaze") {
                    m2.markers.push(Marker { hex: h, kind: k as u16, extra: Default::default() });
                }
            }
            _ => {
                if let Some(k) = rs.hexside_index("hedge") {
                    let side = Side::new(h, h.neighbor((c * 600.0) as usize % 6));
                    m2.hexsides.insert(side, HexsideFeature { kind: k as u16, from: h, extra: Default::default() });
                }
            }
        }
        let after = line_of_sight(&m2, x, y);
        if before.verdict == Verdict::Blocked {
            prop_assert_eq!(after.verdict, Verdict::Blocked, "{} / {}", before.reason, after.reason);
        }
        prop_assert!(after.hindrance >= before.hindrance || after.verdict == Verdict::Blocked);
    }

    #[test]
    fn raising_a_hex_between_never_clears_a_geometric_line(cols in 2u32..20, rows in 2u32..20, flat: bool, seed: u64,
                                                          a in 0f64..1.0, b in 0f64..1.0, up in 1i32..4) {
        let m = random_map("geometric", cols, rows, flat, seed);
        let (x, y) = (pick(&m, a), pick(&m, b));
        let before = line_of_sight(&m, x, y);
        let between: Vec<Hex> = before.line.between().iter().filter_map(|s| match s.crossing { Crossing::Hex(h) => Some(h), _ => None }).filter(|h| m.contains(*h)).collect();
        if let Some(&h) = between.first() {
            let mut m2 = m.clone();
            m2.cell_mut(h).unwrap().level += up;
            let after = line_of_sight(&m2, x, y);
            if before.verdict == Verdict::Blocked {
                prop_assert_eq!(after.verdict, Verdict::Blocked);
            }
        }
    }
}
