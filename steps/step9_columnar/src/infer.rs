//! Column types, and how a column's type is inferred from every one of its fields.
//!
//! ```text
//! for every column, over every non-empty field of the file (empty = NULL):
//!     int64    if every one is an integer as i64 prints it (no +, no leading 0)
//!     decimal  else, if every one is a plain decimal (at most 18 digits after the
//!              point) and all fit an i64 in units of 10^-S, S = the most digits seen
//!     float64  else, if every one is a finite number (step 8's value parser)
//!     date     else, if every one is YYYY-MM-DD
//!     bool     else, if every one is true or false
//!     text     else, if there are at least TEXT_MIN_VALUES and nearly every one is
//!              distinct (more than half, estimated by crate::distinct)
//!     string   else (and for a column with no non-empty field)
//! ```
//!
//! Each chunk keeps a [`Seen`] per column; two `Seen`s merge, so the inference runs
//! in parallel and gives the same types on any number of threads.

use std::fmt;

use crate::date;
use crate::distinct::{Distinct, spread_hash};
use crate::exact::{self, SCALE};

/// The type of a column, and so the layout of its file ([`crate::layout`]).
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
    /// `i128` (16 bytes a row) when it has one, for step 8's exact sum.
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
    /// is `text`) holds `text_bytes` bytes ([`crate::layout::text_offset_width`]).
    pub fn values_width(&self, text_bytes: u64) -> usize {
        match self {
            ColumnType::Text => crate::layout::text_offset_width(text_bytes),
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

/// A string column is stored as [`ColumnType::Text`] only from this many non-empty
/// fields on: below it, its symbols are few bytes whatever they hold, and a column's
/// storage does not change with a few rows more or less in small files.
pub const TEXT_MIN_VALUES: u64 = 1 << 16;

/// What one column's fields have shown so far (over a chunk, or merged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// Non-empty fields.
    pub values: u64,
    /// Every non-empty field is an integer ([`parse_int`]).
    pub int: bool,
    /// Every one is a plain decimal.
    pub decimal: bool,
    /// Every one is a finite number.
    pub number: bool,
    /// Every one is a date.
    pub date: bool,
    /// Every one is a boolean.
    pub boolean: bool,
    /// The most digits after the point among the plain decimals.
    pub scale: u32,
    /// The largest magnitude among the plain decimals, in units of 10^-18.
    pub max_abs: u128,
    /// The non-empty fields' bytes, all together (a `text` column's file).
    pub bytes: u64,
    /// How many distinct values they hold, estimated; only from the values seen
    /// once no type held the column (see [`Seen::needs_sketch`]).
    pub distinct: Distinct,
    /// Some value was seen while a type still held the column, and so was not
    /// sketched.
    pub unsketched: bool,
}

impl Default for Seen {
    fn default() -> Seen {
        Seen {
            values: 0,
            int: true,
            decimal: true,
            number: true,
            date: true,
            boolean: true,
            scale: 0,
            max_abs: 0,
            bytes: 0,
            distinct: Distinct::default(),
            unsketched: false,
        }
    }
}

/// A field as the load reads it: a `--null` text is an empty field, NULL (and in
/// a string column the NULL key, as the CSV query groups it).
#[inline]
pub fn null_as_empty<'f>(nulls: &[String], field: &'f [u8]) -> &'f [u8] {
    if harness::query::is_null_text(nulls, field) {
        b""
    } else {
        field
    }
}

impl Seen {
    // ANCHOR: add
    /// Looks at one field; each test runs only while its type is still possible.
    #[inline]
    pub fn add(&mut self, field: &[u8]) {
        if field.is_empty() {
            return; // NULL: any type holds it
        }
        self.values += 1;
        self.bytes += field.len() as u64;
        let int = if self.int { parse_int(field) } else { None };
        self.int = int.is_some();
        if self.decimal {
            // An integer is a plain decimal with no digit after the point: its
            // value in 10^-18 units needs no second parse.
            let fixed = match int {
                Some(n) => Some((i128::from(n) * exact::POWERS[SCALE as usize], 0)),
                None => exact::parse_fixed_scaled(field),
            };
            match fixed {
                Some((fixed, scale)) => {
                    self.scale = self.scale.max(scale);
                    self.max_abs = self.max_abs.max(fixed.unsigned_abs());
                }
                None => self.decimal = false,
            }
        }
        self.number =
            self.number && (self.decimal || matches!(exact::parse_number(field), Ok(Some(_))));
        self.date = self.date && date::parse(field).is_some();
        self.boolean = self.boolean && parse_bool(field).is_some();
        // The sketch matters only for a column that ends up a string. Hashing the
        // values of a column that a type still holds is wasted on most columns;
        // a column that loses its type later is sketched again (needs_sketch).
        if self.typed() {
            self.unsketched = true;
        } else {
            self.distinct.add(spread_hash(field));
        }
    }
    // ANCHOR_END: add

