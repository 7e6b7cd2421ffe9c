//! The `napoleonic` family: units that shape sight lines, and British/KGL infantry lying
//! prone (rules.md section 3, seed 002). Reasons cite the sections of the prone rule by
//! name: Maniobra (manoeuvre), Terreno (terrain), Apilamiento (stacking), Línea de Visión
//! (LOS), Abrir fuego (fire), as `prone rule, LOS` and so on.
//! Its readings, with worked examples the docs test runs, are the guide's page
//! `docs/guide/rules-napoleonic.md`; a change of rule here changes that page too.
//!
//! How the rules are read:
//! - Terrain: an intervening hex higher than both ends blocks; an obstacle (woods, town) blocks
//!   when its hex is at least as high as the higher end. Hedges and walls are low: they do not
//!   block LOS, they only hide prone units behind them. A line along a hexside is blocked only
//!   when both hexes beside it block; a hex touched at a vertex has no effect.
//! - Units: a unit whose state is flagged `blocks-los` (standing) in an intervening hex blocks
//!   LOS, whichever side it is on; prone units do not (prone rule, LOS). `hexsight los` between
//!   hexes includes this.
//! - Three answers for a pair of units. Sees: LOS between their hexes, and the target is not a
//!   prone unit hidden by a hedge or wall (hexside tag `conceals-prone`) that the line crosses
//!   to enter its hex (at a vertex, both hexsides must be hedges or walls), or by its hex's
//!   terrain (terrain tag `conceals-prone`: cultivated). Can be targeted: seen, and if the
//!   target is prone the firer's kind is flagged `fires-at-prone` (artillery, skirmishers).
//!   Can fire: targeted, the firer is not prone, and no friendly unit (same side), prone or
//!   standing, stands in a hex the line crosses, unless the firer is flagged
//!   `fires-over-friends` (howitzers). Enemy prone units in between do not stop fire.
//!   Howitzers fire over friendly units "prone or not", so for them standing friendly units do
//!   not block the sight line either; standing enemies still do.
//! - A prone target's fire defence improves by 2; no ricochet against it (prone rule, fire).
//! - Checked on load: prone only for kinds flagged `may-go-prone`, only in terrain tagged
//!   `prone-terrain` (open, farm/house, cultivated), only for nations in `prone-nations` when
//!   a unit gives a `nation`; a prone hex holds at most one battalion (`battalion`) and one
//!   light company (`light-company`), no artillery (`artillery`), no standing unit, and no
//!   British/KGL units mixed with others.

use super::kernel::{At, End, Explained, Notes, What, explain};
use super::units::{self, FireKind, Problem, UnitAnswers};
use super::{Assessment, Effect, LosEffect, Modifier, Verdict};
use crate::hex::{Crossing, Hex, HexLine, SideCrossing};
use crate::map::{Map, Unit};
use std::collections::{BTreeMap, HashMap};

/// Marks a hex whose standing units belong to more than one side.
const MIXED: u16 = u16::MAX;

/// What the napoleonic rules read in a hex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cell {
    /// On the map (off it nothing acts).
    pub on_map: bool,
    /// Ground level.
    pub level: i32,
    /// The terrain's effect (`None` for clear).
    pub terrain: Option<LosEffect>,
    /// Standing units stand here (flag `blocks-los`).
    pub standing: bool,
    /// The side of those units (an index into the kernel's sides), or `MIXED`.
    pub standing_side: u16,
}

/// The napoleonic sight rule: terrain, then standing units.
pub struct Kernel<'m> {
    map: &'m Map,
    /// Every side of the map's units, for [`Cell::standing_side`].
    sides: Vec<&'m str>,
    /// Standing units of this side do not block (howitzers fire over friends).
    ignore: Option<u16>,
    /// The standing units' sides by hex.
    standing: HashMap<Hex, u16>,
}

impl<'m> Kernel<'m> {
    /// The kernel for a map: every standing unit blocks.
    pub fn new(map: &'m Map) -> Self {
        let mut sides: Vec<&str> = Vec::new();
        let mut standing = HashMap::new();
        for u in &map.units {
            let i = match sides.iter().position(|s| *s == u.side) {
                Some(i) => i,
                None => {
                    sides.push(&u.side);
                    sides.len() - 1
                }
            };
            let i = u16::try_from(i).unwrap_or(MIXED - 1);
            if units::state_has(map, u, "blocks-los") {
                standing
                    .entry(u.hex)
                    .and_modify(|s| {
                        if *s != i {
                            *s = MIXED
                        }
                    })
                    .or_insert(i);
            }
        }
        Kernel {
            map,
            sides,
            ignore: None,
            standing,
        }
    }

