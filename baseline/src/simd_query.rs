//! The second yardstick: the same GROUP BY as [`crate::query`], with the CSV read by
//! the `simd-csv` crate (medialab's reader behind the `xan` tool) instead of the csv
//! crate: `baseline --query --simd-csv`, `bench.sh`'s `baseline query (simd-csv)` row.
//!
//! `simd-csv` finds a record's delimiters with memchr-like SIMD searches inside a
//! classic state machine (its docs' design notes), and its [`simd_csv::ZeroCopyReader`]
//! hands out each record as a view of its buffer with the delimiters' offsets, so
//! the query reads the two fields it needs without copying the others. Everything
//! after the reader is [`crate::query`]'s: the same value parse
//! ([`crate::query::parse_value`]), the same `hashbrown` table and accumulator, so
//! the two yardsticks differ in the reader alone, and both give `gen`'s reference bit
//! for bit on the bench file.
//!
//! Its dialect is the csv crate's on the bench file (no CR, no unterminated quote);
//! elsewhere it is not checked against ours: this is a yardstick of speed, and
//! `bench.sh` checks its answer against the reference before it shows its row.

use std::fs::File;
use std::path::Path;

use harness::query::{Groups, QueryError};

use crate::query::{Query, QueryFailure, Table, add, answer, columns, parse_value};

/// Bytes the reader asks the file for at a time: its default is 8 KiB; 1 MiB makes
/// the read calls negligible, as a user tuning for speed would.
const BUFFER: usize = 1 << 20;

/// Runs `query` over the file at `path` with `simd-csv`'s zero-copy reader.
///
/// # Errors
/// [`QueryFailure::Io`] when the file cannot be opened or read;
/// [`QueryError::NoHeader`], [`QueryError::MissingColumn`],
/// [`QueryError::FieldCount`] (no line: the reader keeps none) and
/// [`QueryError::InvalidNumber`] (likewise) as [`crate::query::run`];
/// [`QueryFailure::Simd`] for any other error of the reader.
pub fn run_path(path: &Path, query: Query<'_>) -> Result<Groups, QueryFailure> {
    let file = File::open(path).map_err(QueryFailure::Io)?;
    let mut reader = simd_csv::ZeroCopyReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .buffer_capacity(BUFFER)
        .from_reader(file);
    let header = reader.byte_headers().map_err(failure)?;
    let (key, value) = columns(|| header.iter(), query)?;
    let mut groups = Table::new();
    let mut record_index = 0u64;
    while let Some(record) = reader.read_byte_record().map_err(failure)? {
        record_index += 1;
        // Both fields exist: the reader is not flexible, so every record is as wide as
        // the header.
        let (Some(k), Some(v)) = (record.unescape(key), record.unescape(value)) else {
            unreachable!("a non-flexible reader checked the record's width");
        };
        let number = parse_value(&v).ok_or_else(|| QueryError::InvalidNumber {
            record: record_index,
            place: None, // the reader keeps no lines
            column: query.sum.to_string(),
            text: v.to_vec(),
        })?;
        add(&mut groups, &k, number);
    }
    Ok(answer(&groups))
}

/// The reader's error as the query's: a record of another width is
/// [`QueryError::FieldCount`], an I/O error [`QueryFailure::Io`].
fn failure(e: simd_csv::Error) -> QueryFailure {
    if let simd_csv::ErrorKind::UnequalLengths {
        expected_len,
        len,
        pos,
    } = e.kind()
    {
        return QueryFailure::Query(QueryError::FieldCount {
            record: pos.map_or(0, |(_byte, record)| record),
            place: None, // the reader keeps no lines
            expected: *expected_len,
            found: *len,
        });
    }
    if e.is_io_error() {
        match e.into_kind() {
            simd_csv::ErrorKind::Io(e) => QueryFailure::Io(e),
            _ => unreachable!("is_io_error() holds only for ErrorKind::Io"),
        }
    } else {
        QueryFailure::Simd(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_text(name: &str, text: &str) -> Result<Groups, QueryFailure> {
        let path =
            std::env::temp_dir().join(format!("baseline-simd-{name}-{}.csv", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let result = run_path(&path, Query::default());
        std::fs::remove_file(&path).unwrap();
        result
    }

    #[test]
    fn the_same_answer_as_the_csv_crate() {
        let text = "id,category,value\n1,a,1.5\n2,\"b,\"\"c\",2\n3,a,\n4,a,-0.25\n";
        let simd = run_text("same", text).unwrap();
        let csv = crate::query::run_bytes(text.as_bytes(), Query::default()).unwrap();
        assert_eq!(simd, csv);
        assert_eq!(simd[&b"b,\"c"[..]].count, 1, "a quoted key is unescaped");
        assert_eq!(simd[&b"a"[..]].sum, Some(1.25), "NULL counted, not summed");
    }

    #[test]
    fn errors_say_which_record() {
        let invalid = run_text("invalid", "category,value\na,1\nb,x1\n").unwrap_err();
        assert!(
            matches!(&invalid, QueryFailure::Query(QueryError::InvalidNumber { record: 2, text, .. }) if text == b"x1"),
            "{invalid:?}"
        );
        let width = run_text("width", "category,value\na,1\nb\n").unwrap_err();
        assert!(
            matches!(
                width,
                QueryFailure::Query(QueryError::FieldCount {
                    expected: 2,
                    found: 1,
                    ..
                })
            ),
            "{width:?}"
        );
        let missing = run_text("missing", "category,amount\na,1\n").unwrap_err();
        assert!(
            matches!(
                missing,
                QueryFailure::Query(QueryError::MissingColumn { .. })
            ),
            "{missing:?}"
        );
    }
}
