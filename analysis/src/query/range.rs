//! A range limit over sight answers (night, fog, a weapon's reach): a target
//! farther than the range is not seen, whatever the line; a nearer one keeps its
//! answer unchanged.
//!
//! The rules are not touched: the range is a filter laid over what the explained
//! query and the engine answer ([`Range::los`], [`Range::viewshed`],
//! [`Range::mask`], [`Range::mask_bytes`], [`exposure`]), so every command applies
//! it the same way.

use crate::engine::exposure::Exposure;
use crate::engine::fast::Engine;
use crate::engine::matrix::{BLOCKED_BYTE, BitMatrix, Control, Selection};
use crate::engine::viewshed::Viewshed;
use crate::error::{Error, ErrorKind, Result};
use crate::hex::Hex;
use crate::los::LosResult;
use crate::map::Map;
use crate::rules::Verdict;

/// How far one sees, in whole hexes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    /// The farthest hex distance still seen.
    pub hexes: u32,
    /// The range as the user gave it, for reasons (`300m`, `6`).
    pub given: String,
}

/// Metric units a length may be given in, with their size in metres.
const METRIC: [(&str, f64); 4] = [("mm", 0.001), ("cm", 0.01), ("m", 1.0), ("km", 1000.0)];

fn query_error(msg: String) -> Error {
    Error::new(ErrorKind::Query, msg)
}

impl Range {
    /// Parses `N` (hexes, also `N hexes`) or a length with a unit (`300m`, `1.5 km`),
    /// which the map's `scale` turns into whole hexes, rounding down.
    pub fn parse(map: &Map, text: &str) -> Result<Range> {
        let t = text.trim();
        let shown = crate::error::clip(t, 30);
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = (&t[..split], t[split..].trim());
        let value: f64 = num
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| {
                query_error(format!(
                    "range `{shown}` is not a number of hexes or a length such as 300m"
                ))
            })?;
        let hexes = match unit {
            "" | "hex" | "hexes" if num.contains('.') => {
                return Err(query_error(format!(
                    "range `{shown}`: give whole hexes, or a length with its unit"
                )));
            }
            "" | "hex" | "hexes" => value,
            _ => value / hex_length(map, unit, &shown)?,
        };
        // A hair over, so 0.3 km on 100 m hexes stays 3 hexes despite the binary fraction.
        let hexes = (hexes * (1.0 + 1e-12)).floor().min(u32::MAX as f64) as u32;
        Ok(Range {
            hexes,
            given: t.to_string(),
        })
    }

    /// True when `b` is at most the range from `a`.
    pub fn reaches(&self, a: Hex, b: Hex) -> bool {
        a.distance(b) <= self.hexes
    }

    /// Why `b` is not seen from `a`: it lies beyond the range.
    pub fn reason(&self, map: &Map, a: Hex, b: Hex) -> String {
        let given = if self.given.parse::<u32>().is_ok() {
            String::new()
        } else {
            format!(" ({})", self.given)
        };
        format!(
            "{} is {} hexes from {}, beyond the range of {} hexes{given}",
            map.label(b),
            a.distance(b),
            map.label(a),
            self.hexes
        )
    }

    /// The explained answer under the range: beyond it, blocked, with no blocker
    /// and the range as the reason; the events along the line stay for the trace.
    pub fn los(&self, map: &Map, mut r: LosResult) -> LosResult {
        let (a, b) = (r.line.from, r.line.to);
        if !self.reaches(a, b) {
            r.verdict = Verdict::Blocked;
            r.blocked_by = None;
            r.reason = self.reason(map, a, b);
        }
        r
    }

    /// A viewshed under the range: targets beyond it blocked, not hindered, not blind.
    pub fn viewshed(&self, map: &Map, v: &mut Viewshed) {
        for (j, t) in v.targets.iter_mut().enumerate() {
            if !self.reaches(v.from, map.hex_of(j)) {
                t.verdict = Verdict::Blocked;
                t.hindrance = 0;
                t.blind = false;
            }
        }
    }

    /// Clears the bits of pairs beyond the range in a matrix whose rows are the
    /// observers `from` and columns the targets `to` (map indices).
    pub fn mask(&self, map: &Map, from: &[usize], to: &[usize], bits: &mut BitMatrix) {
        for (&i, row) in from.iter().zip(bits.rows_mut()) {
            let a = map.hex_of(i);
            for (c, &j) in to.iter().enumerate() {
                if !self.reaches(a, map.hex_of(j)) {
                    row[c / 64] &= !(1 << (c % 64));
                }
            }
        }
    }

    /// Marks pairs beyond the range blocked in a byte matrix, row by row as `sel`.
    pub fn mask_bytes(&self, map: &Map, sel: &Selection, data: &mut [u8]) {
        let cols = sel.to.len();
        if cols == 0 {
            return;
        }
        for (&i, row) in sel.from.iter().zip(data.chunks_mut(cols)) {
            let a = map.hex_of(i);
            for (c, &j) in sel.to.iter().enumerate() {
                if !self.reaches(a, map.hex_of(j)) {
                    row[c] = BLOCKED_BYTE;
                }
            }
        }
    }
}