    /// The kernel for a firer that fires over standing units of its own `side` (howitzers).
    pub fn ignoring(map: &'m Map, side: &str) -> Self {
        let mut k = Kernel::new(map);
        k.ignore = k
            .sides
            .iter()
            .position(|s| *s == side)
            .and_then(|i| u16::try_from(i).ok());
        k
    }
}

impl super::kernel::Kernel for Kernel<'_> {
    type Cell = Cell;
    type Side = Option<LosEffect>;
    /// The higher end's level.
    type Ends = i32;

    fn map(&self) -> &Map {
        self.map
    }

    fn cell(&self, h: Hex) -> Cell {
        let map = self.map;
        let c = map.cell(h).expect("on the map");
        let t = &map.ruleset.terrain[c.terrain as usize];
        let side = self.standing.get(&h).copied();
        Cell {
            on_map: true,
            level: c.level,
            terrain: (t.los != LosEffect::Clear).then_some(t.los),
            standing: side.is_some(),
            standing_side: side.unwrap_or(MIXED),
        }
    }

    fn side(&self, a: Hex, b: Hex) -> Option<LosEffect> {
        let f = self.map.hexside(a, b).expect("a feature");
        Some(self.map.ruleset.hexsides[f.kind as usize].los)
    }

    #[inline]
    fn ends(&self, a: End<Cell>, b: End<Cell>) -> i32 {
        a.cell.level.max(b.cell.level)
    }

    /// A hex between the ends: its ground, its terrain, then its standing units.
    #[inline]
    fn hex<N: Notes>(&self, &high: &i32, c: &Cell, at: At, n: &mut N) {
        if !c.on_map {
            return;
        }
        let map = self.map;
        let label = || map.label(at.hex);
        if c.level > high {
            return n.note(What::Hex, Effect::Block, false, || {
                format!(
                    "the level-{} ground in {} is higher than both ends (napoleonic terrain: hills)",
                    c.level,
                    label()
                )
            });
        }
        let id = || map.terrain(at.hex).map_or(String::new(), |t| t.id.clone());
        match c.terrain {
            Some(LosEffect::Obstacle) if c.level >= high => {
                return n.note(What::Hex, Effect::Block, false, || {
                    format!(
                        "{} in {} blocks LOS (napoleonic terrain table)",
                        id(),
                        label()
                    )
                });
            }
            Some(LosEffect::Hindrance(v)) if c.level >= high => {
                return n.note(What::Hex, Effect::Hinder(v), false, || {
                    format!(
                        "{} in {} hinders LOS (+{v}) (napoleonic terrain table)",
                        id(),
                        label()
                    )
                });
            }
            _ => {}
        }
        if c.standing && (c.standing_side == MIXED || Some(c.standing_side) != self.ignore) {
            n.note(What::Hex, Effect::Block, false, || {
                let ignore = self.ignore.map(|i| self.sides[i as usize]);
                let ids: Vec<&str> = map
                    .units_at(at.hex)
                    .filter(|u| units::state_has(map, u, "blocks-los") && Some(u.side.as_str()) != ignore)
                    .map(|u| u.id.as_str())
                    .collect();
                format!(
                    "the standing unit(s) {} in {} block LOS through their hex; prone units would not (prone rule, LOS)",
                    ids.join(", "),
                    label()
                )
            });
        }
    }

    fn along_reason(&self, a: Hex, b: Hex, x: &Explained, y: &Explained, _: Effect) -> String {
        format!(
            "the line runs along hexside {}, blocked only if both sides block: {}; {}",
            self.map.side_label(a, b),
            x.text(""),
            y.text("")
        )
    }

    /// Hedges and walls are low: only a hexside obstacle blocks, whatever the levels.
    #[inline]
    fn cross<N: Notes>(&self, _: &i32, s: &Option<LosEffect>, a: Hex, b: Hex, n: &mut N) {
        if *s == Some(LosEffect::Obstacle) {
            n.note(What::Hex, Effect::Block, false, || {
                let map = self.map;
                let f = map.hexside(a, b).expect("a feature");
                format!(
                    "the {} on hexside {} blocks LOS (napoleonic terrain table)",
                    map.ruleset.hexsides[f.kind as usize].id,
                    map.side_label(a, b)
                )
            });
        }
    }

    /// A line slipping between two hexsides at a vertex crosses neither.
    fn pair(&self, _: Option<Effect>, _: Option<Effect>) -> Option<Effect> {
        None
    }

    /// Every rule compares levels with the higher end's only.
    #[inline]
    fn level_key(&self, &high: &i32) -> Option<i32> {
        Some(high)
    }

    fn keyed_ends(&self, level: i32) -> Option<i32> {
        Some(level)
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

/// Judges a walked line between hexes, units included.
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
    fn unit_answers(map: &Map, a: &Unit, b: &Unit, _fire: FireKind) -> UnitAnswers {
        unit_answers(map, a, b)
    }
}

