//! The `combat-commander` family: hills, slope hexes and crest lines, blind hexes,
//! hindrances and hexside obstacles (rules.md section 1, seed 004: T88, T89, hedge).
//! Its readings, with worked examples the docs test runs, are the guide's page
//! `docs/guide/rules-combat-commander.md`; a change of rule here changes that page too.
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

use super::kernel::{At, End, Explained, FarKey, Notes, What};
use super::{Assessment, Effect, LevelSide, LosEffect, Modifier, marker_ids};
use crate::error::{Error, ErrorKind, Result};
use crate::hex::{Hex, HexLine, SideCrossing};
use crate::map::Map;

/// What the Combat Commander rules read in a hex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cell {
    /// On the map (off it nothing acts).
    pub on_map: bool,
    /// Ground level.
    pub level: i32,
    /// The terrain's effect (`None` for clear).
    pub terrain: Option<LosEffect>,
    /// A marker that blocks whatever the heights (blaze).
    pub marker_block: bool,
    /// The markers' hindrance, whatever the heights (smoke).
    pub marker_hinder: u32,
}

/// The ends of a line and their levels, which every rule compares against.
#[derive(Clone, Copy, Debug)]
pub struct Ends {
    lo: i32,
    lt: i32,
    high: i32,
    /// The lower end (true when it is the observer) and its level and hex, when the ends differ.
    low: Option<(bool, i32, Hex)>,
}

impl Ends {
    /// The ends of a line from the observer in `a` at level `lo` to the target in
    /// `b` at level `lt`.
    #[inline]
    fn of((a, lo): (Hex, i32), (b, lt): (Hex, i32)) -> Ends {
        let low = match lo.cmp(&lt) {
            std::cmp::Ordering::Less => Some((true, lo, a)),
            std::cmp::Ordering::Greater => Some((false, lt, b)),
            std::cmp::Ordering::Equal => None,
        };
        Ends {
            lo,
            lt,
            high: lo.max(lt),
            low,
        }
    }

    /// Ends at levels `lo` and `lt`, as the keys read them (the hexes only name
    /// the lower end in reasons).
    fn at(lo: i32, lt: i32) -> Ends {
        Ends::of((Hex::new(0, 0), lo), (Hex::new(0, 1), lt))
    }
}

/// The Combat Commander sight rule.
pub struct Kernel<'m> {
    map: &'m Map,
    /// Marker effects by hex.
    markers: std::collections::HashMap<Hex, (bool, u32)>,
}

impl<'m> Kernel<'m> {
    /// The kernel for a map.
    pub fn new(map: &'m Map) -> Self {
        Kernel {
            map,
            markers: super::marker_sums(map),
        }
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
        let t = &map.ruleset.terrain[c.terrain as usize];
        let (marker_block, marker_hinder) = self.markers.get(&h).copied().unwrap_or_default();
        Cell {
            on_map: true,
            level: c.level,
            terrain: (t.los != LosEffect::Clear).then_some(t.los),
            marker_block,
            marker_hinder,
        }
    }

    fn side(&self, a: Hex, b: Hex) -> LevelSide {
        LevelSide::of(self.map, a, b)
    }

    #[inline]
    fn ends(&self, a: End<Cell>, b: End<Cell>) -> Ends {
        Ends::of((a.hex, a.cell.level), (b.hex, b.cell.level))
    }

