//! Exact non-negative fractions for positions along a sight line.

use std::cmp::Ordering;

/// A fraction `num / den` with `den > 0`, compared exactly (no floating point).
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    /// Numerator.
    pub num: i64,
    /// Denominator, always positive.
    pub den: i64,
}

impl Ratio {
    /// Zero.
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };
    /// One.
    pub const ONE: Ratio = Ratio { num: 1, den: 1 };

    /// `num / den`; panics only on a zero denominator, which callers never build.
    pub fn new(num: i64, den: i64) -> Self {
        assert!(den != 0, "zero denominator");
        if den < 0 {
            Ratio {
                num: -num,
                den: -den,
            }
        } else {
            Ratio { num, den }
        }
    }

    /// The midpoint of two fractions.
    pub fn midpoint(self, other: Ratio) -> Ratio {
        Ratio::new(
            self.num * other.den + other.num * self.den,
            2 * self.den * other.den,
        )
    }

    /// The value as a float, for drawing and display only.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl PartialEq for Ratio {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ratio {}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.num as i128 * other.den as i128).cmp(&(other.num as i128 * self.den as i128))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_fractions_compare_equal_and_order_is_exact() {
        assert_eq!(Ratio::new(1, 2), Ratio::new(3, 6));
        assert!(Ratio::new(1, 3) < Ratio::new(334, 1000));
        assert_eq!(
            Ratio::new(1, 4).midpoint(Ratio::new(1, 2)),
            Ratio::new(3, 8)
        );
        assert_eq!(Ratio::new(1, -2), Ratio::new(-1, 2));
    }
}
