//! What one observer sees: every hex visible, hindered (with its total) or
//! blocked, and which blocked hexes are blind hexes.
//!
//! A viewshed is one observer's row, so it uses the plain, explained query for
//! each target (in parallel): every blocked hex keeps the events that block it,
//! which is what tells a blind hex from one behind higher ground.

use crate::hex::Hex;
use crate::los::{LosResult, line_of_sight};
use crate::map::Map;
use crate::rules::geometric::{Heights, MILLI};
use crate::rules::{Effect, Family, Place, Verdict};
use rayon::prelude::*;

/// One target hex in a viewshed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Clear, hindered or blocked.
    pub verdict: Verdict,
    /// Total hindrance along the line.
    pub hindrance: u32,
    /// Blocked only by obstacles lower than the observer (a blind hex).
    pub blind: bool,
    /// Why (one sentence from the ruleset).
    pub reason: String,
}

/// Every hex of the map as seen from one observer, in map index order.
#[derive(Clone, Debug)]
pub struct Viewshed {
    /// The observer.
    pub from: Hex,
    /// One entry per map hex.
    pub targets: Vec<Target>,
}

impl Viewshed {
    /// Number of hexes with this verdict.
    pub fn count(&self, v: Verdict) -> usize {
        self.targets.iter().filter(|t| t.verdict == v).count()
    }

    /// Map indices of the blind hexes.
    pub fn blind(&self) -> Vec<usize> {
        self.targets
            .iter()
            .enumerate()
            .filter(|(_, t)| t.blind)
            .map(|(i, _)| i)
            .collect()
    }
}

/// The viewshed of `from`, computed in parallel.
pub fn viewshed(map: &Map, from: Hex) -> Viewshed {
    let targets = (0..map.len())
        .into_par_iter()
        .map(|j| {
            let r = line_of_sight(map, from, map.hex_of(j));
            Target {
                verdict: r.verdict,
                hindrance: r.hindrance,
                blind: is_blind(map, &r),
                reason: r.reason,
            }
        })
        .collect();
    Viewshed { from, targets }
}

/// Heights compared for blind hexes, in thousandths of a level: for `geometric`
/// the surface (ground plus terrain) and the observer's eye; for other families
/// the ground level, as their rules compare levels.
fn height_of(map: &Map, hs: Option<&Heights>, h: Hex) -> Option<i64> {
    match hs {
        Some(hs) => hs.surface(map, h),
        None => map.cell(h).map(|c| i64::from(c.level) * MILLI),
    }
}

/// True when the line is blocked and every blocker is lower than the observer:
/// the target is hidden only because it lies in the dead ground behind a lower
/// obstacle (a "blind hex").
pub fn is_blind(map: &Map, r: &LosResult) -> bool {
    if r.verdict != Verdict::Blocked {
        return false;
    }
    let heights = matches!(map.ruleset.family, Family::Geometric | Family::Miniatures)
        .then(|| Heights::of(map));
    let hs = heights.as_ref();
    let eye = match hs {
        Some(hs) => i64::from(map.level(r.line.from)) * MILLI + hs.observer_eye,
        None => i64::from(map.level(r.line.from)) * MILLI,
    };
    let mut blockers = r
        .events
        .iter()
        .filter(|e| e.effect == Effect::Block)
        .peekable();
    if blockers.peek().is_none() {
        return false; // blocked by a hindrance limit, not by an obstacle
    }
    blockers.all(|e| {
        let hexes = match e.place {
            Place::Hex(h) | Place::Marker(h) => vec![h],
            Place::AlongSide(a, b) | Place::Hexside(a, b) => vec![a, b],
            Place::HexsidePair(a, b, c) => vec![a, b, c],
        };
        hexes
            .iter()
            .filter_map(|h| height_of(map, hs, *h))
            .max()
            .is_some_and(|top| top < eye)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::fast::Engine;
    use crate::engine::generate::{Generator, generate};
    use crate::hex::Layout;

    #[test]
    fn the_viewshed_agrees_with_the_engine_and_blind_hexes_are_blocked() {
        for rs in ["geometric", "combat-commander"] {
            let g = Generator {
                cols: 14,
                rows: 12,
                seed: 5,
                ruleset: rs.into(),
                layout: Layout::default(),
                dense: false,
            };
            let map = generate(&g).unwrap();
            let e = Engine::new(&map);
            let mut blind = 0;
            for i in (0..map.len()).step_by(7) {
                let v = viewshed(&map, map.hex_of(i));
                for (j, t) in v.targets.iter().enumerate() {
                    assert_eq!(t.verdict.sees(), e.sees(i, j));
                    assert!(!t.blind || t.verdict == Verdict::Blocked);
                    blind += usize::from(t.blind);
                }
                assert!(v.targets[i].verdict.sees(), "a hex sees itself");
            }
            assert!(blind > 0, "{rs}: no blind hex on a hilly map");
        }
    }
}
