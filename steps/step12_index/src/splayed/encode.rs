//! One chunk's records as columns: each field parsed once into its column's type and
//! written where it lies in the column's file (little-endian bytes, the file mapped
//! by the load at its final size, [`Out`]), strings interned into the chunk's
//! dictionary, or, in a `text` column, copied as they are.

use hashbrown::DefaultHashBuilder;

use crate::Record;
use crate::splayed::cooked::CookedIn;
use crate::splayed::date;
use crate::splayed::decimal::{decimal, parse_fixed_scaled};
use crate::splayed::infer::null_as_empty;
use crate::splayed::symbols::LocalDict;
use crate::splayed::types::{ColumnType, parse_bool, parse_int};
use crate::value::parse_value;

/// A bit per row, 1 = the row has a value (not NULL); Arrow's validity bitmap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bits {
    /// Bit `i % 64` of word `i / 64` is row `i`.
    pub words: Vec<u64>,
    /// Rows.
    pub len: u64,
}

impl Bits {
    /// Appends one bit.
    #[inline]
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        *self.words.last_mut().expect("pushed") |= u64::from(bit) << (self.len % 64);
        self.len += 1;
    }

    /// Appends every bit of `other`, a word at a time.
    pub fn extend(&mut self, other: &Bits) {
        let shift = self.len % 64;
        let mut left = other.len;
        for &w in &other.words {
            let n = left.min(64);
            left -= n;
            if shift == 0 {
                self.words.push(w);
            } else {
                *self.words.last_mut().expect("len % 64 != 0") |= w << shift;
                if n > 64 - shift {
                    self.words.push(w >> (64 - shift));
                }
            }
            self.len += n;
        }
    }

    /// Bit `i`.
    pub fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
}

// ANCHOR: out
/// A chunk's window of one column's file: the bytes where the chunk's values lie on
/// disk (the load mapped the file at its final size), filled from the front.
#[derive(Debug, Default)]
pub struct Out<'m> {
    bytes: &'m mut [u8],
    len: usize,
}

impl<'m> Out<'m> {
    /// An empty window over `bytes`.
    pub fn new(bytes: &'m mut [u8]) -> Out<'m> {
        Out { bytes, len: 0 }
    }

    /// Appends `value`. Pass 1 counted the chunk's records, so the window has room:
    /// running past it is a bug, and panics.
    #[inline]
    pub fn put(&mut self, value: &[u8]) {
        self.bytes[self.len..self.len + value.len()].copy_from_slice(value);
        self.len += value.len();
    }

    /// The bytes written so far.
    pub fn filled(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The bytes written so far, to rewrite in place.
    pub fn filled_mut(&mut self) -> &mut [u8] {
        &mut self.bytes[..self.len]
    }
}
// ANCHOR_END: out

/// One column of one chunk.
#[derive(Debug, Default)]
pub struct ColumnChunk<'m> {
    /// The values, [`ColumnType::width`] bytes each, little-endian (a NULL is zeros).
    pub values: Out<'m>,
    /// For a `float64` column only: each value's exact decimal in 10^-18 units (16
    /// bytes, little-endian), or `i128::MIN` when it has none.
    pub exact: Out<'m>,
    /// For a `text` column only: the rows' bytes, one after the other.
    pub text: Out<'m>,
    /// For a `text` column: where the last row's bytes end in the column's text file
    /// (the values are these end offsets).
    pub text_end: u64,
    /// For a `text` column: the bytes of each end offset in `values`, 4 or 8
    /// ([`crate::splayed::layout::text_offset_width`]).
    pub offset_width: usize,
    /// Which rows have a value (for every type but `string` and `text`, where empty
    /// is a string).
    pub valid: Bits,
}

/// A chunk's windows of one column's files, from the load ([`ChunkColumns::new`]).
#[derive(Debug, Default)]
pub struct Windows<'m> {
    /// Of `col{k}.values`.
    pub values: &'m mut [u8],
    /// Of the second file: `col{k}.exact` (float64) or `col{k}.text` (text); empty
    /// for the other types.
    pub extra: &'m mut [u8],
    /// For `text`: where the chunk's bytes start in `col{k}.text`.
    pub text_start: u64,
    /// For `text`: the bytes of each end offset ([`ColumnChunk::offset_width`]).
    pub offset_width: usize,
}

