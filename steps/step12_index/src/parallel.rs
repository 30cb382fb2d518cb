//! The query on every core: the header alone first, then each chunk of the plan
//! into its thread's [`Aggregator`], then the first error in input order, else the
//! threads' tables merged ([`crate::merge`]).

use harness::dialect::bom_len;
use harness::query::{Groups, QueryError};

use crate::chunks::{self, Plan};
use crate::machine::State;
use crate::pool;
use crate::query::{Aggregator, Query, REVIEW};
use crate::scatter;
use crate::table::{GroupBy, QueryTable};
use crate::{Parser, Record, Tier};

/// How the query splits its input: threads, and the chunk size in bytes (0: the
/// default, eight chunks a thread, from 256 KiB to 8 MiB).
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
            threads: pool::available_threads(),
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
    let mut header = Aggregator::<QueryTable>::new(query);
    let mut parser = Parser::new(query.dialect.delimiter);
    let Some(header_end) = first_record(input, &mut parser, &mut header)? else {
        return header.finish(); // the input ended with its first record
    };
    let (key, value, _) = header.columns.expect("the first record was read");
    let bits = scatter::bits(input.len(), threads);
    let parts = pool::map_chunks(
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
            aggregator.reviewed = (aggregator.table.len(), 0);
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
                    if aggregator.records.is_multiple_of(REVIEW) {
                        aggregator.review(bits);
                    }
                })
            };
            aggregator.review(bits); // the chunk's last rows
            if let Some(scattered) = &aggregator.scattered {
                scattered.seal(); // the rows are merged on other threads
            }
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
    let (tables, scattered) = std::iter::once(header)
        .chain(parts.1.into_iter().map(|(_, aggregator)| aggregator))
        .map(|aggregator| (aggregator.table, aggregator.scattered))
        .unzip::<_, _, Vec<_>, Vec<_>>();
    let scattered = scattered.into_iter().flatten().collect();
    let groups = crate::merge::merge(tables, scattered, input, threads);
    // An infinite sum is an exact sum past f64's range: an error, not `inf`.
    groups.check_exact_sums(query)?;
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
