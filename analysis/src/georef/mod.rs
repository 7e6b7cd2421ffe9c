//! Georeferencing: where a map's hexes lie on the ground (the map file's `geo`
//! block) and how a CRS coordinate becomes longitude/latitude.

pub mod project;

use crate::hex::Hex;
use crate::map::Map;
use crate::map::model::Extra;

/// The map file's `geo` block: a projected CRS, A1's centre in it, and the
/// distance between two adjacent hex centres in CRS units. Columns run east and
/// rows south (y decreasing), as on a north-up map.
#[derive(Clone, Debug, PartialEq)]
pub struct Geo {
    /// The CRS as an EPSG code (`32631`: WGS 84 / UTM zone 31N).
    pub epsg: u32,
    /// The CRS coordinates of hex A1's centre.
    pub origin: (f64, f64),
    /// Distance between the centres of two adjacent hexes, in CRS units.
    pub hex_size: f64,
    /// The pixel grid of the DEM the map was imported from, so that answers can be
    /// written back as rasters lying on that DEM pixel for pixel (`geo.raster`).
    pub raster: Option<DemGrid>,
    /// Uninterpreted keys.
    pub extra: Extra,
}

/// A north-up pixel grid in the map's CRS: `width` x `height` pixels, pixel (0, 0)'s
/// top-left corner at (`left`, `top`), pixels `dx` east by `dy` south (both positive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DemGrid {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// CRS x of the left edge.
    pub left: f64,
    /// CRS y of the top edge.
    pub top: f64,
    /// Pixel width.
    pub dx: f64,
    /// Pixel height.
    pub dy: f64,
}

impl DemGrid {
    /// The CRS point at the centre of pixel (`col`, `row`).
    pub fn pixel_center(&self, col: u32, row: u32) -> (f64, f64) {
        (
            self.left + (f64::from(col) + 0.5) * self.dx,
            self.top - (f64::from(row) + 0.5) * self.dy,
        )
    }
}

/// Circumradius of a hex whose neighbours' centres are `spacing` apart: the
/// grid's pixel geometry ([`crate::hex::Layout`]) is sized by the circumradius.
fn radius(spacing: f64) -> f64 {
    spacing / 3f64.sqrt()
}

/// A point in the map's grid drawing ([`crate::hex::Layout::center`] with
/// adjacent centres `spacing` apart), taken relative to A1's centre.
fn grid_offset(map: &Map, (px, py): (f64, f64), spacing: f64) -> (f64, f64) {
    let a1 = map.layout.center(map.hex_of(0), radius(spacing));
    (px - a1.0, py - a1.1)
}

impl Geo {
    /// Converts a point of the grid drawing (y down, hexes `hex_size` apart) to CRS.
    fn grid_to_crs(&self, map: &Map, p: (f64, f64)) -> (f64, f64) {
        let (dx, dy) = grid_offset(map, p, self.hex_size);
        (self.origin.0 + dx, self.origin.1 - dy)
    }

    /// The CRS coordinates of a hex's centre.
    pub fn hex_center(&self, map: &Map, h: Hex) -> (f64, f64) {
        self.grid_to_crs(map, map.layout.center(h, radius(self.hex_size)))
    }

    /// The CRS coordinates of a hex's six corners, in the layout's order.
    pub fn hex_corners(&self, map: &Map, h: Hex) -> [(f64, f64); 6] {
        map.layout
            .corners(h, radius(self.hex_size))
            .map(|p| self.grid_to_crs(map, p))
    }

    /// The hex (on the map or not) whose interior holds a CRS point.
    pub fn hex_at(&self, map: &Map, (x, y): (f64, f64)) -> Hex {
        let r = radius(self.hex_size);
        let a1 = map.layout.center(map.hex_of(0), r);
        let p = (x - self.origin.0 + a1.0, self.origin.1 - y + a1.1);
        map.layout.hex_at_pixel(p, r)
    }
}

/// The `geo` of a map without one: hex-grid units (adjacent centres 1 apart, A1 at
/// the origin, y up so that a GIS draws the map north-up), CRS unknown.
pub fn grid_units() -> Geo {
    Geo {
        epsg: 0,
        origin: (0.0, 0.0),
        hex_size: 1.0,
        raster: None,
        extra: Extra::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex::{Layout, Orientation, Stagger};
    use crate::rules::Ruleset;
    use std::sync::Arc;

    fn map(orientation: Orientation, stagger: Stagger) -> Map {
        let rs = Arc::new(Ruleset::builtin("geometric").unwrap());
        let layout = Layout {
            orientation,
            stagger,
        };
        Map::new("t", "geometric", rs, 6, 5, layout)
    }

    fn geo() -> Geo {
        Geo {
            epsg: 32631,
            origin: (500_000.0, 5_000_000.0),
            hex_size: 100.0,
            raster: None,
            extra: Extra::new(),
        }
    }

    #[test]
    fn a1_is_the_origin_and_neighbours_are_hex_size_apart() {
        for o in [Orientation::Flat, Orientation::Pointy] {
            for s in [Stagger::Odd, Stagger::Even] {
                let m = map(o, s);
                let g = geo();
                assert_eq!(g.hex_center(&m, m.hex_of(0)), g.origin);
                for h in m.hexes() {
                    let c = g.hex_center(&m, h);
                    assert_eq!(g.hex_at(&m, c), h);
                    for n in h.neighbors() {
                        let d = g.hex_center(&m, n);
                        let dist = ((c.0 - d.0).powi(2) + (c.1 - d.1).powi(2)).sqrt();
                        assert!((dist - 100.0).abs() < 1e-6, "{dist}");
                    }
                }
            }
        }
    }

    #[test]
    fn columns_run_east_and_rows_south() {
        let m = map(Orientation::Flat, Stagger::Odd);
        let g = geo();
        let a2 = g.hex_center(&m, m.parse_hex("A2").unwrap());
        assert_eq!(a2, (500_000.0, 4_999_900.0));
        let c1 = g.hex_center(&m, m.parse_hex("C1").unwrap());
        assert!((c1.0 - (500_000.0 + 100.0 * 3f64.sqrt())).abs() < 1e-6);
        assert!((c1.1 - 5_000_000.0).abs() < 1e-6);
        let b1 = g.hex_center(&m, m.parse_hex("B1").unwrap());
        assert!(b1.1 < 5_000_000.0, "odd columns sit lower: {b1:?}");
    }
}
