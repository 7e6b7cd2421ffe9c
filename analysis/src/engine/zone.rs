//! Zones of hexes named on the command line: `A1:F10,G3` (rectangles of columns
//! and rows, and single hexes).

use crate::error::{Error, ErrorKind, Result};
use crate::map::Map;

/// Most parts (rectangles and single hexes) a zone may list.
pub const MAX_PARTS: usize = 10_000;

/// The map indices of the hexes in a zone, sorted, without repeats.
///
/// Memory and time are bounded by the map, whatever the text: every hex named must
/// be on the map, the hexes are marked in one flag per map hex, and a zone lists at
/// most [`MAX_PARTS`] parts.
pub fn parse_zone(map: &Map, text: &str) -> Result<Vec<usize>> {
    let shown = crate::error::clip(text, 60);
    let parts: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .take(MAX_PARTS + 1)
        .collect();
    if parts.len() > MAX_PARTS {
        return Err(Error::new(
            ErrorKind::Query,
            format!(
                "zone `{shown}` lists more than {MAX_PARTS} parts; join them into rectangles (A1:F10)"
            ),
        ));
    }
    let rows = map.rows as usize;
    let mut inside = vec![false; map.len()];
    for part in parts {
        let pos = |l: &str| -> Result<(u32, u32)> {
            let h = map.parse_hex(l).ok_or_else(|| {
                Error::new(
                    ErrorKind::Query,
                    format!(
                        "`{}` in zone `{shown}` is not a hex of this {}x{} map ({} to {}){}",
                        crate::error::clip(l, 30),
                        map.cols,
                        map.rows,
                        map.label(map.hex_of(0)),
                        map.label(map.hex_of(map.len() - 1)),
                        crate::hex::label::problem(l.trim(), map.first_row)
                            .map(|p| format!(": {p}"))
                            .unwrap_or_default()
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
        let (r0, r1) = (a.1.min(b.1) as usize, a.1.max(b.1) as usize);
        for c in a.0.min(b.0) as usize..=a.0.max(b.0) as usize {
            inside[c * rows + r0..=c * rows + r1].fill(true);
        }
    }
    let out: Vec<usize> = (0..inside.len()).filter(|&i| inside[i]).collect();
    if out.is_empty() {
        return Err(Error::new(
            ErrorKind::Query,
            format!("zone `{shown}` names no hex (write it like A1:F10,G3)"),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Generator, generate};

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
        for bad in [
            "",
            " , ",
            "A1:ZZZZZZZZ99999999999",
            "A1:",
            ":B2",
            "A0",
            "A-1",
        ] {
            let e = parse_zone(&map, bad).unwrap_err().to_string();
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        let many = vec!["A1"; MAX_PARTS + 1].join(",");
        assert!(
            parse_zone(&map, &many)
                .unwrap_err()
                .to_string()
                .contains("parts")
        );
        assert_eq!(
            parse_zone(&map, &vec!["A1:H6"; 1000].join(","))
                .unwrap()
                .len(),
            48
        );
    }
}
