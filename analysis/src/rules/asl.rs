//! The `asl` family: Advanced Squad Leader levels, obstacles, hindrances, blind hexes,
//! depressions (A6.3) and Crest Status (B20.9) (rules.md section 2, seed 000).
//! Its readings, with worked examples the docs test runs, are the guide's page
//! `docs/guide/rules-asl.md`; a change of rule here changes that page too.
//!
//! How the rules are read (each verdict cites the rule it applies):
//! - Positions: a unit in a hex tagged `depression` (gully, stream, sunken road) is IN the
//!   depression, at its floor one level below the hex's ground, unless its state is `crest`:
//!   then it sits on the rim, at the hex's ground level (B20.9). For `hexsight los` between
//!   hexes, a hex with a crest unit is seen at its rim; any other depression hex at its floor.
//! - A6.3, LOS INTO a depression: with `D` the levels the other unit stands above the floor of
//!   the IN unit's hex, the line may cross the depression's rim only within range `D` of the
//!   other unit: every hex (or hexside stretch) it enters farther away than `D` must be a
//!   depression hex entered from a depression hex (a stretch counts as depression when one of its
//!   hexes is one; all depressions connect). So an adjacent unit always sees INTO it, a unit at
//!   range <= `D` does, a unit whose line runs inside the depression does (LOS along it, also
//!   from a crest unit or from a ground unit whose line drops into the depression next to it),
//!   and otherwise LOS reaches only the rim. This is how VASL's LOS checker applies A6.3; the
//!   rule is reciprocal (looking out of a depression is the same test).
//! - Apart from A6.3, depression hexes count at their ground (rim) level, so hills, obstacles
//!   and blind hexes are judged on ground levels; `H` is the higher end's level.
//! - Hills (B10.2): an intervening hex above `H` blocks; at `H`, when the ends differ, it is a
//!   crest line the lower unit cannot see past (or the higher unit's LOS recrosses). A hill
//!   hex between the two ends' levels casts blind hexes like an obstacle of its level (B10.23),
//!   except in the hex adjacent to the higher unit (B10.2 EXC).
//! - Obstacles (A6.2): woods and buildings (terrain `los: obstacle`, top = level + `height`)
//!   block when their top is at or above `H`. A lower obstacle still above the lower end casts
//!   blind hexes (A6.4): with `R` the range from the higher unit to the obstacle, the number of
//!   blind hexes behind it is `1 + R / 5` (A6.41), plus one per level the obstacle stands above
//!   the target beyond the first (A6.43), minus one per level the viewer stands above the
//!   obstacle beyond the first (A6.42), never below 1; a bare hill crest casts one fewer and may
//!   cast none (B10.23). This is the count of VASL's LOS checker. The lower end is blind when it
//!   is within that many hexes of the obstruction.
//! - Hindrances (A6.7): counted when their hex's level is at least `H` (lower ones are seen
//!   over); LOS is blocked once the total reaches `hindrance_limit` (6). Smoke markers always
//!   hinder, blaze markers always block (A24).
//! - Hexside stretches (A6.1): a line exactly along a hexside is blocked or hindered only when
//!   both hexes would, EXCEPT inherent terrain (tag `inherent`: grain, orchard, brush; B.6),
//!   which acts when the line runs along its hexside even if the other hex is open.
//! - Walls and hedges (B9.2): a crossed wall/hedge hexside blocks when its level (the higher of
//!   its two hexes) is at least `H`, unless it is a hexside of the firer's or target's hex;
//!   they cast no blind hexes. Cliffs (tag `cliff`) do not affect LOS beyond the levels.
//! - Crest Status (B20.9): the three protected hexsides are the counter's facing side and its
//!   two neighbours. Direct fire entering the hex across one of them gets +2 TEM, unless the
//!   firer has LOS INTO the depression (A6.3 above), in which case the shot affects units IN
//!   and on the crest alike with no TEM; without LOS INTO it affects only crest units. A line
//!   entering through a vertex counts as crossing a protected hexside only when both hexsides
//!   at that vertex are protected. Fire from a crest unit that leaves its hex by an unprotected
//!   hexside is Area Fire. No TEM against indirect fire or overruns.
//! - Unit rules checked on load: crest status only for kinds flagged `infantry`, only in
//!   `depression` hexes, not in `no-crest` hexes (bridge, ford), with a facing, and with no
//!   protected hexside that is a `cliff`.

use super::kernel::{At, Explained, FarKey, LineEvent, Notes, Span, What};
use super::units::{self, FireKind, Problem, UnitAnswers};
use super::{Assessment, Effect, LevelSide, LosEffect, Modifier, marker_ids};
use crate::hex::{Hex, HexLine, SideCrossing};
use crate::map::{Map, Unit};
use serde_json::{Value, json};
use std::collections::HashMap;

/// Where a unit sits in its hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pos {
    /// On the ground of a hex that is not a depression.
    Ground,
    /// IN a depression, at its floor.
    In,
    /// On the crest of a depression, at rim level, facing this direction.
    Crest(usize),
}

/// True when the terrain of `h` is tagged `tag`.
fn hex_tagged(map: &Map, h: Hex, tag: &str) -> bool {
    map.terrain(h)
        .is_some_and(|t| units::tagged(&map.ruleset, tag, &t.id))
}

/// True when `h` is a depression hex (A6.3).
pub fn is_depression(map: &Map, h: Hex) -> bool {
    hex_tagged(map, h, "depression")
}

