//! The `asl` family: Advanced Squad Leader levels, obstacles, hindrances, blind hexes,
//! depressions (A6.3) and Crest Status (B20.9) (rules.md section 2, seed 000).
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

use super::units::{self, Problem};
use super::{Assessment, Effect, Event, LosEffect, Modifier, Place, both_sides, hexside_events};
use crate::hex::{Crossing, Hex, HexLine, SideCrossing};
use crate::map::{Map, Unit};
use serde_json::{Value, json};

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

/// What kind of fire, for the crest TEM (B20.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FireKind {
    /// Direct fire.
    Direct,
    /// Indirect fire (mortars, artillery).
    Indirect,
    /// An overrun.
    Overrun,
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

#[derive(Clone, Copy)]
struct End {
    hex: Hex,
    ground: i32,
    elev: i32,
    pos: Pos,
}

fn end(map: &Map, hex: Hex, pos: Pos) -> End {
    let ground = map.level(hex);
    let elev = if pos == Pos::In { ground - 1 } else { ground };
    End {
        hex,
        ground,
        elev,
        pos,
    }
}

struct Ctx<'a> {
    map: &'a Map,
    a: End,
    b: End,
    high: i32,
    /// The higher and lower ends, when their ground levels differ.
    hi_lo: Option<(End, End)>,
}

/// An effect of one hex, with its reason and whether it is inherent terrain.
struct Item {
    place: Place,
    effect: Effect,
    reason: String,
    inherent: bool,
}

/// Judges a walked line with the positions `hexsight los` reads from the map.
pub fn assess(map: &Map, line: &HexLine) -> Assessment {
    trace(
        map,
        line,
        hex_pos(map, line.from),
        hex_pos(map, line.to),
        FireKind::Direct,
    )
}

/// Judges a walked line between units at the given positions.
pub fn trace(map: &Map, line: &HexLine, from: Pos, to: Pos, fire: FireKind) -> Assessment {
    let a = end(map, line.from, from);
    let b = end(map, line.to, to);
    let hi_lo = match a.ground.cmp(&b.ground) {
        std::cmp::Ordering::Greater => Some((a, b)),
        std::cmp::Ordering::Less => Some((b, a)),
        std::cmp::Ordering::Equal => None,
    };
    let c = Ctx {
        map,
        a,
        b,
        high: a.ground.max(b.ground),
        hi_lo,
    };
    let mut events = Vec::new();
    for step in line.between() {
        match step.crossing {
            Crossing::Hex(h) => {
                for i in judge_hex(&c, h) {
                    events.push(Event {
                        at: step.t0,
                        place: i.place,
                        effect: i.effect,
                        reason: i.reason,
                    });
                }
            }
            Crossing::Side(x, y) => {
                if let Some((effect, reason)) = along_side(&c, x, y) {
                    events.push(Event {
                        at: step.t0,
                        place: Place::AlongSide(x, y),
                        effect,
                        reason,
                    });
                }
            }
            Crossing::Vertex(_) => {}
        }
    }
    events.extend(hexside_events(map, line, " (A6.1)", |x, y| {
        judge_side(&c, x, y)
    }));
    for (inn, other, at) in [
        (a, b, crate::hex::Ratio::ZERO),
        (b, a, crate::hex::Ratio::ONE),
    ] {
        if inn.pos == Pos::In
            && inn.hex != other.hex
            && let Err(why) = into(map, line, other, inn)
        {
            events.push(Event {
                at,
                place: Place::Hex(inn.hex),
                effect: Effect::Block,
                reason: why,
            });
        }
    }
    let mut modifiers = Vec::new();
    crest_modifiers(map, line, a, b, fire, &mut modifiers);
    let limit = map.ruleset.param("hindrance_limit", 6.0);
    Assessment {
        events,
        modifiers,
        hindrance_limit: (limit > 0.0).then_some(limit as u32),
    }
}