    /// A hex between the ends: its markers, its hill, its terrain.
    #[inline]
    fn hex<N: Notes>(&self, e: &Ends, c: &Cell, at: At, n: &mut N) {
        if !c.on_map {
            return;
        }
        let map = self.map;
        let label = || map.label(at.hex);
        if c.marker_block {
            n.note(What::Marker, Effect::Block, false, || {
                format!("a {} marker in {} always blocks LOS through its hex, whatever the heights (T88.4)", marker_ids(map, at.hex, true), label())
            });
        }
        if c.marker_hinder > 0 {
            let v = c.marker_hinder;
            n.note(What::Marker, Effect::Hinder(v), false, || {
                format!("a {} marker in {} always hinders LOS through its hex ({v}), whatever the heights (T88.5)", marker_ids(map, at.hex, false), label())
            });
        }
        let li = c.level;
        if li > e.high {
            n.note(What::Hex, Effect::Block, false, || {
                format!("the level-{li} hill in {} is higher than both ends (levels {} and {}) (T88.3.3)", label(), e.lo, e.lt)
            });
            return;
        }
        if e.lo != e.lt && li == e.high {
            n.note(What::Hex, Effect::Block, false, || {
                if e.lo < e.lt {
                    format!(
                        "looking up from level {}, LOS reaches only the first slope hex at level {li}, and {} at level {li} comes before the target (T88.3.2)",
                        e.lo, label()
                    )
                } else {
                    format!(
                        "looking down from level {}, LOS would cross the level-{li} crest line in the intervening hex {}, as high as the observer (T88.3.2)",
                        e.lo, label()
                    )
                }
            });
            return;
        }
        let id = || map.terrain(at.hex).map_or(String::new(), |t| t.id.clone());
        match c.terrain {
            Some(LosEffect::Obstacle) if li >= e.high => {
                n.note(What::Hex, Effect::Block, false, || {
                    format!(
                        "{} in {} at level {li} is an obstacle at or above both ends (T88.4)",
                        id(),
                        label()
                    )
                })
            }
            Some(LosEffect::Obstacle) => {
                // The blind hex (T88.4.1): the lower obstacle first entered from the lower end.
                if let Some((low_is_from, ll, low)) = e.low
                    && ll <= li
                    && (if low_is_from { at.first } else { at.last })
                {
                    n.note(What::Hex, Effect::Block, false, || {
                        format!(
                            "blind hex: {} (level {ll}) is directly behind the lower {} in {} (level {li}) seen from level {} (T88.4.1)",
                            map.label(low),
                            id(),
                            label(),
                            e.high
                        )
                    });
                }
            }
            Some(LosEffect::Hindrance(v)) if li >= e.high => {
                n.note(What::Hex, Effect::Hinder(v), false, || {
                    format!(
                        "{} in {} at level {li} hinders the line ({v}) (T88.5)",
                        id(),
                        label()
                    )
                })
            }
            _ => {}
        }
    }

    fn along_reason(&self, a: Hex, b: Hex, x: &Explained, y: &Explained, _: Effect) -> String {
        let map = self.map;
        format!(
            "the line runs exactly along the hexside {}, so it is blocked only if both sides block and hindered by the lesser side; {}: {}; {}: {}",
            map.side_label(a, b),
            map.label(a),
            x.text("no effect"),
            map.label(b),
            y.text("no effect")
        )
    }

    /// A crossed hedge or wall: it acts when its level is at least the higher end's.
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
                    "the {id} on hexside {side} (level {level}) is an obstacle, and not a side of the observer's or target's hex (terrain chart: {id}; T88.4)"
                ),
                Effect::Hinder(v) => format!("the {id} on hexside {side} hinders the line ({v})"),
            }
        });
    }

    /// Between ends at one level no blind hex can act: every rule compares with
    /// that level only, wherever a stretch lies.
    #[inline]
    fn level_key(&self, e: &Ends) -> Option<i32> {
        e.low.is_none().then_some(e.high)
    }

    fn keyed_ends(&self, level: i32) -> Option<Ends> {
        Some(Ends::at(level, level))
    }

    /// Between ends at two levels, hills, obstacles and hindrances at or above the
    /// higher end, hexside features and markers act wherever they lie; the blind
    /// hex (T88.4.1) only adds a block next to the lower end.
    #[inline]
    fn far_key(&self, e: &Ends) -> Option<FarKey> {
        e.low.map(|(low_is_from, low, _)| FarKey {
            high: e.high,
            low,
            target_low: !low_is_from,
        })
    }

    fn far_ends(&self, level: i32) -> Option<Ends> {
        Some(Ends::at(level, level.saturating_sub(1)))
    }

    /// The observer high and the target low: next to the target its blind hex acts.
    fn near_ends(&self, high: i32, low: i32) -> Option<Ends> {
        (high > low).then(|| Ends::at(high, low))
    }

    /// Only the stretch next to the lower end can be its blind hex.
    fn near_reach(&self, _key: FarKey, _length: u32) -> u32 {
        1
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

/// Judges a walked line: the kernel's events and the fire modifiers.
pub fn assess(map: &Map, line: &HexLine) -> Assessment {
    let mut a = super::kernel::explain(&Kernel::new(map), line);
    a.modifiers = modifiers(map, line);
    a
}

/// The family's entry in [`super::registry`]: the kernel, the fire modifiers and
/// `validate`'s warnings; its hills are lower than most.
pub struct Rules;

impl super::registry::Rules for Rules {
    type Kernel<'m> = Kernel<'m>;
    fn kernel(map: &Map) -> Kernel<'_> {
        Kernel::new(map)
    }
    fn assess(map: &Map, line: &HexLine) -> Assessment {
        assess(map, line)
    }
    fn warnings(map: &Map) -> Vec<String> {
        warnings(map)
    }
    const HILL_LEVELS: i32 = 4;
}

