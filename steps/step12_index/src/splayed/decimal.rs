//! Decimal columns: a plain decimal (`-12.50`) read as its parts, and stored as an
//! `i64` count of 10^-S units, S the column's scale; and the way back to the `f64`
//! that the field's text gives.
//!
//! ```text
//! "-12.50"  -> sign -, digits 1250, 2 after the point     parse_digits
//!           -> in a decimal(3) column: -1250 x 10^(3-2)    decimal: -12500 units
//! -12500 units of 10^-3 -> -12.5, the nearest f64          decimal_to_f64
//! ```
//!
//! The parse is [`crate::exact`]'s `parse_digits`, the byte loop that the query's
//! exact sum reads decimals with, before its scaling to 10^-18 units: the inference
//! needs the number of digits after the point, and a column of a known scale its
//! units, with one multiply and no `i128` division.

use crate::exact::{POWERS, SCALE, parse_digits};

/// A plain decimal's value in 10^-18 units (as [`crate::exact::Number::Fixed`]),
/// and its number of digits after the point (0..=[`SCALE`]): what the type inference
/// needs to choose a column's scale.
#[inline]
pub fn parse_fixed_scaled(field: &[u8]) -> Option<(i128, u32)> {
    let (negative, mantissa, scale) = parse_digits(field)?;
    let fixed = i128::from(mantissa) * POWERS[(SCALE - scale) as usize];
    Some((if negative { -fixed } else { fixed }, scale))
}

// ANCHOR: decimal
/// A plain decimal as an `i64` count of 10^-`scale` units; `i64::MIN` for a negative
/// zero (`-0.0`), so that the column gives back the field's `f64` bits; `None` when
/// the field is not a plain decimal with at most `scale` digits after the point that
/// fits.
#[inline]
pub fn decimal(field: &[u8], scale: u8) -> Option<i64> {
    let (negative, mantissa, digits) = parse_digits(field)?;
    let shift = u32::from(scale).checked_sub(digits)?;
    if mantissa == 0 && negative {
        return Some(i64::MIN);
    }
    // Up to 19 digits times up to 10^18: a u128 holds it; i64 may not.
    let units = i64::try_from(u128::from(mantissa) * POWERS[shift as usize] as u128).ok()?;
    Some(if negative { -units } else { units })
}
// ANCHOR_END: decimal

/// 10^0 ..= 10^22: the powers of ten that an `f64` holds exactly (5^22 < 2^53).
const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

// ANCHOR: decimal_to_f64
/// The `f64` nearest to `units` x 10^-`scale` (`i64::MIN`: -0.0): the same bits as
/// parsing the field's text, because both round the same rational number correctly.
/// Clinger's fast path when it is exact, else the standard library's parse.
pub fn decimal_to_f64(units: i64, scale: u8) -> f64 {
    if units == i64::MIN {
        return -0.0;
    }
    if units.unsigned_abs() <= 1 << 53 && scale <= 22 {
        return units as f64 / POWERS_OF_TEN[usize::from(scale)];
    }
    format!("{units}e-{scale}")
        .parse()
        .expect("a decimal parses")
}
// ANCHOR_END: decimal_to_f64

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{Number, parse_number};

    /// Fields with every sign, integer part and fraction of interest.
    fn fields() -> Vec<Vec<u8>> {
        let mut fields: Vec<Vec<u8>> = Vec::new();
        for sign in ["", "-", "+"] {
            for int in [
                "",
                "0",
                "7",
                "12",
                "9223372036854775807",
                "9223372036854775808",
                "999999999999999999",
            ] {
                for frac in ["", ".", ".0", ".5", ".25", ".000001", ".1234567"] {
                    fields.push(format!("{sign}{int}{frac}").into_bytes());
                }
            }
        }
        fields.extend(["1e3", "1.0000000000000000001", "1..2", "-", "NaN"].map(Vec::from));
        fields
    }

    #[test]
    fn the_parse_is_the_exact_sums_parse() {
        for field in fields() {
            let exact = match parse_number(&field) {
                Ok(Some(Number::Fixed(fixed))) => Some(fixed),
                _ => None,
            };
            let scaled = parse_fixed_scaled(&field).map(|(fixed, _)| fixed);
            assert_eq!(scaled, exact, "{:?}", String::from_utf8_lossy(&field));
        }
    }

    /// The units as the exact parse's 10^-18 count divided down: what `decimal`
    /// computes without the division.
    fn decimal_by_division(field: &[u8], scale: u8) -> Option<i64> {
        let (fixed, digits) = parse_fixed_scaled(field)?;
        if digits > u32::from(scale) {
            return None;
        }
        if fixed == 0 && field.first() == Some(&b'-') {
            return Some(i64::MIN);
        }
        let units = fixed / POWERS[usize::from(SCALE as u8 - scale)];
        i64::try_from(units).ok().filter(|&u| u != i64::MIN)
    }

    #[test]
    fn decimal_is_the_division_of_the_exact_parse() {
        for field in &fields() {
            for scale in [0u8, 1, 2, 6, 12, 18] {
                assert_eq!(
                    decimal(field, scale),
                    decimal_by_division(field, scale),
                    "{:?} at scale {scale}",
                    String::from_utf8_lossy(field)
                );
            }
        }
    }

    #[test]
    fn decimals_in_units_of_their_scale() {
        assert_eq!(decimal(b"-12.5", 3), Some(-12_500));
        assert_eq!(decimal(b"+.5", 1), Some(5));
        assert_eq!(decimal(b"-0.000", 6), Some(i64::MIN));
        assert_eq!(decimal(b"0.000", 6), Some(0));
        assert_eq!(decimal(b"1.25", 1), None); // too many digits for the scale
        assert_eq!(decimal(b"1e3", 6), None);
        assert_eq!(decimal(b"9223372036854775807", 0), Some(i64::MAX));
        assert_eq!(decimal(b"9223372036854775807", 1), None);
    }

    #[test]
    fn back_to_the_f64_of_the_text() {
        for (units, scale, text) in [
            (-12_500, 3, "-12.5"),
            (7_627, 3, "7.627"),
            (i64::MAX, 6, "9223372036854.775807"),
            (1, 18, "0.000000000000000001"),
        ] {
            let expected: f64 = text.parse().unwrap();
            assert_eq!(decimal_to_f64(units, scale).to_bits(), expected.to_bits());
        }
        assert_eq!(decimal_to_f64(i64::MIN, 2).to_bits(), (-0.0f64).to_bits());
    }
}
