//! Column types, and how a column's type is inferred from every one of its fields.
//!
//! ```text
//! for every column, over every non-empty field of the file (empty = NULL):
//!     int64    if every one is an integer as i64 prints it (no +, no leading 0)
//!     decimal  else, if every one is a plain decimal (at most 18 digits after the
//!              point) and all fit an i64 in units of 10^-S, S = the most digits seen
//!     float64  else, if every one is a finite number (step 10's value parser)
//!     date     else, if every one is YYYY-MM-DD
//!     bool     else, if every one is true or false
//!     text     else, if there are at least TEXT_MIN_VALUES and nearly every one is
//!              distinct (more than half, estimated by crate::splayed::distinct)
//!     string   else (and for a column with no non-empty field)
//! ```
//!
//! Each chunk keeps a [`Seen`] per column; two `Seen`s merge, so the inference runs
//! in parallel and gives the same types on any number of threads.

use crate::exact::{self, POWERS, SCALE};
use crate::splayed::date;
use crate::splayed::decimal::parse_fixed_scaled;
use crate::splayed::distinct::{Distinct, spread_hash};
use crate::splayed::types::{ColumnType, parse_bool, parse_int};

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
                Some(n) => Some((i128::from(n) * POWERS[SCALE as usize], 0)),
                None => parse_fixed_scaled(field),
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

    /// A column no type holds (a guess from a sample, [`crate::splayed::load::load()`]): [`Seen::add`]
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
        let unit = POWERS[(SCALE - self.scale) as usize] as u128;
        self.max_abs / unit <= i64::MAX as u128
    }

    /// Whether every field seen fits `ty` (a type given with `--schema`).
    pub fn fits(&self, ty: ColumnType) -> bool {
        match ty {
            ColumnType::Int64 => self.int,
            ColumnType::Decimal { scale } => {
                self.decimal && self.scale <= u32::from(scale) && {
                    let unit = POWERS[(SCALE - u32::from(scale)) as usize] as u128;
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
}