    /// Both chunks' fields together.
    pub fn merge(&mut self, other: &Seen) {
        self.values += other.values;
        self.int &= other.int;
        self.decimal &= other.decimal;
        self.number &= other.number;
        self.date &= other.date;
        self.boolean &= other.boolean;
        self.scale = self.scale.max(other.scale);
        self.max_abs = self.max_abs.max(other.max_abs);
        self.bytes += other.bytes;
        self.distinct.merge(&other.distinct);
        self.unsketched |= other.unsketched;
    }

    /// A column no type holds (a guess from a sample, [`crate::load`]): [`Seen::add`]
    /// then only counts, sums the bytes and sketches.
    pub fn untyped() -> Seen {
        Seen {
            int: false,
            decimal: false,
            number: false,
            date: false,
            boolean: false,
            ..Seen::default()
        }
    }

    /// Whether some type still holds every value seen.
    #[inline]
    pub fn typed(&self) -> bool {
        self.int || self.decimal || self.number || self.date || self.boolean
    }

    /// Whether [`Seen::column_type`] would read the sketch, and the sketch misses
    /// values: the column is a string column with enough values to be `text`, but
    /// some of them came while a type still held it (the column of a file that is
    /// numbers up to a late `N/A`). Its values must then be sketched again, into
    /// [`Seen::complete_sketch`].
    pub fn needs_sketch(&self) -> bool {
        self.unsketched && !self.typed() && self.values >= TEXT_MIN_VALUES
    }

    /// Completes the sketch with `again`, a sketch of the values it missed, or of
    /// all the column's values: a sketch holds a set, so a value in both counts once.
    pub fn complete_sketch(&mut self, again: &Distinct) {
        self.distinct.merge(again);
        self.unsketched = false;
    }

    /// The column's type: the first of the module's list that every field fits.
    pub fn column_type(&self) -> ColumnType {
        if self.values == 0 {
            return ColumnType::String;
        }
        if self.int {
            return ColumnType::Int64;
        }
        if self.decimal && self.decimal_fits() {
            return ColumnType::Decimal {
                scale: self.scale as u8,
            };
        }
        if self.number {
            return ColumnType::Float64;
        }
        if self.date {
            return ColumnType::Date;
        }
        if self.boolean {
            return ColumnType::Bool;
        }
        self.strings()
    }

    // ANCHOR: strings
    /// How a column of strings is stored: as text when it is large and more than
    /// half its values are distinct, else interned.
    fn strings(&self) -> ColumnType {
        debug_assert!(!self.needs_sketch(), "sketch the column again first");
        if self.values >= TEXT_MIN_VALUES && self.distinct.estimate() * 2 > self.values {
            ColumnType::Text
        } else {
            ColumnType::String
        }
    }
    // ANCHOR_END: strings

    /// The largest plain decimal fits an `i64` in units of 10^-scale (and `i64::MIN`
    /// stays free for the negative zero).
    fn decimal_fits(&self) -> bool {
        let unit = exact::POWERS[(SCALE - self.scale) as usize] as u128;
        self.max_abs / unit <= i64::MAX as u128
    }

    /// Whether every field seen fits `ty` (a type given with `--schema`).
    pub fn fits(&self, ty: ColumnType) -> bool {
        match ty {
            ColumnType::Int64 => self.int,
            ColumnType::Decimal { scale } => {
                self.decimal && self.scale <= u32::from(scale) && {
                    let unit = exact::POWERS[(SCALE - u32::from(scale)) as usize] as u128;
                    self.max_abs / unit <= i64::MAX as u128
                }
            }
            ColumnType::Float64 => self.number,
            ColumnType::Date => self.date,
            ColumnType::Bool => self.boolean,
            ColumnType::String | ColumnType::Text => true,
        }
    }
}