fn modifiers(map: &Map, line: &HexLine) -> Vec<Modifier> {
    struct Levels {
        from: Hex,
        to: Hex,
        lo: i32,
        lt: i32,
    }
    let e = &Levels {
        from: line.from,
        to: line.to,
        lo: map.level(line.from),
        lt: map.level(line.to),
    };
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

#[cfg(test)]
mod tests {
    use super::super::kernel::{FAR_FROM_ENDS, Kernel as _, NEAR_TARGET, Quiet, Sum};
    use super::*;
    use crate::hex::{Crossing, HexLine};

    fn verdict(k: &Kernel, e: &Ends, c: &Cell, at: At) -> Sum {
        let mut n = Quiet::default();
        k.hex(e, c, at, &mut n);
        n.all()
    }

    /// The keys as the level sweep reads them, on random maps: a keyed line's hex
    /// stretches do what they do far from the ends; on a line between two levels a
    /// hex stretch does nothing it does not do next to the lower end (near ends), and
    /// beyond the reach just what it does far from both ends (far ends).
    #[test]
    fn keys_near_ends_and_reach_hold_on_random_maps() {
        let (mut keyed, mut near, mut beyond) = (0, 0, 0);
        for seed in 0..6 {
            let map = crate::engine::testmaps::random_map("combat-commander", seed, 16, 14);
            let k = Kernel::new(&map);
            let end = |h: Hex| End {
                hex: h,
                cell: k.cell(h),
            };
            let hexes: Vec<Hex> = map.hexes().collect();
            for (x, &a) in hexes.iter().enumerate().step_by(3) {
                for &b in hexes.iter().skip(x % 2).step_by(2).filter(|&&b| b != a) {
                    let e = k.ends(end(a), end(b));
                    let line = HexLine::new(a, b);
                    let between = line.between();
                    let stretch = |c: &Crossing| !matches!(c, Crossing::Vertex(_));
                    let first = between.iter().position(|s| stretch(&s.crossing));
                    let last = between.iter().rposition(|s| stretch(&s.crossing));
                    for (i, s) in between.iter().enumerate() {
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
                            first: Some(i) == first,
                            last: Some(i) == last,
                        };
                        let got = verdict(&k, &e, &c, at);
                        if let Some(key) = k.level_key(&e) {
                            let ke = k.keyed_ends(key).expect("keyed ends");
                            assert_eq!(got, verdict(&k, &ke, &c, FAR_FROM_ENDS), "{a:?} -> {b:?}");
                            keyed += 1;
                            continue;
                        }
                        let f = k.far_key(&e).expect("a far key between two levels");
                        let ne = k.near_ends(f.high, f.low).expect("near ends");
                        let most = verdict(&k, &ne, &c, NEAR_TARGET);
                        assert!(!got.any || most.any, "{a:?} -> {b:?} at {h:?}");
                        assert!(!got.block || most.block, "{a:?} -> {b:?} at {h:?}");
                        near += 1;
                        let lower = if f.target_low { at.to } else { at.from };
                        if lower > k.near_reach(f, a.distance(b)) {
                            let fe = k.far_ends(f.high).expect("far ends");
                            let far = verdict(&k, &fe, &c, FAR_FROM_ENDS);
                            assert_eq!(got, far, "{a:?} -> {b:?} at {h:?}");
                            beyond += 1;
                        }
                    }
                }
            }
        }
        assert!(
            keyed > 1_000 && near > 1_000 && beyond > 1_000,
            "{keyed} {near} {beyond}"
        );
    }
}
