//! How the grid is drawn: orientation, column/row offsets, centres and corners.

use super::coord::Hex;
use serde::{Deserialize, Serialize};

/// Which way the hexes point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Orientation {
    /// Flat top, hexes in columns (Combat Commander, ASL boards).
    #[default]
    Flat,
    /// Pointy top, hexes in rows.
    Pointy,
}

/// Which columns (flat) or rows (pointy) are shifted by half a hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Stagger {
    /// Odd columns (B, D, ...) sit half a hex lower; pointy: odd rows shift right.
    #[default]
    Odd,
    /// Even columns (A, C, ...) sit half a hex lower; pointy: even rows shift right.
    Even,
}

const FLAT_SIDES: [&str; 6] = ["N", "NE", "SE", "S", "SW", "NW"];
const POINTY_SIDES: [&str; 6] = ["NW", "NE", "E", "SE", "SW", "W"];

/// Corners in skewed integer coordinates; side `i` runs from corner `i` to `i + 1`.
const FLAT_CORNERS: [(i32, i32); 6] = [(-1, -1), (1, -1), (2, 0), (1, 1), (-1, 1), (-2, 0)];
const POINTY_CORNERS: [(i32, i32); 6] = [(-1, -1), (0, -2), (1, -1), (1, 1), (0, 2), (-1, 1)];

/// The drawing of a grid: orientation and stagger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Layout {
    /// Flat or pointy top.
    pub orientation: Orientation,
    /// Which columns/rows are shifted.
    pub stagger: Stagger,
}

impl Layout {
    /// The hex at offset position (`col`, `row`), both from 0.
    pub fn hex_at(&self, col: i32, row: i32) -> Hex {
        // Half the shifted lines passed so far; the numerator is always even.
        let half = |n: i32| match self.stagger {
            Stagger::Odd => (n - (n & 1)) / 2,
            Stagger::Even => (n + (n & 1)) / 2,
        };
        match self.orientation {
            Orientation::Flat => Hex::new(col, row - half(col)),
            Orientation::Pointy => Hex::new(col - half(row), row),
        }
    }

    /// The offset position (`col`, `row`) of a hex.
    pub fn offset_of(&self, h: Hex) -> (i32, i32) {
        match self.orientation {
            Orientation::Flat => {
                let col = h.q;
                let row = h.r - self.hex_at(col, 0).r;
                (col, row)
            }
            Orientation::Pointy => {
                let row = h.r;
                let col = h.q - self.hex_at(0, row).q;
                (col, row)
            }
        }
    }

    /// The hex's centre in skewed integer coordinates, where every centre and
    /// corner is an integer point and straight lines stay straight.
    pub fn skewed_center(&self, h: Hex) -> (i32, i32) {
        match self.orientation {
            Orientation::Flat => (3 * h.q, 2 * h.r + h.q),
            Orientation::Pointy => (2 * h.q + h.r, 3 * h.r),
        }
    }

    /// The six corners in skewed integer coordinates, side `i` from corner `i` to `i + 1`.
    pub fn skewed_corners(&self, h: Hex) -> [(i32, i32); 6] {
        let (x, y) = self.skewed_center(h);
        let c = match self.orientation {
            Orientation::Flat => FLAT_CORNERS,
            Orientation::Pointy => POINTY_CORNERS,
        };
        c.map(|(dx, dy)| (x + dx, y + dy))
    }

    /// Converts skewed coordinates to pixels for hexes of circumradius `size`
    /// (y grows downwards).
    pub fn skewed_to_pixel(&self, (x, y): (f64, f64), size: f64) -> (f64, f64) {
        let k = 3f64.sqrt() / 2.0;
        match self.orientation {
            Orientation::Flat => (x * size / 2.0, y * size * k),
            Orientation::Pointy => (x * size * k, y * size / 2.0),
        }
    }

    /// The centre of `h` in pixels, for hexes of circumradius `size`.
    pub fn center(&self, h: Hex, size: f64) -> (f64, f64) {
        let (x, y) = self.skewed_center(h);
        self.skewed_to_pixel((x as f64, y as f64), size)
    }

