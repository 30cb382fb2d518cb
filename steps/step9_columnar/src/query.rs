//! The payoff query, end to end from the bytes:
//! `SELECT key, COUNT(*), SUM(value) GROUP BY key`, over the field views of this
//! step's parser, with the values parsed straight from the views ([`crate::value`])
//! and the groups kept in a table ([`crate::table`]).

use std::borrow::Cow;

use harness::query::{Groups, Place, QueryError};
use harness::spec::dialect::{QUOTE, bom_len};

use crate::chunks::{self, Plan};
use crate::exact::{Number, parse_number};
use crate::lanes16::parse_simd_fixed;
use crate::machine::State;
use crate::project::{Row, raw_cooked};
use crate::table::{GroupBy, Winner};
use crate::{Parser, Record, Tier};

/// Which columns the query groups by and sums: the harness's, as every query step's.
pub use harness::query::Query;

/// A record as the aggregation sees it: a number of fields and their cooked bytes.
/// This step's views and step 1's owned records both provide it, so the same
/// aggregation runs on both parsers (the speedup and the first cross-check).
pub trait Fields {
    /// Fields in the record.
    fn width(&self) -> usize;
    /// The cooked bytes of field `k` (borrowed wherever the parser allows).
    fn cooked(&self, k: usize) -> Cow<'_, [u8]>;
}

impl Fields for Record<'_, '_> {
    fn width(&self) -> usize {
        Record::len(self)
    }
    fn cooked(&self, k: usize) -> Cow<'_, [u8]> {
        self.field(k).cooked()
    }
}

impl Fields for [Vec<u8>] {
    fn width(&self) -> usize {
        <[Vec<u8>]>::len(self)
    }
    fn cooked(&self, k: usize) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self[k])
    }
}

/// The aggregation, one record at a time: the header names the columns, every
/// other record adds to its group.
pub struct Aggregator<'q, T = Winner> {
    query: Query<'q>,
    /// `(key column, value column, header width)` once the header is read.
    columns: Option<(usize, usize, usize)>,
    records: u64,
    table: T,
}