/// Does `viewer` have LOS INTO the depression where `inn` is (A6.3)? `Err` says why not.
fn into(map: &Map, line: &HexLine, viewer: End, inn: End) -> Result<String, String> {
    let (v, t) = (map.label(viewer.hex), map.label(inn.hex));
    if viewer.hex.is_adjacent(inn.hex) {
        return Ok(format!(
            "{v} is adjacent to the depression hex {t}, so it has LOS INTO it (A6.3)"
        ));
    }
    let d = viewer.elev - inn.elev;
    let mut steps: Vec<Crossing> = line
        .steps
        .iter()
        .map(|s| s.crossing)
        .filter(|c| !matches!(c, Crossing::Vertex(_)))
        .collect();
    if viewer.hex != line.from {
        steps.reverse();
    }
    let dep = |c: Crossing| match c {
        Crossing::Hex(h) => is_depression(map, h),
        Crossing::Side(x, y) => is_depression(map, x) || is_depression(map, y),
        Crossing::Vertex(_) => true,
    };
    let range = |c: Crossing| match c {
        Crossing::Hex(h) => viewer.hex.distance(h),
        Crossing::Side(x, y) => viewer.hex.distance(x).min(viewer.hex.distance(y)),
        Crossing::Vertex(_) => 0,
    };
    let name = |c: Crossing| match c {
        Crossing::Hex(h) => map.label(h),
        Crossing::Side(x, y) => format!("the hexside {}", map.side_label(x, y)),
        Crossing::Vertex(_) => String::new(),
    };
    for w in steps.windows(2) {
        let r = range(w[1]);
        if i64::from(r) > i64::from(d) && !(dep(w[0]) && dep(w[1])) {
            let where_ = if dep(w[1]) {
                format!("enters {} across the rim", name(w[1]))
            } else {
                format!("is still outside it, at {}", name(w[1]))
            };
            return Err(format!(
                "{t} is a depression hex whose floor (level {}) is {d} level(s) below {v} (level {}): beyond range {} the line must stay inside the depression, but at range {r} it {where_}; LOS reaches only the rim (A6.3)",
                inn.elev,
                viewer.elev,
                d.max(0),
            ));
        }
    }
    if i64::from(viewer.hex.distance(inn.hex)) <= i64::from(d) {
        Ok(format!(
            "{v} is {d} level(s) above the floor of {t} at range {} <= {d}: LOS INTO it (A6.3)",
            viewer.hex.distance(inn.hex)
        ))
    } else {
        Ok(format!(
            "beyond range {} from {v} the line runs inside the depression to {t}: LOS INTO it (A6.3)",
            d.max(0)
        ))
    }
}

/// The number of blind hexes behind an obstruction whose top is `top_m` thousandths of a level,
/// at `range` hexes from a viewer at level `viewer`, over a target at level `low` (A6.4):
/// `1 + range / 5` (A6.41) `+ (top - low - 1)` (A6.43) `- (viewer - top - 1)` (A6.42), at least 1
/// behind an obstacle; a bare hill crest (`crest`) casts one fewer and may cast none (B10.23).
/// This is the count VASL's LOS checker uses: `2 * top + range / 5 - viewer - low + 1`.
pub fn blind_hexes(range: u32, top_m: i64, viewer: i32, low: i32, crest: bool) -> u32 {
    let top = (top_m + 999).div_euclid(1000);
    let n = 2 * top + i64::from(range / 5) - i64::from(viewer) - i64::from(low) + 1;
    if crest {
        (n - 1).max(0) as u32
    } else {
        n.max(1) as u32
    }
}

/// What a hex between the ends does.
fn judge_hex(c: &Ctx, h: Hex) -> Vec<Item> {
    let map = c.map;
    let Some(cell) = map.cell(h) else {
        return Vec::new();
    };
    let rs = &map.ruleset;
    let label = map.label(h);
    let mut out = Vec::new();
    for m in map.markers_at(h) {
        let mt = &rs.markers[m.kind as usize];
        let (effect, reason) = match mt.los {
            LosEffect::Obstacle => (
                Effect::Block,
                format!(
                    "a {} marker in {label} blocks LOS through its hex (A24)",
                    mt.id
                ),
            ),
            LosEffect::Hindrance(v) => (
                Effect::Hinder(v),
                format!(
                    "a {} marker in {label} hinders LOS (+{v}) whatever the heights (A24)",
                    mt.id
                ),
            ),
            LosEffect::Clear => continue,
        };
        out.push(Item {
            place: Place::Marker(h),
            effect,
            reason,
            inherent: true,
        });
    }
    let li = cell.level;
    let hex_item = |effect, reason| Item {
        place: Place::Hex(h),
        effect,
        reason,
        inherent: false,
    };
    if li > c.high {
        out.push(hex_item(
            Effect::Block,
            format!("the level-{li} hill in {label} is higher than both ends (levels {} and {}) (B10.2)", c.a.ground, c.b.ground),
        ));
        return out;
    }
    if li == c.high && c.hi_lo.is_some() {
        out.push(hex_item(
            Effect::Block,
            format!(
                "{label} is at level {li}, the higher end's level: the lower unit sees only the initial crest line of that level, and the higher unit's LOS would recross it (B10.2)"
            ),
        ));
        return out;
    }
    let t = &rs.terrain[cell.terrain as usize];
    if let Some((hi, lo)) = c.hi_lo
        && li > lo.ground
        && !hi.hex.is_adjacent(h)
        && let Some(item) = blind(
            c,
            h,
            li as i64 * 1000,
            (hi, lo),
            &format!("the level-{li} hill crest in {label}"),
            true,
        )
    {
        out.push(item);
        return out;
    }
    let inherent = units::tagged(rs, "inherent", &t.id);
    match t.los {
        LosEffect::Obstacle => {
            let top = li as i64 * 1000 + (t.height * 1000.0).round() as i64;
            if top >= c.high as i64 * 1000 {
                out.push(Item {
                    place: Place::Hex(h),
                    effect: Effect::Block,
                    reason: format!(
                        "{} in {label} is an obstacle reaching level {}, at or above both ends (levels {} and {}) (A6.2)",
                        t.id,
                        top as f64 / 1000.0,
                        c.a.ground,
                        c.b.ground
                    ),
                    inherent,
                });
            } else if let Some((hi, lo)) = c.hi_lo
                && top > lo.ground as i64 * 1000
                && let Some(mut item) = blind(
                    c,
                    h,
                    top,
                    (hi, lo),
                    &format!("the {} obstacle in {label}", t.id),
                    false,
                )
            {
                item.inherent = inherent;
                out.push(item);
            }
        }
        LosEffect::Hindrance(v) if li >= c.high => out.push(Item {
            place: Place::Hex(h),
            effect: Effect::Hinder(v),
            reason: format!(
                "{} in {label} at level {li} hinders LOS (+{v}) (A6.7{})",
                t.id,
                if inherent {
                    ", inherent terrain B.6"
                } else {
                    ""
                }
            ),
            inherent,
        }),
        _ => {}
    }
    out
}