/// The position of a unit.
pub fn unit_pos(map: &Map, u: &Unit) -> Pos {
    if units::state_has(map, u, "crest") {
        Pos::Crest(u.facing.unwrap_or(0))
    } else if is_depression(map, u.hex) {
        Pos::In
    } else {
        Pos::Ground
    }
}

/// The position `hexsight los` uses for a hex: its crest unit if any, else floor or ground.
pub fn hex_pos(map: &Map, h: Hex) -> Pos {
    if let Some(u) = map.units_at(h).find(|u| units::state_has(map, u, "crest")) {
        return Pos::Crest(u.facing.unwrap_or(0));
    }
    if is_depression(map, h) {
        Pos::In
    } else {
        Pos::Ground
    }
}

/// The three protected directions of a crest counter facing `f` (B20.9).
pub fn protected(f: usize) -> [usize; 3] {
    [(f + 5) % 6, f % 6, (f + 1) % 6]
}

/// One end of a line: its hex, ground level, elevation (a depression's floor is one
/// level below its ground) and position.
#[derive(Clone, Copy, Debug)]
pub struct End {
    hex: Hex,
    ground: i32,
    elev: i32,
    pos: Pos,
}

fn end(map: &Map, hex: Hex, pos: Pos) -> End {
    end_at(hex, map.level(hex), pos)
}

fn end_at(hex: Hex, ground: i32, pos: Pos) -> End {
    let elev = if pos == Pos::In { ground - 1 } else { ground };
    End {
        hex,
        ground,
        elev,
        pos,
    }
}

/// What the ASL rules read in a hex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cell {
    /// On the map (off it nothing acts).
    pub on_map: bool,
    /// Ground level.
    pub level: i32,
    /// The terrain's effect (`None` for clear).
    pub terrain: Option<LosEffect>,
    /// An obstacle's top (level plus height), in thousandths of a level.
    pub top: i64,
    /// Inherent terrain (B.6): acts even along its hexside.
    pub inherent: bool,
    /// A depression hex (A6.3).
    pub depression: bool,
    /// The facing of a crest unit in the hex (its position for `hexsight los`).
    pub crest: Option<u8>,
    /// A marker blocks here (blaze).
    pub marker_block: bool,
    /// The markers' hindrance (smoke).
    pub marker_hinder: u32,
}

impl Cell {
    /// The position `hexsight los` reads for the hex: its crest unit, else floor or ground.
    fn pos(&self) -> Pos {
        match self.crest {
            Some(f) => Pos::Crest(f as usize),
            None if self.depression => Pos::In,
            None => Pos::Ground,
        }
    }
}

/// The two ends of a line, and which is higher.
#[derive(Clone, Copy, Debug)]
pub struct Ends {
    a: End,
    b: End,
    high: i32,
    /// The higher and lower ends, when their ground levels differ.
    hi_lo: Option<(End, End)>,
    /// The higher end is the observer.
    hi_is_from: bool,
}

/// What casts blind hexes: its top (thousandths of a level), whether it is a bare
/// hill crest (B10.23), and whether it is inherent terrain.
#[derive(Clone, Copy)]
struct Obstruction {
    top: i64,
    crest: bool,
    inherent: bool,
}

/// The ASL sight rule.
pub struct Kernel<'m> {
    map: &'m Map,
    /// The ends' positions, when a question about units sets them (else read from the hexes).
    positions: Option<(Pos, Pos)>,
    /// Crest units' facings by hex.
    crest: HashMap<Hex, u8>,
    /// Marker effects by hex.
    markers: HashMap<Hex, (bool, u32)>,
}

impl<'m> Kernel<'m> {
    /// The kernel for a map, the ends' positions read from their hexes.
    pub fn new(map: &'m Map) -> Self {
        let mut crest = HashMap::new();
        for u in &map.units {
            if units::state_has(map, u, "crest") {
                crest.entry(u.hex).or_insert(u.facing.unwrap_or(0) as u8);
            }
        }
        Kernel {
            map,
            positions: None,
            crest,
            markers: super::marker_sums(map),
        }
    }

    /// The kernel for units at the given positions.
    pub fn with_positions(map: &'m Map, from: Pos, to: Pos) -> Self {
        Kernel {
            positions: Some((from, to)),
            ..Kernel::new(map)
        }
    }

    /// A blind-hex block behind an obstruction with top `top` (A6.4, B10.23), if the lower
    /// end is within the blind hexes it casts.
    #[inline]
    fn blind<N: Notes>(
        &self,
        e: &Ends,
        at: At,
        ob: Obstruction,
        what: impl FnOnce() -> String,
        n: &mut N,
    ) -> bool {
        let Obstruction {
            top,
            crest,
            inherent,
        } = ob;
        let Some((hi, lo)) = e.hi_lo else {
            return false;
        };
        let (range, behind) = if e.hi_is_from {
            (at.from, at.to)
        } else {
            (at.to, at.from)
        };
        let count = blind_hexes(range, top, hi.ground, lo.ground, crest);
        if behind > count {
            return false;
        }
        let rule = if crest { "B10.23, A6.4" } else { "A6.4" };
        n.note(What::Hex, Effect::Block, inherent, || {
            format!(
                "blind hex: {} (level {}) is {behind} hex(es) behind {} (level {}), which at range {range} from the level-{} viewer casts {count} blind hex(es) ({rule})",
                self.map.label(lo.hex),
                lo.ground,
                what(),
                top as f64 / 1000.0,
                hi.ground
            )
        });
        true
    }
}

