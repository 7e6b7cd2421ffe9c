//! Random maps with every family's content, for the engine's cross-checks: the
//! generator's terrain plus depressions (winding streams and gullies), crest
//! units and standing and prone units, so every kernel rule is exercised.

use crate::generate::{Generator, Rng, generate};
use crate::hex::{Hex, Layout, Orientation, Stagger};
use crate::map::{Map, Marker, Unit};
use crate::rules::registry::{BUILTIN, Builtin};

/// Every built-in family's ruleset, for the engine's cross-checks: a family
/// registered in [`crate::rules::registry::BUILTIN`] is checked by all of them.
pub const FAMILIES: Families = Families;

/// The built-in rulesets' names, in registry order (`for rs in FAMILIES`).
#[derive(Clone, Copy)]
pub struct Families;

impl IntoIterator for Families {
    type Item = &'static str;
    type IntoIter =
        std::iter::Map<std::slice::Iter<'static, Builtin>, fn(&Builtin) -> &'static str>;
    fn into_iter(self) -> Self::IntoIter {
        let name: fn(&Builtin) -> &'static str = |b| b.name;
        BUILTIN.iter().map(name)
    }
}

/// A small random map of `ruleset` (flat or pointy, odd or even stagger by `seed`)
/// with depressions and units where the family has them.
pub fn random_map(ruleset: &str, seed: u64, cols: u32, rows: u32) -> Map {
    let layout = Layout {
        orientation: if seed.is_multiple_of(2) {
            Orientation::Flat
        } else {
            Orientation::Pointy
        },
        stagger: if seed % 4 < 2 {
            Stagger::Odd
        } else {
            Stagger::Even
        },
    };
    let g = Generator {
        cols,
        rows,
        seed,
        ruleset: ruleset.to_string(),
        layout,
        dense: true,
    };
    let mut map = generate(&g).expect("a generated map");
    let mut rng = Draw(Rng(seed.wrapping_mul(0x9e37_79b9) ^ 17));
    let n = map.len() as u32;
    let rs = map.ruleset.clone();
    // Depressions: random walks of depression terrain.
    let depressions: Vec<u16> = rs
        .tags
        .get("depression")
        .map(|ids| {
            ids.iter()
                .filter_map(|id| rs.terrain_index(id).map(|i| i as u16))
                .collect()
        })
        .unwrap_or_default();
    if !depressions.is_empty() {
        for _ in 0..(n / 40).max(2) {
            let kind = depressions[rng.below(depressions.len() as u32) as usize];
            let mut h = map.hex_of(rng.below(n) as usize);
            for _ in 0..(4 + rng.below(10)) {
                if let Some(c) = map.cell_mut(h) {
                    c.terrain = kind;
                }
                h = h.neighbor(rng.below(6) as usize);
            }
        }
    }
    // BattleTech: every terrain of the table somewhere (woods of each weight, water of
    // each depth, buildings of each height), which the generator's palette leaves out.
    let battletech = rs.family.name() == "battletech";
    if battletech {
        for _ in 0..n / 4 {
            let h = map.hex_of(rng.below(n) as usize);
            let t = rng.below(rs.terrain.len() as u32) as u16;
            if let Some(c) = map.cell_mut(h) {
                c.terrain = t;
            }
        }
        // A lake of mixed depths, so that submerged hexes see each other underwater.
        let water: Vec<u16> = (0..rs.terrain.len() as u16)
            .filter(|&t| rs.terrain[t as usize].id.starts_with("water-"))
            .collect();
        let mut h = map.hex_of(rng.below(n) as usize);
        for _ in 0..(n / 12).max(4) {
            if let Some(c) = map.cell_mut(h) {
                c.terrain = water[rng.below(water.len().min(4) as u32) as usize];
            }
            h = h.neighbor(rng.below(6) as usize);
        }
        // Smoke of each weight, some of it over woods (the generator places some too).
        for _ in 0..(n / 10).max(2) {
            map.markers.push(Marker {
                hex: map.hex_of(rng.below(n) as usize),
                kind: rng.below(rs.markers.len() as u32) as u16,
                extra: Default::default(),
            });
        }
        // None over low foliage: there woods (1 level) and smoke (2) hinder by
        // different amounts at different keys, which no bounds hold, so such a map is
        // walked without the level sweep (tests/rules_battletech.rs has one); here
        // the sweep is checked.
        // Nor two of one kind in a hex, which no map file may hold.
        let low = |m: &Map, h: Hex| m.terrain(h).is_some_and(|t| t.id.ends_with("-low"));
        let markers = std::mem::take(&mut map.markers);
        let mut seen = std::collections::HashSet::new();
        map.markers = markers
            .into_iter()
            .filter(|m| !low(&map, m.hex) && seen.insert((m.hex, m.kind)))
            .collect();
    }
    // Units: two sides, kinds and states from the tables (crest units in depressions).
    if !rs.unit_kinds.is_empty() {
        let depression_hexes: Vec<Hex> = map
            .hexes()
            .filter(|&h| {
                map.cell(h)
                    .is_some_and(|c| depressions.contains(&c.terrain))
            })
            .collect();
        for k in 0..(n / 6).max(4) {
            let crest = rs.unit_states.iter().position(|s| s.has("crest"));
            let (hex, state) = match crest {
                Some(c) if !depression_hexes.is_empty() && rng.below(2) == 0 => (
                    depression_hexes[rng.below(depression_hexes.len() as u32) as usize],
                    c,
                ),
                _ => (
                    map.hex_of(rng.below(n) as usize),
                    rng.below(rs.unit_states.len() as u32) as usize,
                ),
            };
            map.units.push(Unit {
                id: format!("u{k}"),
                hex,
                side: ["blue", "red", "green"][rng.below(3) as usize].to_string(),
                kind: rs.unit_kinds[rng.below(rs.unit_kinds.len() as u32) as usize]
                    .id
                    .clone(),
                state: rs.unit_states[state].id.clone(),
                facing: Some(rng.below(6) as usize),
                extra: Default::default(),
            });
            // BattleTech: hills right next to units, and units in water.
            if battletech {
                let next = hex.neighbor(rng.below(6) as usize);
                let rise = 1 + rng.below(3) as i32;
                if let Some(c) = map.cell_mut(next) {
                    c.level = (c.level + rise).min(rs.levels.max);
                }
                if rng.below(4) == 0
                    && let Some(c) = map.cell_mut(hex)
                {
                    c.terrain = rs
                        .terrain_index(["water-1", "water-2", "water-3"][rng.below(3) as usize])
                        .expect("battletech water") as u16;
                }
            }
        }
    }
    map
}

/// Uniform draws from the generator's source.
struct Draw(Rng);

impl Draw {
    /// Uniform in `0..n`.
    fn below(&mut self, n: u32) -> u32 {
        (((self.0.next() >> 32) * u64::from(n.max(1))) >> 32) as u32
    }
}
