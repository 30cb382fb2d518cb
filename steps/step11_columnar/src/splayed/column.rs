//! One column's files as a query reads them: each a little-endian array mapped as it
//! lies, a row's value read in place ([`Value`]), and the prefetch that hides the
//! wait for the next rows' cache lines.

use memmap2::Mmap;

use crate::splayed::decimal::decimal_to_f64;
use crate::splayed::types::ColumnType;

/// One column's files, mapped.
pub struct ColumnFiles {
    /// Its type.
    pub ty: ColumnType,
    /// `col{k}.values`.
    pub values: Mmap,
    /// `col{k}.valid` (none for a string or text column).
    pub valid: Option<Mmap>,
    /// `col{k}.exact` (float64 only).
    pub exact: Option<Mmap>,
    /// `col{k}.text` (text only): the rows' bytes; `values` holds where each ends.
    pub text: Option<Mmap>,
    /// Bytes a row in `values` ([`ColumnType::values_width`]).
    pub width: usize,
}

/// Element `i` of a little-endian `u64` array.
pub(crate) fn u64_at(bytes: &[u8], i: usize) -> u64 {
    offset_at(bytes, 8, i)
}

/// Element `i` of a little-endian array of `width`-byte unsigned integers, `width`
/// 4 or 8 (each a load of its own size, not a copy of a run-time length).
#[inline]
pub(crate) fn offset_at(bytes: &[u8], width: usize, i: usize) -> u64 {
    match width {
        4 => u64::from(u32::from_le_bytes(
            bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"),
        )),
        _ => u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes")),
    }
}

/// One value read back from a column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'t> {
    /// An empty field of a typed column.
    Null,
    /// `int64`.
    Int(i64),
    /// `decimal` or `float64`: the field's `f64`, as step 10's value parser gives it.
    Float(f64),
    /// `date`: days since 1970-01-01.
    Date(i32),
    /// `bool`.
    Bool(bool),
    /// `string` or `text`: the field's bytes.
    Str(&'t [u8]),
}

impl ColumnFiles {
    // ANCHOR: text_at
    /// Row `i`'s bytes in a `text` column: from where row `i - 1`'s end to where its
    /// own do. Offsets out of order (a damaged file) give no bytes, not a panic.
    #[inline]
    pub fn text_at(&self, i: usize) -> &[u8] {
        let start = if i == 0 {
            0
        } else {
            offset_at(&self.values, self.width, i - 1)
        };
        let end = offset_at(&self.values, self.width, i);
        let text = self.text.as_deref().unwrap_or_default();
        text.get(start as usize..end as usize).unwrap_or_default()
    }
    // ANCHOR_END: text_at

    /// Whether row `i` has a value (not NULL): its bit in `col{k}.valid`; always, in
    /// a string column.
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        self.valid
            .as_ref()
            .is_none_or(|v| v[i / 8] >> (i % 8) & 1 == 1)
    }

    /// Row `i`'s value, a `string` as `Str` of its id's four bytes (no table at hand),
    /// a `text` as its bytes.
    #[inline]
    pub fn value_at(&self, i: usize) -> Value<'_> {
        if !self.is_valid(i) {
            return Value::Null;
        }
        let w = self.width;
        let raw = &self.values[i * w..i * w + w];
        let word = |n: usize| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(raw);
            u64::from_le_bytes(b)
        };
        match self.ty {
            ColumnType::Int64 => Value::Int(word(8) as i64),
            ColumnType::Decimal { scale } => Value::Float(decimal_to_f64(word(8) as i64, scale)),
            ColumnType::Float64 => Value::Float(f64::from_bits(word(8))),
            ColumnType::Date => Value::Date(word(4) as u32 as i32),
            ColumnType::Bool => Value::Bool(raw[0] == 1),
            ColumnType::String => Value::Str(raw),
            ColumnType::Text => Value::Str(self.text_at(i)),
        }
    }
}

// ANCHOR: prefetch
/// Asks the CPU to start loading row `i`'s value of `column` into the cache, without
/// waiting for it; a hint, nothing on CPUs other than x86-64. A scan whose work per
/// row is a few instructions waits on each new cache line without it; with it, the
/// loads of the rows ahead overlap (the chapter measures it).
#[inline]
pub fn prefetch(column: &ColumnFiles, i: usize) {
    let Some(bytes) = column.values.get(column.width * i..) else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has; it is a hint that
    // reads no memory the program can see and never faults, and the pointer is in
    // bounds of the mapping anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}
// ANCHOR_END: prefetch

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_read_in_either_width() {
        let wide: Vec<u8> = [7u64, u64::from(u32::MAX) + 9]
            .iter()
            .flat_map(|o| o.to_le_bytes())
            .collect();
        let narrow: Vec<u8> = [7u32, u32::MAX]
            .iter()
            .flat_map(|o| o.to_le_bytes())
            .collect();
        assert_eq!(offset_at(&wide, 8, 1), u64::from(u32::MAX) + 9);
        assert_eq!(offset_at(&narrow, 4, 0), 7);
        assert_eq!(offset_at(&narrow, 4, 1), u64::from(u32::MAX));
    }
}