impl super::kernel::Kernel for Kernel<'_> {
    type Cell = Cell;
    type Side = LevelSide;
    type Ends = Ends;

    fn map(&self) -> &Map {
        self.map
    }

    fn cell(&self, h: Hex) -> Cell {
        let map = self.map;
        let c = map.cell(h).expect("on the map");
        let rs = &map.ruleset;
        let t = &rs.terrain[c.terrain as usize];
        let (marker_block, marker_hinder) = self.markers.get(&h).copied().unwrap_or_default();
        Cell {
            on_map: true,
            level: c.level,
            terrain: (t.los != LosEffect::Clear).then_some(t.los),
            top: c.level as i64 * 1000 + (t.height * 1000.0).round() as i64,
            inherent: units::tagged(rs, "inherent", &t.id),
            depression: units::tagged(rs, "depression", &t.id),
            crest: self.crest.get(&h).copied(),
            marker_block,
            marker_hinder,
        }
    }

    fn side(&self, a: Hex, b: Hex) -> LevelSide {
        LevelSide::of(self.map, a, b)
    }

    #[inline]
    fn ends(&self, x: super::kernel::End<Cell>, y: super::kernel::End<Cell>) -> Ends {
        let (pa, pb) = self.positions.unwrap_or((x.cell.pos(), y.cell.pos()));
        let a = end_at(x.hex, x.cell.level, pa);
        let b = end_at(y.hex, y.cell.level, pb);
        let hi_lo = match a.ground.cmp(&b.ground) {
            std::cmp::Ordering::Greater => Some((a, b)),
            std::cmp::Ordering::Less => Some((b, a)),
            std::cmp::Ordering::Equal => None,
        };
        Ends {
            a,
            b,
            high: a.ground.max(b.ground),
            hi_lo,
            hi_is_from: a.ground > b.ground,
        }
    }

    /// A hex between the ends: markers, hills and crests, obstacles and their blind hexes,
    /// hindrances.
    #[inline]
    fn hex<N: Notes>(&self, e: &Ends, c: &Cell, at: At, n: &mut N) {
        if !c.on_map {
            return;
        }
        let map = self.map;
        let label = || map.label(at.hex);
        let id = || map.terrain(at.hex).map_or(String::new(), |t| t.id.clone());
        if c.marker_block {
            n.note(What::Marker, Effect::Block, true, || {
                format!(
                    "a {} marker in {} blocks LOS through its hex (A24)",
                    marker_ids(map, at.hex, true),
                    label()
                )
            });
        }
        if c.marker_hinder > 0 {
            let v = c.marker_hinder;
            n.note(What::Marker, Effect::Hinder(v), true, || {
                format!(
                    "a {} marker in {} hinders LOS (+{v}) whatever the heights (A24)",
                    marker_ids(map, at.hex, false),
                    label()
                )
            });
        }
        let li = c.level;
        if li > e.high {
            return n.note(What::Hex, Effect::Block, false, || {
                format!(
                    "the level-{li} hill in {} is higher than both ends (levels {} and {}) (B10.2)",
                    label(),
                    e.a.ground,
                    e.b.ground
                )
            });
        }
        if li == e.high && e.hi_lo.is_some() {
            return n.note(What::Hex, Effect::Block, false, || {
                format!(
                    "{} is at level {li}, the higher end's level: the lower unit sees only the initial crest line of that level, and the higher unit's LOS would recross it (B10.2)",
                    label()
                )
            });
        }
        // A hill hex between the ends' levels casts blind hexes, except next to the higher unit (B10.23).
        let next_to_high = if e.hi_is_from { at.from } else { at.to } == 1;
        if let Some((_, lo)) = e.hi_lo
            && li > lo.ground
            && !next_to_high
            && self.blind(
                e,
                at,
                Obstruction {
                    top: li as i64 * 1000,
                    crest: true,
                    inherent: false,
                },
                || format!("the level-{li} hill crest in {}", label()),
                n,
            )
        {
            return;
        }
        match c.terrain {
            Some(LosEffect::Obstacle) => {
                let top = c.top;
                if top >= e.high as i64 * 1000 {
                    n.note(What::Hex, Effect::Block, c.inherent, || {
                        format!(
                            "{} in {} is an obstacle reaching level {}, at or above both ends (levels {} and {}) (A6.2)",
                            id(),
                            label(),
                            top as f64 / 1000.0,
                            e.a.ground,
                            e.b.ground
                        )
                    });
                } else if let Some((_, lo)) = e.hi_lo
                    && top > lo.ground as i64 * 1000
                {
                    self.blind(
                        e,
                        at,
                        Obstruction {
                            top,
                            crest: false,
                            inherent: c.inherent,
                        },
                        || format!("the {} obstacle in {}", id(), label()),
                        n,
                    );
                }
            }
            Some(LosEffect::Hindrance(v)) if li >= e.high => {
                n.note(What::Hex, Effect::Hinder(v), c.inherent, || {
                    format!(
                        "{} in {} at level {li} hinders LOS (+{v}) (A6.7{})",
                        id(),
                        label(),
                        if c.inherent {
                            ", inherent terrain B.6"
                        } else {
                            ""
                        }
                    )
                })
            }
            _ => {}
        }
    }

    /// A line along a hexside (A6.1): blocked or hindered only if both sides are, except
    /// inherent terrain, which acts along its hexside (B.6).
    fn along<N: Notes>(&self, _: &Ends, x: &N, y: &N) -> Option<Effect> {
        let inherent = strongest(x.inherent().effect(), y.inherent().effect());
        let both = super::both_sides(x.all().effect(), y.all().effect());
        strongest(inherent, both)
    }

    fn along_reason(&self, a: Hex, b: Hex, x: &Explained, y: &Explained, effect: Effect) -> String {
        let inherent = strongest(x.inherent().effect(), y.inherent().effect());
        let why = if inherent == Some(effect) {
            "inherent terrain acts even when the line runs along its hexside (A6.1 EXC, B.6)"
        } else {
            "the line runs exactly along the hexside, so it is blocked or hindered only if both sides are (A6.1)"
        };
        let map = self.map;
        format!(
            "{why}: {}; {}: {}; {}: {}",
            map.side_label(a, b),
            map.label(a),
            x.text("no effect"),
            map.label(b),
            y.text("no effect")
        )
    }

    /// A crossed wall or hedge (B9.2) acts at its level or above the higher end.
    #[inline]
    fn cross<N: Notes>(&self, e: &Ends, s: &LevelSide, a: Hex, b: Hex, n: &mut N) {
        let Some(effect) = s.effect(e.high) else {
            return;
        };
        let (map, level) = (self.map, s.level);
        n.note(What::Hex, effect, false, || {
            let (id, side) = LevelSide::names(map, a, b);
            match effect {
                Effect::Block => format!(
                    "the {id} on hexside {side} (level {level}) blocks LOS at its level, and is not a hexside of the firer's or target's hex (B9.2)"
                ),
                Effect::Hinder(v) => format!("the {id} on hexside {side} hinders LOS (+{v}) (B9.2)"),
            }
        });
    }

    fn pair_rule(&self) -> &'static str {
        " (A6.1)"
    }

    #[inline]
    fn needs_line(&self, e: &Ends) -> bool {
        e.a.hex != e.b.hex && (e.a.pos == Pos::In || e.b.pos == Pos::In)
    }

    /// LOS INTO a depression (A6.3), for each end IN one.
    fn line(&self, e: &Ends, spans: &[Span<Cell>], explain: bool, out: &mut dyn FnMut(LineEvent)) {
        for (inn, other, at_target) in [(e.a, e.b, false), (e.b, e.a, true)] {
            if inn.pos == Pos::In
                && let Err(reason) = into_spans(self.map, spans, other, inn, at_target, explain)
            {
                out(LineEvent {
                    at_target,
                    effect: Effect::Block,
                    reason,
                });
            }
        }
    }

    fn hindrance_limit(&self) -> Option<u32> {
        let limit = self.map.ruleset.param("hindrance_limit", 6.0);
        (limit > 0.0).then_some(limit as u32)
    }

    /// Between ends on one ground level, neither IN a depression, no blind hex or
    /// A6.3 rule applies: every rule compares with that level only.
    #[inline]
    fn level_key(&self, e: &Ends) -> Option<i32> {
        (e.hi_lo.is_none() && e.a.pos != Pos::In && e.b.pos != Pos::In).then_some(e.high)
    }

    fn keyed_ends(&self, level: i32) -> Option<Ends> {
        let end = end_at(Hex::new(0, 0), level, Pos::Ground);
        Some(Ends {
            a: end,
            b: end,
            high: level,
            hi_lo: None,
            hi_is_from: false,
        })
    }

    /// Between ends on different levels, hills, obstacles at the higher level and
    /// markers block wherever they lie; blind hexes (A6.4, B10.23) and A6.3 only add blocks.
    #[inline]
    fn far_key(&self, e: &Ends) -> Option<FarKey> {
        e.hi_lo.map(|(hi, lo)| FarKey {
            high: hi.ground,
            low: lo.ground,
            target_low: e.hi_is_from,
        })
    }

    fn far_ends(&self, level: i32) -> Option<Ends> {
        let (hi, lo) = (
            end_at(Hex::new(0, 0), level, Pos::Ground),
            end_at(Hex::new(0, 1), level - 1, Pos::Ground),
        );
        Some(Ends {
            a: hi,
            b: lo,
            high: level,
            hi_lo: Some((hi, lo)),
            hi_is_from: true,
        })
    }

    /// Next to the lower end and far from the higher, an obstruction casts the most
    /// blind hexes (A6.41: more with range; the B10.2 exception only spares the hex
    /// next to the higher unit); nothing else depends on where a stretch lies.
    fn near_ends(&self, high: i32, low: i32) -> Option<Ends> {
        let (hi, lo) = (
            end_at(Hex::new(0, 0), high, Pos::Ground),
            end_at(Hex::new(0, 1), low, Pos::Ground),
        );
        (high > low).then_some(Ends {
            a: hi,
            b: lo,
            high,
            hi_lo: Some((hi, lo)),
            hi_is_from: true,
        })
    }

    /// The most blind hexes an obstruction below the higher end casts at any range
    /// on the line: [`blind_hexes`] at the line's whole length, its top at the higher
    /// end's level (`length / 5 + (high - low) + 1`).
    fn near_reach(&self, key: FarKey, length: u32) -> u32 {
        blind_hexes(length, i64::from(key.high) * 1000, key.high, key.low, false)
    }

    fn reciprocal(&self) -> bool {
        true
    }

    #[inline]
    fn top(&self, c: &Cell) -> i64 {
        i64::from(c.level) * 1000
    }

    #[inline]
    fn eye(&self, c: &Cell) -> i64 {
        i64::from(c.level) * 1000
    }
}

