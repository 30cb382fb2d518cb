//! The query on one core: the whole input, in record order, into one
//! [`Aggregator`] ([`crate::query`]).

use harness::dialect::bom_len;
use harness::query::{Groups, QueryError};

use crate::machine::State;
use crate::query::{Aggregator, Query};
use crate::table::{GroupBy, QueryTable};
use crate::{Parser, Record, Tier};

// ANCHOR: run
/// Runs `query` over `input` with this step's parser and the [`QueryTable`] table.
///
/// # Errors
/// The first error in record order: a [`QueryError`] of a record, or the parse error
/// of an unterminated quote (which is always at the end: the records before it were
/// all aggregated first).
pub fn run(input: &[u8], query: Query<'_>) -> Result<Groups, QueryError> {
    run_projected(input, query)
}

// ANCHOR: run_projected
/// [`run`] by the projected walk ([`Parser::walk_projected`]):
/// the state machine reads the first record (every field, for the names), the walk
/// the rest (two fields of each). [`Tier::Scalar`] has no bitmaps to walk: it runs
/// [`run_with`].
///
/// # Errors
/// As [`run`].
pub fn run_projected(input: &[u8], query: Query<'_>) -> Result<Groups, QueryError> {
    let tier = Tier::chosen().or_portable();
    if tier == Tier::Scalar {
        return run_with::<QueryTable>(input, query);
    }
    let mut aggregator = Aggregator::<QueryTable>::new(query);
    let mut parser = Parser::new(query.dialect.delimiter);
    let Some(from) = first_record(input, &mut parser, &mut aggregator)? else {
        return aggregator.finish(); // the input ended with its first record
    };
    let (key, value, _) = aggregator.columns.expect("the first record was read");
    let mut failure = None;
    let parsed = parser.walk_projected(tier, input, from, [key, value], |row| {
        // (Not `failure = ...err()`: that writes a `None` of the error's size every
        // record.)
        if failure.is_none()
            && let Err(e) = aggregator.add_row(input, row)
        {
            failure = Some(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    parsed?;
    aggregator.finish()
}
// ANCHOR_END: run_projected

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

/// [`run`] with the GROUP BY table `T`, so the benchmark can compare tables inside
/// the query. Every record is walked, every field of it cut out by the parser; the
/// aggregation reads two.
///
/// # Errors
/// As [`run`].
pub fn run_with<T: GroupBy>(input: &[u8], query: Query<'_>) -> Result<Groups, QueryError> {
    let mut aggregator = Aggregator::<T>::new(query);
    let mut failure = None;
    let parsed = Parser::new(query.dialect.delimiter).for_each_record(input, |record| {
        // (Not `failure = ...err()`: that writes a `None` of the error's size every
        // record.)
        if failure.is_none()
            && let Err(e) = aggregator.add_view(input, &record)
        {
            failure = Some(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    parsed?;
    aggregator.finish()
}
// ANCHOR_END: run