/// `ty` as it will be stored: a requested `float64` becomes the inferred decimal when
/// the fields allow it (the same numbers, exact, and half the bytes).
pub fn storage_type(requested: Option<ColumnType>, seen: &Seen) -> ColumnType {
    match (requested, seen.column_type()) {
        (None, inferred) => inferred,
        (Some(ColumnType::Float64), ColumnType::Decimal { scale }) => ColumnType::Decimal { scale },
        (Some(ColumnType::Float64), ColumnType::Int64) if seen.decimal_fits() => {
            ColumnType::Decimal { scale: 0 }
        }
        (Some(ty), _) => ty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sketch_of(fields: &[&str]) -> Distinct {
        let mut sketch = Distinct::default();
        for f in fields.iter().filter(|f| !f.is_empty()) {
            sketch.add(spread_hash(f.as_bytes()));
        }
        sketch
    }

    fn infer(fields: &[&str]) -> ColumnType {
        let mut seen = Seen::default();
        for f in fields {
            seen.add(f.as_bytes());
        }
        // Merging halves gives the same type as one pass.
        let (mut a, mut b) = (Seen::default(), Seen::default());
        for (i, f) in fields.iter().enumerate() {
            if i % 2 == 0 {
                a.add(f.as_bytes())
            } else {
                b.add(f.as_bytes())
            }
        }
        b.merge(&a);
        for s in [&mut seen, &mut b] {
            if s.needs_sketch() {
                s.complete_sketch(&sketch_of(fields));
            }
        }
        assert_eq!(b.column_type(), seen.column_type());
        seen.column_type()
    }

    #[test]
    fn each_type_from_its_fields() {
        use ColumnType::*;
        assert_eq!(infer(&["1", "-20", "", "0"]), Int64);
        assert_eq!(infer(&["1", "+3"]), Decimal { scale: 0 }); // not canonical
        assert_eq!(infer(&["1", "07"]), Decimal { scale: 0 });
        assert_eq!(infer(&["-0"]), Decimal { scale: 0 });
        assert_eq!(infer(&["1", "2.5", "-0.125"]), Decimal { scale: 3 });
        assert_eq!(infer(&["1", "2.5", "1e3"]), Float64);
        assert_eq!(infer(&["1.0000000000000000001"]), Float64); // 19 fraction digits
        assert_eq!(infer(&["9223372036854775807.5"]), Float64); // does not fit
        assert_eq!(infer(&["2024-02-29", ""]), Date);
        assert_eq!(infer(&["true", "false"]), Bool);
        assert_eq!(infer(&["true", "1"]), String);
        assert_eq!(infer(&["", ""]), String);
        assert_eq!(infer(&[]), String);
        assert_eq!(infer(&["12345678901234567890"]), Float64); // 20 digits
        assert_eq!(infer(&["-9223372036854775808"]), Int64);
        assert_eq!(infer(&["9223372036854775808"]), Float64);
    }

    #[test]
    fn strings_that_hardly_repeat_are_text() {
        let n = TEXT_MIN_VALUES as usize;
        let names: Vec<String> = (0..n).map(|i| format!("name{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(infer(&refs), ColumnType::Text);
        // One row fewer: interned, however distinct.
        assert_eq!(infer(&refs[1..]), ColumnType::String);
        // Each name four times: a quarter distinct.
        let quarter: Vec<&str> = (0..n).map(|i| refs[i % (n / 4)]).collect();
        assert_eq!(infer(&quarter), ColumnType::String);
    }

    #[test]
    fn a_column_that_loses_its_type_late_is_sketched_again() {
        let n = TEXT_MIN_VALUES as usize;
        // Distinct numbers, then one name: a string column of distinct values.
        let mut fields: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        fields.push("n/a".into());
        let mut seen = Seen::default();
        fields.iter().for_each(|f| seen.add(f.as_bytes()));
        // Only the name reached the sketch: it estimates 1 distinct value.
        assert!(seen.needs_sketch());
        assert_eq!(seen.distinct.estimate(), 1);
        let refs: Vec<&str> = fields.iter().map(String::as_str).collect();
        seen.complete_sketch(&sketch_of(&refs));
        assert!(!seen.needs_sketch());
        assert!(seen.distinct.estimate() > n as u64 / 2);
        assert_eq!(seen.column_type(), ColumnType::Text);
        assert_eq!(infer(&refs), ColumnType::Text);
        // A column that keeps its type never needs it.
        let mut ints = Seen::default();
        fields[..n].iter().for_each(|f| ints.add(f.as_bytes()));
        assert!(ints.unsketched && !ints.needs_sketch());
        assert_eq!(ints.column_type(), ColumnType::Int64);
    }

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
