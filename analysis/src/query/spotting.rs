//! Miniatures spotting from one observer: LOS from the engine, then the spotting
//! table's automatic ranges and test (rules.md section 4, seed 001 rules 8.E to 8.G).
//!
//! A question above the sight rule: LOS for every hex comes from one engine
//! viewshed ([`crate::engine::viewshed`]), the spotting rules from the ruleset's table
//! ([`crate::rules::miniatures`]).

use crate::engine::fast::Engine;
use crate::engine::matrix::Control;
use crate::engine::viewshed::viewshed_of;
use crate::error::Result;
use crate::hex::Hex;
use crate::map::Map;
use crate::rules::Cover;
use crate::rules::miniatures::{Activity, table};
use serde::Serialize;

/// The spotting answer for one target hex.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpotCell {
    /// The target hex's label.
    pub hex: String,
    /// In LOS of the observer.
    pub los: bool,
    /// Observer-target distance in the table's unit.
    pub distance: f64,
    /// The target hex's cover class.
    pub cover: Cover,
    /// Spotted automatically.
    pub auto: bool,
    /// The spotting factor (8.G).
    pub factor: f64,
    /// The die roll one test needs, when a test is possible.
    pub need: Option<u32>,
    /// The probability one spotting test succeeds (0 out of LOS).
    pub p_spot: f64,
    /// Why, citing the rules.
    pub reason: String,
}

/// Spotting from `from` to every hex of the map, for targets doing `activity`.
pub fn spot(map: &Map, from: Hex, activity: Activity) -> Result<Vec<SpotCell>> {
    let (sp, per_hex) = table(map)?;
    let u = &sp.unit;
    let i = map.index(from).ok_or_else(|| {
        crate::Error::new(
            crate::ErrorKind::Query,
            format!("{} is not a hex of the map", map.label(from)),
        )
    })?;
    let seen = viewshed_of(&Engine::new(map), i, &Control::default())?;
    let mut out = Vec::with_capacity(map.len());
    for (j, h) in map.hexes().enumerate() {
        let los = seen.targets[j].verdict.sees();
        let distance = f64::from(from.distance(h)) * per_hex;
        let cover = map.terrain(h).map(|t| t.cover).unwrap_or_default();
        let word = cover_word(cover);
        let range = sp.auto_range(cover, activity);
        let in_range = range.is_none_or(|r| distance <= r + 1e-9);
        let near = sp.proximity.is_some_and(|p| distance <= p + 1e-9);
        let auto = near || (los && in_range);
        let tens = sp.rounded(distance);
        let factor = f64::from(tens) * sp.row(cover).factor;
        let (need, p) = sp.test(factor);
        let range_text = range.map_or("unlimited".to_string(), |r| format!("{r} {u}"));
        let mut reason = if near {
            format!(
                "within {} {u} of the observer: spotted automatically whatever the cover (8.E)",
                sp.proximity.unwrap_or_default()
            )
        } else if auto {
            format!(
                "in LOS at {distance:.1} {u}, within the automatic range for a {} target in {word} cover ({range_text}) (8.E, 8.F)",
                act_word(activity)
            )
        } else if los {
            format!(
                "in LOS at {distance:.1} {u}, beyond the automatic range for a {} target in {word} cover ({range_text}) (8.F)",
                act_word(activity)
            )
        } else {
            "out of LOS: no automatic spotting and no spotting test (8.E)".to_string()
        };
        let (need, p_spot) = if los {
            reason += &format!(
                "; test: {distance:.1} {u} rounds to {tens}, x{} for {word} cover = factor {factor}, needs {need}+ on 1D{} (8.G)",
                sp.row(cover).factor,
                sp.die
            );
            (Some(need).filter(|n| *n <= sp.die), p)
        } else {
            (None, 0.0)
        };
        out.push(SpotCell {
            hex: map.label(h),
            los,
            distance,
            cover,
            auto,
            factor,
            need,
            p_spot,
            reason,
        });
    }
    Ok(out)
}

fn cover_word(c: Cover) -> &'static str {
    match c {
        Cover::Clear => "clear",
        Cover::Light => "light",
        Cover::Dense => "dense",
    }
}

fn act_word(a: Activity) -> &'static str {
    match a {
        Activity::Still => "still",
        Activity::Moving => "moving or firing",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::los::line_of_sight;
    use crate::map::Scale;

    /// On random miniatures maps, spotting's LOS (from the engine) equals the
    /// explained query's for every target, and out of LOS no test is possible.
    #[test]
    fn spotting_los_equals_the_explained_query() {
        for seed in 0..3 {
            let mut map = crate::engine::testmaps::random_map("miniatures", seed, 14, 12);
            map.scale = Some(Scale {
                hex: 5.0,
                unit: "cm".into(),
                extra: Default::default(),
            });
            for i in (0..map.len()).step_by(17) {
                let from = map.hex_of(i);
                for activity in [Activity::Still, Activity::Moving] {
                    let cells = spot(&map, from, activity).unwrap();
                    for (j, c) in cells.iter().enumerate() {
                        let los = line_of_sight(&map, from, map.hex_of(j)).verdict.sees();
                        assert_eq!(c.los, los, "seed {seed}: {} -> {}", map.label(from), c.hex);
                        if !los {
                            assert_eq!(c.p_spot, 0.0);
                        }
                    }
                }
            }
        }
    }
}
