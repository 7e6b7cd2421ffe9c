//! A hex grid laid over an elevation model: each hex's level sampled from the
//! DEM and quantised, optionally its terrain from a land-cover raster through a
//! class table. The map is written with a `geo` block, so its answers can be
//! drawn back onto the ground ([`crate::export::geojson`]).

use super::geotiff::Raster;
use crate::error::{Error, ErrorKind, Result};
use crate::georef::Geo;
use crate::hex::{Hex, Layout, Orientation};
use crate::map::Map;
use crate::map::file::MAX_HEXES;
use crate::map::model::{Extra, Scale};
use crate::rules::Ruleset;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How a hex's elevation is read from the DEM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sample {
    /// The pixel under the hex centre.
    #[default]
    Centre,
    /// The mean of the pixels whose centres lie in the hex.
    Mean,
    /// The highest of those pixels.
    Max,
}

impl std::str::FromStr for Sample {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "centre" | "center" => Ok(Sample::Centre),
            "mean" => Ok(Sample::Mean),
            "max" => Ok(Sample::Max),
            _ => Err(format!("`{s}`: give centre, mean or max")),
        }
    }
}

/// A land-cover raster and its class table (class code to terrain id).
pub struct Landcover {
    /// The raster, in the DEM's CRS.
    pub raster: Raster,
    /// Class code to terrain id; `"*"` for every other code.
    pub classes: BTreeMap<String, String>,
}

/// What to build.
pub struct Options {
    /// Map name.
    pub name: String,
    /// Ruleset name (built in) or path, as the map file will name it.
    pub ruleset_ref: String,
    /// The ruleset.
    pub ruleset: Arc<Ruleset>,
    /// Distance between adjacent hex centres, in CRS units.
    pub hex_size: f64,
    /// Height of one level, in the DEM's units.
    pub level_height: f64,
    /// How elevations are read.
    pub sample: Sample,
    /// Flat or pointy hexes.
    pub orientation: Orientation,
}

/// The map and what the import had to make up.
pub struct Imported {
    /// The new map, with its `geo` block.
    pub map: Map,
    /// Hexes whose samples were all no-data, given the nearest valid pixel's value.
    pub filled: usize,
    /// Hexes whose land-cover class the table does not list (left at the first terrain).
    pub unclassified: usize,
}

fn invalid(place: &str, message: String) -> Error {
    Error::new(ErrorKind::Invalid, message).at(place)
}

/// The grid's size and A1's centre so that every hex centre lies on the DEM:
/// (cols, rows, origin).
fn lay_grid(dem: &Raster, spacing: f64, layout: Layout) -> Result<(u32, u32, (f64, f64))> {
    let (left, bottom, right, top) = dem.extent();
    let r = spacing / 3f64.sqrt();
    // Half a hex's extent across and down, and the step between columns and rows.
    let (half_x, half_y, step_x, step_y) = match layout.orientation {
        Orientation::Flat => (r, spacing / 2.0, 1.5 * r, spacing),
        Orientation::Pointy => (spacing / 2.0, r, spacing, 1.5 * r),
    };
    let count = |len: f64, half: f64, step: f64| ((len - 2.0 * half) / step).floor() + 1.0;
    let cols = count(right - left, half_x, step_x);
    let rows = count(top - bottom, half_y, step_y);
    if !(cols >= 1.0 && rows >= 1.0) {
        return Err(invalid(
            "hex_size",
            format!(
                "the DEM ({:.0} x {:.0} units) is smaller than one hex of {spacing}",
                right - left,
                top - bottom
            ),
        ));
    }
    if cols * rows > MAX_HEXES as f64 {
        return Err(invalid(
            "hex_size",
            format!(
                "hexes of {spacing} make {cols}x{rows} hexes over the DEM, more than {MAX_HEXES}: give a larger `hex_size`"
            ),
        ));
    }
    let origin = (left + half_x, top - half_y);
    // The shifted columns (rows) reach half a step further; drop the last row
    // (column) when that takes their centres off the DEM.
    let (mut cols, mut rows) = (cols as u32, rows as u32);
    let probe = |cols: u32, rows: u32| {
        let geo = geo_of(dem, origin, spacing);
        let map = probe_map(cols, rows, layout);
        map.hexes().all(|h| {
            let (x, y) = geo.hex_center(&map, h);
            // Half-open, as pixels are: a centre on the right or bottom edge is off.
            (left..right).contains(&x) && y > bottom && y <= top
        })
    };
    if !probe(cols, rows) {
        match layout.orientation {
            Orientation::Flat if rows > 1 => rows -= 1,
            Orientation::Pointy if cols > 1 => cols -= 1,
            _ => {}
        }
    }
    Ok((cols, rows, origin))
}