/// The stronger of two effects: a block, else the larger hindrance.
fn strongest(p: Option<Effect>, q: Option<Effect>) -> Option<Effect> {
    match (p, q) {
        (Some(Effect::Block), _) | (_, Some(Effect::Block)) => Some(Effect::Block),
        (Some(Effect::Hinder(u)), Some(Effect::Hinder(v))) => Some(Effect::Hinder(u.max(v))),
        (p, None) => p,
        (None, q) => q,
    }
}

/// Judges a walked line with the positions `hexsight los` reads from the map.
pub fn assess(map: &Map, line: &HexLine) -> Assessment {
    let (from, to) = (hex_pos(map, line.from), hex_pos(map, line.to));
    trace(map, line, from, to, FireKind::Direct)
}

/// The family's entry in [`super::registry`]: the kernel, Crest Status modifiers
/// and details, and the unit rules.
pub struct Rules;

impl super::registry::Rules for Rules {
    type Kernel<'m> = Kernel<'m>;
    fn kernel(map: &Map) -> Kernel<'_> {
        Kernel::new(map)
    }
    fn assess(map: &Map, line: &HexLine) -> Assessment {
        assess(map, line)
    }
    fn unit_problems(map: &Map) -> Vec<Problem> {
        unit_problems(map)
    }
    fn unit_answers(map: &Map, a: &Unit, b: &Unit, fire: FireKind) -> UnitAnswers {
        unit_answers(map, a, b, fire)
    }
    fn details(map: &Map, line: &HexLine) -> Option<Value> {
        details(map, line)
    }
}

