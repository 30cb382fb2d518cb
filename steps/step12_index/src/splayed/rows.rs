//! Which rows a query reads: every row, none, the rows whose value in a column is a
//! given key (found by testing each row), or a list of row numbers (a hash index's
//! group, `hash_index`). The query over the table takes a [`Selection`] and
//! reads it a [`Piece`] per task, in row order, so any selection gives its rows'
//! answer on any number of threads.
//!
//! ```text
//! All          rows 0..n, a range per task
//! Scan         rows 0..n, a range per task, each row's key compared (key_is)
//! ScanZero     the same, each row's key compared with a zero's two keys (0, -0)
//! ScanText     the same for a text column, each row's bytes compared
//! List         the listed rows (u64 LE row numbers), a slice of the list per task
//! ```

use std::ops::Range;

use crate::splayed::scan::ColumnFiles;
use crate::splayed::types::ColumnType;

/// The rows a query reads.
pub enum Selection<'t> {
    /// Every row.
    All,
    /// No row: the value is not in the column.
    Nothing,
    /// The rows whose key in `column` is `key`, found by testing each.
    Scan {
        /// The column's files.
        column: &'t ColumnFiles,
        /// The key, as [`key_is`] compares it: the value's bytes as the column
        /// stores them, and a last byte 1 for a value, 0 for NULL (a string's value
        /// is its symbol id).
        key: [u8; 16],
    },
    /// The rows whose key in `column` is either of `keys`, found by testing each: a
    /// zero of a `decimal` or `float64` column, stored as 0 or as -0 ([`zero_keys`]).
    ScanZero {
        /// The column's files.
        column: &'t ColumnFiles,
        /// The two keys of zero, as [`Selection::Scan`] keys them.
        keys: [[u8; 16]; 2],
    },
    /// The rows of a `text` column whose bytes are `text`, found by testing each.
    ScanText {
        /// The column's files.
        column: &'t ColumnFiles,
        /// The bytes.
        text: Vec<u8>,
    },
    /// These rows: little-endian `u64` row numbers, in row order.
    List(&'t [u8]),
}

/// One task's share of a [`Selection`]'s rows.
pub enum Piece<'s> {
    /// These rows, all of them.
    Range(Range<usize>),
    /// These rows, those whose key in the column is the key.
    Filter(Range<usize>, &'s ColumnFiles, &'s [u8; 16]),
    /// These rows, those whose key in the column is either key.
    FilterEither(Range<usize>, &'s ColumnFiles, &'s [[u8; 16]; 2]),
    /// These rows, those whose bytes in the `text` column are these.
    FilterText(Range<usize>, &'s ColumnFiles, &'s [u8]),
    /// These row numbers (little-endian `u64`s).
    List(&'s [u8]),
}

impl Selection<'_> {
    /// Part `r` of `parts` of the rows (of a table of `rows` rows), in row order.
    pub fn piece(&self, rows: usize, r: usize, parts: usize) -> Piece<'_> {
        let share = |n: usize| n * r / parts..n * (r + 1) / parts;
        match self {
            Selection::All => Piece::Range(share(rows)),
            Selection::Nothing => Piece::Range(0..0),
            Selection::Scan { column, key } => Piece::Filter(share(rows), column, key),
            Selection::ScanZero { column, keys } => Piece::FilterEither(share(rows), column, keys),
            Selection::ScanText { column, text } => Piece::FilterText(share(rows), column, text),
            Selection::List(list) => {
                let words = share(list.len() / 8);
                Piece::List(&list[8 * words.start..8 * words.end])
            }
        }
    }
}

// ANCHOR: key_is
/// Whether row `i`'s key in `column` is `key` (as [`Selection::Scan`] keys it), the
/// width a constant in each arm so that the compare is one load, not a `memcmp`
/// call (the scan runs it on every row).
#[inline]
pub fn key_is(column: &ColumnFiles, i: usize, key: &[u8; 16]) -> bool {
    fn same<const W: usize>(values: &[u8], i: usize, key: &[u8; 16]) -> bool {
        values[W * i..W * i + W] == key[..W]
    }
    let valid = column.is_valid(i);
    let same = match column.width {
        1 => same::<1>(&column.values, i, key),
        4 => same::<4>(&column.values, i, key),
        8 => same::<8>(&column.values, i, key),
        w => column.values[w * i..w * i + w] == key[..w],
    };
    same && u8::from(valid) == key[15]
}
// ANCHOR_END: key_is

// ANCHOR: key_of
/// Row `i`'s key in `column`, as the index groups it: its value's bytes (zeros
/// under a NULL) and a last byte 1 for a value, 0 for NULL, a zero's as 0's
/// whatever its sign ([`zero_is_zero`]). A `text` column has none: its values are
/// of any length.
pub fn key_of(column: &ColumnFiles, i: usize) -> [u8; 16] {
    let w = column.width;
    let mut key = [0u8; 16];
    key[..w].copy_from_slice(&column.values[w * i..w * i + w]);
    key[15] = u8::from(column.is_valid(i));
    zero_is_zero(column.ty, key)
}
// ANCHOR_END: key_of

// ANCHOR: zero_is_zero
/// `key` with a negative zero made 0: a `decimal` column stores `-0.00` as
/// `i64::MIN` and a `float64` column as the bits of `-0.0`, so that the column gives
/// back the field's `f64`; but -0 equals 0, as MIN and MAX compare them, and
/// `--where value=0` selects both.
pub fn zero_is_zero(ty: ColumnType, mut key: [u8; 16]) -> [u8; 16] {
    let negative_zero = match ty {
        ColumnType::Decimal { .. } => i64::MIN.to_le_bytes(),
        ColumnType::Float64 => (-0.0f64).to_le_bytes(),
        _ => return key,
    };
    if key[..8] == negative_zero && key[15] == 1 {
        key[..8].fill(0);
    }
    key
}

/// The two keys of a zero in a column of type `ty`, 0's and -0's as the column
/// stores them, when `key` is a zero of a `decimal` or `float64` column (as
/// [`zero_is_zero`] leaves it); `None` for any other key.
pub fn zero_keys(ty: ColumnType, key: [u8; 16]) -> Option<[[u8; 16]; 2]> {
    let negative_zero = match ty {
        ColumnType::Decimal { .. } => i64::MIN.to_le_bytes(),
        ColumnType::Float64 => (-0.0f64).to_le_bytes(),
        _ => return None,
    };
    let zero = zero_is_zero(ty, key);
    (zero[..8] == [0; 8] && zero[15] == 1).then(|| {
        let mut negative = zero;
        negative[..8].copy_from_slice(&negative_zero);
        [zero, negative]
    })
}
// ANCHOR_END: zero_is_zero