/// A field that does not parse as its column's type: where it is, to report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadField {
    /// Records before it in its chunk.
    pub record: u64,
    /// The column's index.
    pub column: usize,
    /// The field's first byte in the input.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Whether its bytes need unescaping.
    pub needs_unescape: bool,
}

/// Records of a chunk read before its dictionary is sized ([`ChunkColumns::push`]).
pub const SAMPLE: u64 = 4096;

/// A chunk's columns, its dictionary, and the first field that broke its type.
#[derive(Debug)]
pub struct ChunkColumns<'t, 'm> {
    types: &'t [ColumnType],
    /// The `--null` texts: read as empty fields.
    nulls: &'t [String],
    /// The columns, in the header's order.
    pub columns: Vec<ColumnChunk<'m>>,
    /// The chunk's strings, over all its string columns.
    pub dict: LocalDict,
    /// Records appended.
    pub rows: u64,
    /// Records pass 1 counted in the chunk.
    expected_rows: u64,
    /// The first field that is not of its column's type; the chunk stops there.
    pub bad: Option<BadField>,
    scratch: Vec<u8>,
}

impl<'t, 'm> ChunkColumns<'t, 'm> {
    /// Empty columns of `types` for `rows` records, each column writing into its
    /// [`Windows`] of the column's files; fields equal to one of `nulls` are read as
    /// empty (NULL).
    pub fn new(
        types: &'t [ColumnType],
        nulls: &'t [String],
        rows: usize,
        windows: Vec<Windows<'m>>,
    ) -> ChunkColumns<'t, 'm> {
        let columns = windows
            .into_iter()
            .zip(types)
            .map(|(w, ty)| {
                let (exact, text) = match ty {
                    ColumnType::Text => (Out::default(), Out::new(w.extra)),
                    _ => (Out::new(w.extra), Out::default()),
                };
                ColumnChunk {
                    values: Out::new(w.values),
                    exact,
                    text,
                    text_end: w.text_start,
                    offset_width: w.offset_width,
                    valid: Bits {
                        words: Vec::with_capacity(if ty.has_validity() {
                            rows.div_ceil(64)
                        } else {
                            0
                        }),
                        len: 0,
                    },
                }
            })
            .collect();
        ChunkColumns {
            types,
            nulls,
            columns,
            dict: LocalDict::default(),
            rows: 0,
            expected_rows: rows as u64,
            bad: None,
            scratch: Vec::new(),
        }
    }

    // ANCHOR: reserve
    /// After the chunk's first [`SAMPLE`] records: sizes the dictionary's arrays for
    /// the whole chunk at the rate of new strings seen so far, so that a column of
    /// distinct names does not grow them by doubling, while a column of a few
    /// categories reserves next to nothing.
    fn reserve_at_sample_rate(&mut self) {
        let expected = self.dict.len() as u64 * self.expected_rows / SAMPLE;
        let bytes = self.dict.bytes() as u64 * self.expected_rows / SAMPLE;
        self.dict.reserve(expected as usize, bytes as usize);
    }
    // ANCHOR_END: reserve

    // ANCHOR: push
    /// Appends one record (of the header's width: the caller checked). After a field
    /// that breaks its type, records are ignored and [`ChunkColumns::bad`] says where.
    #[inline]
    pub fn push(&mut self, record: &Record<'_, '_>, hasher: &DefaultHashBuilder) {
        if self.bad.is_some() {
            return;
        }
        for (k, field) in record.fields().enumerate() {
            let bytes = null_as_empty(self.nulls, field.cooked_in(&mut self.scratch));
            let column = &mut self.columns[k];
            let ok = match self.types[k] {
                ColumnType::String => {
                    let id = self.dict.intern(bytes, hasher);
                    column.values.put(&id.to_le_bytes());
                    true
                }
                ColumnType::Text => {
                    push_text(column, bytes);
                    true
                }
                ty => push_typed(column, ty, bytes),
            };
            if !ok {
                let span = record.spans()[k];
                self.bad = Some(BadField {
                    record: self.rows,
                    column: k,
                    start: span.start,
                    end: span.end,
                    needs_unescape: span.needs_unescape,
                });
                return;
            }
        }
        self.rows += 1;
        if self.rows == SAMPLE {
            self.reserve_at_sample_rate();
        }
    }
    // ANCHOR_END: push
}

