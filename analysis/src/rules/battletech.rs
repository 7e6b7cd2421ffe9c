//! The `battletech` family: Total Warfare line of sight over levels, woods, smoke,
//! buildings and water, with units two levels ('Mechs) or one level (vehicles,
//! infantry) tall.
//!
//! How the rules are read (each verdict cites its section, "TW, Line of Sight: ..."
//! for Total Warfare, "TO" for Tactical Operations; the guide's `battletech` page (`docs/guide/rules-battletech.md`)
//! lists the same readings):
//! - Heights: an end's height is its hex's level plus 1 for a standing 'Mech (two
//!   levels tall) and plus 0 for a vehicle, infantry or a prone 'Mech (one level
//!   tall). An end hex without units is read as a standing 'Mech. With several units
//!   in one end hex the tallest counts. A hex's level is the board's elevation, which
//!   for water is the surface; a 'Mech in water stands on the bottom (level - depth),
//!   so in depth 1 its height is the surface's level; other units float at the surface.
//! - The bar an intervening hex must rise above: the higher end's height, except that
//!   a hex next to an end (one hex away) is measured against that end's height alone
//!   (TW, Line of Sight: Intervening Terrain, adjacent hexes): a 'Mech at the foot of a
//!   hill does not see over it, whatever the target's height. Equal does not block.
//!   MegaMek reads it so too (`LosEffects.losForCoords`: distance 1 from an end).
//! - Ground higher than the bar blocks. Terrain stands on the level: a building its
//!   own height (blocks, TW, Buildings); woods as tall as their foliage, 2 levels, 3
//!   for ultra-heavy woods (TO, Ultra-Heavy Woods), 1 for low foliage (MegaMek's
//!   `foliage_elev:1`), each terrain's `height`; woods rising above the bar hinder,
//!   light +1, heavy +2, ultra-heavy +3 (TW, Line of Sight: Woods). A smoke marker
//!   stands 2 levels over the level and hinders like woods of its weight, light +1,
//!   heavy +2 (TW, Smoke); woods and smoke in one hex both count. 3 or more points of
//!   intervening woods and smoke block (ruleset param `woods_block`). Only intervening
//!   hexes count: woods in an end's hex are a to-hit modifier, not a LOS effect.
//! - Water (terrain tagged `water-depth-N`) has no LOS effect of its own between
//!   units above it. A 'Mech in depth 2+ water is submerged. A unit on dry land and a
//!   submerged one never see each other; two submerged units, or a submerged one and
//!   one standing or floating in water, fight underwater (TW, Underwater Combat): every
//!   intervening hex must be water, its bottom (level - depth) is the ground the bar
//!   is compared with, and woods, smoke and buildings do nothing.
//! - A line exactly along a hexside (TW, Line of Sight: Divided Hexes) takes the side
//!   more favourable to the defender, hexside by hexside: it is blocked when either
//!   hex would block it and hindered by the larger hindrance. MegaMek instead adds up
//!   each side over the whole line and takes the worse side once; hexsight keeps the
//!   per-hexside reading because the kernel judges one stretch at a time (so the engine
//!   can sweep it) and it is never more lenient to the attacker than MegaMek's.
//! - A hex the line only touches at a vertex does nothing (MegaMek's
//!   `Coords.intervening` counts it as crossed): hexsight's exact walk reads the drawn
//!   line, whose ink only touches it.
//! - Every rule is symmetric in its two ends, so the answer is reciprocal.

use super::kernel::{At, End, Explained, FarKey, LineEvent, Notes, Span, What};
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

/// How far a smoke marker stands over its hex's level (TW, Smoke: two levels).
pub(crate) const SMOKE_HEIGHT: i32 = 2;

