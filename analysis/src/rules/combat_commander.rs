//! The `combat-commander` family: hills, slope hexes and crest lines, blind hexes,
//! hindrances and hexside obstacles (rules.md section 1, seed 004: T88, T89, hedge).
//!
//! How the rules are read (each verdict cites the rule it applies):
//! - Only hexes and hexsides *between* the two ends act; a hex the line only touches at
//!   a vertex has no effect; a line exactly along a hexside is blocked only when both
//!   hexes beside it block, and hindered by the smaller of their hindrances.
//! - With `H` the higher end's level: an intervening hex above `H` blocks (T88.3.3). When
//!   the ends differ in level, an intervening hex at level `H` also blocks (T88.3.2): seen
//!   from below, only the first hex at the higher level is visible (it is the slope hex
//!   where the crest line runs); seen from above, the line would cross a crest line of the
//!   observer's own height in an intervening hex. The crest in an end hex never counts.
//!   Read this way the rule is reciprocal, as Combat Commander's LOS is.
//! - Woods and buildings (terrain with `los: obstacle`) block when their hex's level is at
//!   least `H` (T88.4). A lower one blocks only the hex directly behind it as seen from
//!   higher ground: when it is the first hex the line enters from the lower end, and that
//!   end is at its level or below (T88.4.1, blind hex); this also gives the rule's
//!   converse example (a level-1 building next to a level-1 observer hides level-2 hexes).
//! - Terrain hindrances count when their hex's level is at least `H` (T88.5). Markers act
//!   whatever the heights: blaze always blocks (T88.4), smoke always hinders (T88.5).
//! - Hedges and walls block a line that crosses them when their level (the higher of the
//!   two hexes) is at least `H`, except when the hexside is one of the observer's or the
//!   target's own sides (terrain chart: hedge). A line running along a hedge does not
//!   cross it.
//! - Modifiers: -1/+1 FP for height (T88.2); cover when fire enters the target hex across a
//!   hedge; no fire from marsh (T89). Movement: terrain cost, +1 to cross a hedge, +1 uphill
//!   (T88.1).

use super::{Assessment, Effect, Event, LosEffect, Modifier, Place, both_sides, hexside_events};
use crate::error::{Error, ErrorKind, Result};
use crate::hex::{Crossing, Hex, HexLine, SideCrossing};
use crate::map::Map;

/// The ends of a line and their levels, which every rule compares against.
struct Ends {
    from: Hex,
    to: Hex,
    lo: i32,
    lt: i32,
    high: i32,
    /// The lower end and its level, when the ends differ.
    low: Option<(Hex, i32)>,
}

/// Judges a walked line.
pub fn assess(map: &Map, line: &HexLine) -> Assessment {
    let lo = map.level(line.from);
    let lt = map.level(line.to);
    let low = match lo.cmp(&lt) {
        std::cmp::Ordering::Less => Some((line.from, lo)),
        std::cmp::Ordering::Greater => Some((line.to, lt)),
        std::cmp::Ordering::Equal => None,
    };
    let ends = Ends {
        from: line.from,
        to: line.to,
        lo,
        lt,
        high: lo.max(lt),
        low,
    };
    let between = line.between();
    let is_hex_step = |s: &&crate::hex::Step| !matches!(s.crossing, Crossing::Vertex(_));
    let first = between.iter().position(|s| is_hex_step(&s));
    let last = between.iter().rposition(|s| is_hex_step(&s));
    let next_to_low = |i: usize| match ends.low {
        Some((h, _)) if h == ends.from => Some(i) == first,
        Some(_) => Some(i) == last,
        None => false,
    };

    let mut events = Vec::new();
    for (i, step) in between.iter().enumerate() {
        match step.crossing {
            Crossing::Hex(h) => {
                for (place, effect, reason) in judge_hex(map, &ends, h, next_to_low(i)) {
                    events.push(Event {
                        at: step.t0,
                        place,
                        effect,
                        reason,
                    });
                }
            }
            Crossing::Side(a, b) => {
                let (ea, ra) = summarise(judge_hex(map, &ends, a, next_to_low(i)));
                let (eb, rb) = summarise(judge_hex(map, &ends, b, next_to_low(i)));
                if let Some(effect) = both_sides(ea, eb) {
                    let reason = format!(
                        "the line runs exactly along the hexside {}, so it is blocked only if both sides block and hindered by the lesser side; {}: {}; {}: {}",
                        map.side_label(a, b),
                        map.label(a),
                        ra,
                        map.label(b),
                        rb
                    );
                    events.push(Event {
                        at: step.t0,
                        place: Place::AlongSide(a, b),
                        effect,
                        reason,
                    });
                }
            }
            Crossing::Vertex(_) => {}
        }
    }
    events.extend(hexside_events(map, line, "", |a, b| {
        judge_side(map, &ends, a, b)
    }));
    Assessment {
        events,
        modifiers: modifiers(map, line, &ends),
        hindrance_limit: None,
    }
}

