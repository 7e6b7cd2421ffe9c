//! Family dispatch for what is not the sight rule: checks of unit data, `validate`
//! warnings, and the extra `los` JSON details.

use super::{Family, asl, combat_commander, napoleonic, units};
use crate::error::Result;
use crate::hex::HexLine;
use crate::map::Map;
use serde_json::Value;

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