/// The length of one hex in `unit`, from the map's scale (metric units convert).
fn hex_length(map: &Map, unit: &str, shown: &str) -> Result<f64> {
    let scale = map.scale.as_ref().ok_or_else(|| {
        query_error(format!(
            "range `{shown}`: the map has no `scale`, so give the range in hexes"
        ))
    })?;
    let metres = |u: &str| METRIC.iter().find(|m| m.0 == u).map(|m| m.1);
    let length = if unit == scale.unit {
        scale.hex
    } else {
        match (metres(unit), metres(&scale.unit)) {
            (Some(to), Some(from)) => scale.hex * from / to,
            _ => {
                return Err(query_error(format!(
                    "range `{shown}`: unit `{}` does not convert to the map's scale unit `{}`",
                    crate::error::clip(unit, 20),
                    scale.unit
                )));
            }
        }
    };
    if length > 0.0 && length.is_finite() {
        Ok(length)
    } else {
        Err(query_error(format!(
            "range `{shown}`: the map's scale gives hexes of length {}",
            scale.hex
        )))
    }
}

/// Exposure counts under a range: only pairs within it count (the engine's
/// streaming counts, keeping the pairs within range).
pub fn exposure(
    engine: &Engine,
    sel: &Selection,
    range: &Range,
    ctl: &Control,
) -> Result<Exposure> {
    exposure_part(engine, sel, range, 0..engine.map().len(), ctl)
}

/// [`exposure`] counting only the lines walked from observers whose map index is in
/// `part` (as [`crate::engine::exposure::streaming_part`]): parts add up to the whole.
pub fn exposure_part(
    engine: &Engine,
    sel: &Selection,
    range: &Range,
    part: std::ops::Range<usize>,
    ctl: &Control,
) -> Result<Exposure> {
    let map = engine.map();
    let near = |i: usize, j: usize| range.reaches(map.hex_of(i), map.hex_of(j));
    crate::engine::exposure::streaming_where(engine, sel, part, ctl, near)
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
    fn hexes_and_lengths() {
        let m = map("hill-112.json"); // 50 m hexes
        let r = |t: &str| Range::parse(&m, t).map(|r| r.hexes);
        assert_eq!(r("6").unwrap(), 6);
        assert_eq!(r("6 hexes").unwrap(), 6);
        assert_eq!(r("300m").unwrap(), 6);
        assert_eq!(r("349 m").unwrap(), 6);
        assert_eq!(r("0.35km").unwrap(), 7);
        assert_eq!(r("0.29km").unwrap(), 5);
        assert_eq!(r("49m").unwrap(), 0);
        for bad in ["", "m", "-3", "6.5", "300yd", "1e9", "abc"] {
            let e = r(bad).unwrap_err().to_string();
            assert!(e.contains("range"), "{bad}: {e}");
        }
        let no_scale = map("napoleonic-ridge.json");
        let e = Range::parse(&no_scale, "300m").unwrap_err().to_string();
        assert!(e.contains("no `scale`"), "{e}");
    }
}
