//! The `geometric` family: pure 3-D sight lines over hex heights, as a GIS viewshed sees them.
//!
//! Heights are exact in thousandths of a level. A hex between the ends blocks when
//! its surface is strictly above the sight line somewhere in the stretch the line
//! spends inside it; the line is straight, so the lower end of that stretch decides.

use super::{Assessment, Effect, Event, Place, both_sides};
use crate::hex::{Crossing, Hex, HexLine, Ratio};
use crate::map::Map;

/// Heights are compared in thousandths of a level.
pub const MILLI: i64 = 1000;

const RULE: &str =
    "geometric: a hex blocks when its surface is strictly above the sight line inside it";

/// Converts a height in levels to thousandths of a level.
pub fn milli(levels: f64) -> i64 {
    (levels * MILLI as f64).round() as i64
}

/// Precomputed heights for the geometric family: eye heights and per-terrain heights.
#[derive(Clone, Debug)]
pub struct Heights {
    /// Observer eye above its ground, in thousandths of a level.
    pub observer_eye: i64,
    /// Target point above its ground.
    pub target_eye: i64,
    /// Terrain heights by terrain index.
    pub terrain: Vec<i64>,
}

impl Heights {
    /// Reads the ruleset's heights.
    pub fn of(map: &Map) -> Heights {
        let rs = &map.ruleset;
        Heights {
            observer_eye: milli(rs.param("observer_eye", 0.25)),
            target_eye: milli(rs.param("target_eye", 0.25)),
            terrain: rs.terrain.iter().map(|t| milli(t.height)).collect(),
        }
    }

    /// A hex's surface (ground plus terrain), if on the map.
    pub fn surface(&self, map: &Map, h: Hex) -> Option<i64> {
        map.cell(h)
            .map(|c| c.level as i64 * MILLI + self.terrain[c.terrain as usize])
    }
}

/// True when `surface` is strictly above the line (from `e0` at 0 to `e1` at 1) at `t`.
pub fn above(surface: i64, e0: i64, e1: i64, t: Ratio) -> bool {
    (surface as i128) * (t.den as i128)
        > (e0 as i128) * (t.den as i128) + ((e1 - e0) as i128) * (t.num as i128)
}

/// Judges a walked line.
pub fn assess(map: &Map, line: &HexLine) -> Assessment {
    let hs = Heights::of(map);
    let e0 = map.level(line.from) as i64 * MILLI + hs.observer_eye;
    let e1 = map.level(line.to) as i64 * MILLI + hs.target_eye;
    let blocks = |h: Hex, t0: Ratio, t1: Ratio| -> Option<Effect> {
        let s = hs.surface(map, h)?;
        (above(s, e0, e1, t0) || above(s, e0, e1, t1)).then_some(Effect::Block)
    };
    let describe = |h: Hex, t0: Ratio, t1: Ratio| -> String {
        let s = hs.surface(map, h).unwrap_or(0) as f64 / MILLI as f64;
        let at = |t: Ratio| (e0 as f64 + (e1 - e0) as f64 * t.to_f64()) / MILLI as f64;
        format!(
            "{} ({}) has its surface at {s:.2}, above the sight line at {:.2} ({RULE})",
            map.label(h),
            map.terrain(h).map_or("off map", |t| t.id.as_str()),
            at(t0).min(at(t1))
        )
    };
    let mut events = Vec::new();
    for step in line.between() {
        match step.crossing {
            Crossing::Hex(h) => {
                if blocks(h, step.t0, step.t1).is_some() {
                    events.push(Event {
                        at: step.t0,
                        place: Place::Hex(h),
                        effect: Effect::Block,
                        reason: describe(h, step.t0, step.t1),
                    });
                }
            }
            Crossing::Side(a, b) => {
                if both_sides(blocks(a, step.t0, step.t1), blocks(b, step.t0, step.t1))
                    == Some(Effect::Block)
                {
                    let reason = format!(
                        "the line runs along the hexside {}, and both sides rise above it: {}; {}",
                        map.side_label(a, b),
                        describe(a, step.t0, step.t1),
                        describe(b, step.t0, step.t1)
                    );
                    events.push(Event {
                        at: step.t0,
                        place: Place::AlongSide(a, b),
                        effect: Effect::Block,
                        reason,
                    });
                }
            }
            Crossing::Vertex(_) => {}
        }
    }
    Assessment {
        events,
        modifiers: Vec::new(),
        hindrance_limit: None,
    }
}
