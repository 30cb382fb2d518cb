//! Typed extraction: a field's bytes straight to an `f64`, no `String`, no locale.
//!
//! The common case is parsed by hand ([`parse_decimal`]): a plain decimal such as
//! `-1234.5678`, which is every value of the bench file, by Clinger's fast path.
//! Everything else goes to `fast-float2`. The parse is otherwise `fast-float2`'s (the maintained fork of `fast-float`, a Rust port of
//! Lemire's fast_float, "Number Parsing at a Gigabyte per Second", 2021), which rounds
//! correctly like the standard library's `str::parse::<f64>`: both give the same bits
//! for every input they accept (a test checks the bench file's every value). It is
//! faster because it needs no `&str` (so no UTF-8 check) and takes the Eisel-Lemire
//! fast path for up to 19 significant digits; step 5's `benches/query.rs` measures both.

/// A field that is not a finite decimal number (the caller knows where it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotANumber;

/// What a value field holds.
///
/// | field | result | why |
/// |---|---|---|
/// | `` (empty) | `Ok(None)`: NULL | SQL: counted by `COUNT(*)`, skipped by `SUM` (DuckDB does the same) |
/// | `3`, `-2.5`, `+3`, `.5`, `5.`, `-0`, `1e3` | the number | what `str::parse::<f64>` and DuckDB accept |
/// | `12345678901234567890` (20 digits) | the nearest `f64` | correctly rounded, as DuckDB and Polars |
/// | `1e-400` | `0.0` | underflow rounds to zero, as `str::parse` does |
/// | `1e400`, `inf`, `NaN` | `Err` | not finite: one such value would poison the sum silently (DuckDB rejects `1e400` too; Polars reads `inf`) |
/// | ` 3`, `3 `, `1,5`, `0x10`, `abc` | `Err` | no trimming, no locale, no hex: the dialect keeps bytes as they are |
///
/// # Errors
/// `Err(NotANumber)` for a field that is not a finite decimal number; the caller knows where
/// the field is and builds the error.
pub fn parse_value(field: &[u8]) -> Result<Option<f64>, NotANumber> {
    if field.is_empty() {
        return Ok(None);
    }
    if let Some(v) = parse_decimal(field) {
        return Ok(Some(v));
    }
    parse_value_fast_float(field)
}

/// [`parse_value`] with `fast-float2` alone (no hand-written fast path), for the
/// benchmark and the bit-for-bit test.
///
/// # Errors
/// As [`parse_value`].
pub fn parse_value_fast_float(field: &[u8]) -> Result<Option<f64>, NotANumber> {
    if field.is_empty() {
        return Ok(None);
    }
    match fast_float2::parse::<f64, _>(field) {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(NotANumber),
    }
}

// ANCHOR: parse_decimal
// ANCHOR: exercise_parse_decimal
/// Clinger's fast path (W. D. Clinger, "How to Read Floating Point Numbers
/// Accurately", PLDI 1990), for `[+-]digits[.digits]` only: read the digits as an
/// integer `m` and count the `s` digits after the point; when `m <= 2^53` and
/// `s <= 22`, both `m` and `10^s` are exact `f64`s, and IEEE division rounds
/// correctly, so `m / 10^s` is the correctly rounded value, the same bits as any
/// correct parser. `None` for anything else (an exponent, too many digits, no digit,
/// a second point, any other byte): the caller falls back to `fast-float2`.
#[inline]
pub fn parse_decimal(field: &[u8]) -> Option<f64> {
    let (negative, body) = match field.first() {
        Some(b'-') => (true, &field[1..]),
        Some(b'+') => (false, &field[1..]),
        _ => (false, field),
    };
    let (mut mantissa, mut digits, mut scale, mut point) = (0u64, 0u32, 0usize, false);
    for &b in body {
        match b {
            b'0'..=b'9' if digits < 19 => {
                mantissa = mantissa * 10 + u64::from(b - b'0'); // 19 digits fit a u64
                digits += 1;
                scale += usize::from(point);
            }
            b'.' if !point => point = true,
            _ => return None,
        }
    }
    if digits == 0 || mantissa > 1 << 53 || scale >= POWERS_OF_TEN.len() {
        return None;
    }
    let value = mantissa as f64 / POWERS_OF_TEN[scale];
    Some(if negative { -value } else { value })
}
// ANCHOR_END: exercise_parse_decimal

/// 10^0 ..= 10^22: the powers of ten that an `f64` holds exactly (5^22 < 2^53).
const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
// ANCHOR_END: parse_decimal

