//! The side view of one sight line: distance along it, and what stands under it.
//!
//! A profile is the explained query ([`crate::los::line_of_sight`]) laid out by
//! stretch: its events, which the family's kernel produced, are gathered onto the
//! stretches of the walked line, and the heights come from the same kernel
//! ([`crate::rules::heights`]). Nothing here judges a line, so the profile's verdict
//! and blocker are the query's by construction.

use crate::hex::{Crossing, Hex, Ratio};
use crate::los::{LosResult, line_of_sight};
use crate::map::Map;
use crate::rules::{self, Effect, Event, Verdict};
use serde_json::{Value, json};

/// What one stretch does to the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StretchEffect {
    /// Nothing acts here.
    Clear,
    /// Hindrances only.
    Hinder,
    /// Something blocks.
    Block,
}

impl StretchEffect {
    /// The word of `profile --json`.
    pub fn as_str(self) -> &'static str {
        match self {
            StretchEffect::Clear => "clear",
            StretchEffect::Hinder => "hinder",
            StretchEffect::Block => "block",
        }
    }
}

/// How a piece of the sight line is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sight {
    /// Nothing has hindered or blocked it yet.
    Seen,
    /// Hindered, not blocked.
    Hindered,
    /// From the first blocking point on.
    Unseen,
}

/// One stretch of the line: a hex interior or a run along a hexside.
#[derive(Clone, Debug)]
pub struct Stretch {
    /// Where the line enters it (fraction of the line from the observer).
    pub start: Ratio,
    /// Where it leaves it.
    pub end: Ratio,
    /// The hex, or the two hexes of a hexside stretch.
    pub hexes: Vec<Hex>,
    /// Ground level (the lower of a hexside's two hexes).
    pub ground: i32,
    /// What stands there, in levels, as the family's kernel reads it.
    pub top: f64,
    /// A slope hex (one with a crest line) is among the hexes.
    pub slope: bool,
    /// Clear, hinder or block.
    pub effect: StretchEffect,
    /// The hindrance the stretch adds.
    pub hindrance: u32,
    /// The reasons of what acts here, joined (`None` when clear).
    pub reason: Option<String>,
}

/// The side view of one line.
#[derive(Clone, Debug)]
pub struct Profile {
    /// The explained query the profile lays out.
    pub los: LosResult,
    /// The observer's eye, in levels.
    pub eye_from: f64,
    /// The point seen at the target, in levels.
    pub eye_to: f64,
    /// The line's stretches in order, covering it from 0 to 1.
    pub stretches: Vec<Stretch>,
}

/// The profile of the line from `from` to `to`.
pub fn profile(map: &Map, from: Hex, to: Hex) -> Profile {
    let los = line_of_sight(map, from, to);
    let heights = rules::heights(map, &los.line);
    let level = |m: i64| m as f64 / 1000.0;
    let mut stretches: Vec<Stretch> = los
        .line
        .steps
        .iter()
        .filter_map(|s| {
            let hexes = match s.crossing {
                Crossing::Hex(h) => vec![h],
                Crossing::Side(a, b) => vec![a, b],
                Crossing::Vertex(_) => return None,
            };
            Some(Stretch {
                start: s.t0,
                end: s.t1,
                ground: hexes.iter().map(|&h| map.level(h)).min().unwrap_or(0),
                slope: hexes.iter().any(|&h| map.cell(h).is_some_and(|c| c.slope)),
                hexes,
                top: 0.0,
                effect: StretchEffect::Clear,
                hindrance: 0,
                reason: None,
            })
        })
        .collect();
    for (s, &top) in stretches.iter_mut().zip(&heights.tops) {
        s.top = level(top);
    }
    for e in &los.events {
        let i = stretch_at(&stretches, e.at);
        add_event(&mut stretches[i], e);
    }
    Profile {
        eye_from: level(heights.eye_from),
        eye_to: level(heights.eye_to),
        los,
        stretches,
    }
}

/// The stretch an event at `at` belongs to: the one it starts in (a hexside crossed
/// at a boundary belongs to the hex it leads into; the target's end to the last).
fn stretch_at(stretches: &[Stretch], at: Ratio) -> usize {
    stretches
        .iter()
        .rposition(|s| s.start <= at)
        .unwrap_or_default()
}

fn add_event(s: &mut Stretch, e: &Event) {
    match e.effect {
        Effect::Block => s.effect = StretchEffect::Block,
        Effect::Hinder(v) => {
            s.hindrance = s.hindrance.saturating_add(v);
            if s.effect == StretchEffect::Clear {
                s.effect = StretchEffect::Hinder;
            }
        }
    }
    s.reason = Some(match s.reason.take() {
        Some(r) => format!("{r}; {}", e.reason),
        None => e.reason.clone(),
    });
}

impl Profile {
    /// The verdict of the line.
    pub fn verdict(&self) -> Verdict {
        self.los.verdict
    }