/// Judges a walked line between units at the given positions.
pub fn trace(map: &Map, line: &HexLine, from: Pos, to: Pos, fire: FireKind) -> Assessment {
    let mut a = super::kernel::explain(&Kernel::with_positions(map, from, to), line);
    let (ea, eb) = (end(map, line.from, from), end(map, line.to, to));
    crest_modifiers(map, line, ea, eb, fire, &mut a.modifiers);
    a
}

/// Does `viewer` have LOS INTO the depression where `inn` is (A6.3)? `Err` says why not.
fn into(map: &Map, line: &HexLine, viewer: End, inn: End) -> Result<String, String> {
    let k = Kernel::new(map);
    let spans = super::kernel::spans(&k, line);
    into_spans(map, &spans, viewer, inn, viewer.hex == line.from, true)
}

/// A6.3 over the line's stretches (`spans`, observer first; `viewer_first` when the
/// viewer is the observer): beyond range `D` of the viewer every stretch entered must be
/// a depression entered from a depression. The reasons are written only when `explain`.
fn into_spans(
    map: &Map,
    spans: &[Span<Cell>],
    viewer: End,
    inn: End,
    viewer_first: bool,
    explain: bool,
) -> Result<String, String> {
    let (v, t) = (|| map.label(viewer.hex), || map.label(inn.hex));
    if viewer.hex.is_adjacent(inn.hex) {
        return Ok(if explain {
            format!(
                "{} is adjacent to the depression hex {}, so it has LOS INTO it (A6.3)",
                v(),
                t()
            )
        } else {
            String::new()
        });
    }
    let d = viewer.elev - inn.elev;
    let dep = |s: &Span<Cell>| s.cells[0].depression || s.cells[1].depression;
    let range = |s: &Span<Cell>| viewer.hex.distance(s.a).min(viewer.hex.distance(s.b));
    let n = spans.len();
    let nth = |i: usize| {
        if viewer_first {
            &spans[i]
        } else {
            &spans[n - 1 - i]
        }
    };
    for i in 1..n {
        let (w0, w1) = (nth(i - 1), nth(i));
        let r = range(w1);
        if i64::from(r) > i64::from(d) && !(dep(w0) && dep(w1)) {
            if !explain {
                return Err(String::new());
            }
            let name = if w1.side {
                format!("the hexside {}", map.side_label(w1.a, w1.b))
            } else {
                map.label(w1.a)
            };
            let where_ = if dep(w1) {
                format!("enters {name} across the rim")
            } else {
                format!("is still outside it, at {name}")
            };
            return Err(format!(
                "{} is a depression hex whose floor (level {}) is {d} level(s) below {} (level {}): beyond range {} the line must stay inside the depression, but at range {r} it {where_}; LOS reaches only the rim (A6.3)",
                t(),
                inn.elev,
                v(),
                viewer.elev,
                d.max(0),
            ));
        }
    }
    if !explain {
        return Ok(String::new());
    }
    if i64::from(viewer.hex.distance(inn.hex)) <= i64::from(d) {
        Ok(format!(
            "{} is {d} level(s) above the floor of {} at range {} <= {d}: LOS INTO it (A6.3)",
            v(),
            t(),
            viewer.hex.distance(inn.hex)
        ))
    } else {
        Ok(format!(
            "beyond range {} from {} the line runs inside the depression to {}: LOS INTO it (A6.3)",
            d.max(0),
            v(),
            t()
        ))
    }
}

/// The number of blind hexes behind an obstruction whose top is `top_m` thousandths of a level,
/// at `range` hexes from a viewer at level `viewer`, over a target at level `low` (A6.4):
/// `1 + range / 5` (A6.41) `+ (top - low - 1)` (A6.43) `- (viewer - top - 1)` (A6.42), at least 1
/// behind an obstacle; a bare hill crest (`crest`) casts one fewer and may cast none (B10.23).
/// This is the count VASL's LOS checker uses: `2 * top + range / 5 - viewer - low + 1`.
#[inline]
pub fn blind_hexes(range: u32, top_m: i64, viewer: i32, low: i32, crest: bool) -> u32 {
    let top = (top_m + 999).div_euclid(1000);
    let n = 2 * top + i64::from(range / 5) - i64::from(viewer) - i64::from(low) + 1;
    if crest {
        (n - 1).max(0) as u32
    } else {
        n.max(1) as u32
    }
}

