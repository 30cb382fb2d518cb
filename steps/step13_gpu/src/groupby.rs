//! The twin of `kernels/groupby.cu`: decode and aggregate, one row at a time where
//! the device runs one row a thread, into the same open-addressing table of keys and
//! the same integer accumulators ([`crate::limbs`]).
//!
//! ```text
//! per row (not the header, not an open last row):
//!   its fields (split_record); the group and value fields
//!   wrong width, a field to unescape, a value that is not a plain decimal,
//!   a key over 16 MiB, no free slot in 32 probes   -> a fallback row for the host
//!   else: the key's slot (claimed with one compare-and-swap on the device);
//!         count += 1; if not NULL: values += 1, limbs += the value's limbs
//! ```
//!
//! The host then takes the fallback rows in row order with step 10's aggregation (so
//! the first error in record order is the one reported) and merges both tables.

use harness::query::{Group, Groups, Place, QueryError};
use hashbrown::HashMap;

use crate::exact::{ExactSum, Number, parse_number};
use crate::extremes::MinMax;
use crate::limbs::Limbs;
use crate::record::{Field, Span, split_record};

/// Slots of the device's key table (a power of two).
pub const SLOTS: usize = 4096;
/// Probes before a row falls back to the host.
pub const PROBES: usize = 32;
/// Longest key the device keeps: its length has 24 bits in a slot's key word.
pub const MAX_KEY: usize = (1 << 24) - 1;

/// Which columns the query groups by and sums: the harness's, as every query step's.
pub use harness::query::Query;

/// The header's answer: the key column, the value column, the width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    /// The GROUP BY column's index.
    pub key: u32,
    /// The SUM column's index.
    pub value: u32,
    /// Fields in the header.
    pub width: u32,
    /// The delimiter (the host's twin only: the device's kernels are compiled for the
    /// comma, and another delimiter runs the twin).
    pub delimiter: u8,
}

/// FNV-1a over the key's bytes (the device computes the same): where probing starts.
#[inline]
pub fn hash(key: &[u8]) -> u32 {
    key.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The device's key table and accumulators, slot by slot, as the host copies them
/// back: a slot's key word is 0 when empty, else `(offset << 24 | len) + 1` of the
/// key's bytes in the input (the first row that claimed it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// Key words.
    pub keys: Vec<u64>,
    /// `COUNT(*)` per slot.
    pub counts: Vec<u64>,
    /// Non-NULL values per slot.
    pub values: Vec<u64>,
    /// The values' limb sums per slot.
    pub limbs: Vec<Limbs>,
}

impl Default for Table {
    fn default() -> Table {
        Table {
            keys: vec![0; SLOTS],
            counts: vec![0; SLOTS],
            values: vec![0; SLOTS],
            limbs: vec![Limbs::default(); SLOTS],
        }
    }
}

/// A key word: where a key lies in the input.
pub fn key_word(start: usize, len: usize) -> u64 {
    ((start as u64) << 24 | len as u64) + 1
}

/// The bytes a key word points to.
pub fn key_bytes(input: &[u8], word: u64) -> &[u8] {
    let w = word - 1;
    let start = (w >> 24) as usize;
    &input[start..start + (w & 0xFF_FFFF) as usize]
}

impl Table {
    // ANCHOR: slot
    /// The slot of `key` (at `start` in `input`), claimed if new; `None` after
    /// [`PROBES`] slots of other keys. The device claims with `atomicCAS` on the key
    /// word, so two rows with a new key agree on one slot.
    pub fn slot(&mut self, input: &[u8], start: usize, key: &[u8]) -> Option<usize> {
        let h = hash(key) as usize;
        for probe in 0..PROBES {
            let s = (h + probe) & (SLOTS - 1);
            if self.keys[s] == 0 {
                self.keys[s] = key_word(start, key.len());
                return Some(s);
            }
            if key_bytes(input, self.keys[s]) == key {
                return Some(s);
            }
        }
        None
    }
    // ANCHOR_END: slot

    /// The groups the device kept, by key bytes.
    pub fn groups(&self, input: &[u8]) -> HashMap<Vec<u8>, Acc> {
        let mut out = HashMap::new();
        for s in (0..SLOTS).filter(|&s| self.keys[s] != 0) {
            let acc = Acc {
                count: self.counts[s],
                values: self.values[s],
                sum: self.limbs[s].to_exact(),
                range: MinMax::default(), // not kept on the device
            };
            out.insert(key_bytes(input, self.keys[s]).to_vec(), acc);
        }
        out
    }
}

/// What decode and aggregate leaves: the table, and the rows for the host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decoded {
    /// The device's groups.
    pub table: Table,
    /// Rows the device did not aggregate: `(row, offset of its first byte)`, in any
    /// order on the device.
    pub fallback: Vec<(u64, u64)>,
}

/// The rows `rows` of `offsets` as the host must take them all: what
/// [`decode_aggregate`] leaves when the query asks for MIN or MAX, which the
/// device's table has no room for.
pub fn all_to_host(offsets: &[u64], rows: std::ops::Range<u64>) -> Decoded {
    Decoded {
        table: Table::default(),
        fallback: rows.map(|row| (row, offsets[row as usize])).collect(),
    }
}

