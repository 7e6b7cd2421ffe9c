//! The three answers for a pair of units: can see, can be targeted, can fire.
//!
//! Questions above the sight rule: they call the explained LOS query (and the
//! families' kernels through it) and combine its answer with the units' own rules
//! (prone units, friends in the line of fire, crest positions), never the other way round.

use super::arc;
use crate::map::{Map, Unit};
pub use crate::rules::units::{Answer, FireKind, UnitAnswers};

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
    let mut ans = crate::rules::registry::of(map).unit_answers(map, a, b, fire);
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
