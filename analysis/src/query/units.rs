//! The three answers for a pair of units: can see, can be targeted, can fire.
//!
//! Questions above the sight rule: they call the explained LOS query (and the
//! families' kernels through it) and combine its answer with the units' own rules
//! (prone units, friends in the line of fire, crest positions), never the other way round.

use super::arc;
use crate::hex::{Crossing, Hex, HexLine, SideCrossing};
use crate::los::line_of_sight;
use crate::map::{Map, Unit};
use crate::rules::asl::{self, FireKind};
use crate::rules::napoleonic::{self, is_prone};
use crate::rules::{Family, Modifier, Verdict, kernel, units};
use serde::Serialize;

/// A yes/no answer with the reasons, each citing its rule.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Answer {
    /// The answer.
    pub ok: bool,
    /// Why.
    pub reasons: Vec<String>,
}

impl Answer {
    /// Sets the answer to yes, because of `why`.
    pub fn yes(&mut self, why: String) {
        self.ok = true;
        self.reasons.push(why);
    }

    /// Sets the answer to no, because of `why`.
    pub fn no(&mut self, why: String) {
        self.ok = false;
        self.reasons.push(why);
    }
}

/// "Can see", "can be targeted" and "can fire" for one unit at another: three different
/// answers once units shape the lines (rules.md section 3).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UnitAnswers {
    /// The firer sees the target.
    pub sees: Answer,
    /// The target may be fired at by this firer.
    #[serde(rename = "can_be_targeted")]
    pub targeted: Answer,
    /// The firer can fire at it now (line of fire free).
    #[serde(rename = "can_fire")]
    pub fires: Answer,
    /// Modifiers of that fire.
    pub modifiers: Vec<Modifier>,
    /// The firer's field-of-view arc (`front arc (3 hexsides facing N)`), when its kind has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arc: Option<String>,
}

/// Every unit against every unit of another side, in file order: the indices of
/// the firer and the target in `map.units`, and their three answers.
pub fn network(map: &Map, fire: FireKind) -> Vec<(usize, usize, UnitAnswers)> {
    let us = &map.units;
    let mut out = Vec::new();
    for (i, a) in us.iter().enumerate() {
        for (j, b) in us.iter().enumerate() {
            if a.side != b.side {
                out.push((i, j, unit_answers(map, a, b, fire)));
            }
        }
    }
    out
}

/// The three answers for unit `a` firing at unit `b` (`fire` matters to ASL crest TEM).
///
/// The family's answers, then the firer's field-of-view arc on top: a target outside
/// it is not seen, so not targeted and not fired at, whatever the terrain line says
/// (the LOS reasons stay, after the arc's, so the user sees both).
pub fn unit_answers(map: &Map, a: &Unit, b: &Unit, fire: FireKind) -> UnitAnswers {
    let mut ans = family_answers(map, a, b, fire);
    ans.arc = arc::describe(map, a);
    if let Some(why) = arc::outside(map, a, b.hex) {
        let los = std::mem::take(&mut ans.sees.reasons);
        ans.sees.no(why);
        ans.sees.reasons.extend(
            los.into_iter()
                .map(|r| format!("the terrain line alone: {r}")),
        );
        if ans.targeted.ok {
            ans.targeted.reasons.clear();
            ans.targeted.no(format!(
                "`{}` cannot target what it does not see (outside its arc)",
                a.id
            ));
        }
        if ans.fires.ok {
            ans.fires.reasons.clear();
            ans.fires.no(format!(
                "`{}` cannot fire at what it does not see (outside its arc)",
                a.id
            ));
        }
        ans.modifiers.clear();
    } else if let arc::UnitArc::NoFacing(_) = arc::unit_arc(map, a) {
        ans.sees.reasons.push(ans.arc.clone().unwrap_or_default());
    }
    ans
}

/// The family's three answers, before the firer's arc.
fn family_answers(map: &Map, a: &Unit, b: &Unit, fire: FireKind) -> UnitAnswers {
    match map.ruleset.family {
        Family::Napoleonic => napoleonic(map, a, b),
        Family::Asl => {
            let mut assessment = asl::unit_trace(map, a, b, fire);
            let c = assessment.conclude(map, &HexLine::new(a.hex, b.hex));
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
        _ => {
            let los = line_of_sight(map, a.hex, b.hex);
            let mut ans = UnitAnswers::default();
            let text = format!(
                "LOS {} -> {} is {}: {}",
                map.label(a.hex),
                map.label(b.hex),
                los.verdict.as_str(),
                los.reason
            );
            for x in [&mut ans.sees, &mut ans.targeted, &mut ans.fires] {
                if los.verdict.sees() {
                    x.yes(text.clone())
                } else {
                    x.no(text.clone())
                }
            }
            ans.modifiers = los.modifiers;
            ans
        }
    }
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
fn napoleonic(map: &Map, a: &Unit, b: &Unit) -> UnitAnswers {
    let over = units::kind_has(map, a, "fires-over-friends");
    let (line, verdict, reason) = if over {
        let line = HexLine::new(a.hex, b.hex);
        let c = kernel::explain(&napoleonic::Kernel::ignoring(map, &a.side), &line)
            .conclude(map, &line);
        (line, c.verdict, c.reason)
    } else {
        let los = line_of_sight(map, a.hex, b.hex);
        (los.line, los.verdict, los.reason)
    };
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
            if units::kind_has(map, a, "fires-over-friends") {
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