    /// The index of the stretch where the line is first blocked, if a thing blocks it.
    pub fn blocking_stretch(&self) -> Option<usize> {
        let b = self.los.blocked_by.as_ref()?;
        Some(stretch_at(&self.stretches, b.at))
    }

    /// The first stretch of the dead ground behind a blocker lower than the
    /// observer's eye (the stretches from it to the target are shaded in pictures).
    pub fn dead_ground(&self) -> Option<usize> {
        let i = self.blocking_stretch()?;
        (self.stretches[i].top < self.eye_from).then_some(i + 1)
    }

    /// The sight line in pieces `(from, to, state)` (fractions of the line): seen,
    /// hindered from the first hindrance on, not seen from the blocking point on.
    /// Pictures colour it by these, so the PNG and the editor agree.
    pub fn segments(&self) -> Vec<(f64, f64, Sight)> {
        let block = self.los.blocked_by.as_ref().map(|b| b.at);
        let mut hindered = false;
        let mut out = Vec::new();
        for st in &self.stretches {
            hindered |= st.effect == StretchEffect::Hinder;
            let state = match block {
                Some(b) if b <= st.start => Sight::Unseen,
                _ if hindered => Sight::Hindered,
                _ => Sight::Seen,
            };
            match block {
                Some(b) if st.start < b && b < st.end => {
                    out.push((st.start.to_f64(), b.to_f64(), state));
                    out.push((b.to_f64(), st.end.to_f64(), Sight::Unseen));
                }
                _ => out.push((st.start.to_f64(), st.end.to_f64(), state)),
            }
        }
        out
    }

    /// The sight line's height at fraction `t`, in levels.
    pub fn sight_at(&self, t: f64) -> f64 {
        self.eye_from + (self.eye_to - self.eye_from) * t
    }

    /// The profile as `profile --json` prints it.
    pub fn to_json(&self, map: &Map) -> Value {
        let stretches: Vec<Value> = self
            .stretches
            .iter()
            .map(|s| {
                json!({
                    "start": s.start.to_f64(),
                    "end": s.end.to_f64(),
                    "hexes": s.hexes.iter().map(|&h| map.label(h)).collect::<Vec<_>>(),
                    "ground": s.ground,
                    "top": s.top,
                    "effect": s.effect.as_str(),
                    "reason": s.reason,
                })
            })
            .collect();
        json!({
            "from": map.label(self.los.line.from),
            "to": map.label(self.los.line.to),
            "verdict": self.los.verdict.as_str(),
            "blocked_by": self.los.blocked_by.as_ref().map(|e| map.label(e.place.hex())),
            "eye_from": self.eye_from,
            "eye_to": self.eye_to,
            "stretches": stretches,
        })
    }

    /// The profile as text: one line per stretch.
    pub fn text(&self, map: &Map) -> String {
        let mut s = format!(
            "{} -> {}: {} (eye {:.2} -> {:.2})\n",
            map.label(self.los.line.from),
            map.label(self.los.line.to),
            self.los.verdict.as_str(),
            self.eye_from,
            self.eye_to
        );
        for st in &self.stretches {
            let hexes: Vec<String> = st.hexes.iter().map(|&h| map.label(h)).collect();
            s += &format!(
                "{:.3}-{:.3} {:<9} ground {:>2} top {:>5.2} sight {:>5.2} {}{}\n",
                st.start.to_f64(),
                st.end.to_f64(),
                hexes.join("|"),
                st.ground,
                st.top,
                self.sight_at(st.start.midpoint(st.end).to_f64()),
                st.effect.as_str(),
                st.reason
                    .as_ref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            );
        }
        s += &format!("reason: {}\n", self.los.reason);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(name: &str) -> Map {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../maps")
            .join(name);
        Map::load(&p).unwrap()
    }

    #[test]
    fn stretches_cover_the_line_in_order() {
        let m = map("hill-112.json");
        let (a, b) = (m.parse_hex("H7").unwrap(), m.parse_hex("B9").unwrap());
        let p = profile(&m, a, b);
        assert_eq!(p.stretches[0].start, Ratio::ZERO);
        assert_eq!(p.stretches.last().unwrap().end, Ratio::ONE);
        for w in p.stretches.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
        assert_eq!(p.verdict(), Verdict::Blocked);
        let i = p.blocking_stretch().unwrap();
        assert_eq!(p.stretches[i].effect, StretchEffect::Block);
        assert!(
            p.stretches[..i]
                .iter()
                .all(|s| s.effect != StretchEffect::Block)
        );
        // C9's building is lower than the eye on the hill: B9 lies in its dead ground.
        assert_eq!(p.dead_ground(), Some(i + 1));
        let seg = p.segments();
        assert_eq!(seg.first().unwrap().2, Sight::Seen);
        assert_eq!(seg.last().unwrap().2, Sight::Unseen);
        let b = p.los.blocked_by.as_ref().unwrap().at.to_f64();
        assert!(seg.iter().all(|s| (s.2 == Sight::Unseen) == (s.0 >= b)));
    }
}
