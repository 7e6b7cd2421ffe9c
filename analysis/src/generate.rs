//! Synthetic but plausible terrain for benchmarks, demos and randomised tests:
//! rounded hills (with slope hexes where they fall), woods in clumps, villages,
//! scattered brush and marsh, hedgerows along hexsides and a few markers.
//!
//! The same seed gives the same map on every machine (own generator, no floats
//! that depend on the platform beyond IEEE arithmetic).

use crate::error::{Error, ErrorKind, Result};
use crate::hex::{Hex, Layout, Side};
use crate::map::{HexsideFeature, Map, Marker};
use crate::rules::{LosEffect, Ruleset};
use std::sync::Arc;

/// What to generate.
#[derive(Clone, Debug)]
pub struct Generator {
    /// Columns.
    pub cols: u32,
    /// Rows.
    pub rows: u32,
    /// Seed of the random generator.
    pub seed: u64,
    /// Built-in ruleset name.
    pub ruleset: String,
    /// Orientation and stagger.
    pub layout: Layout,
    /// More hedges, markers and slopes than a real map has, for tests.
    pub dense: bool,
}

/// A small, stable random generator (SplitMix64), seeded by its field.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * u64::from(n.max(1))) >> 32) as u32
    }
    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Terrain indices the generator uses, found by id or by LOS effect.
struct Palette {
    open: u16,
    woods: Option<u16>,
    building: Option<u16>,
    brush: Option<u16>,
    orchard: Option<u16>,
    marsh: Option<u16>,
}

impl Palette {
    fn of(rs: &Ruleset) -> Palette {
        let id = |name: &str| rs.terrain_index(name).map(|i| i as u16);
        let by = |f: &dyn Fn(&LosEffect) -> bool| {
            rs.terrain.iter().position(|t| f(&t.los)).map(|i| i as u16)
        };
        let obstacle = by(&|l| *l == LosEffect::Obstacle);
        let hindrance = by(&|l| matches!(l, LosEffect::Hindrance(_)));
        Palette {
            open: id("open").or(by(&|l| *l == LosEffect::Clear)).unwrap_or(0),
            woods: id("woods").or(obstacle),
            building: id("building").or(obstacle),
            brush: id("brush").or(hindrance),
            orchard: id("orchard"),
            marsh: id("marsh"),
        }
    }
}