impl<'q, T: GroupBy> Aggregator<'q, T> {
    /// Ready for the header.
    pub fn new(query: Query<'q>) -> Aggregator<'q, T> {
        Aggregator {
            query,
            columns: None,
            records: 0,
            table: T::default(),
        }
    }

    // ANCHOR: add
    /// Adds one record; `place(k)` gives where it and its field `k` are, asked only to
    /// report an error.
    ///
    /// # Errors
    /// [`QueryError::MissingColumn`] (or `DuplicateColumn`, `NotAPosition`) when a
    /// queried column is not found in the first record,
    /// [`QueryError::FieldCount`] for a record whose width differs from the header's,
    /// [`QueryError::InvalidNumber`] for a value that is not a finite number.
    #[inline]
    pub fn add(
        &mut self,
        record: &(impl Fields + ?Sized),
        place: impl FnOnce(usize) -> Place,
    ) -> Result<(), QueryError> {
        let index = self.records;
        self.records += 1;
        let (key, value, width) = match self.columns {
            Some(columns) => columns,
            None => {
                let columns = self.find_columns(record)?;
                self.columns = Some(columns);
                if self.query.header {
                    return Ok(()); // the header only names the columns
                }
                columns // `--no-header`: the first record is data too
            }
        };
        if record.width() != width {
            let Place { line, byte } = place(0);
            return Err(QueryError::FieldCount {
                record: index,
                line,
                byte,
                expected: width,
                found: record.width(),
            });
        }
        let number = self.value_of(record.cooked(value), index, || place(value))?;
        self.table
            .entry(self.query.key(&record.cooked(key)))
            .add(number);
        Ok(())
    }
    // ANCHOR_END: add

    /// [`Aggregator::add`] for a record of this step's parser over `input`: an error
    /// names the record's line and its field's byte ([`Place::of`]).
    ///
    /// # Errors
    /// As [`Aggregator::add`].
    pub fn add_record(&mut self, input: &[u8], record: &Record<'_, '_>) -> Result<(), QueryError> {
        let spans = record.spans();
        self.add(record, |k| Place::of(input, spans[0].start, spans[k].start))
    }

    /// The value of record `index` from its cooked bytes `text`: NULL (empty, or a
    /// `--null` text), a number, or [`QueryError::InvalidNumber`] at the place that
    /// `place` gives.
    fn value_of(
        &self,
        text: Cow<'_, [u8]>,
        index: u64,
        place: impl FnOnce() -> Place,
    ) -> Result<Option<Number>, QueryError> {
        if self.query.is_null(&text) {
            return Ok(None); // empty, or a `--null` text
        }
        parse_number(&text).map_err(|_| {
            let Place { line, byte } = place();
            QueryError::InvalidNumber {
                record: index,
                line,
                byte,
                column: self.query.sum.to_string(),
                text: text.into_owned(),
            }
        })
    }

    // ANCHOR: add_row
    /// [`Aggregator::add`] for a row of the projected walk over `input`, after the
    /// first record. The common row takes the fast path: the header's width, a
    /// plain decimal value parsed straight from the input's bytes ([`parse_simd_fixed`]),
    /// an unquoted key looked up as it lies in the input, neither of them a `--null`
    /// text; anything else (a quoted field, an empty value, a `--null` text, a value
    /// [`parse_simd_fixed`] does not take, a width that differs) goes to the general path
    /// (`add_row_slow`, out of line), through the cooked bytes, as [`Aggregator::add`].
    ///
    /// # Errors
    /// As [`Aggregator::add`].
    ///
    /// # Panics
    /// Before the first record was added.
    //
    // Inlined into the walk's loop, with the parse and the key lookup. Left to
    // itself, the compiler inlines them in some builds and not in others, and three
    // calls a row then cost register saves and moves in every row. The slow path is
    // out of line, so that the fast one needs fewer registers.
    #[inline(always)]
    pub fn add_row(&mut self, input: &[u8], row: &Row) -> Result<(), QueryError> {
        let (_, _, width) = self.columns.expect("the first record names the columns");
        let [(key_start, key_end), (value_start, value_end)] = row.fields;
        if row.width == width
            && input.get(key_start) != Some(&QUOTE)
            && self
                .query
                .neither_null(input, (key_start, key_end), (value_start, value_end))
            && let Some(number) = parse_simd_fixed(input, value_start, value_end)
        {
            self.records += 1;
            self.table
                .entry_at(input, key_start, key_end)
                .add(Some(Number::Fixed(number)));
            return Ok(());
        }
        self.add_row_slow(input, row)
    }

    /// [`Aggregator::add_row`] for the rows its fast path does not take.
    ///
    /// # Errors
    /// As [`Aggregator::add`].
    #[cold]
    #[inline(never)]
    fn add_row_slow(&mut self, input: &[u8], row: &Row) -> Result<(), QueryError> {
        let index = self.records;
        self.records += 1;
        let (_, _, width) = self.columns.expect("the first record names the columns");
        if row.width != width {
            let Place { line, byte } = Place::of(input, row.start, row.start);
            return Err(QueryError::FieldCount {
                record: index,
                line,
                byte,
                expected: width,
                found: row.width,
            });
        }
        let [(key_start, key_end), (value_start, value_end)] = row.fields;
        let plain = self.query.nulls.is_empty();
        let fast = if plain {
            parse_simd_fixed(input, value_start, value_end)
        } else {
            None
        };
        let number = match fast {
            Some(v) => Some(Number::Fixed(v)),
            None => {
                // `value_start` is the raw field's: its quote, if it has one.
                let place = || Place::of(input, row.start, value_start);
                let value = &input[value_start..value_end];
                self.value_of(raw_cooked(value), index, place)?
            }
        };
        let cooked = raw_cooked(&input[key_start..key_end]);
        self.table.entry(self.query.key(&cooked)).add(number);
        Ok(())
    }
    // ANCHOR_END: add_row

    /// The columns' indexes and the width, from the first record (the header, or
    /// with `--no-header` the first data record): [`Query::columns`].
    fn find_columns(
        &self,
        first: &(impl Fields + ?Sized),
    ) -> Result<(usize, usize, usize), QueryError> {
        let cooked: Vec<Cow<'_, [u8]>> = (0..first.width()).map(|k| first.cooked(k)).collect();
        let names: Vec<&[u8]> = cooked.iter().map(|c| &**c).collect();
        let (key, value) = self.query.columns(&names)?;
        Ok((key, value, first.width()))
    }

    /// The answer: the groups in key order.
    ///
    /// # Errors
    /// [`QueryError::NoHeader`] when no record was added.
    pub fn finish(self) -> Result<Groups, QueryError> {
        if self.columns.is_none() {
            return Err(QueryError::NoHeader);
        }
        Ok(self.table.to_groups())
    }
}

/// How the query splits its input: threads, and the chunk size in bytes (0: the
/// default, eight chunks a thread and at least 256 KiB).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// Threads.
    pub threads: usize,
    /// Bytes per chunk; 0 for [`chunks::default_size`].
    pub chunk: usize,
}

impl Split {
    /// Every core, default chunks.
    pub fn all_cores() -> Split {
        Split {
            threads: chunks::available_threads(),
            chunk: 0,
        }
    }

    /// The plan of `input` under this split, its fields separated by `delimiter`.
    pub fn plan(&self, input: &[u8], delimiter: u8) -> Plan {
        let size = match self.chunk {
            0 => chunks::default_size(input.len(), self.threads),
            size => size,
        };
        chunks::plan(input, size, self.threads, delimiter)
    }
}