/// What a hex between the ends does: its markers, its hill, its terrain.
fn judge_hex(map: &Map, e: &Ends, h: Hex, next_to_low: bool) -> Vec<(Place, Effect, String)> {
    let Some(cell) = map.cell(h) else {
        return Vec::new();
    };
    let rs = &map.ruleset;
    let label = map.label(h);
    let mut out = Vec::new();
    for m in map.markers_at(h) {
        let mt = &rs.markers[m.kind as usize];
        match mt.los {
            LosEffect::Obstacle => out.push((
                Place::Marker(h),
                Effect::Block,
                format!("a {} marker in {label} always blocks LOS through its hex, whatever the heights (T88.4)", mt.id),
            )),
            LosEffect::Hindrance(v) => out.push((
                Place::Marker(h),
                Effect::Hinder(v),
                format!("a {} marker in {label} always hinders LOS through its hex ({v}), whatever the heights (T88.5)", mt.id),
            )),
            LosEffect::Clear => {}
        }
    }
    let li = cell.level;
    if li > e.high {
        out.push((
            Place::Hex(h),
            Effect::Block,
            format!("the level-{li} hill in {label} is higher than both ends (levels {} and {}) (T88.3.3)", e.lo, e.lt),
        ));
        return out;
    }
    if e.lo != e.lt && li == e.high {
        let why = if e.lo < e.lt {
            format!(
                "looking up from level {}, LOS reaches only the first slope hex at level {li}, and {label} at level {li} comes before the target (T88.3.2)",
                e.lo
            )
        } else {
            format!(
                "looking down from level {}, LOS would cross the level-{li} crest line in the intervening hex {label}, as high as the observer (T88.3.2)",
                e.lo
            )
        };
        out.push((Place::Hex(h), Effect::Block, why));
        return out;
    }
    let t = &rs.terrain[cell.terrain as usize];
    match t.los {
        LosEffect::Obstacle if li >= e.high => out.push((
            Place::Hex(h),
            Effect::Block,
            format!(
                "{} in {label} at level {li} is an obstacle at or above both ends (T88.4)",
                t.id
            ),
        )),
        LosEffect::Obstacle => {
            if let Some((low, ll)) = e.low
                && ll <= li
                && next_to_low
            {
                out.push((
                    Place::Hex(h),
                    Effect::Block,
                    format!(
                        "blind hex: {} (level {ll}) is directly behind the lower {} in {label} (level {li}) seen from level {} (T88.4.1)",
                        map.label(low),
                        t.id,
                        e.high
                    ),
                ));
            }
        }
        LosEffect::Hindrance(v) if li >= e.high => out.push((
            Place::Hex(h),
            Effect::Hinder(v),
            format!(
                "{} in {label} at level {li} hinders the line ({v}) (T88.5)",
                t.id
            ),
        )),
        LosEffect::Hindrance(_) | LosEffect::Clear => {}
    }
    out
}

