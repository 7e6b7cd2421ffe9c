//! The `miniatures` family: automatic spotting ranges and the spotting test of a WWII
//! miniatures game (rules.md section 4, seed 001 rules 8.E to 8.G), on a hex map with a scale.
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
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// One row of the spotting table: a cover class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpotRow {
    /// Automatic spotting range for a target that moves or fires; `null` = unlimited.
    pub moving: Option<f64>,
    /// Automatic spotting range for a target that does nothing; `null` = unlimited.
    pub still: Option<f64>,
    /// Multiplier of the rounded distance in the spotting test.
    pub factor: f64,
}

/// The three cover rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoverRows {
    /// Clear ground.
    pub clear: SpotRow,
    /// Light cover.
    pub light: SpotRow,
    /// Dense cover.
    pub dense: SpotRow,
}

/// Which way an exact half goes when rounding the distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Halves {
    /// 65 -> 6 (seed 001, 8.G).
    #[default]
    Down,
    /// 65 -> 7.
    Up,
}

/// The spotting table of a ruleset (seed 001, 8.F and 8.G).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spotting {
    /// Length unit of every distance in the table (`cm`, `mm`, `m`, `in`, `ft`, `yd`).
    pub unit: String,
    /// Ranges and factors by the target's cover.
    pub cover: CoverRows,
    /// A target this close is spotted automatically whatever its cover; `null` for none.
    #[serde(default)]
    pub proximity: Option<f64>,
    /// The distance is rounded to the nearest multiple of this and counted in those multiples.
    pub round_to: f64,
    /// How exact halves round.
    #[serde(default)]
    pub halves: Halves,
    /// Sides of the test die; the test succeeds at or above the factor.
    pub die: u32,
}

impl Spotting {
    /// Checks the table's numbers.
    pub fn check(&self) -> Result<()> {
        if cm_per(&self.unit).is_none() {
            return Err(Error::invalid(
                "spotting.unit",
                format!(
                    "unknown length unit `{}` (use {})",
                    self.unit,
                    UNITS.map(|u| u.0).join(", ")
                ),
            ));
        }
        if !(self.round_to.is_finite() && self.round_to > 0.0) {
            return Err(Error::invalid(
                "spotting.round_to",
                "must be a positive length",
            ));
        }
        if self.die == 0 {
            return Err(Error::invalid(
                "spotting.die",
                "a die needs at least one side",
            ));
        }
        for (name, r) in [
            ("clear", &self.cover.clear),
            ("light", &self.cover.light),
            ("dense", &self.cover.dense),
        ] {
            let ok = |x: Option<f64>| x.is_none_or(|v| v.is_finite() && v >= 0.0);
            if !(ok(r.moving)
                && ok(r.still)
                && ok(self.proximity)
                && r.factor.is_finite()
                && r.factor >= 0.0)
            {
                return Err(Error::invalid(
                    format!("spotting.cover.{name}"),
                    "ranges and factors must be non-negative numbers",
                ));
            }
        }
        Ok(())
    }

    /// The row for a cover class.
    pub fn row(&self, c: Cover) -> &SpotRow {
        match c {
            Cover::Clear => &self.cover.clear,
            Cover::Light => &self.cover.light,
            Cover::Dense => &self.cover.dense,
        }
    }

    /// The distance as a rounded count of `round_to` (8.G: 37 -> 4, 65 -> 6, 72 -> 7).
    pub fn rounded(&self, distance: f64) -> u32 {
        let x = distance / self.round_to;
        let n = x.floor();
        let frac = x - n;
        let half_up = match self.halves {
            Halves::Down => frac > 0.5 + 1e-9,
            Halves::Up => frac >= 0.5 - 1e-9,
        };
        // A float just under a whole number (0.999999) is that number.
        let n = if frac > 1.0 - 1e-9 || half_up {
            n + 1.0
        } else {
            n
        };
        n.max(0.0) as u32
    }

    /// The spotting factor for a target at `distance` in cover `c` (8.G).
    pub fn factor(&self, distance: f64, c: Cover) -> f64 {
        self.rounded(distance) as f64 * self.row(c).factor
    }

    /// The roll needed and the chance one test succeeds, for a factor (8.G: at or above).
    pub fn test(&self, factor: f64) -> (u32, f64) {
        let need = (factor - 1e-9).ceil().max(1.0) as u32;
        let die = self.die;
        let p = if need > die {
            0.0
        } else {
            f64::from(die - need + 1) / f64::from(die)
        };
        (need, p)
    }

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

const UNITS: [(&str, f64); 6] = [
    ("mm", 0.1),
    ("cm", 1.0),
    ("m", 100.0),
    ("in", 2.54),
    ("ft", 30.48),
    ("yd", 91.44),
];

/// Centimetres per one of `unit`.
pub fn cm_per(unit: &str) -> Option<f64> {
    UNITS
        .iter()
        .find(|(u, _)| u.eq_ignore_ascii_case(unit))
        .map(|u| u.1)
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
