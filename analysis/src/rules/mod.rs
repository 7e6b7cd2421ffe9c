//! The family code that turns a sight line into a verdict (the tables it reads are
//! [`crate::ruleset`]'s).

pub mod asl;
pub mod battletech;
pub mod combat_commander;
mod family;
pub mod geometric;
pub mod kernel;
mod load;
pub mod miniatures;
pub mod napoleonic;
pub mod registry;
#[cfg(test)]
mod test_family;
pub mod units;

pub use crate::ruleset::{
    Cover, Family, HexsideType, LevelRange, LosEffect, MarkerType, Ruleset, TerrainType,
};
pub use family::{check_units, details, eye_and_tops, heights, is_blind, warnings};

use crate::hex::{Hex, HexLine, Ratio};
use crate::map::Map;
use serde::Serialize;

/// The answer to "does A see B".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing between degrades the line.
    Clear,
    /// Seen, through hindrances.
    Hindered,
    /// Not seen.
    Blocked,
}

impl Verdict {
    /// The verdict's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Clear => "clear",
            Verdict::Hindered => "hindered",
            Verdict::Blocked => "blocked",
        }
    }

    /// True unless blocked.
    pub fn sees(self) -> bool {
        self != Verdict::Blocked
    }
}

/// What one thing along the line does to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Adds this much hindrance.
    Hinder(u32),
    /// Blocks the line.
    Block,
}

/// Where along the line something acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The interior of a hex.
    Hex(Hex),
    /// A stretch exactly along the hexside between two hexes.
    AlongSide(Hex, Hex),
    /// A hexside feature the line crosses.
    Hexside(Hex, Hex),
    /// The line slips between the sides `.0|.1` and `.0|.2` at a vertex.
    HexsidePair(Hex, Hex, Hex),
    /// A marker in a hex.
    Marker(Hex),
}

impl Place {
    /// The hex to name as the blocker: the hex itself, or for a hexside the
    /// hex on the observer's side.
    pub fn hex(self) -> Hex {
        match self {
            Place::Hex(h)
            | Place::Marker(h)
            | Place::AlongSide(h, _)
            | Place::Hexside(h, _)
            | Place::HexsidePair(h, _, _) => h,
        }
    }

    /// The hexes involved, for display.
    pub fn hexes(self) -> Vec<Hex> {
        match self {
            Place::Hex(h) | Place::Marker(h) => vec![h],
            Place::AlongSide(a, b) | Place::Hexside(a, b) => vec![a, b],
            Place::HexsidePair(a, b, c) => vec![a, b, c],
        }
    }

    /// A short kind name for JSON.
    pub fn kind(self) -> &'static str {
        match self {
            Place::Hex(_) => "hex",
            Place::AlongSide(..) => "along-hexside",
            Place::Hexside(..) => "hexside",
            Place::HexsidePair(..) => "hexside-pair",
            Place::Marker(_) => "marker",
        }
    }
}

/// Something along the line that hinders or blocks, with the rule that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Where along the line (fraction of its length).
    pub at: Ratio,
    /// What acts.
    pub place: Place,
    /// How.
    pub effect: Effect,
    /// Why, citing the rule.
    pub reason: String,
}

/// A modifier the answer carries (firepower, cover, movement).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Modifier {
    /// Short name (`height advantage`).
    pub name: String,
    /// Signed value (`+1`, `-1`); 0 for a restriction.
    pub value: i32,
    /// Explanation with the rule cited.
    pub text: String,
}

/// Everything a family says about one line.
#[derive(Clone, Debug, Default)]
pub struct Assessment {
    /// What hinders or blocks, in any order (sorted by the caller).
    pub events: Vec<Event>,
    /// Modifiers that apply to fire along the line.
    pub modifiers: Vec<Modifier>,
    /// A hindrance total at or above which the line is blocked, if the family has one.
    pub hindrance_limit: Option<u32>,
}

/// The verdict an assessment comes to, with what decided it.
#[derive(Clone, Debug)]
pub struct Conclusion {
    /// Clear, hindered or blocked.
    pub verdict: Verdict,
    /// Total hindrance along the line.
    pub hindrance: u32,
    /// The first thing that blocks, if any.
    pub blocked_by: Option<Event>,
    /// One sentence that says why, citing the rules of the events behind it.
    pub reason: String,
}

