//! Axial hex coordinates: the grid's own arithmetic, independent of how it is drawn.

use std::ops::{Add, Sub};

/// A hex in axial coordinates (`q`, `r`); the cube coordinate `s` is `-q - r`.
///
/// Axial coordinates make the grid translation invariant: the line from `a` to
/// `a + d` crosses the same offsets whatever `a` is, which the engine relies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Hex {
    /// Axial column coordinate.
    pub q: i32,
    /// Axial row coordinate.
    pub r: i32,
}

impl Hex {
    /// A hex from axial coordinates.
    pub const fn new(q: i32, r: i32) -> Self {
        Self { q, r }
    }

    /// The third cube coordinate.
    pub const fn s(self) -> i32 {
        -self.q - self.r
    }

    /// Hex distance (number of steps between centres).
    pub fn distance(self, other: Hex) -> u32 {
        let d = other - self;
        ((d.q.abs() + d.r.abs() + d.s().abs()) / 2) as u32
    }

    /// The neighbour in direction `dir` (0..6, see [`DIRECTIONS`]).
    pub fn neighbor(self, dir: usize) -> Hex {
        self + DIRECTIONS[dir]
    }

    /// The six neighbours in direction order.
    pub fn neighbors(self) -> [Hex; 6] {
        DIRECTIONS.map(|d| self + d)
    }

    /// The direction index from `self` to an adjacent `other`, if adjacent.
    #[inline]
    pub fn direction_to(self, other: Hex) -> Option<usize> {
        // The index in [`DIRECTIONS`] of the step, without searching it.
        match ((other.q - self.q), (other.r - self.r)) {
            (0, -1) => Some(0),
            (1, -1) => Some(1),
            (1, 0) => Some(2),
            (0, 1) => Some(3),
            (-1, 1) => Some(4),
            (-1, 0) => Some(5),
            _ => None,
        }
    }

    /// True when the two hexes share a side.
    pub fn is_adjacent(self, other: Hex) -> bool {
        self.direction_to(other).is_some()
    }
}

impl Add for Hex {
    type Output = Hex;
    fn add(self, o: Hex) -> Hex {
        Hex::new(self.q + o.q, self.r + o.r)
    }
}

impl Sub for Hex {
    type Output = Hex;
    fn sub(self, o: Hex) -> Hex {
        Hex::new(self.q - o.q, self.r - o.r)
    }
}

/// The six axial directions, in the order the side names of
/// [`crate::hex::Orientation`] use: for flat-top N, NE, SE, S, SW, NW.
pub const DIRECTIONS: [Hex; 6] = [
    Hex::new(0, -1),
    Hex::new(1, -1),
    Hex::new(1, 0),
    Hex::new(0, 1),
    Hex::new(-1, 1),
    Hex::new(-1, 0),
];

/// An unordered pair of adjacent hexes: the identity of a hexside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Side {
    /// The smaller hex of the pair.
    pub a: Hex,
    /// The larger hex of the pair.
    pub b: Hex,
}

impl Side {
    /// The hexside between two hexes (in either order).
    pub fn new(x: Hex, y: Hex) -> Self {
        if x <= y {
            Side { a: x, b: y }
        } else {
            Side { a: y, b: x }
        }
    }

    /// True when `h` is one of the two hexes of this side.
    pub fn touches(self, h: Hex) -> bool {
        self.a == h || self.b == h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_are_at_distance_one_and_opposite_directions_cancel() {
        let h = Hex::new(3, -2);
        for (i, n) in h.neighbors().into_iter().enumerate() {
            assert_eq!(h.distance(n), 1);
            assert_eq!(n.neighbor((i + 3) % 6), h);
            assert_eq!(h.direction_to(n), Some(i));
        }
        assert_eq!(Hex::new(0, 0).distance(Hex::new(3, -1)), 3);
        assert_eq!(Hex::new(0, 0).distance(Hex::new(-2, -2)), 4);
    }

    #[test]
    fn a_side_is_the_same_from_either_hex() {
        let a = Hex::new(1, 1);
        let b = a.neighbor(2);
        assert_eq!(Side::new(a, b), Side::new(b, a));
        assert!(Side::new(a, b).touches(a));
    }
}