/// A blind-hex block of the lower end behind an obstruction with top `top` in `h`, if any.
fn blind(c: &Ctx, h: Hex, top: i64, (hi, lo): (End, End), what: &str, crest: bool) -> Option<Item> {
    let rule = if crest { "B10.23, A6.4" } else { "A6.4" };
    let range = hi.hex.distance(h);
    let n = blind_hexes(range, top, hi.ground, lo.ground, crest);
    let behind = h.distance(lo.hex);
    (behind <= n).then(|| Item {
        place: Place::Hex(h),
        effect: Effect::Block,
        reason: format!(
            "blind hex: {} (level {}) is {behind} hex(es) behind {what} (level {}), which at range {range} from the level-{} viewer casts {n} blind hex(es) ({rule})",
            c.map.label(lo.hex),
            lo.ground,
            top as f64 / 1000.0,
            hi.ground
        ),
        inherent: false,
    })
}

/// A line exactly along the hexside between `x` and `y` (A6.1, B.6).
fn along_side(c: &Ctx, x: Hex, y: Hex) -> Option<(Effect, String)> {
    let ix = judge_hex(c, x);
    let iy = judge_hex(c, y);
    let sum = |items: &[Item], only_inherent: bool| -> Option<Effect> {
        let items: Vec<&Item> = items
            .iter()
            .filter(|i| !only_inherent || i.inherent)
            .collect();
        if items.is_empty() {
            None
        } else if items.iter().any(|i| i.effect == Effect::Block) {
            Some(Effect::Block)
        } else {
            Some(Effect::Hinder(
                items
                    .iter()
                    .map(|i| {
                        if let Effect::Hinder(v) = i.effect {
                            v
                        } else {
                            0
                        }
                    })
                    .sum(),
            ))
        }
    };
    let text = |items: &[Item]| {
        if items.is_empty() {
            "no effect".to_string()
        } else {
            items
                .iter()
                .map(|i| i.reason.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        }
    };
    let strongest = |p: Option<Effect>, q: Option<Effect>| match (p, q) {
        (Some(Effect::Block), _) | (_, Some(Effect::Block)) => Some(Effect::Block),
        (Some(Effect::Hinder(u)), Some(Effect::Hinder(v))) => Some(Effect::Hinder(u.max(v))),
        (p, None) => p,
        (None, q) => q,
    };
    let inherent = strongest(sum(&ix, true), sum(&iy, true));
    let both = both_sides(sum(&ix, false), sum(&iy, false));
    let effect = strongest(inherent, both)?;
    let side = c.map.side_label(x, y);
    let why = if inherent.is_some() && inherent == Some(effect) {
        "inherent terrain acts even when the line runs along its hexside (A6.1 EXC, B.6)"
    } else {
        "the line runs exactly along the hexside, so it is blocked or hindered only if both sides are (A6.1)"
    };
    Some((
        effect,
        format!(
            "{why}: {side}; {}: {}; {}: {}",
            c.map.label(x),
            text(&ix),
            c.map.label(y),
            text(&iy)
        ),
    ))
}

/// What a crossed hexside feature does (B9.2).
fn judge_side(c: &Ctx, x: Hex, y: Hex) -> Option<(Effect, String)> {
    let map = c.map;
    let f = map.hexside(x, y)?;
    let ht = &map.ruleset.hexsides[f.kind as usize];
    if [x, y].iter().any(|h| *h == c.a.hex || *h == c.b.hex) {
        return None;
    }
    let level = map.level(x).max(map.level(y));
    if level < c.high {
        return None;
    }
    let side = map.side_label(x, y);
    match ht.los {
        LosEffect::Obstacle => Some((
            Effect::Block,
            format!(
                "the {} on hexside {side} (level {level}) blocks LOS at its level, and is not a hexside of the firer's or target's hex (B9.2)",
                ht.id
            ),
        )),
        LosEffect::Hindrance(v) => Some((
            Effect::Hinder(v),
            format!("the {} on hexside {side} hinders LOS (+{v}) (B9.2)", ht.id),
        )),
        LosEffect::Clear => None,
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

/// The crest answer between two units, for `hexsight units`.
pub fn unit_trace(map: &Map, a: &Unit, b: &Unit, fire: FireKind) -> Assessment {
    let line = HexLine::new(a.hex, b.hex);
    trace(map, &line, unit_pos(map, a), unit_pos(map, b), fire)
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