/// True when the unit lies prone (its state is flagged `prone`).
pub fn is_prone(map: &Map, u: &Unit) -> bool {
    units::state_has(map, u, "prone")
}

/// Why a prone target cannot be seen from along `line`, if it is hidden.
fn concealed(map: &Map, line: &HexLine, b: &Unit) -> Option<String> {
    if !is_prone(map, b) {
        return None;
    }
    let rs = &map.ruleset;
    let t = map.terrain(b.hex)?;
    if units::tagged(rs, "conceals-prone", &t.id) {
        return Some(format!(
            "`{}` lies prone in {} ({}): not seen at all, cannot be targeted (prone rule, fire)",
            b.id,
            t.id,
            map.label(b.hex)
        ));
    }
    if line.from == line.to {
        return None;
    }
    let hides = |x: Hex, y: Hex| {
        map.hexside(x, y)
            .filter(|f| units::tagged(rs, "conceals-prone", &rs.hexsides[f.kind as usize].id))
            .map(|f| rs.hexsides[f.kind as usize].id.clone())
    };
    let sides: Vec<(Hex, Option<String>)> = match line.side_crossings().last() {
        Some(SideCrossing::One(x, y, _)) if *y == b.hex => vec![(*x, hides(*x, *y))],
        Some(SideCrossing::Pair(x, y, z, _)) if *x == b.hex => {
            vec![(*y, hides(*x, *y)), (*z, hides(*x, *z))]
        }
        _ => Vec::new(),
    };
    if !sides.is_empty() && sides.iter().all(|s| s.1.is_some()) {
        let what: Vec<String> = sides
            .iter()
            .map(|(n, id)| {
                format!(
                    "{} on {}",
                    id.clone().unwrap_or_default(),
                    map.side_label(*n, b.hex)
                )
            })
            .collect();
        return Some(format!(
            "`{}` lies prone behind the {} that the line crosses into {}: not seen at all, cannot be targeted (prone rule, fire)",
            b.id,
            what.join(" and "),
            map.label(b.hex)
        ));
    }
    None
}

/// Friendly units of `a` (other than `a`) in the hexes the line crosses between the ends.
fn friends_between(map: &Map, line: &HexLine, a: &Unit) -> Vec<(String, Hex)> {
    let friends_in = |h: Hex| -> Vec<String> {
        map.units_at(h)
            .filter(|u| u.side == a.side && u.id != a.id)
            .map(|u| u.id.clone())
            .collect()
    };
    let mut out = Vec::new();
    for s in line.between() {
        match s.crossing {
            Crossing::Hex(h) => out.extend(friends_in(h).into_iter().map(|id| (id, h))),
            Crossing::Side(x, y) => {
                let (fx, fy) = (friends_in(x), friends_in(y));
                if !fx.is_empty() && !fy.is_empty() {
                    out.extend(fx.into_iter().map(|id| (id, x)));
                    out.extend(fy.into_iter().map(|id| (id, y)));
                }
            }
            Crossing::Vertex(_) => {}
        }
    }
    out
}

/// Can see, can be targeted, can fire: the three answers for a pair of units.
fn unit_answers(map: &Map, a: &Unit, b: &Unit) -> UnitAnswers {
    let over = units::kind_has(map, a, "fires-over-friends");
    let line = HexLine::new(a.hex, b.hex);
    let c = if over {
        explain(&Kernel::ignoring(map, &a.side), &line)
    } else {
        assess(map, &line)
    }
    .conclude(map, &line);
    let (verdict, reason) = (c.verdict, c.reason);
    let mut ans = UnitAnswers::default();
    if !verdict.sees() {
        ans.sees.no(format!(
            "no LOS from {} to {}: {reason}",
            map.label(a.hex),
            map.label(b.hex)
        ));
    } else if let Some(why) = concealed(map, &line, b) {
        ans.sees.no(why);
    } else {
        let v = if verdict == Verdict::Clear {
            "clear"
        } else {
            "hindered"
        };
        let over_text = if over {
            " (howitzers see and fire over friendly units, prone or not: prone rule, LOS EXC)"
        } else {
            ""
        };
        ans.sees.yes(format!(
            "LOS from {} to {} is {v}: {reason}{over_text}",
            map.label(a.hex),
            map.label(b.hex)
        ));
    }
    if !ans.sees.ok {
        ans.targeted
            .no(format!("`{}` cannot target what it does not see", a.id));
    } else if is_prone(map, b) && !units::kind_has(map, a, "fires-at-prone") {
        ans.targeted.no(format!("`{}` is prone: only artillery and skirmishers may fire at prone units, not `{}` ({}) (prone rule, fire)", b.id, a.id, a.kind));
    } else {
        ans.targeted
            .yes(format!("`{}` sees `{}` and may fire at it", a.id, b.id));
    }
    if is_prone(map, a) {
        ans.fires.no(format!(
            "`{}` is prone: prone units cannot fire (prone rule, fire)",
            a.id
        ));
    } else if !ans.targeted.ok {
        ans.fires.no(format!("`{}` cannot target `{}`", a.id, b.id));
    } else {
        let friends = friends_between(map, &line, a);
        if friends.is_empty() {
            ans.fires
                .yes("no friendly unit stands in the line of fire".to_string());
        } else {
            let list = friends
                .iter()
                .map(|(id, h)| format!("{id} in {}", map.label(*h)))
                .collect::<Vec<_>>()
                .join(", ");
            if over {
                ans.fires.yes(format!("howitzers fire over friendly units, prone or not ({list}) (prone rule, LOS EXC)"));
            } else {
                ans.fires.no(format!(
                    "friendly unit(s) {list} in the line of fire: a line of fire is not a line of sight, friends block it prone or standing (prone rule, LOS)"
                ));
            }
        }
    }
    if ans.targeted.ok && is_prone(map, b) {
        ans.modifiers.push(Modifier {
            name: "prone".into(),
            value: 2,
            text: format!(
                "`{}` is prone: fire defence +2; no ricochet against it (prone rule, fire)",
                b.id
            ),
        });
    }
    ans
}

