//! The GROUP BY over a table: two columns read as they lie on disk, the groups in an
//! array indexed by symbol id (no string is hashed or compared), the sums step 10's
//! exact accumulator, so the answer is step 10's, bit for bit.
//!
//! ```text
//! ids    = the GROUP BY column (u32 symbol ids); values = the SUM column
//! in parallel, per range of rows, into the thread's own array acc[0..id_bound]:
//!     acc[ids[i]].add(value i as step 10 reads it: NULL, or an exact decimal, or an f64)
//! merge the threads' arrays; each id with a count is a group, its key the symbol
//! ```
//!
//! An `int64`, `date` or `bool` key goes into a hash map by value instead, and a
//! `text` key into one by its bytes (the CSV query's GROUP BY, without the parse).
//! The commonest query, a string key and an `int64` or `decimal(S)` value over every
//! row, takes a path of its own ([`units`]), which adds the values in their units.

use harness::query::Groups;

use crate::acc::Acc;
use crate::exact::{Number, POWERS, SCALE, parse_number};
use crate::pool::map_chunks;
use crate::query::Query;
use crate::splayed::date;
use crate::splayed::error::{TableError, invalid_number};
use crate::splayed::rows::{Piece, Selection, key_is};
use crate::splayed::scan::{ColumnFiles, SplayedTable, Value, prefetch};
use crate::splayed::types::ColumnType;
use crate::splayed::units;

/// Ranges of rows per thread: a few, so a slow thread does not hold up the rest.
pub(crate) const RANGES_PER_THREAD: usize = 4;

/// How many rows of a list ahead the prefetches go: enough misses in flight to
/// cover a DRAM access's latency.
const AHEAD: usize = 16;

/// A list's rows are sparse, and worth prefetching, when fewer than one row in
/// `SPARSE` is selected: then most rows' values lie on cache lines of their own (a
/// line holds eight 8-byte values).
const SPARSE: usize = 8;

// ANCHOR: run
/// Runs `query` over `table` on `threads` threads.
///
/// # Errors
/// Step 10's [`QueryError`](harness::query::QueryError)s (a missing column; a value
/// that is not a number, naming its record; the line is 0, unknown: a table does not
/// keep lines), [`TableError::GroupByType`] for a GROUP BY column of decimals or
/// floats (their text is not kept, and `1.50` and `1.5` are two keys to step 10), and
/// [`TableError::NotATable`] when a column's files are missing, of the wrong size or
/// checksum, or hold a symbol id past the column's bound.
pub fn run(table: &SplayedTable, query: Query<'_>, threads: usize) -> Result<Groups, TableError> {
    run_selected(table, query, &Selection::All, threads)
}

/// [`run`] over the rows of `selection` only (`--where`: [`crate::splayed::rows`],
/// made by the index's `select`).
///
/// # Errors
/// As [`run`]; a row that is not selected is not read, so its value cannot fail.
pub fn run_selected(
    table: &SplayedTable,
    query: Query<'_>,
    selection: &Selection,
    threads: usize,
) -> Result<Groups, TableError> {
    let (key, sum) = (
        table.column_index(query.group_by)?,
        table.column_index(query.sum)?,
    );
    let types = [key, sum].map(|k| table.manifest.columns[k].ty);
    let bound = table.manifest.columns[key].id_bound as usize;
    // A string key's threads each hold an array of `bound` groups: no more threads
    // than rows per group, so that the arrays never outweigh the rows.
    let threads = match types[0] {
        ColumnType::String => {
            threads.clamp(1, (table.manifest.rows as usize / bound.max(1)).max(1))
        }
        _ => threads,
    };
    if matches!(selection, Selection::All)
        && types[0] == ColumnType::String
        && units::scale_of(types[1]).is_some()
    {
        let groups = units::run(table, (key, sum), threads)?;
        groups.check_exact_sums(query)?;
        return Ok(groups);
    }
    let keys = table.column(key)?;
    let values = table.column(sum)?;
    let groups = match keys.ty {
        ColumnType::String => run_with(table, (keys, values), query, selection, threads, || {
            BySymbol {
                ids: &keys.values,
                accs: vec![Acc::default(); bound],
            }
        }),
        ColumnType::Text => run_with(table, (keys, values), query, selection, threads, || {
            ByText {
                keys,
                accs: hashbrown::HashMap::new(),
            }
        }),
        ColumnType::Int64 | ColumnType::Date | ColumnType::Bool => {
            run_with(table, (keys, values), query, selection, threads, || {
                ByValue {
                    keys,
                    accs: hashbrown::HashMap::new(),
                }
            })
        }
        ty => {
            return Err(TableError::GroupByType {
                column: query.group_by.to_string(),
                ty,
            });
        }
    }?;
    // An infinite sum is an exact sum past f64's range: an error, as over the CSV.
    groups.check_exact_sums(query)?;
    Ok(groups)
}

