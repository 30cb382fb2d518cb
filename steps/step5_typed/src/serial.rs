//! The query on one core: the whole input, in record order, into one
//! [`Aggregator`] ([`crate::query`]).

use harness::query::{Groups, QueryError};

use crate::Parser;
use crate::query::{Aggregator, Query};
use crate::table::{GroupBy, QueryTable};

// ANCHOR: run
/// Runs `query` over `input` with this step's parser and the [`QueryTable`] table.
///
/// # Errors
/// The first error in record order: a [`QueryError`] of a record, or the parse error
/// of an unterminated quote (which is always at the end: the records before it were
/// all aggregated first).
pub fn run(input: &[u8], query: Query<'_>) -> Result<Groups, QueryError> {
    run_with::<QueryTable>(input, query)
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
            && let Err(e) = aggregator.add_record(input, &record)
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
