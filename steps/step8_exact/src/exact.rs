//! The exact sum: the same answer whatever the order of the additions, so whatever
//! the thread count and the chunks.
//!
//! ```text
//! a plain decimal (at most 19 digits, at most 18 after the point):
//!     fixed += digits * 10^(18 - fraction digits)         exact in i128 (+ a wrap count)
//! anything else the query accepts (1e3, 20 digits, 19 fraction digits):
//!     its f64, added exactly into a superaccumulator (crate::wide), only when a
//!     group has one
//! at the end, once: the f64 nearest the exact total, fixed / 10^18 plus the
//! superaccumulator (crate::wide::round_exact), and the mean the f64 nearest
//! that total divided by the count
//! ```
//!
//! Integer addition is associative: any order of adding and merging gives the same
//! `fixed`, the same wraps and the same superaccumulator, so the same `f64`, rounded
//! once from the exact value. A total beyond the largest `f64` rounds to an
//! infinity, whatever the order its parts came in (the query reports it as an
//! error); a mean is rounded from the exact total, so the mean of values near the
//! largest `f64` is finite even when their sum is not.

use crate::value::{NotANumber, parse_value_fast_float};
use crate::wide::{Wide, round_exact};

/// Fraction digits the fixed-point part keeps: the value's unit is 10^-18.
pub const SCALE: u32 = 18;

/// A value of the sum column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// A plain decimal, in units of 10^-[`SCALE`].
    Fixed(i128),
    /// Anything else the query accepts, as the nearest `f64`.
    Float(f64),
}

// ANCHOR: parse
/// The value of a field: `None` when empty (SQL NULL), a [`Number::Fixed`] for a plain
/// decimal (`-12.5`, `+3`, `.5`), a [`Number::Float`] for any other finite number
/// step 7 accepts; [`NotANumber`] for the rest, exactly as step 7.
///
/// # Errors
/// [`NotANumber`] when the field is not empty and not a finite number.
#[inline]
pub fn parse_number(field: &[u8]) -> Result<Option<Number>, NotANumber> {
    if field.is_empty() {
        return Ok(None);
    }
    if let Some(fixed) = parse_fixed(field) {
        return Ok(Some(Number::Fixed(fixed)));
    }
    parse_value_fast_float(field).map(|v| v.map(Number::Float))
}

// ANCHOR: exercise_parse_fixed
/// A plain decimal of at most 19 digits, at most [`SCALE`] after the point, in units
/// of 10^-18: under 10^37 in magnitude, so exact in an `i128`.
#[inline]
pub(crate) fn parse_fixed(field: &[u8]) -> Option<i128> {
    let (negative, body) = match field.first() {
        Some(b'-') => (true, &field[1..]),
        Some(b'+') => (false, &field[1..]),
        _ => (false, field),
    };
    let (mut mantissa, mut digits, mut scale, mut point) = (0u64, 0u32, 0u32, false);
    for &b in body {
        match b {
            b'0'..=b'9' if digits < 19 => {
                mantissa = mantissa * 10 + u64::from(b - b'0'); // 19 digits fit a u64
                digits += 1;
                scale += u32::from(point);
            }
            b'.' if !point => point = true,
            _ => return None,
        }
    }
    if digits == 0 || scale > SCALE {
        return None;
    }
    let fixed = i128::from(mantissa) * POWERS[(SCALE - scale) as usize];
    Some(if negative { -fixed } else { fixed })
}
// ANCHOR_END: exercise_parse_fixed
// ANCHOR_END: parse

/// 10^0 ..= 10^18: the scale of a value with 18 ..= 0 fraction digits.
pub(crate) const POWERS: [i128; 19] = {
    let mut p = [1i128; 19];
    let mut k = 1;
    while k < 19 {
        p[k] = p[k - 1] * 10;
        k += 1;
    }
    p
};

// ANCHOR: sum
/// An exact sum: a fixed-point integer that counts its wraps past `i128`, and for
/// the values that are not plain decimals, their exact sum in a superaccumulator
/// ([`Wide`], made the first time a group has one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExactSum {
    /// The plain decimals' sum, modulo 2^128, in units of 10^-18.
    fixed: i128,
    /// Times `fixed` wrapped: the sum is `wraps * 2^128 + fixed`.
    wraps: i64,
    /// The other values' exact sum.
    wide: Option<Box<Wide>>,
}

impl ExactSum {
    /// Adds one value.
    #[inline]
    pub fn add(&mut self, n: Number) {
        match n {
            Number::Fixed(x) => self.add_fixed(x),
            Number::Float(x) => self.wide.get_or_insert_default().add_f64(x),
        }
    }

    #[inline]
    fn add_fixed(&mut self, x: i128) {
        let (sum, wrapped) = self.fixed.overflowing_add(x);
        self.fixed = sum;
        if wrapped {
            self.wraps += if x > 0 { 1 } else { -1 };
        }
    }

    /// Adds another sum (a thread's) to this one: as exact as adding its values.
    pub fn merge(&mut self, other: &ExactSum) {
        self.add_fixed(other.fixed);
        self.wraps += other.wraps;
        if let Some(wide) = &other.wide {
            self.wide.get_or_insert_default().add(wide);
        }
    }

    /// The sum, rounded once to the nearest `f64`; an infinity when the exact sum is
    /// beyond the largest `f64`.
    pub fn to_f64(&self) -> f64 {
        if self.wraps == 0 && self.wide.is_none() {
            return fixed_to_f64(self.fixed);
        }
        round_exact(self.wide.as_deref(), self.fixed, self.wraps, 1)
    }
}
// ANCHOR_END: sum

