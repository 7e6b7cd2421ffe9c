//! Zones of hexes named on the command line: `A1:F10,G3` (rectangles of columns
//! and rows, and single hexes).

use crate::error::{Error, ErrorKind, Result};
use crate::map::Map;

/// The map indices of the hexes in a zone, sorted, without repeats.
pub fn parse_zone(map: &Map, text: &str) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let pos = |l: &str| -> Result<(u32, u32)> {
            let h = map.parse_hex(l).ok_or_else(|| {
                Error::new(
                    ErrorKind::Query,
                    format!(
                        "`{l}` in zone `{text}` is not a hex of this {}x{} map ({} to {})",
                        map.cols,
                        map.rows,
                        map.label(map.hex_of(0)),
                        map.label(map.hex_of(map.len() - 1))
                    ),
                )
            })?;
            let (c, r) = map.layout.offset_of(h);
            Ok((c as u32, r as u32))
        };
        let (a, b) = match part.split_once(':') {
            Some((x, y)) => (pos(x)?, pos(y)?),
            None => (pos(part)?, pos(part)?),
        };
        for c in a.0.min(b.0)..=a.0.max(b.0) {
            for r in a.1.min(b.1)..=a.1.max(b.1) {
                out.push(c as usize * map.rows as usize + r as usize);
            }
        }
    }
    if out.is_empty() {
        return Err(Error::new(
            ErrorKind::Query,
            format!("zone `{text}` names no hex (write it like A1:F10,G3)"),
        ));
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generate::{Generator, generate};

    #[test]
    fn rectangles_and_single_hexes() {
        let g = Generator {
            cols: 8,
            rows: 6,
            seed: 1,
            ruleset: "geometric".into(),
            layout: Default::default(),
            dense: false,
        };
        let map = generate(&g).unwrap();
        let z = parse_zone(&map, "B2:A1, H6").unwrap();
        let labels: Vec<String> = z.iter().map(|&i| map.label(map.hex_of(i))).collect();
        assert_eq!(labels, ["A1", "A2", "B1", "B2", "H6"]);
        assert!(
            parse_zone(&map, "Z9")
                .unwrap_err()
                .to_string()
                .contains("`Z9`")
        );
    }
}