/// What the Total Warfare rules read in a hex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cell {
    /// On the map (off it nothing acts).
    pub on_map: bool,
    /// The hex's level: ground, or the water's surface.
    pub level: i32,
    /// How far the terrain rises above the level (woods their foliage, a building its height).
    pub height: i32,
    /// The terrain's LOS effect when it rises above the bar (`None` for clear).
    pub terrain: Option<LosEffect>,
    /// The heaviest marker's LOS effect (smoke), standing `SMOKE_HEIGHT` over the level.
    pub marker: Option<LosEffect>,
    /// Water depth (0 on dry ground).
    pub depth: u8,
    /// The tallest unit here is two levels tall (a standing 'Mech, or no unit at all).
    pub tall: bool,
}

/// Where a unit stands with respect to water (TW, Underwater Combat).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wet {
    /// On dry ground.
    Land,
    /// In water, head above it: a 'Mech in depth 1, or a unit floating at the surface.
    InWater,
    /// Fully under water: a 'Mech in depth 2 or more.
    Submerged,
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

    /// A 'Mech in depth 2+ water is under the surface; other units float.
    pub fn wet(&self) -> Wet {
        match self.depth {
            0 => Wet::Land,
            d if self.tall && d >= 2 => Wet::Submerged,
            _ => Wet::InWater,
        }
    }

    /// The bottom of the hex: the level, less the water's depth.
    fn floor(&self) -> i32 {
        self.level - i32::from(self.depth)
    }
}

/// The ends of a line: their heights, and how water stands between them.
#[derive(Clone, Copy, Debug)]
pub struct Ends {
    /// The observer's height.
    pub from: i32,
    /// The target's height.
    pub to: i32,
    /// The higher of the two, the bar away from both ends.
    pub high: i32,
    /// Submerged against dry land, by end (observer, target): the end under water.
    pub apart: (bool, bool),
    /// Underwater combat: one end submerged, the other in water too.
    pub underwater: bool,
}

impl Ends {
    /// Ends of heights `from` and `to`, both above water.
    fn dry(from: i32, to: i32) -> Ends {
        Ends {
            from,
            to,
            high: from.max(to),
            apart: (false, false),
            underwater: false,
        }
    }

    /// The bar a hex must rise above to act, and why that bar: the height of each end
    /// it is next to, else the higher end's (TW, Line of Sight: Intervening Terrain).
    #[inline]
    fn bar(&self, at: &At) -> (i32, Bar) {
        let mut bar = (self.high, Bar::Both);
        if at.from == 1 && self.from < bar.0 {
            bar = (self.from, Bar::Observer);
        }
        if at.to == 1 && self.to < bar.0 {
            bar = (self.to, Bar::Target);
        }
        bar
    }
}

/// Which height a hex was measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bar {
    Both,
    Observer,
    Target,
}

/// The Total Warfare sight rule.
pub struct Kernel<'m> {
    map: &'m Map,
    /// Water depth per terrain index.
    depth: Vec<u8>,
    /// Per hex with units: the tallest is two levels tall.
    tall: std::collections::HashMap<Hex, bool>,
    /// Per hex with markers: the heaviest.
    markers: std::collections::HashMap<Hex, LosEffect>,
}