/// The same contract with the standard library's parser, for the benchmark and the
/// bit-for-bit test.
///
/// # Errors
/// As [`parse_value`].
pub fn parse_value_std(field: &[u8]) -> Result<Option<f64>, NotANumber> {
    if field.is_empty() {
        return Ok(None);
    }
    let text = std::str::from_utf8(field).map_err(|_| NotANumber)?;
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(NotANumber),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parse's result as a failing test shows it: the value and its bits in hex.
    fn show(r: Result<Option<f64>, NotANumber>) -> String {
        match r {
            Ok(Some(v)) => format!("{v:?} (bits {:#018x})", v.to_bits()),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn the_documented_table() {
        let ok = |s: &str, v: f64| {
            let got = parse_value(s.as_bytes());
            assert!(
                got.map(|o| o.map(f64::to_bits)) == Ok(Some(v.to_bits())),
                "parse_value({s:?}):\n  got      {}\n  expected {}",
                show(got),
                show(Ok(Some(v)))
            );
        };
        assert_eq!(parse_value(b""), Ok(None));
        ok("3", 3.0);
        ok("-2.5", -2.5);
        ok("+3", 3.0);
        ok(".5", 0.5);
        ok("5.", 5.0);
        ok("-0", -0.0);
        ok("1e3", 1000.0);
        ok("12345678901234567890", 12345678901234567890.0);
        ok("1e-400", 0.0);
        for bad in [
            "1e400", "-1e400", "inf", "-inf", "NaN", "nan", "infinity", " 3", "3 ", "1,5", "0x10",
            "abc", "1e", ".", "-", "+", "1.2.3", "٣",
        ] {
            assert_eq!(parse_value(bad.as_bytes()), Err(NotANumber), "{bad:?}");
            assert_eq!(
                parse_value_std(bad.as_bytes()),
                Err(NotANumber),
                "std {bad:?}"
            );
        }
        assert_eq!(parse_value(b"\xff1"), Err(NotANumber));
    }

    #[test]
    fn the_fast_path_takes_plain_decimals_only() {
        let decimal = |text: &str| parse_decimal(text.as_bytes());
        assert_eq!(decimal("-1234.5678"), Some(-1234.5678), "parse_decimal");
        assert_eq!(
            decimal("9007199254740992"),
            Some(9007199254740992.0),
            "2^53"
        );
        for other in [
            &b"9007199254740993"[..],
            b"1e3",
            b"1.0000000000000000000000",
            b"",
            b"-",
            b".",
            b"1..2",
            b"12345678901234567890",
        ] {
            let got = parse_decimal(other);
            assert!(
                got.is_none(),
                "parse_decimal({:?}) gives {got:?}, but the fast path must leave it to \
                 fast-float2 (None)",
                String::from_utf8_lossy(other)
            );
        }
    }

    #[test]
    fn all_three_parsers_agree_bit_for_bit_on_many_decimals() {
        // Deterministic decimals of every shape the fast path sees, and past its edges.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = (x % 20) as usize + 1;
            let text: String = (0..digits)
                .map(|k| char::from(b'0' + ((x >> (k * 3)) % 10) as u8))
                .collect();
            let point = (x >> 40) as usize % (digits + 1);
            let sign = ["", "-", "+"][(x >> 50) as usize % 3];
            let s = format!("{sign}{}.{}", &text[..point], &text[point..]);
            let bits = |r: Result<Option<f64>, NotANumber>| r.map(|o| o.map(f64::to_bits));
            let std = parse_value_std(s.as_bytes());
            for (name, got) in [
                ("parse_value", parse_value(s.as_bytes())),
                (
                    "parse_value_fast_float",
                    parse_value_fast_float(s.as_bytes()),
                ),
            ] {
                assert!(
                    bits(got) == bits(std),
                    "{name}({s:?}):\n  got      {}\n  expected {} (str::parse)",
                    show(got),
                    show(std)
                );
            }
        }
    }

    #[test]
    fn fast_float2_and_std_agree_bit_for_bit() {
        let samples = [
            "0.1",
            "-99999.999999",
            "3.141592653589793",
            "1e-300",
            "123456789012345678901234567890",
            "9007199254740993",
            "2.2250738585072011e-308",
            "0.000001",
        ];
        for s in samples {
            assert_eq!(
                parse_value_fast_float(s.as_bytes()).map(|o| o.map(f64::to_bits)),
                parse_value_std(s.as_bytes()).map(|o| o.map(f64::to_bits)),
                "{s}"
            );
        }
    }
}