// ANCHOR: mean
impl ExactSum {
    /// The sum divided by `n` (the group's non-NULL values, at least 1), rounded once
    /// from the exact sum: as the ratio of integers `fixed / (n * 10^18)`
    /// ([`crate::ratio::ratio_to_f64`]) when every value was a plain decimal and the sum
    /// did not wrap, else through the superaccumulator ([`round_exact`]).
    pub fn mean(&self, n: u64) -> f64 {
        if self.wraps == 0 && self.wide.is_none() {
            let q = u128::from(n) * 10u128.pow(SCALE); // under 2^124
            let m = crate::ratio::ratio_to_f64(self.fixed.unsigned_abs(), q);
            return if self.fixed < 0 { -m } else { m };
        }
        round_exact(self.wide.as_deref(), self.fixed, self.wraps, n)
    }
}
// ANCHOR_END: mean

/// `fixed / 10^18`, correctly rounded ([`crate::ratio::ratio_to_f64`]: one
/// division, since `10^18 < 2^64`).
pub(crate) fn fixed_to_f64(fixed: i128) -> f64 {
    let m = crate::ratio::ratio_to_f64(fixed.unsigned_abs(), 10u128.pow(SCALE));
    if fixed < 0 { -m } else { m }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wide::tests::xorshift;

    fn sum(values: &[&str]) -> f64 {
        let mut s = ExactSum::default();
        for v in values {
            s.add(parse_number(v.as_bytes()).unwrap().unwrap());
        }
        s.to_f64()
    }

    #[test]
    fn decimals_are_added_exactly_and_rounded_once() {
        // 0.1 + 0.2 in f64 is 0.30000000000000004; exactly, it is 0.3.
        assert_eq!(sum(&["0.1", "0.2"]), 0.3);
        assert_eq!(0.1f64 + 0.2, 0.30000000000000004);
        assert_eq!(sum(&["1e16", "1", "-1e16"]), 1.0); // the fallback is exact too
        assert_eq!(sum(&["10000000000000000", "1", "-10000000000000000"]), 1.0);
        assert_eq!(sum(&["-0"]), 0.0);
        assert_eq!(fixed_to_f64(-1_500_000_000_000_000_000), -1.5);
        assert_eq!(fixed_to_f64(7), 7e-18);
        assert_eq!(
            fixed_to_f64(i128::MIN),
            -170141183460469231731.687303715884105728
        );
    }

    /// The division against the decimal text of the same value parsed by the
    /// standard library (correctly rounded), at every magnitude a sum can have.
    #[test]
    fn fixed_to_f64_rounds_as_the_decimal_text_parses() {
        let text = |x: i128| {
            let (sign, abs) = (if x < 0 { "-" } else { "" }, x.unsigned_abs());
            let scale = 10u128.pow(SCALE);
            format!("{sign}{}.{:018}", abs / scale, abs % scale)
        };
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for bits in 1..=127 {
            for _ in 0..200 {
                let wide = (u128::from(next()) << 64 | u128::from(next())) >> (128 - bits);
                for x in [wide as i128, -(wide as i128)] {
                    assert_eq!(fixed_to_f64(x), text(x).parse::<f64>().unwrap(), "{x}");
                }
            }
        }
        // Halfway cases: ties to even, and a remainder past the half rounds up.
        for x in [(1i128 << 54) + 1, (1 << 54) + 3, (1 << 60) * 1_000 + 1] {
            assert_eq!(fixed_to_f64(x), text(x).parse::<f64>().unwrap(), "{x}");
        }
    }

    #[test]
    fn the_order_does_not_matter() {
        let values = [
            "0.1",
            "1e-3",
            "123456789.123456789",
            "-7.5",
            "1e300",
            "-1e300",
            "3",
        ];
        let forward = sum(&values);
        let mut backward = values;
        backward.reverse();
        assert_eq!(forward.to_bits(), sum(&backward).to_bits());
        // Merging two halves gives the same as adding one by one.
        let (mut a, mut b) = (ExactSum::default(), ExactSum::default());
        for (i, v) in values.iter().enumerate() {
            let n = parse_number(v.as_bytes()).unwrap().unwrap();
            if i % 2 == 0 { a.add(n) } else { b.add(n) }
        }
        b.merge(&a);
        assert_eq!(b.to_f64().to_bits(), forward.to_bits());
    }

    #[test]
    fn a_fixed_point_overflow_wraps_and_is_counted() {
        let big = "9999999999999999999"; // 10^19 - 1: 10^37 units
        let mut s = ExactSum::default();
        for _ in 0..40 {
            s.add(parse_number(big.as_bytes()).unwrap().unwrap());
        }
        assert_ne!(s.wraps, 0);
        assert_eq!(s.to_f64(), 4e20);
        for _ in 0..40 {
            s.add(parse_number(b"-9999999999999999999").unwrap().unwrap());
        }
        assert_eq!((s.wraps, s.to_f64()), (0, 0.0));
    }

    #[test]
    fn the_same_values_as_step_7_are_numbers() {
        for ok in [
            "3",
            "-2.5",
            "+3",
            ".5",
            "5.",
            "1e3",
            "12345678901234567890",
            "1e-400",
        ] {
            assert!(parse_number(ok.as_bytes()).unwrap().is_some(), "{ok}");
        }
        for bad in ["1e400", "inf", "NaN", " 3", "1,5", ".", "-", "1.2.3"] {
            assert_eq!(parse_number(bad.as_bytes()), Err(NotANumber), "{bad}");
        }
    }
}