/// Builds the map.
pub fn generate(g: &Generator) -> Result<Map> {
    let rs = Ruleset::builtin(&g.ruleset).ok_or_else(|| {
        Error::new(
            ErrorKind::Query,
            format!(
                "unknown ruleset `{}` (built in: {})",
                g.ruleset,
                Ruleset::builtin_names().join(", ")
            ),
        )
    })?;
    if g.cols == 0
        || g.rows == 0
        || u64::from(g.cols) * u64::from(g.rows) > crate::map::file::MAX_HEXES
    {
        return Err(Error::new(
            ErrorKind::Query,
            format!(
                "{}x{} is not a map size hexsight handles (1 to {} hexes)",
                g.cols,
                g.rows,
                crate::map::file::MAX_HEXES
            ),
        ));
    }
    let rs = Arc::new(rs);
    let name = format!(
        "Generated {}x{} {} (seed {})",
        g.cols, g.rows, g.ruleset, g.seed
    );
    let mut map = Map::new(&name, &g.ruleset, rs.clone(), g.cols, g.rows, g.layout);
    let mut rng = Rng(g.seed ^ 0x6865_7873_6967_6874);
    let pal = Palette::of(&rs);
    let n = map.len();
    let lmin = rs.levels.min.max(0);
    let lmax = rs
        .levels
        .max
        .min(lmin + crate::rules::registry::entry(rs.family).hill_levels());
    let pos: Vec<(f64, f64)> = map.hexes().map(|h| map.layout.center(h, 1.0)).collect();
    let (w, hgt) = (g.cols as f64 * 1.5, g.rows as f64 * 1.8);

    // Hills: rounded cones; a hex takes the highest hill over it.
    // A few hills on mostly level ground, as on most wargame maps.
    let hills: Vec<Hill> = (0..1 + n / 300)
        .map(|_| {
            let (cx, cy) = (rng.unit() * w, rng.unit() * hgt);
            let radius = 2.0 + rng.unit() * (g.cols.min(g.rows) as f64 / 5.0 + 3.0);
            let top = 0.6 + rng.unit() * f64::from(lmax - lmin) + 0.5;
            Hill {
                cx,
                cy,
                radius,
                top,
            }
        })
        .collect();
    let elev = elevations(&pos, &hills);
    for (i, e) in elev.iter().enumerate() {
        let level = (lmin + *e as i32).min(lmax);
        let h = map.hex_of(i);
        map.cell_mut(h).expect("on map").level = level;
    }
    let levels: Vec<i32> = map.cells().iter().map(|c| c.level).collect();
    let neighbours = |map: &Map, i: usize| -> Vec<usize> {
        map.hex_of(i)
            .neighbors()
            .iter()
            .filter_map(|h| map.index(*h))
            .collect()
    };
    // Slope hexes: a hill hex next to lower ground (Combat Commander draws them).
    for i in 0..n {
        let low = neighbours(&map, i).iter().any(|&j| levels[j] < levels[i]);
        let h = map.hex_of(i);
        map.cell_mut(h).expect("on map").slope = levels[i] > lmin && low;
    }

    let set = |map: &mut Map, i: usize, t: Option<u16>| {
        if let Some(t) = t {
            let h = map.hex_of(i);
            map.cell_mut(h).expect("on map").terrain = t;
        }
    };
    for i in 0..n {
        set(&mut map, i, Some(pal.open));
    }
    // Clumps grown by random walks from a seed hex.
    let clump = |map: &mut Map, rng: &mut Rng, t: Option<u16>, size: u32| {
        let mut i = rng.below(n as u32) as usize;
        for _ in 0..size {
            set(map, i, t);
            let nb = neighbours(map, i);
            if nb.is_empty() {
                break; // a one-hex map
            }
            i = nb[rng.below(nb.len() as u32) as usize];
        }
    };
    let area = n as u32;
    for _ in 0..(area / 45).max(1) {
        let size = 3 + rng.below(14);
        clump(&mut map, &mut rng, pal.woods, size);
    }
    for _ in 0..(area / 150).max(1) {
        let size = 2 + rng.below(5);
        clump(&mut map, &mut rng, pal.brush, size);
    }
    if pal.orchard.is_some() {
        for _ in 0..(area / 300).max(1) {
            clump(&mut map, &mut rng, pal.orchard, 3);
        }
    }
    // Villages: buildings scattered round a centre.
    for _ in 0..(area / 350).max(1) {
        let c = map.hex_of(rng.below(area) as usize);
        for dq in -2..=2 {
            for dr in -2..=2 {
                let h = c + Hex::new(dq, dr);
                if c.distance(h) <= 2
                    && rng.below(100) < 45
                    && let Some(i) = map.index(h)
                {
                    set(&mut map, i, pal.building);
                }
            }
        }
    }
    // Marsh in some low, open hexes.
    if pal.marsh.is_some() {
        for _ in 0..(area / 250).max(1) {
            let i = rng.below(area) as usize;
            if levels[i] == lmin && map.cells()[i].terrain == pal.open {
                set(&mut map, i, pal.marsh);
            }
        }
    }
    // Hedgerows: runs of hexsides zig-zagging across open fields.
    if !rs.hexsides.is_empty() {
        let hedge = rs.hexside_index("hedge").unwrap_or(0) as u16;
        let wall = rs.hexside_index("wall").unwrap_or(hedge as usize) as u16;
        let runs = (area / if g.dense { 25 } else { 60 }).max(1);
        for _ in 0..runs {
            let mut h = map.hex_of(rng.below(area) as usize);
            let dir = rng.below(6) as usize;
            let kind = if rng.below(5) == 0 { wall } else { hedge };
            let len = 2 + rng.below(7);
            for k in 0..len {
                let other = h.neighbor(dir);
                if map.contains(h) {
                    map.hexsides
                        .entry(Side::new(h, other))
                        .or_insert(HexsideFeature {
                            kind,
                            from: h,
                            extra: Default::default(),
                        });
                }
                h = h.neighbor(if k % 2 == 0 {
                    (dir + 1) % 6
                } else {
                    (dir + 2) % 6
                });
            }
        }
    }
    // Markers: a few smoke and blaze counters where the terrain allows them.
    if !rs.markers.is_empty() {
        let count = if g.dense {
            (area / 12).max(2)
        } else {
            (area / 400).max(1)
        };
        for _ in 0..count {
            let i = rng.below(area) as usize;
            let kind = rng.below(rs.markers.len() as u32) as u16;
            let h = map.hex_of(i);
            let t = map.terrain(h).expect("on map");
            if t.forbids_markers.contains(&rs.markers[kind as usize].id)
                || map.markers_at(h).any(|m| m.kind == kind)
            {
                continue;
            }
            map.markers.push(Marker {
                hex: h,
                kind,
                extra: Default::default(),
            });
        }
    }
    if g.dense {
        // Extra slope hexes and level changes in odd places, to exercise every rule.
        for _ in 0..(area / 10) {
            let i = rng.below(area) as usize;
            let h = map.hex_of(i);
            let c = map.cell_mut(h).expect("on map");
            c.slope = !c.slope;
            if rng.below(3) == 0 {
                c.level = (lmin + rng.below((lmax - lmin + 1) as u32) as i32).min(lmax);
            }
        }
    }
    if map.ruleset.spotting.is_some() {
        // Spotting ranges are lengths: such rulesets need a scale (5 cm hexes, as on
        // the bundled spotting table).
        map.scale = Some(crate::map::Scale {
            hex: 5.0,
            unit: "cm".into(),
            extra: Default::default(),
        });
    }
    Ok(map)
}