// ANCHOR: decode_aggregate
/// Twin of the `decode_aggregate` kernel over the rows `rows` of `offsets`.
pub fn decode_aggregate(
    input: &[u8],
    offsets: &[u64],
    rows: std::ops::Range<u64>,
    columns: Columns,
) -> Decoded {
    let mut out = Decoded::default();
    let mut spans = Vec::new();
    for row in rows {
        let start = offsets[row as usize] as usize;
        // Every row here ends (an open last row is not passed in).
        let _ = split_record(input, start, &mut spans, columns.delimiter);
        if aggregate_row(input, &spans, columns, &mut out.table).is_none() {
            out.fallback.push((row, start as u64));
        }
    }
    out
}

/// One row into the table: `None` when the host must take it.
#[inline]
fn aggregate_row(input: &[u8], spans: &[Span], c: Columns, table: &mut Table) -> Option<()> {
    if spans.len() != c.width as usize {
        return None;
    }
    let (key, value) = (spans[c.key as usize], spans[c.value as usize]);
    if key.needs_unescape || value.needs_unescape || key.end - key.start > MAX_KEY {
        return None;
    }
    let number = match parse_number(&input[value.start..value.end]) {
        Ok(None) => None,
        Ok(Some(Number::Fixed(x))) => Some(x),
        _ => return None, // a float, or not a number: the host decides
    };
    let s = table.slot(input, key.start, &input[key.start..key.end])?;
    table.counts[s] += 1;
    if let Some(x) = number {
        table.values[s] += 1;
        table.limbs[s].add(x);
    }
    Some(())
}
// ANCHOR_END: decode_aggregate

/// An accumulator: step 10's count and exact sum.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Acc {
    /// `COUNT(*)`.
    pub count: u64,
    /// Non-NULL values summed.
    pub values: u64,
    /// Their exact sum.
    pub sum: ExactSum,
    /// Their smallest and largest: on the host only (the device's table has no
    /// room for them; `--agg min` or `max` sends every row to the host).
    pub range: MinMax,
}

impl Acc {
    /// Adds another accumulator of the same group.
    fn merge(&mut self, other: &Acc) {
        self.count += other.count;
        self.values += other.values;
        self.sum.merge(&other.sum);
        self.range.merge(&other.range);
    }

    fn group(&self) -> Group {
        let some = self.values > 0;
        Group {
            count: self.count,
            sum: some.then(|| self.sum.to_f64()),
            min: self.range.min(),
            max: self.range.max(),
            mean: some.then(|| self.sum.mean(self.values)),
        }
    }
}

/// The header (row 0; with `--no-header` the first data row): the query's columns.
///
/// # Errors
/// As [`Query::columns`].
pub fn columns(input: &[u8], header_start: usize, query: Query<'_>) -> Result<Columns, QueryError> {
    let mut spans = Vec::new();
    let delimiter = query.dialect.delimiter;
    let _ = split_record(input, header_start, &mut spans, delimiter);
    let names: Vec<_> = spans
        .iter()
        .map(|&s| Field::new(input, s).cooked())
        .collect();
    let names: Vec<&[u8]> = names.iter().map(|n| &**n).collect();
    let (key, value) = query.columns(&names)?;
    Ok(Columns {
        key: key as u32,
        value: value as u32,
        width: spans.len() as u32,
        delimiter,
    })
}

// ANCHOR: finish
/// The host's part: the fallback rows in row order with step 10's exact accumulator
/// (the first error among them is the query's), merged with the device's groups.
///
/// # Errors
/// [`QueryError::FieldCount`] or [`QueryError::InvalidNumber`] of the first bad row.
pub fn finish(
    input: &[u8],
    decoded: &mut Decoded,
    columns: Columns,
    query: Query<'_>,
) -> Result<Groups, QueryError> {
    let mut groups = decoded.table.groups(input);
    // The device grouped `--null` keys as text: they are the NULL key, "".
    for null in query.nulls {
        if let Some(acc) = groups.remove(null.as_bytes()) {
            groups.entry_ref(&b""[..]).or_default().merge(&acc);
        }
    }
    decoded.fallback.sort_unstable();
    let mut spans = Vec::new();
    for &(row, start) in &decoded.fallback {
        let start = start as usize;
        let _ = split_record(input, start, &mut spans, columns.delimiter);
        if spans.len() != columns.width as usize {
            return Err(QueryError::FieldCount {
                record: row,
                place: Some(Place::of(input, start, start)),
                expected: columns.width as usize,
                found: spans.len(),
            });
        }
        let text = Field::new(input, spans[columns.value as usize]).cooked();
        // A `--null` text is not a number, so the device left its row here.
        let parsed = if query.is_null(&text) {
            Ok(None)
        } else {
            parse_number(&text)
        };
        let Ok(number) = parsed else {
            return Err(QueryError::InvalidNumber {
                record: row,
                place: Some(Place::of(input, start, spans[columns.value as usize].start)),
                column: query.sum.to_string(),
                text: text.into_owned(),
            });
        };
        let key = Field::new(input, spans[columns.key as usize]).cooked();
        let acc = groups.entry_ref(query.key(&key)).or_default();
        acc.count += 1;
        if let Some(n) = number {
            acc.values += 1;
            acc.sum.add(n);
            acc.range.add(n);
        }
    }
    let groups: Groups = groups
        .iter()
        .map(|(k, acc)| (k.clone(), acc.group()))
        .collect();
    // An infinite sum is an exact sum past f64's range: an error, as in step 9.
    groups.check_exact_sums(query)?;
    Ok(groups)
}
// ANCHOR_END: finish
