//! Cross-checks the exact line walk against a slow reference built on `geo`'s
//! DE-9IM relate, on random pairs of hexes of random maps up to 60x60.
//!
//! Hexes and lines are given to `geo` in the layout's skewed integer coordinates,
//! an affine image of the real drawing in which every centre and corner is an
//! integer point, so the robust predicates decide collinear cases exactly.

use geo::coordinate_position::CoordPos;
use geo::dimensions::Dimensions;
use geo::{Contains, Line, LineString, Point, Polygon, Relate};
use hexsight_analysis::hex::{Crossing, Hex, HexLine, Layout, Orientation, Ratio, Stagger};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn polygon(layout: &Layout, h: Hex) -> Polygon<f64> {
    let mut pts: Vec<(f64, f64)> = layout
        .skewed_corners(h)
        .iter()
        .map(|&(x, y)| (x as f64, y as f64))
        .collect();
    pts.push(pts[0]);
    Polygon::new(LineString::from(pts), vec![])
}

/// What the reference says about one hex.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Touch {
    Interior,
    AlongSide,
    PointOnly,
    Nothing,
}

fn reference(layout: &Layout, line: &Line<f64>, h: Hex) -> Touch {
    let im = line.relate(&polygon(layout, h));
    if im.get(CoordPos::Inside, CoordPos::Inside) == Dimensions::OneDimensional {
        Touch::Interior
    } else if im.get(CoordPos::Inside, CoordPos::OnBoundary) == Dimensions::OneDimensional {
        Touch::AlongSide
    } else if im.get(CoordPos::Inside, CoordPos::OnBoundary) == Dimensions::ZeroDimensional {
        Touch::PointOnly
    } else {
        Touch::Nothing
    }
}

/// Checks one walk against the reference; returns a description of the first mismatch.
fn check(layout: Layout, a: Hex, b: Hex) -> Result<(), String> {
    let walk = HexLine::new(a, b);
    let (ax, ay) = layout.skewed_center(a);
    let (bx, by) = layout.skewed_center(b);
    let geo_line = Line::new((ax as f64, ay as f64), (bx as f64, by as f64));

    let mut interior = BTreeSet::new();
    let mut along = BTreeSet::new();
    let mut vertex = BTreeSet::new();
    for s in &walk.steps {
        match s.crossing {
            Crossing::Hex(h) => {
                interior.insert(h);
            }
            Crossing::Side(x, y) => {
                if !x.is_adjacent(y) {
                    return Err(format!("side stretch between non-adjacent {x:?} {y:?}"));
                }
                along.insert(x);
                along.insert(y);
            }
            Crossing::Vertex(v) => vertex.extend(v),
        }
    }
    // The walk covers [0, 1] with contiguous, increasing stretches.
    let mut t = Ratio::ZERO;
    for s in walk
        .steps
        .iter()
        .filter(|s| !matches!(s.crossing, Crossing::Vertex(_)))
    {
        if s.t0 != t || s.t1 <= s.t0 {
            return Err(format!("stretches not contiguous at {s:?}"));
        }
        t = s.t1;
        if let Crossing::Hex(h) = s.crossing {
            let m = s.t0.midpoint(s.t1).to_f64();
            let p = Point::new(
                ax as f64 + m * (bx - ax) as f64,
                ay as f64 + m * (by - ay) as f64,
            );
            if !polygon(&layout, h).contains(&p) {
                return Err(format!("midpoint of the stretch in {h:?} is not inside it"));
            }
        }
    }
    if t != Ratio::ONE {
        return Err("walk does not reach the target".into());
    }
    let point_only: BTreeSet<Hex> = vertex
        .iter()
        .filter(|h| !interior.contains(h) && !along.contains(h))
        .copied()
        .collect();

    // Candidates: every reported hex and its neighbours (complete, since the hexes a
    // line meets form a chain of neighbours starting at `a`).
    let mut candidates: BTreeSet<Hex> = interior.iter().chain(along.iter()).copied().collect();
    for h in candidates.clone() {
        candidates.extend(h.neighbors());
    }
    for h in candidates {
        let expected = reference(&layout, &geo_line, h);
        let got = if interior.contains(&h) {
            Touch::Interior
        } else if along.contains(&h) {
            Touch::AlongSide
        } else if point_only.contains(&h) {
            Touch::PointOnly
        } else {
            Touch::Nothing
        };
        let agrees = expected == got;
        if !agrees {
            return Err(format!(
                "{a:?}->{b:?} hex {h:?}: walk says {got:?}, geo says {expected:?}"
            ));
        }
    }
    Ok(())
}

fn layout_of(o: bool, s: bool) -> Layout {
    Layout {
        orientation: if o {
            Orientation::Flat
        } else {
            Orientation::Pointy
        },
        stagger: if s { Stagger::Odd } else { Stagger::Even },
    }
}

#[test]
fn every_offset_up_to_distance_nine_matches_the_reference() {
    for layout in [layout_of(true, true), layout_of(false, true)] {
        let a = Hex::new(0, 0);
        for q in -9..=9 {
            for r in -9..=9 {
                let b = Hex::new(q, r);
                if a.distance(b) <= 9 {
                    check(layout, a, b).unwrap();
                }
            }
        }
    }
}

#[test]
fn lines_along_hexsides_and_through_vertices_are_found() {
    // Axial (2, 2) is the vertex direction: two hexside stretches, three vertices.
    let w = HexLine::new(Hex::new(0, 0), Hex::new(2, 2));
    let sides = w
        .steps
        .iter()
        .filter(|s| matches!(s.crossing, Crossing::Side(..)))
        .count();
    let vertices = w
        .steps
        .iter()
        .filter(|s| matches!(s.crossing, Crossing::Vertex(_)))
        .count();
    assert_eq!((sides, vertices), (2, 4));
    check(layout_of(true, true), Hex::new(0, 0), Hex::new(2, 2)).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn random_pairs_on_maps_up_to_60x60_match_the_reference(
        cols in 1i32..=60, rows in 1i32..=60, flat: bool, odd: bool,
        c1 in 0f64..1.0, r1 in 0f64..1.0, c2 in 0f64..1.0, r2 in 0f64..1.0,
    ) {
        let layout = layout_of(flat, odd);
        let pick = |c: f64, r: f64| layout.hex_at((c * cols as f64) as i32, (r * rows as f64) as i32);
        let (a, b) = (pick(c1, r1), pick(c2, r2));
        prop_assert_eq!(check(layout, a, b), Ok(()));
    }
}
