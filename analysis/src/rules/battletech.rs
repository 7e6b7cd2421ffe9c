//! The `battletech` family: Total Warfare line of sight over levels, woods, buildings
//! and water, with units two levels ('Mechs) or one level (vehicles, infantry) tall.
//!
//! How the rules are read (each verdict cites the Total Warfare section, "TW, Line of
//! Sight: ..."; the README's `battletech` section lists the same readings):
//! - Heights: an end's height is its hex's level plus 1 for a standing 'Mech (two
//!   levels tall) and plus 0 for a vehicle, infantry or a prone 'Mech (one level
//!   tall). An end hex without units is read as a standing 'Mech. With several units
//!   in one end hex the tallest counts. A hex's level is the board's elevation, which
//!   for water is the surface; a 'Mech in water stands on the bottom (level - depth),
//!   so in depth 1 its height is the surface's level; other units float at the surface.
//! - An intervening hex blocks when its level is *higher* than both ends' heights (TW,
//!   Line of Sight: Intervening Terrain, levels): equal does not block, so two 'Mechs on
//!   level ground see over a level-1 hill that hides two vehicles from each other.
//! - Terrain adds to a hex's level for this purpose: woods are 2 levels tall and a
//!   building its own height (terrain `height`). A building rising higher than both ends
//!   blocks (TW, Buildings); woods rising higher than both ends hinder, light +1 and
//!   heavy +2 (TW, Woods), and 3 or more points of intervening woods block (TW, Line of
//!   Sight: Woods, ruleset param `woods_block`). Only intervening hexes count: woods in
//!   the target's hex are a to-hit modifier, not a LOS effect.
//! - Water (terrain tagged `water-depth-N`) has no LOS effect of its own between the
//!   ends. A 'Mech in depth 2+ water is submerged: a line to or from it is blocked
//!   (TW, Underwater: hexsight does not model underwater combat, so a submerged unit
//!   neither sees nor is seen, even by another submerged unit).
//! - A line exactly along a hexside (TW, Line of Sight: Divided Hexes) takes the side
//!   more favourable to the defender: it is blocked when either hex would block it and
//!   hindered by the larger hindrance. Every rule is symmetric in its two ends, so the
//!   answer is reciprocal.

use super::kernel::{At, End, Explained, LineEvent, Notes, Span, What};
use super::units::{self, Problem};
use super::{Assessment, Effect, LosEffect};
use crate::hex::{Hex, HexLine};
use crate::map::Map;

/// The ruleset's tags for water depths 1, 2, ... (a kernel is built for every query,
/// so the names are not formatted each time).
const DEPTH_TAGS: [&str; 9] = [
    "water-depth-1",
    "water-depth-2",
    "water-depth-3",
    "water-depth-4",
    "water-depth-5",
    "water-depth-6",
    "water-depth-7",
    "water-depth-8",
    "water-depth-9",
];

/// What the Total Warfare rules read in a hex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cell {
    /// On the map (off it nothing acts).
    pub on_map: bool,
    /// The hex's level: ground, or the water's surface.
    pub level: i32,
    /// How far the terrain rises above the level (woods 2, a building its height).
    pub height: i32,
    /// The terrain's LOS effect when it rises above both ends (`None` for clear).
    pub terrain: Option<LosEffect>,
    /// Water depth (0 on dry ground).
    pub depth: u8,
    /// The tallest unit here is two levels tall (a standing 'Mech, or no unit at all).
    pub tall: bool,
}

impl Cell {
    /// The height of a unit standing in this hex, for LOS (TW: a 'Mech's height is
    /// its level + 1; in water a 'Mech stands on the bottom).
    pub fn unit_height(&self) -> i32 {
        match (self.tall, self.depth) {
            (true, d) => self.level - i32::from(d) + 1,
            (false, _) => self.level,
        }
    }

    /// A 'Mech in depth 2+ water is under the surface.
    pub fn submerged(&self) -> bool {
        self.on_map && self.tall && self.depth >= 2
    }
}