/// The heavier of two effects: a block, else the larger hindrance.
fn heavier(a: LosEffect, b: LosEffect) -> LosEffect {
    match (a, b) {
        (LosEffect::Obstacle, _) | (_, LosEffect::Obstacle) => LosEffect::Obstacle,
        (LosEffect::Hindrance(x), LosEffect::Hindrance(y)) => LosEffect::Hindrance(x.max(y)),
        (LosEffect::Clear, e) | (e, LosEffect::Clear) => e,
    }
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
        let mut markers = std::collections::HashMap::new();
        for m in &map.markers {
            if let Some(t) = rs.markers.get(m.kind as usize)
                && t.los != LosEffect::Clear
            {
                let e = markers.entry(m.hex).or_insert(LosEffect::Clear);
                *e = heavier(*e, t.los);
            }
        }
        Kernel {
            map,
            depth,
            tall,
            markers,
        }
    }

    /// The bar's words in a reason.
    fn bar_words(&self, e: &Ends, bar: Bar) -> String {
        match bar {
            Bar::Both => format!("higher than both ends (heights {} and {})", e.from, e.to),
            Bar::Observer => format!(
                "next to the observer and higher than its height {} (whatever the target's, {})",
                e.from, e.to
            ),
            Bar::Target => format!(
                "next to the target and higher than its height {} (whatever the observer's, {})",
                e.to, e.from
            ),
        }
    }

    /// What a bar next to an end adds to the section cited.
    fn adjacent(bar: Bar) -> &'static str {
        match bar {
            Bar::Both => "",
            _ => "; TW, Line of Sight: Intervening Terrain, adjacent hexes",
        }
    }

    /// Underwater combat: only water between, its bottom against the bar.
    fn underwater<N: Notes>(&self, e: &Ends, c: &Cell, at: At, n: &mut N) {
        let label = || self.map.label(at.hex);
        if c.depth == 0 {
            return n.note(What::Hex, Effect::Block, false, || {
                format!(
                    "{} is not water, and an underwater line must run through water all along (TW, Underwater Combat)",
                    label()
                )
            });
        }
        let (bar, why) = e.bar(&at);
        if c.floor() > bar {
            n.note(What::Hex, Effect::Block, false, || {
                format!(
                    "the bottom of the depth-{} water in {} (level {}) is {} (TW, Underwater Combat{})",
                    c.depth,
                    label(),
                    c.floor(),
                    self.bar_words(e, why),
                    Self::adjacent(why)
                )
            });
        }
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
            marker: self.markers.get(&h).copied(),
            depth: self.depth[c.terrain as usize],
            tall: self.tall.get(&h).copied().unwrap_or(true),
        }
    }

    fn side(&self, _: Hex, _: Hex) {}

    #[inline]
    fn ends(&self, a: End<Cell>, b: End<Cell>) -> Ends {
        let mut e = Ends::dry(a.cell.unit_height(), b.cell.unit_height());
        if a.hex != b.hex {
            let (wa, wb) = (a.cell.wet(), b.cell.wet());
            let sub = (wa == Wet::Submerged, wb == Wet::Submerged);
            e.apart = (sub.0 && wb == Wet::Land, sub.1 && wa == Wet::Land);
            e.underwater = (sub.0 || sub.1) && wa != Wet::Land && wb != Wet::Land;
        }
        e
    }

    /// An intervening hex: its level, then what its terrain and markers add to it,
    /// each against the bar (`Ends::bar`).
    #[inline]
    fn hex<N: Notes>(&self, e: &Ends, c: &Cell, at: At, n: &mut N) {
        // A submerged end against dry land: the whole line is the one rule ([`Kernel::line`]).
        if !c.on_map || e.apart.0 || e.apart.1 {
            return;
        }
        if e.underwater {
            return self.underwater(e, c, at, n);
        }
        let map = self.map;
        let label = || map.label(at.hex);
        let (bar, why) = e.bar(&at);
        if c.level > bar {
            return n.note(What::Hex, Effect::Block, false, || {
                format!(
                    "the level-{} ground in {} is {} (TW, Line of Sight: Intervening Terrain{})",
                    c.level,
                    label(),
                    self.bar_words(e, why),
                    if why == Bar::Both {
                        ""
                    } else {
                        ", adjacent hexes"
                    }
                )
            });
        }
        let top = c.level + c.height;
        if top > bar {
            let id = || map.terrain(at.hex).map_or(String::new(), |t| t.id.clone());
            match c.terrain {
                Some(LosEffect::Obstacle) => n.note(What::Hex, Effect::Block, false, || {
                    format!(
                        "the {} in {} rises to level {top}, {} (TW, Line of Sight: Buildings{})",
                        id(),
                        label(),
                        self.bar_words(e, why),
                        Self::adjacent(why)
                    )
                }),
                Some(LosEffect::Hindrance(v)) => {
                    n.note(What::Hex, Effect::Hinder(v), false, || {
                        format!(
                            "{} in {} rises to level {top}, {}: +{v} intervening woods (TW, Line of Sight: Woods{})",
                            id(),
                            label(),
                            self.bar_words(e, why),
                            Self::adjacent(why)
                        )
                    })
                }
                _ => {}
            }
        }
        let smoke = c.level + SMOKE_HEIGHT;
        if smoke > bar {
            let id = || {
                map.markers_at(at.hex)
                    .filter_map(|m| map.ruleset.markers.get(m.kind as usize))
                    .map(|t| t.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let effect = match c.marker {
                Some(LosEffect::Obstacle) => Effect::Block,
                Some(LosEffect::Hindrance(v)) => Effect::Hinder(v),
                _ => return,
            };
            n.note(What::Marker, effect, false, || {
                let what = match effect {
                    Effect::Block => "blocks".to_string(),
                    Effect::Hinder(v) => format!("+{v} like woods of its weight"),
                };
                format!(
                    "the {} in {} stands to level {smoke}, {}: {what} (TW, Smoke{})",
                    id(),
                    label(),
                    self.bar_words(e, why),
                    Self::adjacent(why)
                )
            });
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
        e.apart.0 || e.apart.1
    }

    /// A submerged end against one on dry land: blocked at the submerged end.
    fn line(&self, e: &Ends, spans: &[Span<Cell>], explain: bool, out: &mut dyn FnMut(LineEvent)) {
        let ends = [(false, e.apart.0), (true, e.apart.1)];
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
                    "the 'Mech in {} is submerged in depth-{depth} water and the {} stands on dry land: a unit on land and a fully submerged one never see each other (TW, Underwater Combat)",
                    self.map.label(hex),
                    if at_target { "observer" } else { "target" }
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

    /// Between ends of one height every bar is that height, next to an end or not.
    #[inline]
    fn level_key(&self, e: &Ends) -> Option<i32> {
        (e.from == e.to && !e.underwater && !self.needs_line(e)).then_some(e.high)
    }

    /// A standing 'Mech's height is one above its ground; one in depth-1 water
    /// stands at the surface's level, and deeper ones are submerged (no key).
    fn key_range(&self, lo: i32, hi: i32) -> (i32, i32) {
        (lo, hi.saturating_add(1))
    }

    fn keyed_ends(&self, level: i32) -> Option<Ends> {
        Some(Ends::dry(level, level))
    }

    /// Between ends of two heights, the bar is the higher one everywhere except next
    /// to the lower end, where it is lower: what acts far from the ends acts anywhere.
    #[inline]
    fn far_key(&self, e: &Ends) -> Option<FarKey> {
        (e.from != e.to && !e.underwater).then_some(FarKey {
            high: e.high,
            low: e.from.min(e.to),
            target_low: e.to < e.from,
        })
    }

    fn far_ends(&self, level: i32) -> Option<Ends> {
        Some(Ends::dry(level, level.saturating_sub(1)))
    }

    /// The observer high and the target low: next to the target the bar is the low one.
    fn near_ends(&self, high: i32, low: i32) -> Option<Ends> {
        Some(Ends::dry(high, low))
    }

    /// Only a hex next to the lower end has a lower bar.
    fn near_reach(&self, _key: FarKey, _length: u32) -> u32 {
        1
    }

    /// Next to the lower end the bar is its height, as on a keyed line of that level;
    /// elsewhere the higher end's.
    fn near_keyed(&self) -> Option<u32> {
        Some(1)
    }

    fn reciprocal(&self) -> bool {
        true
    }

    /// The highest of the ground, the terrain and a marker.
    #[inline]
    fn top(&self, c: &Cell) -> i64 {
        let smoke = if c.marker.is_some() { SMOKE_HEIGHT } else { 0 };
        i64::from(c.level + c.height.max(smoke)) * 1000
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

/// The family's entry in [`super::registry`].
pub struct Rules;

impl super::registry::Rules for Rules {
    type Kernel<'m> = Kernel<'m>;
    fn kernel(map: &Map) -> Kernel<'_> {
        Kernel::new(map)
    }
    fn unit_problems(map: &Map) -> Vec<Problem> {
        unit_problems(map)
    }
}

/// Units of unknown kinds or states; the family has no other unit rules.
pub fn unit_problems(map: &Map) -> Vec<Problem> {
    units::unknown(map).0
}

#[cfg(test)]
mod tests {
    use super::super::kernel::{End as KEnd, FAR_FROM_ENDS, Kernel as _, NEAR_TARGET, Quiet, Sum};
    use super::*;
    use crate::hex::Crossing;

    fn verdict(k: &Kernel, e: &Ends, c: &Cell, at: At) -> Sum {
        let mut n = Quiet::default();
        k.hex(e, c, at, &mut n);
        n.all()
    }

    /// The keys as the engine reads them, on random maps with hills beside units,
    /// woods of every height, smoke and water: a keyed line's stretches do what they
    /// do far from the ends; on a line between two heights a hex stretch does nothing
    /// it does not do next to the lower end (near ends), and beyond the reach only
    /// what it does far from both ends (far ends).
    #[test]
    fn keys_near_ends_and_reach_hold_on_random_maps() {
        let (mut keyed, mut near, mut beyond) = (0, 0, 0);
        for seed in 0..6 {
            let map = crate::engine::testmaps::random_map("battletech", seed, 20, 16);
            let k = Kernel::new(&map);
            let end = |h: Hex| KEnd {
                hex: h,
                cell: k.cell(h),
            };
            let hexes: Vec<Hex> = map.hexes().collect();
            for (x, &a) in hexes.iter().enumerate().step_by(3) {
                for &b in hexes.iter().skip(x % 2).step_by(2) {
                    let e = k.ends(end(a), end(b));
                    let line = HexLine::new(a, b);
                    let n = a.distance(b);
                    for s in line.between() {
                        let Crossing::Hex(h) = s.crossing else {
                            continue;
                        };
                        let c = k.cell(h);
                        let at = At {
                            hex: h,
                            t0: s.t0,
                            t1: s.t1,
                            from: a.distance(h),
                            to: h.distance(b),
                            first: false,
                            last: false,
                        };
                        let got = verdict(&k, &e, &c, at);
                        if let Some(key) = k.level_key(&e) {
                            let ke = k.keyed_ends(key).expect("keyed ends");
                            assert_eq!(got, verdict(&k, &ke, &c, FAR_FROM_ENDS), "{a:?} -> {b:?}");
                            keyed += 1;
                            continue;
                        }
                        let Some(f) = k.far_key(&e).filter(|_| !k.needs_line(&e)) else {
                            continue;
                        };
                        let r = k.near_keyed().expect("near keyed");
                        let lower = if f.target_low { at.to } else { at.from };
                        let level = if lower <= r { f.low } else { f.high };
                        let ke = k.keyed_ends(level).expect("keyed ends");
                        assert_eq!(got, verdict(&k, &ke, &c, FAR_FROM_ENDS), "{a:?} -> {b:?}");
                        let ne = k.near_ends(f.high, f.low).expect("near ends");
                        let fe = k.far_ends(f.high).expect("far ends");
                        let reach = k.near_reach(f, n);
                        let most = verdict(&k, &ne, &c, NEAR_TARGET);
                        assert!(!got.any || most.any, "{a:?} -> {b:?} at {h:?}");
                        assert!(!got.block || most.block || most.hinder > 0);
                        assert!(got.hinder <= most.hinder || most.block);
                        near += 1;
                        let behind = if f.target_low { at.to } else { at.from };
                        if behind > reach {
                            let far = verdict(&k, &fe, &c, FAR_FROM_ENDS);
                            assert_eq!(got, far, "{a:?} -> {b:?} at {h:?}");
                            beyond += 1;
                        }
                    }
                }
            }
        }
        assert!(
            keyed > 1_000 && near > 10_000 && beyond > 1_000,
            "{keyed} {near} {beyond}"
        );
    }
}