/// The prone rules (terrain, stacking, nations) for every unit of the map.
pub fn unit_problems(map: &Map) -> Vec<Problem> {
    let (mut problems, good) = units::unknown(map);
    let rs = &map.ruleset;
    let mut hexes: BTreeMap<Hex, Vec<&Unit>> = BTreeMap::new();
    for &i in &good {
        let u = &map.units[i];
        hexes.entry(u.hex).or_default().push(u);
        if !is_prone(map, u) {
            continue;
        }
        if !units::kind_has(map, u, "may-go-prone") {
            problems.push(Problem::new(
                u,
                format!(
                    "only British/KGL infantry may lie prone, not `{}` (prone rule)",
                    u.kind
                ),
            ));
        }
        let t = map.terrain(u.hex).map(|t| t.id.clone()).unwrap_or_default();
        if !units::tagged(rs, "prone-terrain", &t) {
            let allowed = rs
                .tags
                .get("prone-terrain")
                .map(|v| v.join(", "))
                .unwrap_or_default();
            problems.push(Problem::new(
                u,
                format!(
                    "prone units are allowed only in {allowed}, not in {t} (prone rule, terrain)"
                ),
            ));
        }
        if let (Some(n), Some(ok)) = (nation(u), rs.tags.get("prone-nations"))
            && !ok.contains(&n)
        {
            problems.push(Problem::new(
                u,
                format!(
                    "only {} infantry may lie prone, not {n} (prone rule)",
                    ok.join("/")
                ),
            ));
        }
    }
    for stack in hexes.values() {
        let Some(first) = stack.iter().find(|u| is_prone(map, u)) else {
            continue;
        };
        let count = |flag: &str| {
            stack
                .iter()
                .filter(|u| units::kind_has(map, u, flag))
                .count()
        };
        if let Some(s) = stack.iter().find(|u| !is_prone(map, u)) {
            problems.push(Problem::new(
                first,
                format!(
                    "no stack may mix prone and standing units (`{}` is {}) (prone rule, stacking)",
                    s.id,
                    if s.state.is_empty() {
                        "standing"
                    } else {
                        &s.state
                    }
                ),
            ));
        }
        if count("battalion") > 1 || count("light-company") > 1 {
            problems.push(Problem::new(first, "a prone hex holds at most one battalion and its light company (prone rule, stacking)"));
        }
        if count("artillery") > 0 && (count("battalion") > 0 || count("light-company") > 0) {
            problems.push(Problem::new(
                first,
                "an infantry and artillery stack may not lie prone (prone rule, stacking)",
            ));
        }
        if let Some(ok) = rs.tags.get("prone-nations") {
            let nations: Vec<String> = stack.iter().filter_map(|u| nation(u)).collect();
            let inside = nations.iter().any(|n| ok.contains(n));
            let outside = nations.iter().any(|n| !ok.contains(n));
            if inside && outside {
                problems.push(Problem::new(first, format!("a stack mixing {} units with others may not lie prone (prone rule, stacking)", ok.join("/"))));
            }
        }
    }
    problems
}

fn nation(u: &Unit) -> Option<String> {
    u.extra
        .get("nation")
        .and_then(|v| v.as_str())
        .map(|s| s.to_ascii_lowercase())
}
