//! The full scan's fast path, for the commonest query over a table: a `string` key,
//! an `int64` or `decimal(S)` value, every row. The column holds each value as an
//! integer count of its unit (10^-S), so a thread adds those integers as they lie,
//! in an `i64` per group, and turns them into step 10's exact accumulator once per
//! group at the end instead of once per row. With that little work per row, the
//! loop waits on memory unless it asks for the rows ahead ([`prefetch`]). And the
//! first query of an open table reads the two files once, not twice: each block is
//! checked (its CRC-32, its ids under their bound) and then added from the cache
//! (`check_and_add`), instead of a pass of checks before the scan.
//!
//! ```text
//! per row:   units[id].count += 1; if valid: sum += word, min/max of word   (i64)
//! on i64 overflow of one group's sum (rare): fold the sum into its Acc, start again
//! per group at the end: Acc.sum += sum x 10^(18-S); Acc.range sees min and max
//! ```
//!
//! The answer is [`crate::acc::Acc`]'s, bit for bit: its sums are exact, so adding
//! `a + b` in units and then scaling is the same number as scaling each and adding;
//! `i64 x 10^18` always fits an `i128` (2^63 x 2^60 < 2^127).

use harness::query::Groups;

use crate::acc::Acc;
use crate::exact::{Number, POWERS, SCALE};
use crate::pool::map_chunks;
use crate::splayed::error::TableError;
use crate::splayed::mapped_check::Running;
use crate::splayed::query::{RANGES_PER_THREAD, symbol_groups};
use crate::splayed::scan::{ColumnFiles, SplayedTable, ToScan, prefetch};
use crate::splayed::types::ColumnType;

/// How many rows ahead of the one it adds the scan asks for the columns' lines: 4
/// KiB of values, a page ahead.
const AHEAD: usize = 512;

/// Rows that a first query checks and then adds at a time: 96 KiB of ids and
/// values, which the check leaves in the core's cache for the adds.
const BLOCK: usize = 8192;

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
/// The first query to read the two columns checks their `values` files as it reads
/// them ([`SplayedTable::column_to_scan`]): each block of [`BLOCK`] rows is checked (its
/// CRC-32 taken, its ids held under their bound) and then added, from the cache.
///
/// # Errors
/// As [`SplayedTable::column`]: a file that does not match its size or checksum, or a
/// symbol id past the column's bound.
pub(crate) fn run(
    table: &SplayedTable,
    (key, sum): (usize, usize),
    threads: usize,
) -> Result<Groups, TableError> {
    let columns = [table.column_to_scan(key)?, table.column_to_scan(sum)?];
    let (keys, values) = (&*columns[0], &*columns[1]);
    let scale = scale_of(values.ty).expect("the caller checked the type");
    let bound = table.manifest.columns[key].id_bound as usize;
    let rows = table.manifest.rows as usize;
    let ranges = (threads * RANGES_PER_THREAD).clamp(1, rows.max(1));
    // A range's checks, of the columns whose files are not checked yet.
    let unchecked = columns.each_ref().map(|c| match c {
        ToScan::Unchecked(_, check) => Some(check.clone()),
        ToScan::Checked(_) => None,
    });
    let (checks, states) = map_chunks(
        threads,
        ranges,
        || (vec![Units::default(); bound], vec![Acc::default(); bound]),
        |(units, accs), r| {
            let range = rows * r / ranges..rows * (r + 1) / ranges;
            let mut checks = unchecked.clone();
            if checks.iter().all(Option::is_none) {
                add_units(keys, values, scale, range, AHEAD, units, accs);
            } else {
                check_and_add([keys, values], &mut checks, scale, range, units, accs);
            }
            checks
        },
    );
    let [keys, values] = columns;
    for (c, (k, column)) in [(key, keys), (sum, values)].into_iter().enumerate() {
        if let ToScan::Unchecked(files, empty) = column {
            let whole = checks.iter().fold(empty, |whole, range| {
                whole.join(range[c].as_ref().expect("taken by every range"))
            });
            table.checked(k, files, whole)?;
        }
    }
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

// ANCHOR: check_and_add
/// [`add_units`] for a first query: each block of [`BLOCK`] rows of `columns` (the
/// keys, then the values) handed to its column's check, if it has one, and then
/// added from the cache, while the next block comes in ([`prefetch`] a block ahead).
/// Once an id lies past its bound the blocks are only checked: the check fails
/// and the answer is not given.
// (Out of line: inlined, it costs the later queries' loop registers.)
#[inline(never)]
fn check_and_add(
    columns: [&ColumnFiles; 2],
    checks: &mut [Option<Running>; 2],
    scale: u32,
    rows: std::ops::Range<usize>,
    units: &mut [Units],
    accs: &mut [Acc],
) {
    let mut usable = true;
    for start in rows.clone().step_by(BLOCK) {
        let block = start..(start + BLOCK).min(rows.end);
        for (check, c) in checks.iter_mut().zip(columns) {
            if let Some(check) = check {
                usable &= check.piece(&c.values[c.width * block.start..c.width * block.end]);
            }
        }
        if usable {
            add_units(columns[0], columns[1], scale, block, BLOCK, units, accs);
        }
    }
}
// ANCHOR_END: check_and_add

// ANCHOR: add_units
/// Adds rows `rows` of the table into `units` (one per symbol id) and, when a
/// group's `i64` sum would overflow, folds it into `accs` (the same ids) first.
///
/// `keys` is the key column (`u32` symbol ids), `values` the value column (`int64`
/// or `decimal(S)`: `scale` is `S`, 0 for `int64`), both as mapped: every id of
/// `rows` under the column's bound, `units.len()`, as [`SplayedTable::column`] or the
/// block's check in [`run`] found.
#[inline(always)]
fn add_units(
    keys: &ColumnFiles,
    values: &ColumnFiles,
    scale: u32,
    rows: std::ops::Range<usize>,
    ahead: usize,
    units: &mut [Units],
    accs: &mut [Acc],
) {
    let unit = POWERS[(SCALE - scale) as usize];
    let decimal = matches!(values.ty, ColumnType::Decimal { .. });
    let ids = &keys.values[4 * rows.start..4 * rows.end];
    let words = &values.values[8 * rows.start..8 * rows.end];
    // The validity bits, bit i of byte i / 8 (as `ColumnFiles::is_valid` reads them),
    // none to test when every row of `rows` is valid: the loop then tests no bit.
    let valid = values.valid.as_deref().filter(|bits| {
        let covering = &bits[rows.start / 8..rows.end.div_ceil(8)];
        covering.iter().any(|&byte| byte != u8::MAX)
    });
    let pairs = ids.chunks_exact(4).zip(words.chunks_exact(8));
    for (i, (id, word)) in (rows.start..).zip(pairs) {
        // The loop's work per row is a few instructions, so it would wait on each
        // new cache line of the two columns: the hardware prefetcher stops at each
        // 4 KiB page, which a mapped file's pages are. Asking for the line `ahead`
        // rows on, once a line of values, keeps the loads in flight.
        if i % 8 == 0 {
            prefetch(values, i + ahead);
            prefetch(keys, i + ahead);
        }
        let id = u32::from_le_bytes(id.try_into().expect("4")) as usize;
        let group = &mut units[id];
        group.count += 1;
        if let Some(bits) = valid
            && bits[i / 8] >> (i % 8) & 1 == 0
        {
            continue; // NULL
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
