//! The `miniatures` family: automatic spotting ranges and the spotting test of a WWII
//! miniatures game (rules.md section 4, seed 001 rules 8.E to 8.G), on a hex map with a scale.
//! Its readings, with worked examples the docs test runs, are the guide's page
//! `docs/guide/rules-miniatures.md`; a change of rule here changes that page too.
//!
//! How the rules are read:
//! - LOS is true line of sight over the table, traced by the kernel [`super::registry`]
//!   gives this family (woods and buildings are tall, brush is not). The spotting rules only
//!   start once LOS exists.
//! - Distances are centre to centre: hex distance times the map `scale`, converted to the
//!   spotting table's length unit.
//! - A target's cover class is its hex's `cover` in the terrain table (clear / light / dense).
//! - Automatic spotting (8.E, 8.F): in LOS and within the table's range for the cover class and
//!   the target's activity (`null` = unlimited). The proximity rule (8.E: any figure within
//!   10 cm of an enemy figure is spotted) does not mention LOS, so it applies without it.
//! - Spotting test (8.G): the distance rounded to the nearest `round_to` (exact halves go down,
//!   as the text's 65 cm -> 6 shows), as a number of tens, times the cover factor (x1/2 clear,
//!   x1 light, x2 dense); one die at or above that factor succeeds, so a factor of 3.5 needs 4+.
//!   A factor of 1 or less always succeeds; out of LOS no test can be made (probability 0).
//! - Every number above is data in the ruleset's `spotting` table, so another game's table is a
//!   file edit.

use super::Cover;
use crate::error::{Error, ErrorKind, Result};
use crate::map::Map;
use serde::Serialize;
use std::str::FromStr;

use crate::ruleset::spotting::UNITS;
pub use crate::ruleset::spotting::{CoverRows, Halves, SpotRow, Spotting, cm_per};

/// What a target's activity allows, from the spotting table (8.F).
impl Spotting {
    /// The automatic spotting range for cover and activity; `None` = unlimited (8.F).
    pub fn auto_range(&self, c: Cover, a: Activity) -> Option<f64> {
        let r = self.row(c);
        match a {
            Activity::Moving => r.moving,
            Activity::Still => r.still,
        }
    }
}

/// What the target is doing (8.F columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Activity {
    /// Does nothing.
    Still,
    /// Moves or fires.
    Moving,
}

impl FromStr for Activity {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "still" => Ok(Activity::Still),
            "moving" => Ok(Activity::Moving),
            _ => Err(format!("unknown activity `{s}` (use still or moving)")),
        }
    }
}

/// The map's spotting table and the scale in the table's unit per hex.
pub fn table(map: &Map) -> Result<(&Spotting, f64)> {
    let rs = &map.ruleset;
    let sp = rs.spotting.as_ref().ok_or_else(|| {
        Error::new(
            ErrorKind::Query,
            format!(
                "ruleset {} has no spotting table (use a miniatures ruleset)",
                rs.name
            ),
        )
    })?;
    let scale = map.scale.as_ref().ok_or_else(|| {
        Error::new(
            ErrorKind::Query,
            "the map has no `scale` (length of one hex), which spotting distances need",
        )
    })?;
    let from = cm_per(&scale.unit).ok_or_else(|| {
        Error::invalid(
            "scale.unit",
            format!(
                "unknown length unit `{}` (use {})",
                scale.unit,
                UNITS.map(|u| u.0).join(", ")
            ),
        )
    })?;
    let to = cm_per(&sp.unit).expect("checked with the ruleset");
    Ok((sp, scale.hex * from / to))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Spotting {
        let rs = crate::rules::Ruleset::builtin("miniatures").unwrap();
        rs.spotting.unwrap()
    }

    #[test]
    fn rounding_follows_the_texts_examples() {
        let t = table();
        assert_eq!(t.rounded(37.0), 4);
        assert_eq!(t.rounded(65.0), 6);
        assert_eq!(t.rounded(72.0), 7);
        assert_eq!(t.rounded(82.0), 8);
        assert_eq!(t.rounded(66.0), 7);
        assert_eq!(t.rounded(4.0), 0);
    }

    #[test]
    fn the_82cm_open_ground_example_needs_4_plus() {
        let t = table();
        let f = t.factor(82.0, Cover::Clear);
        assert_eq!(f, 4.0);
        assert_eq!(t.test(f), (4, 0.7));
        assert_eq!(t.test(3.5), (4, 0.7));
        assert_eq!(t.test(0.0), (1, 1.0));
        assert_eq!(t.test(11.0).1, 0.0);
    }
}