/// The side crossing where the line enters `t`, as the hexsides crossed there.
fn entry_sides(line: &HexLine, t: Hex) -> Vec<Hex> {
    match line.side_crossings().last() {
        Some(SideCrossing::One(x, y, _)) if *y == t => vec![*x],
        Some(SideCrossing::Pair(x, y, z, _)) if *x == t => vec![*y, *z],
        _ => Vec::new(),
    }
}

/// The hexsides crossed where the line leaves `f`.
fn exit_sides(line: &HexLine, f: Hex) -> Vec<Hex> {
    match line.side_crossings().first() {
        Some(SideCrossing::One(x, y, _)) if *x == f => vec![*y],
        Some(SideCrossing::Pair(x, y, z, _)) if *x == f => vec![*y, *z],
        _ => Vec::new(),
    }
}

/// True when every hexside in `sides` (neighbours of `h`) is protected by facing `facing`.
fn all_protected(h: Hex, facing: usize, sides: &[Hex]) -> bool {
    !sides.is_empty()
        && sides.iter().all(|n| {
            h.direction_to(*n)
                .is_some_and(|d| protected(facing).contains(&d))
        })
}

/// The crest answer for a target crest unit: LOS INTO, TEM, which units the shot affects.
#[derive(Clone, Debug, PartialEq)]
pub struct CrestAnswer {
    /// The firer has LOS INTO the depression (A6.3).
    pub into: bool,
    /// The fire crosses a protected hexside.
    pub crosses_protected: bool,
    /// The TEM the crest unit gets (+2 or 0).
    pub tem: i32,
    /// `in-and-crest` or `crest-only`.
    pub affects: &'static str,
    /// Why, citing B20.9 and A6.3.
    pub reason: String,
}

/// The crest answer for fire from `a` at a crest unit `b` facing `facing`.
fn crest_answer(
    map: &Map,
    line: &HexLine,
    a: End,
    b: End,
    facing: usize,
    fire: FireKind,
) -> CrestAnswer {
    let floor = End {
        elev: b.ground - 1,
        pos: Pos::In,
        ..b
    };
    let into_res = into(map, line, a, floor);
    let into = into_res.is_ok();
    let sides = entry_sides(line, b.hex);
    let crosses = all_protected(b.hex, facing, &sides);
    let names = map.layout.side_names();
    let arc = protected(facing).map(|d| map.side_label(b.hex, b.hex.neighbor(d)));
    let t = map.label(b.hex);
    let (tem, affects, reason) = if into {
        (
            0,
            "in-and-crest",
            format!(
                "{}: the shot affects units IN {t} and on its crest alike, with no crest TEM (B20.9)",
                into_res.unwrap_or_else(|e| e)
            ),
        )
    } else if fire != FireKind::Direct {
        let what = if fire == FireKind::Indirect {
            "indirect fire"
        } else {
            "an overrun"
        };
        (
            0,
            "crest-only",
            format!(
                "no crest TEM against {what} (B20.9); without LOS INTO {t} the shot affects only its crest units (B20.9)"
            ),
        )
    } else if crosses {
        (
            2,
            "crest-only",
            format!(
                "direct fire enters {t} across the protected hexside(s) {} of the crest counter facing {} (protected: {}): +2 TEM; without LOS INTO {t} the shot affects only crest units (B20.9)",
                sides
                    .iter()
                    .map(|n| map.side_label(b.hex, *n))
                    .collect::<Vec<_>>()
                    .join(" and "),
                names[facing % 6],
                arc.join(", ")
            ),
        )
    } else {
        (
            0,
            "crest-only",
            format!(
                "the fire does not enter {t} across a protected hexside of the crest counter facing {} ({}): no crest TEM; without LOS INTO {t} the shot affects only crest units (B20.9)",
                names[facing % 6],
                arc.join(", ")
            ),
        )
    };
    CrestAnswer {
        into,
        crosses_protected: crosses,
        tem,
        affects,
        reason,
    }
}

fn crest_modifiers(
    map: &Map,
    line: &HexLine,
    a: End,
    b: End,
    fire: FireKind,
    out: &mut Vec<Modifier>,
) {
    if a.hex == b.hex {
        return;
    }
    if let Pos::Crest(f) = b.pos {
        let ans = crest_answer(map, line, a, b, f, fire);
        out.push(Modifier {
            name: "crest TEM".into(),
            value: ans.tem,
            text: ans.reason,
        });
    }
    if let Pos::Crest(f) = a.pos {
        let sides = exit_sides(line, a.hex);
        if !all_protected(a.hex, f, &sides) {
            out.push(Modifier {
                name: "area fire".into(),
                value: 0,
                text: format!(
                    "fire from the crest unit in {} leaves its hex by an unprotected hexside: Area Fire (FP halved, LATW +2 To Hit) (B20.9)",
                    map.label(a.hex)
                ),
            });
        }
    }
}