/// The query with the groups kept in `S`, one per thread, merged at the end.
fn run_with<S: Slots>(
    table: &SplayedTable,
    (keys, values): (&ColumnFiles, &ColumnFiles),
    query: Query<'_>,
    selection: &Selection,
    threads: usize,
    new_slots: impl Fn() -> S + Sync,
) -> Result<Groups, TableError> {
    let rows = table.manifest.rows as usize;
    let ranges = (threads * RANGES_PER_THREAD).clamp(1, rows.max(1));
    let states = map_chunks(
        threads,
        ranges,
        || (new_slots(), None),
        // One copy of the loop for each kind of piece, so that reading every row
        // tests nothing per row.
        |state, r| match selection.piece(rows, r, ranges) {
            Piece::Range(range) => aggregate(table, values, range, state),
            Piece::Filter(range, column, key) => {
                let rows = range.filter(|&i| key_is(column, i, key));
                aggregate(table, values, rows, state);
            }
            Piece::FilterEither(range, column, [a, b]) => {
                let rows = range.filter(|&i| key_is(column, i, a) || key_is(column, i, b));
                aggregate(table, values, rows, state);
            }
            Piece::FilterText(range, column, text) => {
                let rows = range.filter(|&i| column.text_at(i) == text);
                aggregate(table, values, rows, state);
            }
            // ANCHOR: prefetch_rows
            // A rare value's rows are scattered, one cache miss each in each column;
            // knowing them in advance, the loop asks for the rows AHEAD on, so that
            // the misses overlap instead of coming one after the other. A common
            // value's rows share cache lines, which the hardware prefetcher follows
            // by itself: there the hints cost more than they save (the chapter
            // measures both).
            Piece::List(list) => {
                let row = |j: usize| {
                    u64::from_le_bytes(list[8 * j..8 * j + 8].try_into().expect("8")) as usize
                };
                let n = list.len() / 8;
                let span = if n == 0 { 0 } else { row(n - 1) - row(0) + 1 };
                if n * SPARSE < span {
                    let rows = (0..n).map(|j| {
                        if j + AHEAD < n {
                            let ahead = row(j + AHEAD);
                            prefetch(values, ahead);
                            prefetch(keys, ahead);
                        }
                        row(j)
                    });
                    aggregate(table, values, rows, state);
                } else {
                    aggregate(table, values, (0..n).map(row), state);
                }
            } // ANCHOR_END: prefetch_rows
        },
    )
    .1;
    let mut states = states.into_iter();
    let (mut slots, mut bad) = states.next().expect("one thread at least");
    for (other, other_bad) in states {
        slots.merge(other);
        bad = match (bad, other_bad) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    if let Some(row) = bad {
        return Err(invalid_number(table, values, query.sum, row).into());
    }
    Ok(slots.into_groups(table))
}
// ANCHOR_END: run

/// Where a row's accumulator lives.
trait Slots: Send {
    /// The accumulator of row `row`'s group.
    fn acc(&mut self, row: usize) -> &mut Acc;
    /// Adds another thread's groups.
    fn merge(&mut self, other: Self);
    /// The answer, keys as the CSV had them.
    fn into_groups(self, table: &SplayedTable) -> Groups;
}

// ANCHOR: by_symbol
/// A string key: an array indexed by symbol id.
struct BySymbol<'c> {
    ids: &'c [u8],
    accs: Vec<Acc>,
}

impl Slots for BySymbol<'_> {
    #[inline(always)]
    fn acc(&mut self, row: usize) -> &mut Acc {
        let id = u32::from_le_bytes(self.ids[4 * row..4 * row + 4].try_into().expect("4"));
        // Under `accs.len()`, the column's bound: checked as the file was mapped.
        &mut self.accs[id as usize]
    }

    fn merge(&mut self, other: Self) {
        for (acc, o) in self.accs.iter_mut().zip(&other.accs) {
            acc.merge(o);
        }
    }

    fn into_groups(self, table: &SplayedTable) -> Groups {
        symbol_groups(table, &self.accs)
    }
}
// ANCHOR_END: by_symbol

/// The groups of an array indexed by symbol id: each id with a count, its key the
/// symbol's bytes.
pub(crate) fn symbol_groups(table: &SplayedTable, accs: &[Acc]) -> Groups {
    let used = accs.iter().enumerate().filter(|(_, acc)| acc.count > 0);
    used.map(|(id, acc)| (table.symbol(id as u32).to_vec(), acc.group()))
        .collect()
}

/// An `int64`, `date` or `bool` key: a hash map by value (`None`: an empty field,
/// the key `""` as in step 10). Their text is the one form the inference accepts, so
/// the value prints back as the CSV had it.
struct ByValue<'c> {
    keys: &'c ColumnFiles,
    accs: hashbrown::HashMap<Option<i64>, Acc>,
}