impl<'q, T: GroupBy> Aggregator<'q, T> {
    /// A new aggregator for another chunk: the same query and columns, no groups.
    pub fn fork(&self) -> Aggregator<'q, T> {
        Aggregator {
            columns: self.columns,
            ..Aggregator::new(self.query)
        }
    }
}

/// `e` with its record counted from the input's first record.
fn after(mut e: QueryError, before: u64) -> QueryError {
    match &mut e {
        QueryError::Parse(e) => e.record += before,
        QueryError::FieldCount { record, .. } | QueryError::InvalidNumber { record, .. } => {
            *record += before
        }
        _ => {}
    }
    e
}

// ANCHOR: run
/// Runs `query` over `input` on every core.
///
/// # Errors
/// The first error in record order: a [`QueryError`] of a record, or the parse error
/// of an unterminated quote (which is always at the end: the records before it were
/// all aggregated first).
pub fn run(input: &[u8], query: Query<'_>) -> Result<Groups, QueryError> {
    run_split(input, query, Split::all_cores())
}

/// [`run`] with `split`'s threads and chunks.
///
/// # Errors
/// As [`run`].
pub fn run_split(input: &[u8], query: Query<'_>, split: Split) -> Result<Groups, QueryError> {
    let plan = split.plan(input, query.dialect.delimiter);
    run_plan(input, query, &plan, split.threads)
}

/// [`run`] over the chunks of `plan` on `threads` threads: the header (or with
/// `--no-header` the first record) first, alone; then each chunk into its thread's
/// table; then the tables merged.
///
/// # Errors
/// As [`run`].
pub fn run_plan(
    input: &[u8],
    query: Query<'_>,
    plan: &Plan,
    threads: usize,
) -> Result<Groups, QueryError> {
    let tier = Tier::chosen().or_portable();
    let mut header = Aggregator::<Winner>::new(query);
    let mut parser = Parser::new(query.dialect.delimiter);
    let Some(header_end) = first_record(input, &mut parser, &mut header)? else {
        return header.finish(); // the input ended with its first record
    };
    let (key, value, _) = header.columns.expect("the first record was read");
    let parts = chunks::map_chunks(
        threads,
        plan.parts.len(),
        || (Parser::new(query.dialect.delimiter), header.fork()),
        |(parser, aggregator), k| {
            let part = plan.parts[k];
            let from = part.from.max(header_end);
            if from >= part.stop {
                return (0, None); // the header's own chunk, or inside the header
            }
            let mut failure = None;
            aggregator.records = 0; // errors name records counted from `from`
            let parsed = if tier == Tier::Scalar {
                // No bitmaps to walk: the state machine's records, every field.
                parser.records_between(tier, input, from, part.stop, |r| {
                    if failure.is_none() {
                        failure = aggregator.add_record(input, &r).err();
                    }
                })
            } else {
                let chunk = (from, part.stop);
                parser.walk_projected(tier, input, chunk, [key, value], |row| {
                    // (Not `failure = ...err()`: that writes a `None` of the error's
                    // size every record.)
                    if failure.is_none()
                        && let Err(e) = aggregator.add_row(input, row)
                    {
                        failure = Some(e);
                    }
                })
            };
            (
                parser.produced(),
                failure.or(parsed.err().map(QueryError::Parse)),
            )
        },
    );
    let mut before = 1; // the header
    for (records, failure) in parts.0 {
        if let Some(e) = failure {
            return Err(after(e, before));
        }
        before += records;
    }
    // The first record's own table (empty, unless `--no-header` made it data) and
    // each worker's, merged on every core (`merge`).
    let tables = std::iter::once(header.table)
        .chain(parts.1.into_iter().map(|(_, aggregator)| aggregator.table))
        .collect();
    let groups = crate::merge::merge(tables, threads);
    // An infinite sum is an exact sum past f64's range: an error, not `inf`.
    groups.check_exact_sums(query.sum)?;
    Ok(groups)
}

/// Adds the first record of `input` to `aggregator` (blank lines before it skipped)
/// with the state machine, and returns where the next record starts, or `None`
/// when the input ends first.
///
/// # Errors
/// The first record's [`QueryError`], or the parse error of an unterminated quote.
fn first_record<T: GroupBy>(
    input: &[u8],
    parser: &mut Parser,
    aggregator: &mut Aggregator<'_, T>,
) -> Result<Option<usize>, QueryError> {
    let mut from = bom_len(input);
    let mut failure = None;
    while aggregator.records == 0 {
        let mut add = |record: Record<'_, '_>| {
            failure = aggregator.add_record(input, &record).err();
        };
        let resume = parser.state_machine(input, from, State::StartRecord, from + 1, &mut add);
        if let Some(e) = failure {
            return Err(e);
        }
        match resume? {
            Some(next) => from = next,
            None => return Ok(None),
        }
    }
    Ok(Some(from))
}

// ANCHOR_END: run
