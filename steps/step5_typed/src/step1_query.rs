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
use harness::query::Groups;
use harness::query::cli::RunError;

use crate::query::{Aggregator, Query};

/// Runs `query` over the file at `path` with step 1's parser. Step 1 hands out records
/// without their place in the file, so its query errors have none; they are compared,
/// never printed.
///
/// # Errors
/// [`RunError::File`] when the file cannot be read, [`RunError::Query`] when it breaks
/// the dialect or the query fails.
pub fn run(path: &Path, query: Query<'_>) -> Result<Groups, RunError> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut aggregator = Aggregator::<crate::table::QueryTable>::new(query);
    let mut failure = None;
    step1::for_each_record(BufReader::new(file), query.dialect.delimiter, |record| {
        if failure.is_none() {
            failure = aggregator.add(&record[..], |_| None).err();
        }
    })?;
    match failure {
        Some(e) => Err(e.into()),
        None => Ok(aggregator.finish()?),
    }
}