// ANCHOR: push_text
/// Appends `field` to a `text` column: its bytes after the previous row's, and
/// where they end. Pass 1 summed the chunk's bytes, so the window has room.
#[inline]
fn push_text(column: &mut ColumnChunk, field: &[u8]) {
    column.text.put(field);
    column.text_end += field.len() as u64;
    // Each width a store of its own size: a slice of run-time length would copy
    // through a `memcpy` call in every row. (Width 4 only when every offset of the
    // column fits a `u32`, so the cast keeps every bit.)
    match column.offset_width {
        4 => column.values.put(&(column.text_end as u32).to_le_bytes()),
        _ => column.values.put(&column.text_end.to_le_bytes()),
    }
}
// ANCHOR_END: push_text

/// Appends `field` to a column of type `ty` (not `string` or `text`); false when it
/// is not one.
#[inline(always)]
pub(crate) fn push_typed(column: &mut ColumnChunk, ty: ColumnType, field: &[u8]) -> bool {
    let valid = !field.is_empty();
    column.valid.push(valid);
    let values = &mut column.values;
    match ty {
        ColumnType::Int64 => match parse_int(field).or((!valid).then_some(0)) {
            Some(v) => values.put(&v.to_le_bytes()),
            None => return false,
        },
        ColumnType::Decimal { scale } => match decimal(field, scale).or((!valid).then_some(0)) {
            Some(v) => values.put(&v.to_le_bytes()),
            None => return false,
        },
        ColumnType::Float64 => match parse_value(field) {
            Ok(v) => {
                values.put(&v.unwrap_or(0.0).to_le_bytes());
                let fixed = parse_fixed_scaled(field).map_or(i128::MIN, |(f, _)| f);
                column.exact.put(&fixed.to_le_bytes());
            }
            Err(_) => return false,
        },
        ColumnType::Date => match date::parse(field).or((!valid).then_some(0)) {
            Some(v) => values.put(&v.to_le_bytes()),
            None => return false,
        },
        ColumnType::Bool => match parse_bool(field).or((!valid).then_some(false)) {
            Some(v) => values.put(&[u8::from(v)]),
            None => return false,
        },
        ColumnType::String | ColumnType::Text => {
            unreachable!("strings are interned or copied by the caller")
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_offsets_are_written_in_the_columns_width() {
        for (width, start) in [(4, 0u64), (8, 0), (8, u64::from(u32::MAX) - 1)] {
            let (mut values, mut text) = ([0u8; 16], [0u8; 4]);
            let mut column = ColumnChunk {
                values: Out::new(&mut values[..2 * width]),
                text: Out::new(&mut text),
                text_end: start,
                offset_width: width,
                ..ColumnChunk::default()
            };
            push_text(&mut column, b"ab");
            push_text(&mut column, b"cd");
            assert_eq!(column.text.filled(), b"abcd");
            let values = column.values.filled();
            let offsets: Vec<u64> = (0..values.len() / width)
                .map(|i| crate::splayed::column::offset_at(values, width, i))
                .collect();
            assert_eq!(offsets, [start + 2, start + 4], "width {width}");
        }
    }

    #[test]
    fn bits_extend_at_any_alignment() {
        let pattern = |n: u64, seed: u64| {
            let mut b = Bits::default();
            for i in 0..n {
                b.push((i * 7 + seed).is_multiple_of(3));
            }
            b
        };
        for a in [0, 1, 63, 64, 65, 130] {
            for b in [0, 1, 63, 64, 65, 200] {
                let (x, y) = (pattern(a, 1), pattern(b, 2));
                let mut joined = x.clone();
                joined.extend(&y);
                let mut expected = x.clone();
                for i in 0..b {
                    expected.push(y.get(i));
                }
                assert_eq!(joined, expected, "{a} + {b}");
            }
        }
    }
}