/// The depression part of a `los` answer between two hexes, for JSON: `None` unless one end
/// holds a crest unit or is a depression. For a crest target: LOS INTO, protected hexside
/// crossed, TEM, units affected; for a target IN a depression: LOS INTO and whether its rim is seen.
pub fn details(map: &Map, line: &HexLine) -> Option<Value> {
    let (pa, pb) = (hex_pos(map, line.from), hex_pos(map, line.to));
    let word = |p: Pos| match p {
        Pos::Ground => "ground",
        Pos::In => "in",
        Pos::Crest(_) => "crest",
    };
    if pa == Pos::Ground && pb == Pos::Ground {
        return None;
    }
    let a = end(map, line.from, pa);
    let b = end(map, line.to, pb);
    let mut v = json!({"from_position": word(pa), "to_position": word(pb)});
    if let Pos::Crest(f) = pb
        && line.from != line.to
    {
        let ans = crest_answer(map, line, a, b, f, FireKind::Direct);
        v["into"] = json!(ans.into);
        v["crosses_protected"] = json!(ans.crosses_protected);
        v["crest_tem"] = json!(ans.tem);
        v["affects"] = json!(ans.affects);
    }
    if pb == Pos::In && line.from != line.to {
        // The rim of the target hex is at its ground level, where A6.3 does not apply.
        // With no crest unit in the hex, a shot with LOS INTO reaches the units IN it only;
        // without, it reaches nobody (only the empty rim is seen).
        let mut rim = trace(map, line, pa, Pos::Ground, FireKind::Direct);
        let into_ok = into(map, line, a, b).is_ok();
        v["into"] = json!(into_ok);
        v["rim_visible"] = json!(rim.conclude(map, line).verdict.sees());
        v["affects"] = json!(if into_ok { "in-only" } else { "none" });
    }
    Some(v)
}

/// Sees, can be targeted, can fire between two units: the crest answer (B20.9) decides
/// sight, a seen unit may be fired at (A6.1), and a unit in a `no-fire` state fires at nothing.
fn unit_answers(map: &Map, a: &Unit, b: &Unit, fire: FireKind) -> UnitAnswers {
    let line = HexLine::new(a.hex, b.hex);
    let mut assessment = trace(map, &line, unit_pos(map, a), unit_pos(map, b), fire);
    let c = assessment.conclude(map, &line);
    let (verdict, reason) = (c.verdict, c.reason);
    let mut ans = UnitAnswers::default();
    let (fa, fb) = (map.label(a.hex), map.label(b.hex));
    if verdict.sees() {
        ans.sees.yes(format!(
            "LOS from `{}` ({fa}) to `{}` ({fb}) is {}: {reason}",
            a.id,
            b.id,
            verdict.as_str()
        ));
        ans.targeted
            .yes(format!("`{}` is seen, so it may be fired at (A6.1)", b.id));
    } else {
        ans.sees.no(format!(
            "no LOS from `{}` ({fa}) to `{}` ({fb}): {reason}",
            a.id, b.id
        ));
        ans.targeted.no(format!("`{}` is not seen (A6.1)", b.id));
    }
    if units::state_has(map, a, "no-fire") {
        ans.fires
            .no(format!("`{}` is {} and cannot fire", a.id, a.state));
    } else if ans.targeted.ok {
        ans.fires.yes(format!("`{}` can fire at `{}`", a.id, b.id));
    } else {
        ans.fires
            .no(format!("`{}` cannot fire at what it does not see", a.id));
    }
    ans.modifiers = assessment.modifiers;
    ans
}

/// Crest Status rules (B20.9) for every unit of the map.
pub fn unit_problems(map: &Map) -> Vec<Problem> {
    let (mut problems, good) = units::unknown(map);
    let rs = &map.ruleset;
    for i in good {
        let u = &map.units[i];
        if !units::state_has(map, u, "crest") {
            continue;
        }
        let t = map.terrain(u.hex).map(|t| t.id.clone()).unwrap_or_default();
        if !units::kind_has(map, u, "infantry") {
            problems.push(Problem::new(
                u,
                format!(
                    "only Good Order infantry may take Crest Status, not `{}` (B20.9)",
                    u.kind
                ),
            ));
        }
        if !units::tagged(rs, "depression", &t) {
            problems.push(Problem::new(
                u,
                format!("Crest Status exists only in depression hexes (gully, stream, sunken road), not in {t} (B20.9, A6.3)"),
            ));
        }
        if units::tagged(rs, "no-crest", &t) {
            problems.push(Problem::new(
                u,
                format!("no Crest Status in a hex with a bridge or ford ({t}) (B20.9)"),
            ));
        }
        match u.facing {
            None => problems.push(Problem::new(
                u,
                "a crest unit needs a `facing`: its middle protected hexside (B20.9)",
            )),
            Some(f) => {
                for d in protected(f) {
                    let n = u.hex.neighbor(d);
                    if let Some(side) = map.hexside(u.hex, n)
                        && units::tagged(rs, "cliff", &rs.hexsides[side.kind as usize].id)
                    {
                        problems.push(Problem::new(
                            u,
                            format!("its protected hexside {} is a cliff: no Crest Status across a cliff (B20.9)", map.side_label(u.hex, n)),
                        ));
                    }
                }
            }
        }
    }
    problems
}

