//! The same query on step 1's parser: the yardstick for the speedup this step prints,
//! and the first of its cross-checks (same counts, bitwise-equal sums).
//!
//! Only the parser differs: the records come from `step1::for_each_record` (lines
//! through a `BufReader`, one `Vec<u8>` per field) and go through the same
//! [`Aggregator`] as this step's views.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use harness::Error;
use harness::query::{Groups, Place, QueryError};

use crate::query::{Aggregator, Query};

/// What the step-1 query can fail with: reading the file, or the query itself.
#[derive(Debug)]
pub enum Step1QueryError {
    /// The file could not be read, or breaks the dialect.
    Read(Error),
    /// The query failed. Step 1 hands out records without their line, so `line` is 0
    /// (unknown) in these errors; they are compared, never printed.
    Query(QueryError),
}

/// Runs `query` over the file at `path` with step 1's parser.
///
/// # Errors
/// As [`Step1QueryError`].
pub fn run(path: &Path, query: Query<'_>) -> Result<Groups, Step1QueryError> {
    let file = File::open(path).map_err(|e| Step1QueryError::Read(Error::io(path, e)))?;
    let mut aggregator = Aggregator::<crate::table::Winner>::new(query);
    let mut failure = None;
    step1::for_each_record(BufReader::new(file), query.dialect.delimiter, |record| {
        if failure.is_none() {
            failure = aggregator.add(&record[..], |_| Place::UNKNOWN).err();
        }
    })
    .map_err(Step1QueryError::Read)?;
    match failure {
        Some(e) => Err(Step1QueryError::Query(e)),
        None => aggregator.finish().map_err(Step1QueryError::Query),
    }
}
