//! What each analysis puts in its raster ([`super::raster`]: GeoTIFF, `.npy`): one
//! number per hex, the codes documented here and in the guide (`docs/guide/gis.md`).

use super::raster::HexRaster;
use crate::Verdict;
use crate::engine::exposure::Exposure;
use crate::engine::viewshed::Viewshed;
use crate::map::Map;
use crate::query::deploy::Plan;
use crate::query::spotting::SpotCell;

/// No-data in the byte rasters (pixels off the map).
pub const NODATA_U8: u8 = 255;

/// Viewshed codes: 0 clear, 1 hindered, 2 blocked, 3 blind (blocked by obstacles lower
/// than the observer: dead ground); the first three as the Python package's verdicts.
pub const VIEWSHED_CODES: &str =
    "0 clear, 1 hindered, 2 blocked, 3 blind (blocked, dead ground), 255 off the map";

/// A viewshed: one verdict code per hex ([`VIEWSHED_CODES`]).
pub fn viewshed(v: &Viewshed) -> HexRaster<u8> {
    let codes = v
        .targets
        .iter()
        .map(|t| match t.verdict {
            _ if t.blind => 3,
            Verdict::Clear => 0,
            Verdict::Hindered => 1,
            Verdict::Blocked => 2,
        })
        .collect();
    HexRaster::one("verdict", codes, NODATA_U8, VIEWSHED_CODES)
}

/// Blind hexes: 1 blind, 0 not.
pub fn blind(v: &Viewshed) -> HexRaster<u8> {
    let codes = v.targets.iter().map(|t| u8::from(t.blind)).collect();
    HexRaster::one(
        "blind",
        codes,
        NODATA_U8,
        "1 blind, 0 not blind, 255 off the map",
    )
}

/// Exposure: band 1 how many observers see each hex, band 2 how many targets it sees.
pub fn exposure(e: &Exposure) -> HexRaster<u32> {
    HexRaster {
        bands: vec![
            ("seen_by".into(), e.seen_by.clone()),
            ("sees".into(), e.sees.clone()),
        ],
        nodata: u32::MAX,
        meaning: "band 1 seen_by: observers that see the hex; band 2 sees: targets the hex sees; 4294967295 off the map".into(),
    }
}

/// Spotting: band 1 the chance one test spots a still or moving target there (1 for
/// automatic spotting, 0 out of LOS), band 2 1 in line of sight, 0 not.
pub fn spotting(cells: &[SpotCell]) -> HexRaster<f32> {
    let p = cells
        .iter()
        .map(|c| if c.auto { 1.0 } else { c.p_spot as f32 })
        .collect();
    let los = cells.iter().map(|c| f32::from(u8::from(c.los))).collect();
    HexRaster {
        bands: vec![("p_spot".into(), p), ("los".into(), los)],
        nodata: -1.0,
        meaning: "band 1 p_spot: chance one test spots (1 automatic, 0 out of LOS); band 2 los: 1 in LOS, 0 not; -1 off the map".into(),
    }
}

/// Deployment codes: 0 other, 1 in the zone, 2 watched and unseen, 3 watched and seen,
/// 4 chosen (a chosen hex or a watched one also in the zone takes the higher code).
pub fn deploy(map: &Map, plan: &Plan, zone: &[usize], watch: &[usize]) -> HexRaster<u8> {
    let mut codes = vec![0u8; map.len()];
    for &i in zone {
        codes[i] = 1;
    }
    for &i in watch {
        codes[i] = 2;
    }
    for &i in &plan.seen {
        codes[i] = 3;
    }
    for &i in &plan.chosen {
        codes[i] = 4;
    }
    HexRaster::one(
        "deploy",
        codes,
        NODATA_U8,
        "0 other, 1 zone, 2 watched unseen, 3 watched seen, 4 chosen, 255 off the map",
    )
}

/// A before/after diff: band 1 the change in observers that see each hex, band 2 the
/// change in targets it sees (after minus before; exact in `f32`, as a map has at most
/// 4,000,000 hexes, under 2^24).
pub fn diff(d: &crate::engine::diff::Diff) -> HexRaster<f32> {
    let band = |v: &[i64]| v.iter().map(|&x| x as f32).collect();
    HexRaster {
        bands: vec![
            ("seen_by_change".into(), band(&d.seen_by)),
            ("sees_change".into(), band(&d.sees)),
        ],
        nodata: f32::NAN,
        meaning: "band 1 seen_by_change: observers that see the hex after minus before; band 2 sees_change: targets it sees after minus before; NaN off the map".into(),
    }
}

/// Lowest visible heights: the height in levels above the hex's ground at which the
/// observer first sees a target there, -1 when none up to the limit.
pub fn min_height(heights: &[Option<u32>]) -> HexRaster<f32> {
    let v = heights
        .iter()
        .map(|h| h.map_or(-1.0, |h| h as f32))
        .collect();
    HexRaster::one(
        "min_height",
        v,
        f32::NAN,
        "lowest target height (levels above the hex's ground) the observer sees; -1 none up to the limit; NaN off the map",
    )
}