impl Slots for ByValue<'_> {
    #[inline]
    fn acc(&mut self, row: usize) -> &mut Acc {
        let key = match self.keys.value_at(row) {
            Value::Int(v) => Some(v),
            Value::Date(d) => Some(i64::from(d)),
            Value::Bool(b) => Some(i64::from(b)),
            _ => None,
        };
        self.accs.entry(key).or_default()
    }

    fn merge(&mut self, other: Self) {
        for (key, acc) in other.accs {
            self.accs.entry(key).or_default().merge(&acc);
        }
    }

    fn into_groups(self, _: &SplayedTable) -> Groups {
        let text = |key: Option<i64>| match (self.keys.ty, key) {
            (_, None) => Vec::new(),
            (ColumnType::Date, Some(d)) => {
                let mut text = Vec::new();
                date::format(d as i32, &mut text);
                text
            }
            (ColumnType::Bool, Some(b)) => if b == 1 { "true" } else { "false" }.into(),
            (_, Some(v)) => v.to_string().into_bytes(),
        };
        self.accs
            .iter()
            .map(|(&k, acc)| (text(k), acc.group()))
            .collect()
    }
}

/// A `text` key: a hash map by the key's bytes, which stay in the mapped file.
struct ByText<'c> {
    keys: &'c ColumnFiles,
    accs: hashbrown::HashMap<&'c [u8], Acc>,
}

impl<'c> Slots for ByText<'c> {
    #[inline]
    fn acc(&mut self, row: usize) -> &mut Acc {
        let keys: &'c ColumnFiles = self.keys;
        self.accs.entry(keys.text_at(row)).or_default()
    }

    fn merge(&mut self, other: Self) {
        for (key, acc) in other.accs {
            self.accs.entry(key).or_default().merge(&acc);
        }
    }

    fn into_groups(self, _: &SplayedTable) -> Groups {
        self.accs
            .iter()
            .map(|(key, acc)| (key.to_vec(), acc.group()))
            .collect()
    }
}

// ANCHOR: aggregate
/// Adds rows `range` into `accs`; at a value that is not a number, records its row
/// in `bad` (keeping the smallest) and stops.
fn aggregate<S: Slots>(
    table: &SplayedTable,
    values: &ColumnFiles,
    range: impl Iterator<Item = usize> + Clone,
    (accs, bad): &mut (S, Option<usize>),
) {
    let valid = |i: usize| values.is_valid(i);
    let word =
        |i: usize| i64::from_le_bytes(values.values[8 * i..8 * i + 8].try_into().expect("8"));
    match values.ty {
        ColumnType::Int64 => add_rows(accs, bad, range.clone(), &|i| {
            Ok(valid(i).then(|| Number::Fixed(i128::from(word(i)) * POWERS[SCALE as usize])))
        }),
        ColumnType::Decimal { scale } => {
            let unit = POWERS[(SCALE - u32::from(scale)) as usize];
            add_rows(accs, bad, range.clone(), &|i| {
                let units = word(i);
                let units = if units == i64::MIN { 0 } else { units }; // -0
                Ok(valid(i).then(|| Number::Fixed(i128::from(units) * unit)))
            })
        }
        ColumnType::Float64 => {
            let exact = values.exact.as_ref().expect("float64 has its exact file");
            add_rows(accs, bad, range.clone(), &|i| {
                let fixed = i128::from_le_bytes(exact[16 * i..16 * i + 16].try_into().expect("16"));
                let float = f64::from_bits(word(i) as u64);
                let number = if fixed == i128::MIN {
                    Number::Float(float)
                } else {
                    Number::Fixed(fixed)
                };
                Ok(valid(i).then_some(number))
            })
        }
        ColumnType::String => add_rows(accs, bad, range.clone(), &|i| {
            let symbol = table.symbol(u32::from_le_bytes(
                values.values[4 * i..4 * i + 4].try_into().expect("4"),
            ));
            parse_number(symbol).map_err(|_| ())
        }),
        ColumnType::Text => add_rows(accs, bad, range.clone(), &|i| {
            parse_number(values.text_at(i)).map_err(|_| ())
        }),
        ColumnType::Date | ColumnType::Bool => add_rows(accs, bad, range.clone(), &|i| {
            if valid(i) { Err(()) } else { Ok(None) }
        }),
    }
}
// ANCHOR_END: aggregate

/// The loop of [`aggregate`], generic in `value_of` so that each column type gets
/// its own inlined copy.
#[inline(always)]
fn add_rows<S: Slots, F: Fn(usize) -> Result<Option<Number>, ()> + ?Sized>(
    slots: &mut S,
    bad: &mut Option<usize>,
    range: impl Iterator<Item = usize>,
    value_of: &F,
) {
    for i in range {
        match value_of(i) {
            Ok(v) => slots.acc(i).add(v),
            Err(()) => {
                *bad = Some(bad.map_or(i, |b| b.min(i)));
                return;
            }
        }
    }
}