/// The ends of a line: their heights, and whether one of them is under water.
#[derive(Clone, Copy, Debug)]
pub struct Ends {
    /// The observer's height.
    pub from: i32,
    /// The target's height.
    pub to: i32,
    /// The higher of the two, which every rule compares against.
    pub high: i32,
    /// Which ends are submerged (observer, target); never set for a hex to itself.
    pub submerged: (bool, bool),
}

/// The Total Warfare sight rule.
pub struct Kernel<'m> {
    map: &'m Map,
    /// Water depth per terrain index.
    depth: Vec<u8>,
    /// Per hex with units: the tallest is two levels tall.
    tall: std::collections::HashMap<Hex, bool>,
}

impl<'m> Kernel<'m> {
    /// The kernel for a map.
    pub fn new(map: &'m Map) -> Self {
        let rs = &map.ruleset;
        let depth = rs
            .terrain
            .iter()
            .map(|t| {
                DEPTH_TAGS
                    .iter()
                    .rposition(|tag| units::tagged(rs, tag, &t.id))
                    .map_or(0, |d| d as u8 + 1)
            })
            .collect();
        let mut tall = std::collections::HashMap::new();
        for u in &map.units {
            let t =
                units::kind_has(map, u, "two-levels-tall") && !units::state_has(map, u, "prone");
            *tall.entry(u.hex).or_insert(false) |= t;
        }
        Kernel { map, depth, tall }
    }

    fn names(&self, e: &Ends) -> String {
        format!("heights {} and {}", e.from, e.to)
    }
}

