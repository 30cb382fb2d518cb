//! The full scan's fast path, for the commonest query over a table: a `string` key,
//! an `int64` or `decimal(S)` value, every row. The column holds each value as an
//! integer count of its unit (10^-S), so a thread adds those integers as they lie,
//! in an `i64` per group, and turns them into step 8's exact accumulator once per
//! group at the end instead of once per row. With that little work per row, the
//! loop waits on memory unless it asks for the rows ahead ([`prefetch`]).
//!
//! ```text
//! per row:   units[id].count += 1; if valid: sum += word, min/max of word   (i64)
//! on i64 overflow of one group's sum (rare): fold the sum into its Acc, start again
//! per group at the end: Acc.sum += sum x 10^(18-S); Acc.range sees min and max
//! ```
//!
//! The answer is [`crate::table::Acc`]'s, bit for bit: its sums are exact, so adding
//! `a + b` in units and then scaling is the same number as scaling each and adding;
//! `i64 x 10^18` always fits an `i128` (2^63 x 2^60 < 2^127).

use harness::query::Groups;

use crate::chunks::map_chunks;
use crate::exact::{Number, POWERS, SCALE};
use crate::splayed::error::TableError;
use crate::splayed::query::{RANGES_PER_THREAD, symbol_groups};
use crate::splayed::scan::{ColumnFiles, Table, prefetch};
use crate::splayed::types::ColumnType;
use crate::table::Acc;

/// How many rows ahead of the one it adds the scan asks for the columns' lines: 4
/// KiB of values, a page ahead.
const AHEAD: usize = 512;

/// One group's rows of one thread, in the value column's units.
#[derive(Clone, Copy, Debug)]
struct Units {
    count: u64,
    values: u64,
    sum: i64,
    min: i64,
    max: i64,
}

impl Default for Units {
    fn default() -> Units {
        Units {
            count: 0,
            values: 0,
            sum: 0,
            min: i64::MAX,
            max: i64::MIN,
        }
    }
}

/// The scale of a column this path can add (`10^-S` units a word: `S` for a
/// decimal, 0 for an integer), or `None` for any other type.
pub(crate) fn scale_of(ty: ColumnType) -> Option<u32> {
    match ty {
        ColumnType::Int64 => Some(0),
        ColumnType::Decimal { scale } => Some(u32::from(scale)),
        _ => None,
    }
}

// ANCHOR: run
/// The GROUP BY of the string column `key` and the `int64` or `decimal(S)` column
/// `sum` ([`scale_of`] is `Some`) over every row of `table`, on `threads` threads.
///
/// # Errors
/// As [`Table::column`]: a file that does not match its size or checksum, or a
/// symbol id past the column's bound.
pub(crate) fn run(
    table: &Table,
    (key, sum): (usize, usize),
    threads: usize,
) -> Result<Groups, TableError> {
    let (keys, values) = (table.column(key)?, table.column(sum)?);
    let scale = scale_of(values.ty).expect("the caller checked the type");
    let bound = table.manifest.columns[key].id_bound as usize;
    let rows = table.manifest.rows as usize;
    let ranges = (threads * RANGES_PER_THREAD).clamp(1, rows.max(1));
    let states = map_chunks(
        threads,
        ranges,
        || (vec![Units::default(); bound], vec![Acc::default(); bound]),
        |(units, accs), r| {
            let range = rows * r / ranges..rows * (r + 1) / ranges;
            add_units(keys, values, scale, range, units, accs);
        },
    )
    .1;
    let mut states = states.into_iter().map(|(mut units, mut accs)| {
        fold(scale, &mut units, &mut accs);
        accs
    });
    let mut accs = states.next().expect("one thread at least");
    for other in states {
        for (acc, o) in accs.iter_mut().zip(&other) {
            acc.merge(o);
        }
    }
    Ok(symbol_groups(table, &accs))
}
// ANCHOR_END: run

// ANCHOR: add_units
/// Adds rows `rows` of the table into `units` (one per symbol id) and, when a
/// group's `i64` sum would overflow, folds it into `accs` (the same ids) first.
///
/// `keys` is the key column (`u32` symbol ids), `values` the value column (`int64`
/// or `decimal(S)`: `scale` is `S`, 0 for `int64`), both as mapped: every id under
/// the column's bound, `units.len()`, as [`Table::column`] checked.
fn add_units(
    keys: &ColumnFiles,
    values: &ColumnFiles,
    scale: u32,
    rows: std::ops::Range<usize>,
    units: &mut [Units],
    accs: &mut [Acc],
) {
    let unit = POWERS[(SCALE - scale) as usize];
    let decimal = matches!(values.ty, ColumnType::Decimal { .. });
    let ids = &keys.values[4 * rows.start..4 * rows.end];
    let words = &values.values[8 * rows.start..8 * rows.end];
    let pairs = ids.chunks_exact(4).zip(words.chunks_exact(8));
    for (i, (id, word)) in (rows.start..).zip(pairs) {
        // The loop's work per row is a few instructions, so it would wait on each
        // new cache line of the two columns: the hardware prefetcher stops at each
        // 4 KiB page, which a mapped file's pages are. Asking for the line AHEAD rows
        // on, once a line of values, keeps the loads in flight.
        if i % 8 == 0 {
            prefetch(values, i + AHEAD);
            prefetch(keys, i + AHEAD);
        }
        let id = u32::from_le_bytes(id.try_into().expect("4")) as usize;
        let group = &mut units[id];
        group.count += 1;
        if !values.is_valid(i) {
            continue;
        }
        let mut v = i64::from_le_bytes(word.try_into().expect("8"));
        if decimal && v == i64::MIN {
            v = 0; // a decimal's -0 (decimal.rs)
        }
        group.values += 1;
        group.sum = match group.sum.checked_add(v) {
            Some(sum) => sum,
            None => {
                accs[id]
                    .sum
                    .add(Number::Fixed(i128::from(group.sum) * unit));
                v
            }
        };
        // Branches, not blends, as in `MinMax`: a new extreme is rare.
        if v < group.min {
            group.min = v;
        }
        if v > group.max {
            group.max = v;
        }
    }
}
// ANCHOR_END: add_units

/// Folds each group's `units` into its `accs` (the same ids), leaving `units` empty.
fn fold(scale: u32, units: &mut [Units], accs: &mut [Acc]) {
    let unit = POWERS[(SCALE - scale) as usize];
    let fixed = |v: i64| Number::Fixed(i128::from(v) * unit);
    for (group, acc) in units.iter_mut().zip(accs) {
        acc.count += group.count;
        acc.values += group.values;
        if group.values > 0 {
            acc.sum.add(fixed(group.sum));
            acc.range.add(fixed(group.min));
            acc.range.add(fixed(group.max));
        }
        *group = Units::default();
    }
}
