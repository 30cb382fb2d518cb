//! A column's type: how its fields are read, and how its files lay them out
//! ([`crate::splayed::layout`]). The integer and boolean parses that decide the types
//! `int64` and `bool` are here; the decimal's is in [`crate::splayed::decimal`] and
//! the date's in [`crate::splayed::date`].

use std::fmt;

use crate::exact::SCALE;

/// The type of a column, and so the layout of its file ([`crate::splayed::layout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColumnType {
    /// `i64`, 8 bytes a row.
    Int64,
    /// A decimal with `scale` digits after the point, as an `i64` count of
    /// 10^-`scale` units, 8 bytes a row (SQL's `DECIMAL(18, scale)`). `i64::MIN` is
    /// the negative zero (`-0.00`), so that reading back gives the field's `f64` bits.
    Decimal {
        /// Digits after the point, 0..=18.
        scale: u8,
    },
    /// `f64` bits, 8 bytes a row, and beside them each value's exact decimal in an
    /// `i128` (16 bytes a row) when it has one, for step 10's exact sum.
    Float64,
    /// Days since 1970-01-01, `i32`, 4 bytes a row.
    Date,
    /// One byte a row, 0 or 1.
    Bool,
    /// A `u32` symbol id a row; the bytes are in the table's symbol file.
    String,
    /// Strings stored as they are, for a column whose values hardly repeat (names,
    /// ids): `col{k}.text` holds the rows' bytes one after the other and
    /// `col{k}.values` each row's end offset in it, a `u64`, 8 bytes a row (kdb+
    /// splays a column of strings the same way, as `col` and `col#`). Interning such
    /// a column would store each value once anyway, plus a dictionary entry and a
    /// lookup per field.
    Text,
}

impl ColumnType {
    /// The name in the manifest and in `--schema`: `int64`, `decimal(6)`, …
    pub fn name(&self) -> String {
        match self {
            ColumnType::Int64 => "int64".into(),
            ColumnType::Decimal { scale } => format!("decimal({scale})"),
            ColumnType::Float64 => "float64".into(),
            ColumnType::Date => "date".into(),
            ColumnType::Bool => "bool".into(),
            ColumnType::String => "string".into(),
            ColumnType::Text => "text".into(),
        }
    }

    /// The type named `name` ([`ColumnType::name`]'s form); `float64` as a request
    /// means "any number" (the loader stores it as a decimal when it can).
    pub fn parse(name: &str) -> Option<ColumnType> {
        Some(match name {
            "int64" => ColumnType::Int64,
            "float64" => ColumnType::Float64,
            "date" => ColumnType::Date,
            "bool" => ColumnType::Bool,
            "string" => ColumnType::String,
            "text" => ColumnType::Text,
            _ => {
                let scale = name
                    .strip_prefix("decimal(")?
                    .strip_suffix(')')?
                    .parse()
                    .ok()?;
                (scale <= SCALE as u8).then_some(ColumnType::Decimal { scale })?
            }
        })
    }

    /// Bytes a row in the column's main file (`col{k}.values`); for `text`, whose
    /// width depends on its size, the widest (8): a column's own is
    /// [`ColumnType::values_width`].
    pub fn width(&self) -> usize {
        match self {
            ColumnType::Int64
            | ColumnType::Decimal { .. }
            | ColumnType::Float64
            | ColumnType::Text => 8,
            ColumnType::Date | ColumnType::String => 4,
            ColumnType::Bool => 1,
        }
    }

    /// Bytes a row in the column's main file, for a column whose text file (if it
    /// is `text`) holds `text_bytes` bytes ([`crate::splayed::layout::text_offset_width`]).
    pub fn values_width(&self, text_bytes: u64) -> usize {
        match self {
            ColumnType::Text => crate::splayed::layout::text_offset_width(text_bytes),
            _ => self.width(),
        }
    }

    /// Whether the column keeps a validity bit a row: every type but `string` and
    /// `text`, where an empty field is the empty string (the query's NULL key).
    pub fn has_validity(&self) -> bool {
        !matches!(self, ColumnType::String | ColumnType::Text)
    }
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// An integer field in its one canonical form: `0`, or an optional `-` and 1 to 19
/// ASCII digits without a leading zero, within `i64` (`+5`, `007` and `-0` are not:
/// printed back they would be another text, and so another GROUP BY key).
pub fn parse_int(field: &[u8]) -> Option<i64> {
    let digits = field.strip_prefix(b"-").unwrap_or(field);
    let canonical = match digits {
        [] => false,
        [b'0'] => digits.len() == field.len(),
        [first, ..] => *first != b'0' && digits.len() <= 19,
    };
    if !canonical {
        return None;
    }
    // One loop tests and accumulates (a byte below '0' wraps past 9). At most 19
    // digits: below 10^19, which a u64 holds.
    let mut n = 0u64;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + u64::from(d);
    }
    if digits.len() < field.len() {
        0i64.checked_sub_unsigned(n)
    } else {
        i64::try_from(n).ok()
    }
}

/// A boolean field: exactly `true` or `false`.
pub fn parse_bool(field: &[u8]) -> Option<bool> {
    match field {
        b"true" => Some(true),
        b"false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_integer_is_what_i64_prints_back_whatever_byte_is_changed() {
        // The reference: parsed by the standard library, then printed back the same.
        let reference = |field: &[u8]| {
            let text = std::str::from_utf8(field).ok()?;
            let n: i64 = text.parse().ok()?;
            (n.to_string() == text).then_some(n)
        };
        for text in ["0", "7", "-7", "1234567", "-9223372036854775808", "907"] {
            for at in 0..text.len() {
                for byte in 0..=255u8 {
                    let mut field = text.as_bytes().to_vec();
                    field[at] = byte;
                    assert_eq!(parse_int(&field), reference(&field), "{field:?}");
                }
            }
        }
    }

    #[test]
    fn integers_to_the_ends_of_i64() {
        assert_eq!(parse_int(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_int(b"9223372036854775808"), None);
        assert_eq!(parse_int(b"-9223372036854775809"), None);
        assert_eq!(parse_int(b"9999999999999999999"), None);
        assert_eq!(parse_int(b"10000000000000000000"), None); // 20 digits
        assert_eq!(parse_int(b"-0"), None);
        assert_eq!(parse_int(b"0"), Some(0));
        assert_eq!(parse_int(b"-17"), Some(-17));
    }

    #[test]
    fn names_parse_back() {
        for ty in [
            ColumnType::Int64,
            ColumnType::Decimal { scale: 6 },
            ColumnType::Float64,
            ColumnType::Date,
            ColumnType::Bool,
            ColumnType::String,
            ColumnType::Text,
        ] {
            assert_eq!(ColumnType::parse(&ty.name()), Some(ty));
        }
        assert_eq!(ColumnType::parse("decimal(19)"), None);
        assert_eq!(ColumnType::parse("varchar"), None);
    }
}
