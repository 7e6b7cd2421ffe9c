//! Hex centres in the plane, as the viewshed tables see them from an observer.
//!
//! Neighbouring centres are one apart: an affine image of the axial grid, in which a
//! line crosses the same hexes and fractions along it are kept.

use crate::hex::Hex;

/// The radius of a hexagon's circumscribed circle: half its width, at most.
pub const CIRCUMRADIUS: f64 = 0.577_350_269_189_625_8;
/// The radius of its inscribed circle.
pub const INRADIUS: f64 = 0.5;

/// Where the centre of hex `h` (or the offset `h` between two centres) lies.
pub fn point(h: Hex) -> (f64, f64) {
    plane(f64::from(h.q), f64::from(h.r))
}

/// [`point`] of axial coordinates `(q, r)`, whole or not.
pub fn plane(q: f64, r: f64) -> (f64, f64) {
    (q + r / 2.0, r * 0.866_025_403_784_438_6)
}

/// The squared distance between centres `d` apart, exactly.
pub fn distance2(d: Hex) -> i64 {
    let (q, r) = (i64::from(d.q), i64::from(d.r));
    q * q + q * r + r * r
}

/// A stand-in for the direction of `(x, y)`, in `[0, 4)`: monotone in the angle
/// and cheaper than `atan2`.
pub fn pseudo_angle(x: f64, y: f64) -> f64 {
    let s = x.abs() + y.abs();
    wrap(x, if s > 0.0 { y / s } else { 0.0 })
}

/// [`pseudo_angle`] of `(x, y)` but the origin, given the reciprocal `by` of
/// `|x| + |y|`: for callers that take many reciprocals from one division.
#[inline(always)]
pub fn pseudo_angle_over(x: f64, y: f64, by: f64) -> f64 {
    wrap(x, y * by)
}

/// The pseudo-angle of a direction whose `y / (|x| + |y|)` is `t`: that on the
/// right, `2 -` that on the left, wrapped into `[0, 4)`; without branches, as the
/// viewshed tables take hexes in no order of direction.
#[inline(always)]
fn wrap(x: f64, t: f64) -> f64 {
    let p = if x >= 0.0 { t } else { 2.0 - t };
    if p < 0.0 { p + 4.0 } else { p }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pseudo-angle rises with the angle all the way round, from 0 on the
    /// positive `x` axis, through 1, 2 and 3 on the others.
    #[test]
    fn the_pseudo_angle_rises_with_the_angle() {
        let steps = 3600;
        let p = |k: usize| {
            let a = k as f64 * std::f64::consts::TAU / steps as f64;
            pseudo_angle(a.cos(), a.sin())
        };
        for k in 1..steps {
            assert!(p(k) > p(k - 1), "step {k}");
        }
        for (k, want) in [(0, 0.0), (900, 1.0), (1800, 2.0), (2700, 3.0)] {
            assert!((p(k) - want).abs() < 1e-12, "{k}: {}", p(k));
        }
        assert_eq!(pseudo_angle(0.0, 0.0), 0.0);
    }
}