/// One hex's combined effect: any block blocks, otherwise hindrances add up.
fn summarise(items: Vec<(Place, Effect, String)>) -> (Option<Effect>, String) {
    if items.is_empty() {
        return (None, "no effect".to_string());
    }
    let reason = items
        .iter()
        .map(|i| i.2.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    if items.iter().any(|i| i.1 == Effect::Block) {
        return (Some(Effect::Block), reason);
    }
    let total = items
        .iter()
        .map(|i| if let Effect::Hinder(v) = i.1 { v } else { 0 })
        .sum();
    (Some(Effect::Hinder(total)), reason)
}

/// What a crossed hexside feature does.
fn judge_side(map: &Map, e: &Ends, a: Hex, b: Hex) -> Option<(Effect, String)> {
    let f = map.hexside(a, b)?;
    let ht = &map.ruleset.hexsides[f.kind as usize];
    let side = map.side_label(a, b);
    if [a, b].contains(&e.from) || [a, b].contains(&e.to) {
        return None; // The observer's or target's own hexside (terrain chart: hedge).
    }
    let level = [a, b]
        .iter()
        .filter_map(|h| map.cell(*h))
        .map(|c| c.level)
        .max()
        .unwrap_or(0);
    if level < e.high {
        return None;
    }
    match ht.los {
        LosEffect::Obstacle => Some((
            Effect::Block,
            format!(
                "the {} on hexside {side} (level {level}) is an obstacle, and not a side of the observer's or target's hex (terrain chart: {}; T88.4)",
                ht.id, ht.id
            ),
        )),
        LosEffect::Hindrance(v) => Some((
            Effect::Hinder(v),
            format!("the {} on hexside {side} hinders the line ({v})", ht.id),
        )),
        LosEffect::Clear => None,
    }
}

fn modifiers(map: &Map, line: &HexLine, e: &Ends) -> Vec<Modifier> {
    let mut out = Vec::new();
    let fp = map.ruleset.param("height_advantage_fp", 1.0) as i32;
    if e.lt > e.lo {
        out.push(Modifier {
            name: "height advantage".into(),
            value: -fp,
            text: format!(
                "the target (level {}) is higher than the firer (level {}): -{fp} FP (T88.2)",
                e.lt, e.lo
            ),
        });
    } else if e.lt < e.lo {
        out.push(Modifier {
            name: "height advantage".into(),
            value: fp,
            text: format!(
                "the target hex (level {}) is lower than the firer (level {}): +{fp} FP (T88.2)",
                e.lt, e.lo
            ),
        });
    }
    if let Some(t) = map.terrain(e.from)
        && t.no_fire
    {
        out.push(Modifier {
            name: "no fire".into(),
            value: 0,
            text: format!("no weapon may fire from a {} hex (T89)", t.id),
        });
    }
    let cover_of = |a: Hex, b: Hex| {
        map.hexside(a, b)
            .map(|f| &map.ruleset.hexsides[f.kind as usize])
            .filter(|t| t.cover > 0)
    };
    let entering = match line.side_crossings().last() {
        Some(SideCrossing::One(a, b, _)) if *b == e.to && e.from != e.to => cover_of(*a, *b),
        Some(SideCrossing::Pair(t, b, c, _)) if *t == e.to => {
            match (cover_of(*t, *b), cover_of(*t, *c)) {
                (Some(x), Some(y)) => Some(if x.cover <= y.cover { x } else { y }),
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(ht) = entering {
        out.push(Modifier {
            name: "hexside cover".into(),
            value: ht.cover,
            text: format!(
                "fire enters the target hex across a {}: cover {} (not against mortars or artillery) (terrain chart: {})",
                ht.id, ht.cover, ht.id
            ),
        });
    }
    if let Some(t) = map.terrain(e.to)
        && t.tem != 0
    {
        out.push(Modifier {
            name: "terrain cover".into(),
            value: t.tem,
            text: format!("the target is in {}: cover {}", t.id, t.tem),
        });
    }
    out
}

/// Movement points to enter adjacent hex `to` from `from`, with the reasons.
pub fn movement_cost(map: &Map, from: Hex, to: Hex) -> Result<(f64, Vec<String>)> {
    if !from.is_adjacent(to) {
        return Err(Error::new(
            ErrorKind::Query,
            format!("{} and {} are not adjacent", map.label(from), map.label(to)),
        ));
    }
    let t = map.terrain(to).ok_or_else(|| {
        Error::new(
            ErrorKind::Query,
            format!("{} is off the map", map.label(to)),
        )
    })?;
    let mut cost = t
        .movement
        .ok_or_else(|| Error::new(ErrorKind::Query, format!("{} is impassable", t.id)))?;
    let mut why = vec![format!("{} costs {cost}", t.id)];
    if let Some(f) = map.hexside(from, to) {
        let ht = &map.ruleset.hexsides[f.kind as usize];
        if ht.movement != 0.0 {
            cost += ht.movement;
            why.push(format!("+{} to cross the {}", ht.movement, ht.id));
        }
    }
    if map.level(to) > map.level(from) {
        let up = map.ruleset.param("uphill_movement", 1.0);
        cost += up;
        why.push(format!(
            "+{up} to move up from level {} to {} (T88.1)",
            map.level(from),
            map.level(to)
        ));
    }
    Ok((cost, why))
}

/// Map features that are legal but probably drawn wrong, for `validate`.
pub fn warnings(map: &Map) -> Vec<String> {
    let mut out = Vec::new();
    for h in map.hexes() {
        let c = map.cell(h).expect("on map");
        let lower_neighbour = h
            .neighbors()
            .iter()
            .any(|n| map.cell(*n).is_some_and(|x| x.level < c.level));
        if c.level > 0 && lower_neighbour && !c.slope {
            out.push(format!(
                "{} (level {}) borders lower ground but is not a slope hex: LOS from below will treat it as the crest (T88.3.1)",
                map.label(h),
                c.level
            ));
        }
        if c.slope && !lower_neighbour {
            out.push(format!(
                "{} is a slope hex but borders no lower hex (T88.3.1)",
                map.label(h)
            ));
        }
    }
    out
}