fn geo_of(dem: &Raster, origin: (f64, f64), spacing: f64) -> Geo {
    Geo {
        epsg: dem.epsg,
        origin,
        hex_size: spacing,
        raster: Some(dem.dem_grid()),
        extra: Extra::new(),
    }
}

/// A map of the given size used only for its geometry.
fn probe_map(cols: u32, rows: u32, layout: Layout) -> Map {
    let rs = Arc::new(Ruleset::builtin("geometric").expect("built in"));
    Map::new("", "geometric", rs, cols, rows, layout)
}

/// The pixels whose centres lie in hex `h` (none when the hex is smaller than a pixel).
fn pixels_in(dem: &Raster, geo: &Geo, map: &Map, h: Hex) -> Vec<(usize, usize)> {
    let corners = geo.hex_corners(map, h);
    let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
    for (x, y) in corners {
        lo = (lo.0.min(x), lo.1.min(y));
        hi = (hi.0.max(x), hi.1.max(y));
    }
    let (c0, r0) = dem.pixel_at((lo.0, hi.1));
    let (c1, r1) = dem.pixel_at((hi.0, lo.1));
    let mut out = Vec::new();
    for row in r0..=r1 {
        for col in c0..=c1 {
            if geo.hex_at(map, dem.pixel_center(col, row)) == h {
                out.push((col, row));
            }
        }
    }
    out
}

/// The hex's elevation by `sample`, `None` when every sample is no-data.
fn elevation(dem: &Raster, geo: &Geo, map: &Map, h: Hex, sample: Sample) -> Option<f64> {
    let centre = dem.pixel_at(geo.hex_center(map, h));
    let mut pixels = match sample {
        Sample::Centre => vec![centre],
        _ => pixels_in(dem, geo, map, h),
    };
    if pixels.is_empty() {
        pixels.push(centre);
    }
    let values: Vec<f64> = pixels.iter().filter_map(|&(c, r)| dem.get(c, r)).collect();
    if values.is_empty() {
        return None;
    }
    Some(match sample {
        Sample::Max => values.iter().copied().fold(f64::MIN, f64::max),
        _ => values.iter().sum::<f64>() / values.len() as f64,
    })
}

/// The value of the valid pixel nearest to `(col, row)`, searching outwards ring
/// by ring; `None` when the raster has no valid pixel.
pub fn nearest_valid(dem: &Raster, (col, row): (usize, usize)) -> Option<f64> {
    let (c, r) = (col as i64, row as i64);
    let mut best: Option<(i64, f64)> = None;
    let reach = dem.width.max(dem.height) as i64;
    for ring in 0..=reach {
        if best.is_some_and(|(d2, _)| d2 < ring * ring) {
            break;
        }
        for (dc, dr) in ring_offsets(ring) {
            let (x, y) = (c + dc, r + dr);
            if x < 0 || y < 0 || x >= dem.width as i64 || y >= dem.height as i64 {
                continue;
            }
            if let Some(v) = dem.get(x as usize, y as usize) {
                let d2 = dc * dc + dr * dr;
                if best.is_none_or(|(b, _)| d2 < b) {
                    best = Some((d2, v));
                }
            }
        }
    }
    best.map(|(_, v)| v)
}

/// The offsets at Chebyshev distance `ring` from a pixel.
fn ring_offsets(ring: i64) -> Vec<(i64, i64)> {
    if ring == 0 {
        return vec![(0, 0)];
    }
    let mut out = Vec::with_capacity(8 * ring as usize);
    for d in -ring..=ring {
        out.extend([(d, -ring), (d, ring)]);
        if d.abs() != ring {
            out.extend([(-ring, d), (ring, d)]);
        }
    }
    out
}

/// The nearest whole level of an elevation, checked against the ruleset's levels.
fn level_of(z: f64, o: &Options, label: &str) -> Result<i32> {
    let level = (z / o.level_height).round();
    let levels = o.ruleset.levels;
    if !(level >= f64::from(levels.min) && level <= f64::from(levels.max)) {
        return Err(invalid(
            label,
            format!(
                "elevation {z} is level {level} at `level_height` {}, outside the {} ruleset's levels {} to {}: give a larger `level_height`",
                o.level_height, o.ruleset.name, levels.min, levels.max
            ),
        ));
    }
    Ok(level as i32)
}

