//! A ruleset's spotting table (miniatures, seed 001 rules 8.F and 8.G): automatic
//! ranges and test factors by cover, the distance's rounding and the die, with the
//! checks of its numbers and the length units it may be written in.

use super::Cover;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

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
}

/// The length units a table or a map scale may be written in, with centimetres per unit.
pub(crate) const UNITS: [(&str, f64); 6] = [
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
