//! One line-of-sight query: the walk, the family's judgement, the verdict and its explanation.

use crate::error::{Error, ErrorKind, Result};
use crate::hex::{Crossing, Hex, HexLine};
use crate::map::Map;
use crate::rules::{self, Effect, Event, Modifier, Place, Verdict};
use serde_json::{Value, json};

/// The full answer to "does `from` see `to`", with everything needed to explain it.
#[derive(Clone, Debug)]
pub struct LosResult {
    /// The exact walk of the line.
    pub line: HexLine,
    /// Clear, hindered or blocked.
    pub verdict: Verdict,
    /// Total hindrance along the line.
    pub hindrance: u32,
    /// Everything that hinders or blocks, in order from the observer.
    pub events: Vec<Event>,
    /// The first thing that blocks, if any.
    pub blocked_by: Option<Event>,
    /// Modifiers for fire along the line.
    pub modifiers: Vec<Modifier>,
    /// One sentence that says why, citing the rule.
    pub reason: String,
}

/// Traces LOS between two hexes of the map.
pub fn line_of_sight(map: &Map, from: Hex, to: Hex) -> LosResult {
    line_of_sight_with(rules::registry::of(map), map, from, to)
}

/// Traces LOS between two hexes of the map by the rules of `family` (the map's own
/// family's in [`line_of_sight`]).
pub fn line_of_sight_with(
    family: &rules::registry::Entry,
    map: &Map,
    from: Hex,
    to: Hex,
) -> LosResult {
    let line = HexLine::new(from, to);
    let mut a = family.assess(map, &line);
    let c = a.conclude(map, &line);
    LosResult {
        line,
        verdict: c.verdict,
        hindrance: c.hindrance,
        events: a.events,
        blocked_by: c.blocked_by,
        modifiers: a.modifiers,
        reason: c.reason,
    }
}

/// Traces LOS between two labelled hexes, with an error naming a label that is not on the map.
pub fn line_of_sight_labels(map: &Map, from: &str, to: &str) -> Result<LosResult> {
    let parse = |l: &str| {
        map.parse_hex(l).ok_or_else(|| {
            Error::new(
                ErrorKind::Query,
                format!(
                    "`{l}` is not a hex of this {}x{} map ({} to {})",
                    map.cols,
                    map.rows,
                    map.label(map.hex_of(0)),
                    map.label(map.hex_of(map.len() - 1))
                ),
            )
        })
    };
    Ok(line_of_sight(map, parse(from)?, parse(to)?))
}

impl LosResult {
    /// The trace on one line: hex interiors as `C5`, hexside stretches as `[C5|D5]`.
    pub fn trace_text(&self, map: &Map) -> String {
        let trace: Vec<String> = self
            .trace_json(map)
            .iter()
            .map(|v| match v {
                Value::Array(a) => format!(
                    "[{}]",
                    a.iter()
                        .filter_map(|x| x.as_str())
                        .collect::<Vec<_>>()
                        .join("|")
                ),
                v => v.as_str().unwrap_or_default().to_string(),
            })
            .collect();
        trace.join(" ")
    }

    /// The trace as labels: a hex interior as `"C5"`, a hexside stretch as `["C5", "D5"]`.
    pub fn trace_json(&self, map: &Map) -> Vec<Value> {
        self.line
            .steps
            .iter()
            .filter_map(|s| match s.crossing {
                Crossing::Hex(h) => Some(json!(map.label(h))),
                Crossing::Side(a, b) => Some(json!([map.label(a), map.label(b)])),
                Crossing::Vertex(_) => None,
            })
            .collect()
    }

    /// The whole answer as one JSON object.
    pub fn to_json(&self, map: &Map) -> Value {
        let event = |e: &Event| {
            json!({
                "at": e.at.to_f64(),
                "kind": e.place.kind(),
                "hexes": e.place.hexes().iter().map(|h| map.label(*h)).collect::<Vec<_>>(),
                "effect": match e.effect { Effect::Block => "blocks", Effect::Hinder(_) => "hinders" },
                "hindrance": match e.effect { Effect::Hinder(v) => v, Effect::Block => 0 },
                "reason": e.reason,
            })
        };
        let vertices: Vec<Value> = self
            .line
            .steps
            .iter()
            .filter_map(|s| match s.crossing {
                Crossing::Vertex(v) => {
                    Some(json!(v.iter().map(|h| map.label(*h)).collect::<Vec<_>>()))
                }
                _ => None,
            })
            .collect();
        let mut out = json!({
            "from": map.label(self.line.from),
            "to": map.label(self.line.to),
            "ruleset": map.ruleset.name,
            "verdict": self.verdict,
            "hindrance": self.hindrance,
            "blocked_by": self.blocked_by.as_ref().map(|e| map.label(e.place.hex())),
            "blocker": self.blocked_by.as_ref().map(event),
            "reason": self.reason,
            "trace": self.trace_json(map),
            "vertices": vertices,
            "events": self.events.iter().map(event).collect::<Vec<_>>(),
            "modifiers": self.modifiers,
        });
        if let Some(d) = rules::details(map, &self.line) {
            out["details"] = d;
        }
        out
    }

    /// A human-readable explanation, several lines.
    pub fn explain(&self, map: &Map) -> String {
        let mut s = format!(
            "{} -> {}: {}{}\n",
            map.label(self.line.from),
            map.label(self.line.to),
            self.verdict.as_str(),
            if self.hindrance > 0 && self.verdict != Verdict::Blocked {
                format!(" (hindrance {})", self.hindrance)
            } else {
                String::new()
            }
        );
        if let Some(b) = &self.blocked_by {
            let what = match b.place {
                Place::Hex(h) | Place::Marker(h) => map.label(h),
                Place::AlongSide(a, c) | Place::Hexside(a, c) => {
                    format!("hexside {}", map.side_label(a, c))
                }
                Place::HexsidePair(a, c, d) => format!(
                    "hexsides {} and {}",
                    map.side_label(a, c),
                    map.side_label(a, d)
                ),
            };
            s += &format!("blocked by: {what}\n");
        }
        s += &format!("reason: {}\n", self.reason);
        s += &format!("trace: {}\n", self.trace_text(map));
        for e in &self.events {
            let eff = match e.effect {
                Effect::Block => "blocks".to_string(),
                Effect::Hinder(v) => format!("hinders {v}"),
            };
            s += &format!("  - {eff}: {}\n", e.reason);
        }
        for m in &self.modifiers {
            s += &format!("modifier: {}\n", m.text);
        }
        s
    }
}