impl super::kernel::Kernel for Kernel<'_> {
    type Cell = Cell;
    type Side = ();
    type Ends = Ends;

    fn map(&self) -> &Map {
        self.map
    }

    fn cell(&self, h: Hex) -> Cell {
        let map = self.map;
        let c = map.cell(h).expect("on the map");
        let t = &map.ruleset.terrain[c.terrain as usize];
        Cell {
            on_map: true,
            level: c.level,
            height: t.height.round() as i32,
            terrain: (t.los != LosEffect::Clear).then_some(t.los),
            depth: self.depth[c.terrain as usize],
            tall: self.tall.get(&h).copied().unwrap_or(true),
        }
    }

    fn side(&self, _: Hex, _: Hex) {}

    #[inline]
    fn ends(&self, a: End<Cell>, b: End<Cell>) -> Ends {
        let (from, to) = (a.cell.unit_height(), b.cell.unit_height());
        let same = a.hex == b.hex;
        Ends {
            from,
            to,
            high: from.max(to),
            submerged: (!same && a.cell.submerged(), !same && b.cell.submerged()),
        }
    }

    /// An intervening hex: its level, then what its terrain adds to it.
    #[inline]
    fn hex<N: Notes>(&self, e: &Ends, c: &Cell, at: At, n: &mut N) {
        if !c.on_map {
            return;
        }
        let map = self.map;
        let label = || map.label(at.hex);
        if c.level > e.high {
            return n.note(What::Hex, Effect::Block, false, || {
                format!(
                    "the level-{} ground in {} is higher than both ends ({}) (TW, Line of Sight: Intervening Terrain)",
                    c.level,
                    label(),
                    self.names(e)
                )
            });
        }
        let top = c.level + c.height;
        if top <= e.high {
            return;
        }
        let id = || map.terrain(at.hex).map_or(String::new(), |t| t.id.clone());
        match c.terrain {
            Some(LosEffect::Obstacle) => n.note(What::Hex, Effect::Block, false, || {
                format!(
                    "the {} in {} rises to level {top}, higher than both ends ({}) (TW, Line of Sight: Buildings)",
                    id(),
                    label(),
                    self.names(e)
                )
            }),
            Some(LosEffect::Hindrance(v)) => n.note(What::Hex, Effect::Hinder(v), false, || {
                format!(
                    "{} in {} rises to level {top}, higher than both ends ({}): +{v} intervening woods (TW, Line of Sight: Woods)",
                    id(),
                    label(),
                    self.names(e)
                )
            }),
            _ => {}
        }
    }

    /// Divided hexes: the defender takes the side that serves it better, i.e. the one
    /// that does more to the line.
    fn along<N: Notes>(&self, _: &Ends, x: &N, y: &N) -> Option<Effect> {
        worse(x.all().effect(), y.all().effect())
    }

    fn along_reason(&self, a: Hex, b: Hex, x: &Explained, y: &Explained, _: Effect) -> String {
        let map = self.map;
        format!(
            "the line runs exactly along the hexside {}, so the hex more favourable to the defender counts (TW, Line of Sight: Divided Hexes); {}: {}; {}: {}",
            map.side_label(a, b),
            map.label(a),
            x.text("no effect"),
            map.label(b),
            y.text("no effect")
        )
    }

    fn needs_line(&self, e: &Ends) -> bool {
        e.submerged.0 || e.submerged.1
    }

    /// A submerged end: the line is blocked at that end.
    fn line(&self, e: &Ends, spans: &[Span<Cell>], explain: bool, out: &mut dyn FnMut(LineEvent)) {
        let ends = [(false, e.submerged.0), (true, e.submerged.1)];
        for (at_target, sub) in ends {
            if !sub {
                continue;
            }
            let reason = if explain {
                let span = if at_target {
                    spans.last()
                } else {
                    spans.first()
                };
                let (hex, depth) = span.map_or((Hex::new(0, 0), 0), |s| (s.a, s.cells[0].depth));
                format!(
                    "the 'Mech in {} stands in depth-{depth} water and is submerged; hexsight does not model underwater combat, so no LOS to or from it (TW, Underwater Combat)",
                    self.map.label(hex)
                )
            } else {
                String::new()
            };
            out(LineEvent {
                at_target,
                effect: Effect::Block,
                reason,
            });
        }
    }

    fn hindrance_limit(&self) -> Option<u32> {
        Some(self.map.ruleset.param("woods_block", 3.0) as u32)
    }

    /// Every rule compares with the higher end's height only.
    #[inline]
    fn level_key(&self, e: &Ends) -> Option<i32> {
        (!self.needs_line(e)).then_some(e.high)
    }

    /// A standing 'Mech's height is one above its ground; one in depth-1 water
    /// stands at the surface's level, and deeper ones are submerged (no key).
    fn key_range(&self, lo: i32, hi: i32) -> (i32, i32) {
        (lo, hi.saturating_add(1))
    }

    fn keyed_ends(&self, level: i32) -> Option<Ends> {
        Some(Ends {
            from: level,
            to: level,
            high: level,
            submerged: (false, false),
        })
    }

    fn reciprocal(&self) -> bool {
        true
    }

    #[inline]
    fn top(&self, c: &Cell) -> i64 {
        i64::from(c.level + c.height) * 1000
    }

    #[inline]
    fn eye(&self, c: &Cell) -> i64 {
        i64::from(c.unit_height()) * 1000
    }
}

/// The side that does more to a line: a block, else the larger hindrance.
pub fn worse(a: Option<Effect>, b: Option<Effect>) -> Option<Effect> {
    match (a, b) {
        (Some(Effect::Block), _) | (_, Some(Effect::Block)) => Some(Effect::Block),
        (Some(Effect::Hinder(x)), Some(Effect::Hinder(y))) => Some(Effect::Hinder(x.max(y))),
        (Some(e), None) | (None, Some(e)) => Some(e),
        (None, None) => None,
    }
}

/// Judges a walked line between hexes.
pub fn assess(map: &Map, line: &HexLine) -> Assessment {
    super::kernel::explain(&Kernel::new(map), line)
}

/// Units of unknown kinds or states; the family has no other unit rules.
pub fn unit_problems(map: &Map) -> Vec<Problem> {
    units::unknown(map).0
}