/// Refuses sizes that are not positive and a land cover in another CRS.
fn check_options(dem: &Raster, landcover: Option<&Landcover>, o: &Options) -> Result<()> {
    if !(o.hex_size.is_finite() && o.hex_size > 0.0) {
        return Err(invalid(
            "hex_size",
            format!("`hex_size` must be positive, not {}", o.hex_size),
        ));
    }
    if !(o.level_height.is_finite() && o.level_height > 0.0) {
        return Err(invalid(
            "level_height",
            format!("`level_height` must be positive, not {}", o.level_height),
        ));
    }
    if let Some(lc) = landcover.filter(|lc| lc.raster.epsg != dem.epsg) {
        return Err(invalid(
            "landcover",
            format!(
                "the land cover is in EPSG:{}, the DEM in EPSG:{}: warp one to the other",
                lc.raster.epsg, dem.epsg
            ),
        ));
    }
    Ok(())
}

/// Builds the map: levels from the DEM, terrain from the land cover if given.
pub fn import(dem: &Raster, landcover: Option<&Landcover>, o: &Options) -> Result<Imported> {
    check_options(dem, landcover, o)?;
    let layout = Layout {
        orientation: o.orientation,
        ..Layout::default()
    };
    let (cols, rows, origin) = lay_grid(dem, o.hex_size, layout)?;
    crate::memory::check_items(
        u64::from(cols) * u64::from(rows),
        64,
        &format!("a {cols}x{rows} map"),
        "a larger `hex_size`",
    )?;
    let mut map = Map::new(
        &o.name,
        &o.ruleset_ref,
        o.ruleset.clone(),
        cols,
        rows,
        layout,
    );
    let geo = geo_of(dem, origin, o.hex_size);
    let terrain = landcover
        .map(|lc| terrain_table(lc, &o.ruleset))
        .transpose()?;
    let (mut filled, mut unclassified) = (0, 0);
    for i in 0..map.len() {
        let h = map.hex_of(i);
        let (level, was_filled) = hex_level(dem, &geo, &map, h, o)?;
        filled += usize::from(was_filled);
        let t = match (landcover, &terrain) {
            (Some(lc), Some(table)) => class_terrain(lc, table, geo.hex_center(&map, h)),
            _ => Some(0),
        };
        unclassified += usize::from(t.is_none());
        let cell = map.cell_mut(h).expect("on the map");
        cell.level = level;
        cell.terrain = t.unwrap_or(0);
    }
    // The projected CRSs hexsight reads are in metres: `--range 300m` works on the map.
    map.scale = Some(Scale {
        hex: o.hex_size,
        unit: "m".into(),
        extra: Extra::new(),
    });
    map.geo = Some(geo);
    Ok(Imported {
        map,
        filled,
        unclassified,
    })
}

/// A hex's level, and whether its samples were all no-data (so the nearest
/// valid pixel's value stood in).
fn hex_level(dem: &Raster, geo: &Geo, map: &Map, h: Hex, o: &Options) -> Result<(i32, bool)> {
    let (z, filled) = match elevation(dem, geo, map, h, o.sample) {
        Some(z) => (z, false),
        None => {
            let z = nearest_valid(dem, dem.pixel_at(geo.hex_center(map, h)))
                .ok_or_else(|| invalid("DEM", "the DEM has no valid pixel (all no-data)".into()))?;
            (z, true)
        }
    };
    Ok((level_of(z, o, &map.label(h))?, filled))
}

/// The class table resolved against the ruleset: class code to terrain index.
fn terrain_table(lc: &Landcover, rs: &Ruleset) -> Result<BTreeMap<String, u16>> {
    lc.classes
        .iter()
        .map(|(code, id)| {
            let i = rs.terrain.iter().position(|t| &t.id == id).ok_or_else(|| {
                invalid(
                    &format!("class {code}"),
                    format!("terrain `{id}` is not in the {} ruleset", rs.name),
                )
            })?;
            Ok((code.clone(), i as u16))
        })
        .collect()
}

/// The terrain of the land-cover class under a point: its code in the table, or
/// `"*"`; `None` when neither (or the pixel is no-data).
fn class_terrain(lc: &Landcover, table: &BTreeMap<String, u16>, p: (f64, f64)) -> Option<u16> {
    let (c, r) = lc.raster.pixel_at(p);
    let code = lc.raster.get(c, r).map(|v| format!("{}", v.round() as i64));
    code.and_then(|k| table.get(&k))
        .or_else(|| table.get("*"))
        .copied()
}
