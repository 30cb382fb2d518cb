//! A group's other aggregates than the count and the sum (`--agg`): its smallest and
//! largest value, exact ([`MinMax`]), each rounded once to an `f64` at the end; the
//! mean is the exact sum's, divided by [`crate::ratio`].

use crate::exact::{Number, fixed_to_f64};

// ANCHOR: extremes
/// A group's smallest and largest value, exact: plain decimals compared as integers,
/// the others as `f64`s, each converted once at the end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinMax {
    min_fixed: i128,
    max_fixed: i128,
    min_float: f64,
    max_float: f64,
}

impl Default for MinMax {
    fn default() -> MinMax {
        MinMax {
            min_fixed: i128::MAX,
            max_fixed: i128::MIN,
            min_float: f64::INFINITY,
            max_float: f64::NEG_INFINITY,
        }
    }
}

impl MinMax {
    /// Looks at one value.
    #[inline]
    pub fn add(&mut self, n: Number) {
        // Branches, not blends: after a group's first rows a new extreme is rare,
        // so each branch is predicted and its store skipped (an `i128` blend is
        // eight instructions); a float is finite, so a compare is the whole of it.
        match n {
            Number::Fixed(x) => {
                if x < self.min_fixed {
                    self.min_fixed = x;
                }
                if x > self.max_fixed {
                    self.max_fixed = x;
                }
            }
            Number::Float(x) => {
                if x < self.min_float {
                    self.min_float = x;
                }
                if x > self.max_float {
                    self.max_float = x;
                }
            }
        }
    }

    /// Both groups' values together.
    pub fn merge(&mut self, other: &MinMax) {
        self.min_fixed = self.min_fixed.min(other.min_fixed);
        self.max_fixed = self.max_fixed.max(other.max_fixed);
        self.min_float = self.min_float.min(other.min_float);
        self.max_float = self.max_float.max(other.max_float);
    }

    /// The smallest value, `None` before the first (values are finite, so the
    /// starting infinities and integer bounds are never values).
    pub fn min(&self) -> Option<f64> {
        let fixed = (self.min_fixed != i128::MAX).then(|| fixed_to_f64(self.min_fixed));
        let float = (self.min_float != f64::INFINITY).then_some(self.min_float);
        match (fixed, float) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The largest value, as [`MinMax::min`].
    pub fn max(&self) -> Option<f64> {
        let fixed = (self.max_fixed != i128::MIN).then(|| fixed_to_f64(self.max_fixed));
        let float = (self.max_float != f64::NEG_INFINITY).then_some(self.max_float);
        match (fixed, float) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}
// ANCHOR_END: extremes

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{ExactSum, parse_number};
    use crate::ratio::ratio_to_f64;

    #[test]
    fn the_mean_is_the_exact_sum_divided_and_rounded_once() {
        let mut s = ExactSum::default();
        for v in ["0.1", "0.2"] {
            s.add(parse_number(v.as_bytes()).unwrap().unwrap());
        }
        assert_eq!(s.to_f64(), 0.3); // the f64 sum would be 0.30000000000000004
        assert_eq!(s.mean(2), 0.15);
        assert_eq!(s.mean(3), 0.1);
        for (p, q) in [
            (1u128, 3u128),
            (2, 3),
            (10, 7),
            (1 << 100, 3),
            (123_456_789, 1_000_000_000_000_000_000),
        ] {
            let expected: f64 = p as f64 / q as f64; // both exact: one IEEE rounding
            if p < 1 << 53 && q < 1 << 53 {
                assert_eq!(ratio_to_f64(p, q), expected, "{p}/{q}");
            }
        }
        // Ties go to even: (2^53 + 1) / 1 is half-way between two f64s.
        assert_eq!(ratio_to_f64((1 << 53) + 1, 1), 9_007_199_254_740_992.0);
        assert_eq!(ratio_to_f64((1 << 53) + 3, 1), 9_007_199_254_740_996.0);
        let mut neg = ExactSum::default();
        neg.add(parse_number(b"-1").unwrap().unwrap());
        assert_eq!(neg.mean(3), -1.0 / 3.0);
    }

    #[test]
    fn min_and_max_compare_decimals_exactly_and_floats_as_floats() {
        let mut m = MinMax::default();
        assert_eq!((m.min(), m.max()), (None, None));
        for v in ["2.5", "-0.125", "1e2", "12345678901234567890"] {
            m.add(parse_number(v.as_bytes()).unwrap().unwrap());
        }
        assert_eq!(
            (m.min(), m.max()),
            (Some(-0.125), Some(12345678901234567890.0))
        );
        let mut other = MinMax::default();
        other.add(parse_number(b"-3").unwrap().unwrap());
        m.merge(&other);
        assert_eq!(m.min(), Some(-3.0));
    }
}