    /// The corners of `h` in pixels.
    pub fn corners(&self, h: Hex, size: f64) -> [(f64, f64); 6] {
        self.skewed_corners(h)
            .map(|(x, y)| self.skewed_to_pixel((x as f64, y as f64), size))
    }

    /// The hex containing a pixel position (nearest centre).
    pub fn hex_at_pixel(&self, (px, py): (f64, f64), size: f64) -> Hex {
        let k = 3f64.sqrt() / 2.0;
        let (q, r) = match self.orientation {
            Orientation::Flat => {
                let (x, y) = (2.0 * px / size, py / (size * k));
                (x / 3.0, (y - x / 3.0) / 2.0)
            }
            Orientation::Pointy => {
                let (x, y) = (px / (size * k), 2.0 * py / size);
                ((x - y / 3.0) / 2.0, y / 3.0)
            }
        };
        cube_round(q, r)
    }

    /// The side names in direction order.
    pub fn side_names(&self) -> [&'static str; 6] {
        match self.orientation {
            Orientation::Flat => FLAT_SIDES,
            Orientation::Pointy => POINTY_SIDES,
        }
    }

    /// The direction index of a side name (case-insensitive).
    pub fn side_index(&self, name: &str) -> Option<usize> {
        self.side_names()
            .iter()
            .position(|s| s.eq_ignore_ascii_case(name))
    }
}

/// Distance in pixels from point `p` to the segment `a`-`b` (hit-testing hexsides,
/// drawing lines).
pub fn distance_to_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    };
    ((p.0 - a.0 - t * dx).powi(2) + (p.1 - a.1 - t * dy).powi(2)).sqrt()
}

/// Rounds fractional axial coordinates to the nearest hex.
pub fn cube_round(q: f64, r: f64) -> Hex {
    let s = -q - r;
    let (mut rq, mut rr, rs) = (q.round(), r.round(), s.round());
    let (dq, dr, ds) = ((rq - q).abs(), (rr - r).abs(), (rs - s).abs());
    if dq > dr && dq > ds {
        rq = -rr - rs;
    } else if dr > ds {
        rr = -rq - rs;
    }
    Hex::new(rq as i32, rr as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layouts() -> Vec<Layout> {
        let mut v = Vec::new();
        for orientation in [Orientation::Flat, Orientation::Pointy] {
            for stagger in [Stagger::Odd, Stagger::Even] {
                v.push(Layout {
                    orientation,
                    stagger,
                });
            }
        }
        v
    }

    #[test]
    fn offset_and_axial_round_trip() {
        for l in layouts() {
            for col in -3..20 {
                for row in -3..20 {
                    assert_eq!(l.offset_of(l.hex_at(col, row)), (col, row), "{l:?}");
                }
            }
        }
    }

    #[test]
    fn odd_columns_sit_half_a_hex_lower_on_flat_maps() {
        let l = Layout::default();
        let (_, ya) = l.center(l.hex_at(0, 0), 10.0);
        let (_, yb) = l.center(l.hex_at(1, 0), 10.0);
        let (_, yc) = l.center(l.hex_at(2, 0), 10.0);
        assert!(yb > ya && (yc - ya).abs() < 1e-9);
        let even = Layout {
            stagger: Stagger::Even,
            ..l
        };
        let (_, ya) = even.center(even.hex_at(0, 0), 10.0);
        let (_, yb) = even.center(even.hex_at(1, 0), 10.0);
        assert!(ya > yb);
    }

    #[test]
    fn a_side_is_shared_with_the_neighbour_in_its_direction() {
        for l in layouts() {
            let h = Hex::new(2, 1);
            let c = l.skewed_corners(h);
            for dir in 0..6 {
                let n = l.skewed_corners(h.neighbor(dir));
                let (p0, p1) = (c[dir], c[(dir + 1) % 6]);
                assert!(n.contains(&p0) && n.contains(&p1), "{l:?} dir {dir}");
            }
        }
    }

    #[test]
    fn pixel_lookup_finds_the_hex_under_its_centre() {
        for l in layouts() {
            for q in -4..5 {
                for r in -4..5 {
                    let h = Hex::new(q, r);
                    assert_eq!(l.hex_at_pixel(l.center(h, 17.0), 17.0), h);
                }
            }
        }
    }
}