impl Assessment {
    /// Puts the events in order along `line` (a hexside crossing before the hex it leads
    /// into) and draws the verdict: the first block, else the hindrance total against the
    /// family's limit, else clear.
    pub fn conclude(&mut self, map: &Map, line: &HexLine) -> Conclusion {
        self.events.sort_by_key(|e| {
            (
                e.at,
                !matches!(e.place, Place::Hexside(..) | Place::HexsidePair(..)),
            )
        });
        let hindrance: u32 = self
            .events
            .iter()
            .map(|e| {
                if let Effect::Hinder(v) = e.effect {
                    v
                } else {
                    0
                }
            })
            .sum();
        let blocked_by = self
            .events
            .iter()
            .find(|e| e.effect == Effect::Block)
            .cloned();
        let all = || {
            self.events
                .iter()
                .map(|e| e.reason.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        };
        let (verdict, reason) = match (&blocked_by, self.hindrance_limit) {
            (Some(e), _) => (Verdict::Blocked, e.reason.clone()),
            (None, Some(limit)) if hindrance >= limit => (
                Verdict::Blocked,
                format!(
                    "the hindrance total {hindrance} reaches the blocking limit of {limit}: {}",
                    all()
                ),
            ),
            (None, _) if hindrance > 0 => (
                Verdict::Hindered,
                format!("hindered {hindrance}: {}", all()),
            ),
            (None, _) => (
                Verdict::Clear,
                format!(
                    "nothing between {} and {} blocks or hinders the line",
                    map.label(line.from),
                    map.label(line.to)
                ),
            ),
        };
        Conclusion {
            verdict,
            hindrance,
            blocked_by,
            reason,
        }
    }
}

/// Asks the map's rule family about a walked line.
pub fn assess(map: &Map, line: &HexLine) -> Assessment {
    registry::of(map).assess(map, line)
}

/// A hexside feature that acts on a line when its level, the higher of its two
/// hexes', is at least the higher end's (Combat Commander T88.4, ASL B9.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelSide {
    /// The feature's effect (`None` without a feature).
    pub los: Option<LosEffect>,
    /// The higher of the two hexes' levels.
    pub level: i32,
}

impl LevelSide {
    /// The feature on the side of `a` towards `b` (which has one).
    pub fn of(map: &Map, a: Hex, b: Hex) -> LevelSide {
        let f = map.hexside(a, b).expect("a feature");
        LevelSide {
            los: Some(map.ruleset.hexsides[f.kind as usize].los),
            level: map.level(a).max(map.level(b)),
        }
    }

    /// What it does to a line whose higher end is at level `high`.
    #[inline]
    pub fn effect(&self, high: i32) -> Option<Effect> {
        match self.los {
            _ if self.level < high => None,
            Some(LosEffect::Obstacle) => Some(Effect::Block),
            Some(LosEffect::Hindrance(v)) => Some(Effect::Hinder(v)),
            _ => None,
        }
    }

    /// The feature's id and the hexside's label, for reasons.
    pub fn names(map: &Map, a: Hex, b: Hex) -> (String, String) {
        let f = map.hexside(a, b).expect("a feature");
        (
            map.ruleset.hexsides[f.kind as usize].id.clone(),
            map.side_label(a, b),
        )
    }
}

/// The ids of the markers in `h` that block (`blocking`) or hinder, for reasons.
pub fn marker_ids(map: &Map, h: Hex, blocking: bool) -> String {
    let ids: Vec<&str> = map
        .markers_at(h)
        .map(|m| &map.ruleset.markers[m.kind as usize])
        .filter(|t| match t.los {
            LosEffect::Obstacle => blocking,
            LosEffect::Hindrance(_) => !blocking,
            LosEffect::Clear => false,
        })
        .map(|t| t.id.as_str())
        .collect();
    ids.join(" and ")
}

/// Per hex with markers: whether one blocks, and the sum of their hindrances.
pub fn marker_sums(map: &Map) -> std::collections::HashMap<Hex, (bool, u32)> {
    let mut out = std::collections::HashMap::new();
    for m in &map.markers {
        let e: &mut (bool, u32) = out.entry(m.hex).or_default();
        match map.ruleset.markers[m.kind as usize].los {
            LosEffect::Obstacle => e.0 = true,
            LosEffect::Hindrance(v) => e.1 = e.1.saturating_add(v),
            LosEffect::Clear => {}
        }
    }
    out
}

/// Combines the two hexes beside a hexside stretch: blocked only if both block;
/// otherwise the smaller hindrance (the line may pass on the better side).
pub fn both_sides(a: Option<Effect>, b: Option<Effect>) -> Option<Effect> {
    match (a, b) {
        (Some(Effect::Block), Some(Effect::Block)) => Some(Effect::Block),
        (Some(Effect::Hinder(x)), Some(Effect::Hinder(y))) => Some(Effect::Hinder(x.min(y))),
        (Some(Effect::Block), Some(Effect::Hinder(x)))
        | (Some(Effect::Hinder(x)), Some(Effect::Block)) => Some(Effect::Hinder(x)),
        _ => None,
    }
}