/// MF to take Crest Status in `hex` facing `facing` (B20.9): from IN the depression
/// (`from: None`) 2 MF; from an adjacent hex outside the depression, the hex's COT minus 1 MF,
/// entering across the counter's middle hexside, never along the depression.
pub fn enter_crest_cost(
    map: &Map,
    hex: Hex,
    facing: usize,
    from: Option<Hex>,
) -> crate::Result<(f64, String)> {
    let q = |m: String| crate::Error::new(crate::ErrorKind::Query, m);
    let t = map
        .terrain(hex)
        .ok_or_else(|| q(format!("{} is off the map", map.label(hex))))?;
    if !is_depression(map, hex) || units::tagged(&map.ruleset, "no-crest", &t.id) {
        return Err(q(format!(
            "no Crest Status in {} ({}): only in depression hexes without bridge or ford (B20.9)",
            map.label(hex),
            t.id
        )));
    }
    let Some(from) = from else {
        return Ok((
            2.0,
            format!(
                "from IN the depression to its crest in {}: 2 MF (B20.9)",
                map.label(hex)
            ),
        ));
    };
    let Some(dir) = hex.direction_to(from) else {
        return Err(q(format!(
            "{} is not adjacent to {}",
            map.label(from),
            map.label(hex)
        )));
    };
    if is_depression(map, from) {
        return Err(q(format!(
            "entering {} from {} is entering along the depression: Crest Status cannot be taken that way (B20.9)",
            map.label(hex),
            map.label(from)
        )));
    }
    if dir != facing % 6 {
        return Err(q(format!(
            "the crest counter's middle hexside must be the entry hexside {} (B20.9)",
            map.side_label(hex, from)
        )));
    }
    let cot = t
        .movement
        .ok_or_else(|| q(format!("{} is impassable", t.id)))?;
    Ok((
        cot - 1.0,
        format!(
            "from {} onto the crest of {}: COT {cot} - 1 = {} MF (B20.9)",
            map.label(from),
            t.id,
            cot - 1.0
        ),
    ))
}

/// MF to leave Crest Status in `hex` facing `facing` (B20.9): back IN the depression
/// (`to: None`) 2 MF; into an adjacent hex outside the depression across a protected hexside,
/// 1 MF plus that hex's COT, with no elevation change cost. Crest to crest is not allowed.
pub fn leave_crest_cost(
    map: &Map,
    hex: Hex,
    facing: usize,
    to: Option<Hex>,
) -> crate::Result<(f64, String)> {
    let q = |m: String| crate::Error::new(crate::ErrorKind::Query, m);
    let Some(to) = to else {
        return Ok((
            2.0,
            format!(
                "from the crest of {} back IN the depression: 2 MF (B20.9)",
                map.label(hex)
            ),
        ));
    };
    let dir = hex.direction_to(to).ok_or_else(|| {
        q(format!(
            "{} is not adjacent to {}",
            map.label(to),
            map.label(hex)
        ))
    })?;
    if is_depression(map, to) {
        return Err(q(format!(
            "{} is a depression hex: a unit cannot move from crest to crest, nor into the depression except back IN its own hex (B20.9)",
            map.label(to)
        )));
    }
    if !protected(facing).contains(&dir) {
        return Err(q(format!(
            "{} is not a protected hexside of the crest counter (B20.9)",
            map.side_label(hex, to)
        )));
    }
    let t = map
        .terrain(to)
        .ok_or_else(|| q(format!("{} is off the map", map.label(to))))?;
    let cot = t
        .movement
        .ok_or_else(|| q(format!("{} is impassable", t.id)))?;
    Ok((
        1.0 + cot,
        format!(
            "off the crest across {}: 1 MF + COT {cot} of {} = {} MF, no elevation change cost (B20.9)",
            map.side_label(hex, to),
            t.id,
            1.0 + cot
        ),
    ))
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

    /// [`Kernel::near_ends`] and [`Kernel::near_reach`] as the engine reads them: on
    /// lines between levels of random maps, a hex stretch does nothing that it does
    /// not do next to the lower end (with the near ends), and beyond the reach only
    /// what it does far from both ends (with the far ends).
    #[test]
    fn stretches_do_the_most_next_to_the_lower_end_and_within_reach() {
        let (mut near, mut beyond) = (0, 0);
        for seed in 0..6 {
            let map = crate::engine::testmaps::random_map("asl", seed, 26, 22);
            let k = Kernel::new(&map);
            let end = |h: Hex| KEnd {
                hex: h,
                cell: k.cell(h),
            };
            let hexes: Vec<Hex> = map.hexes().collect();
            for (x, &a) in hexes.iter().enumerate().step_by(5) {
                for &b in hexes.iter().skip(x % 3).step_by(3) {
                    let e = k.ends(end(a), end(b));
                    let Some(f) = k.far_key(&e).filter(|_| !k.needs_line(&e)) else {
                        continue;
                    };
                    let ne = k.near_ends(f.high, f.low).expect("near ends");
                    let fe = k.far_ends(f.high).expect("far ends");
                    let line = HexLine::new(a, b);
                    let n = a.distance(b);
                    let reach = k.near_reach(f, n);
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
                        let most = verdict(&k, &ne, &c, NEAR_TARGET);
                        assert!(!got.any || most.any, "{a:?} -> {b:?} at {h:?}");
                        assert!(!got.block || most.block || most.hinder > 0);
                        near += 1;
                        let behind = if f.target_low { at.to } else { at.from };
                        if behind > reach {
                            // Hindrance amounts too: the engine counts them far from the ends.
                            let far = verdict(&k, &fe, &c, FAR_FROM_ENDS);
                            let sum = |s: Sum| (s.block, s.hinder);
                            assert_eq!(sum(got), sum(far), "{a:?} -> {b:?} at {h:?}");
                            assert_eq!(sum(got), sum(verdict(&k, &e, &c, FAR_FROM_ENDS)));
                            beyond += 1;
                        }
                    }
                }
            }
        }
        assert!(near > 10_000 && beyond > 1_000, "{near} {beyond}");
    }
}
