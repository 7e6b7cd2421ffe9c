//! Family dispatch for unit questions: checks of unit data, validate warnings, the
//! three answers for a pair of units, and extra `los` JSON details.

use super::asl::{self, FireKind};
use super::{Family, Modifier, combat_commander, napoleonic, units};
use crate::error::Result;
use crate::hex::HexLine;
use crate::los::line_of_sight;
use crate::map::{Map, Unit};
use serde::Serialize;
use serde_json::Value;

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
}

/// Checks the units of a map against its family's rules: `Err` lists every broken rule
/// (naming unit and hex); `Ok` carries warnings. Families without unit tables accept any unit.
pub fn check_units(map: &Map) -> Result<Vec<String>> {
    let problems = match map.ruleset.family {
        Family::Asl => asl::unit_problems(map),
        Family::Napoleonic => napoleonic::unit_problems(map),
        Family::Geometric | Family::CombatCommander | Family::Miniatures => Vec::new(),
    };
    units::into_result(map, problems)?;
    Ok(Vec::new())
}

/// Legal but suspicious features of a map, for `validate`.
pub fn warnings(map: &Map) -> Vec<String> {
    match map.ruleset.family {
        Family::CombatCommander => combat_commander::warnings(map),
        _ => Vec::new(),
    }
}

/// Family-specific extra fields of a `los` answer (ASL crest status), if any.
pub fn details(map: &Map, line: &HexLine) -> Option<Value> {
    match map.ruleset.family {
        Family::Asl => asl::details(map, line),
        _ => None,
    }
}

/// The three answers for unit `a` firing at unit `b` (`fire` matters to ASL crest TEM).
pub fn unit_answers(map: &Map, a: &Unit, b: &Unit, fire: FireKind) -> UnitAnswers {
    match map.ruleset.family {
        Family::Napoleonic => napoleonic::unit_answers(map, a, b),
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