/// A rounded cone: `top * (1 - d^2)` at `d` radii from its centre, nothing beyond.
struct Hill {
    cx: f64,
    cy: f64,
    radius: f64,
    top: f64,
}

impl Hill {
    /// The hill's height at `(x, y)`, or `None` off it.
    fn at(&self, x: f64, y: f64) -> Option<f64> {
        let d = ((x - self.cx).powi(2) + (y - self.cy).powi(2)).sqrt() / self.radius;
        (d < 1.0).then_some(self.top * (1.0 - d * d))
    }
}

/// Each hex's elevation at its centre `pos`: the highest hill over it, or 0.
///
/// The hexes are bucketed by centre into squares, and each hill looks only at the
/// squares its circle's box overlaps (widened by a square against rounding), so the
/// cost follows the hexes the hills cover, not every hex once per hill (a 2000x2000
/// map has 13,334 hills). The heights are the same, taken with the same arithmetic.
fn elevations(pos: &[(f64, f64)], hills: &[Hill]) -> Vec<f64> {
    const SQUARE: f64 = 4.0;
    let mut elev = vec![0.0f64; pos.len()];
    if pos.is_empty() {
        return elev;
    }
    let (x0, y0) = pos
        .iter()
        .fold((f64::MAX, f64::MAX), |(a, b), &(x, y)| (a.min(x), b.min(y)));
    let square = |v: f64, v0: f64| ((v - v0) / SQUARE).floor().max(0.0) as usize;
    let (nx, ny) = pos.iter().fold((1, 1), |(a, b), &(x, y)| {
        (a.max(square(x, x0) + 1), b.max(square(y, y0) + 1))
    });
    // The hexes of each square, as ranges of one list (square by square).
    let mut start = vec![0u32; nx * ny + 1];
    for &(x, y) in pos {
        start[square(y, y0) * nx + square(x, x0) + 1] += 1;
    }
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
    let mut fill = start.clone();
    let mut hexes = vec![0u32; pos.len()];
    for (i, &(x, y)) in pos.iter().enumerate() {
        let k = square(y, y0) * nx + square(x, x0);
        hexes[fill[k] as usize] = i as u32;
        fill[k] += 1;
    }
    for hill in hills {
        let r = hill.radius + SQUARE;
        let (xa, xb) = (square(hill.cx - r, x0), square(hill.cx + r, x0).min(nx - 1));
        let (ya, yb) = (square(hill.cy - r, y0), square(hill.cy + r, y0).min(ny - 1));
        for sy in ya..=yb {
            let row = &start[sy * nx..];
            let (from, to) = (row[xa.min(nx - 1)], row[xb + 1]);
            for &i in &hexes[from as usize..to as usize] {
                let (x, y) = pos[i as usize];
                if let Some(h) = hill.at(x, y) {
                    elev[i as usize] = elev[i as usize].max(h);
                }
            }
        }
    }
    elev
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_maps_generate() {
        for (cols, rows) in [(1, 1), (1, 5), (5, 1), (2, 2)] {
            for rs in ["geometric", "combat-commander"] {
                let g = Generator {
                    cols,
                    rows,
                    seed: 2,
                    ruleset: rs.into(),
                    layout: Layout::default(),
                    dense: true,
                };
                assert_eq!(generate(&g).unwrap().len(), (cols * rows) as usize);
            }
        }
    }

    /// The bucketed elevations equal every hill tried on every hex, bit for bit, on
    /// maps of both orientations, with hills on, across and off their edges.
    #[test]
    fn elevations_equal_every_hill_on_every_hex() {
        for orientation in [
            crate::hex::Orientation::Flat,
            crate::hex::Orientation::Pointy,
        ] {
            let layout = Layout {
                orientation,
                ..Layout::default()
            };
            let map = Map::new(
                "t",
                "geometric",
                Arc::new(Ruleset::builtin("geometric").unwrap()),
                37,
                23,
                layout,
            );
            let pos: Vec<(f64, f64)> = map.hexes().map(|h| map.layout.center(h, 1.0)).collect();
            let mut rng = Rng(5);
            let hills: Vec<Hill> = (0..60)
                .map(|_| Hill {
                    cx: rng.unit() * 80.0 - 10.0,
                    cy: rng.unit() * 60.0 - 10.0,
                    radius: 0.5 + rng.unit() * 12.0,
                    top: 1.0 + rng.unit() * 5.0,
                })
                .collect();
            let want: Vec<f64> = pos
                .iter()
                .map(|&(x, y)| hills.iter().filter_map(|h| h.at(x, y)).fold(0.0, f64::max))
                .collect();
            let got = elevations(&pos, &hills);
            assert!(want.iter().any(|&e| e > 0.0), "some hill is on the map");
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                assert_eq!(a.to_bits(), b.to_bits(), "{orientation:?} hex {i}");
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_map_and_it_round_trips() {
        for rs in ["geometric", "combat-commander"] {
            let g = Generator {
                cols: 20,
                rows: 15,
                seed: 7,
                ruleset: rs.into(),
                layout: Layout::default(),
                dense: false,
            };
            let a = generate(&g).unwrap();
            let b = generate(&g).unwrap();
            assert_eq!(a.to_json(), b.to_json());
            let back = Map::from_json(&a.to_json(), std::path::Path::new("gen.json")).unwrap();
            assert_eq!(back.to_json(), a.to_json());
            assert!(a.cells().iter().any(|c| c.level > 0), "{rs}: no hills");
            assert!(a.cells().iter().any(|c| c.terrain != 0), "{rs}: no terrain");
        }
    }
}
