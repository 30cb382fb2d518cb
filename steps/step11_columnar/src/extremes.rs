//! A group's other aggregates than the count and the sum (`--agg`): its smallest and
//! largest value, exact ([`MinMax`]), and the division that makes the mean of the
//! exact sum a correctly rounded `f64` ([`ratio_to_f64`]).

use crate::exact::{Number, fixed_to_f64};

// ANCHOR: extremes
/// `a / q` rounded to the nearest `f64`, ties to even, for `0 < q < 2^126`: a
/// quotient of at least 64 significant bits, then the 53 kept, the next bit and a
/// sticky remainder decide the rounding, as IEEE division does. For `q < 2^64` (a
/// sum's scale, `10^18`, and a mean's for fewer than about 18 million values) one
/// division gives those bits: `a` shifted left first, so that the quotient of the
/// shifted `a` has 64 bits or more; a larger `q` takes long division, a bit a step.
/// First, when `a` and `q` are exact `f64`s once divided by 10^12, as most sums of
/// plain decimals and their scale are, one `f64` division (`exact_operands`).
// (Inlined, so that a constant `q`, a sum's scale, folds at compile time; the long
// division is out of line.)
#[inline]
pub fn ratio_to_f64(a: u128, q: u128) -> f64 {
    if a == 0 {
        return 0.0;
    }
    exact_operands(a, q).unwrap_or_else(|| long_ratio(a, q))
}

/// [`ratio_to_f64`] by long division, for `0 < a` and `0 < q < 2^126`.
#[cold]
#[inline(never)]
fn long_ratio(a: u128, q: u128) -> f64 {
    let bits = |x: u128| 128 - x.leading_zeros() as i32;
    let shift = if q >> 64 == 0 {
        (64 + bits(q) - bits(a)).clamp(0, a.leading_zeros() as i32)
    } else {
        0
    };
    let a = a << shift; // at most 64 + bits(q) <= 128 bits: no overflow
    let (mut m, mut r, mut e) = (a / q, a % q, -shift);
    while m < 1 << 63 {
        r <<= 1; // r < q < 2^126: no overflow
        m = m << 1 | u128::from(r >= q);
        if r >= q {
            r -= q;
        }
        e -= 1;
    }
    let shift = 128 - m.leading_zeros() - 53; // at least 11
    let (kept, rest, half) = (m >> shift, m & ((1 << shift) - 1), 1u128 << (shift - 1));
    let up = rest > half || (rest == half && (r != 0 || kept & 1 == 1));
    // At most 2^53: exact as an f64, and so is the scaling by a power of two.
    (kept + u128::from(up)) as f64 * 2f64.powi(e + shift as i32)
}

/// `a / q` by one `f64` division, when both are exact `f64`s (under 2^53) once each is
/// divided by 10^12, which a plain decimal of up to six digits after the point and
/// its scale, 10^18, both are multiples of: IEEE division then rounds the exact
/// quotient once, correctly (Clinger's fast path, "How to Read Floating Point Numbers
/// Accurately", PLDI 1990). `None` for any other pair.
#[inline]
fn exact_operands(a: u128, q: u128) -> Option<f64> {
    let (a, q) = tera_fold(a).zip(tera_fold(q)).unwrap_or((a, q));
    // Through `u64`: a `u128` has no conversion instruction, and both are under 2^53.
    (a < 1 << 53 && q < 1 << 53).then(|| a as u64 as f64 / q as u64 as f64)
}

/// `x / 10^12` when `x` is a multiple of 10^12 = 2^12 x 5^12, found without a
/// division of `u128`s: `x / 2^12` times the inverse of 5^12 modulo 2^128 is the
/// quotient when 5^12 divides it, and, because multiplying by that inverse permutes
/// the `u128`s and sends the multiples of 5^12 to `0..=u128::MAX / 5^12` in order, a
/// number past that range when 5^12 does not divide it (Granlund and Montgomery,
/// "Division by Invariant Integers using Multiplication", PLDI 1994, section 9).
#[inline]
fn tera_fold(x: u128) -> Option<u128> {
    const P: u128 = 244_140_625; // 5^12
    const INVERSE: u128 = inverse_mod_2_128(P);
    let q = (x >> 12).wrapping_mul(INVERSE);
    (x.trailing_zeros() >= 12 && q <= u128::MAX / P).then_some(q)
}

/// The inverse of the odd `p` modulo 2^128, by Newton's iteration: each step doubles
/// the bits that are right, from the 3 that `p` itself gets right (`p x p = 1` modulo 8).
const fn inverse_mod_2_128(p: u128) -> u128 {
    let mut x = p;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u128.wrapping_sub(p.wrapping_mul(x)));
        i += 1;
    }
    x
}

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

    /// The fast path against the long division it skips, on multiples of 10^12 of
    /// every size around 2^53 and on the means of such sums.
    #[test]
    fn the_fast_path_rounds_as_the_long_division() {
        let slow = long_ratio;
        let tera = 1_000_000_000_000u128;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for bits in 1..=60 {
            for _ in 0..300 {
                // Knuth's MMIX generator: its top bits are the well-mixed ones.
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let m = (u128::from(x) >> (64 - bits)).max(1);
                for n in [1u128, 3, 7, 1000, 999_983] {
                    let (a, q) = (m * tera, n * 10u128.pow(18));
                    assert_eq!(ratio_to_f64(a, q), slow(a, q), "{a}/{q}");
                    let a = a + 1; // not a multiple: the long division
                    assert_eq!(ratio_to_f64(a, q), slow(a, q), "{a}/{q}");
                }
            }
        }
        // Against the division it replaces, at every size of quotient.
        for bits in 0..=87 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let m = (u128::from(x) << 64 | u128::from(x.rotate_left(17))) >> (128 - bits.max(1));
            for r in [0, 1, 4096, 244_140_625, tera / 2, tera - 1] {
                let n = m * tera + r;
                assert_eq!(
                    tera_fold(n),
                    n.is_multiple_of(tera).then(|| n / tera),
                    "{n}"
                );
            }
        }
        assert_eq!(tera_fold(5 * tera), Some(5));
        assert_eq!(tera_fold(u128::MAX / tera * tera), Some(u128::MAX / tera));
        assert_eq!(tera_fold(tera / 2), None);
        assert_eq!(tera_fold(tera * 5 + 4096), None);
        assert_eq!(inverse_mod_2_128(244_140_625).wrapping_mul(244_140_625), 1);
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
