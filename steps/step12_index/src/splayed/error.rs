//! What loading a table or querying one can fail with.

use std::fmt;
use std::path::{Path, PathBuf};

use harness::query::{COMMON_NULLS, QueryError, key_text};
use serde_json::{Value, json};

use crate::splayed::date;
use crate::splayed::scan::{ColumnFiles, SplayedTable};
use crate::splayed::types::ColumnType;

/// An error of `load` or `query`.
#[derive(Debug)]
pub enum TableError {
    /// A file could not be read or written.
    Io(harness::Error),
    /// The CSV breaks the dialect, has no header, or a record of another width; or
    /// a queried column is missing or holds a value that is not a number: step 10's
    /// errors, with step 10's JSON.
    Query(QueryError),
    /// A field is not of its column's type (a type given with `--schema`).
    Type {
        /// 0-based record index (the header is record 0).
        record: u64,
        /// 1-based line of the field's first byte.
        line: u64,
        /// Byte offset of the field's first byte in the input.
        byte: u64,
        /// The column's name.
        column: String,
        /// The column's type.
        ty: ColumnType,
        /// The field's cooked bytes.
        text: Vec<u8>,
    },
    /// A `--schema` that does not parse or names a column the header lacks.
    Schema(String),
    /// The table directory exists already: a load never overwrites.
    Exists(PathBuf),
    /// The directory is not a complete table of this format.
    NotATable(PathBuf, String),
    /// A `--where COLUMN=VALUE` without `=`, or a VALUE that is not of the column's
    /// type.
    Where(String),
    /// GROUP BY a `decimal` or `float64` column.
    GroupByType {
        /// The column's name.
        column: String,
        /// Its type.
        ty: ColumnType,
    },
}

impl TableError {
    /// For `map_err`: an I/O error of `path` as a [`TableError::Io`] that names it.
    pub fn io_at(path: &Path) -> impl Fn(std::io::Error) -> TableError {
        let path = path.to_path_buf();
        move |e| TableError::Io(harness::Error::io(path.clone(), e))
    }

    /// [`TableError::io_at`] for an error of creating or writing `path`.
    pub fn io_write_at(path: &Path) -> impl Fn(std::io::Error) -> TableError {
        let path = path.to_path_buf();
        move |e| TableError::Io(harness::Error::io_write(path.clone(), e))
    }

    /// The error as one JSON object: step 10's for its errors, else
    /// `{"error": NAME, ...}`.
    pub fn to_json(&self) -> Value {
        match self {
            TableError::Query(e) => e.to_json(),
            TableError::Type {
                record,
                column,
                ty,
                text,
                ..
            } => json!({"error": "invalid_value", "record": record, "column": column,
                        "type": ty.name(), "text": key_text(text)}),
            other => json!({"error": other.name(), "message": other.to_string()}),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            TableError::Io(_) => "io",
            TableError::Query(e) => e.name(),
            TableError::Type { .. } => "invalid_value",
            TableError::Schema(_) => "schema",
            TableError::Where(_) => "where",
            TableError::Exists(_) => "exists",
            TableError::NotATable(..) => "not_a_table",
            TableError::GroupByType { .. } => "group_by_type",
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Io(e) => e.fmt(f),
            // A value of the table that is not a number: no line or byte to name.
            TableError::Query(QueryError::InvalidNumber {
                record,
                place: None,
                column,
                text,
            }) => {
                write!(
                    f,
                    "record {record}, column {column:?}: {:?} is not a finite decimal number \
                     (a table keeps no line or byte offset of its CSV, so the record is all \
                     it can name; the query over the CSV names them)",
                    key_text(text)
                )?;
                match std::str::from_utf8(text) {
                    Ok(marker) if COMMON_NULLS.contains(&marker) => write!(
                        f,
                        "; if {marker:?} marks a missing value, load the CSV again with \
                         --null '{marker}'"
                    ),
                    _ => Ok(()),
                }
            }
            TableError::Query(e) => e.fmt(f),
            TableError::Type {
                record,
                line,
                byte,
                column,
                ty,
                text,
            } => write!(
                f,
                "line {line} (record {record}, byte {byte}), column {column:?}: {:?} is not of type {ty}",
                key_text(text)
            ),
            TableError::Schema(message) => write!(f, "--schema: {message}"),
            TableError::Where(message) => write!(f, "--where: {message}"),
            TableError::Exists(dir) => write!(
                f,
                "{} exists already; a load never overwrites a table (remove it first)",
                dir.display()
            ),
            TableError::NotATable(dir, why) => {
                write!(f, "{} is not a complete table: {why}", dir.display())
            }
            TableError::GroupByType { column, ty } => write!(
                f,
                "GROUP BY {column:?}: the column is {ty}, and a table keeps no number's text \
                 (1.50 and 1.5 are two keys to step 10); load it with --schema {column}=string"
            ),
        }
    }
}

impl std::error::Error for TableError {}

impl From<QueryError> for TableError {
    fn from(e: QueryError) -> TableError {
        TableError::Query(e)
    }
}

impl From<harness::Error> for TableError {
    fn from(e: harness::Error) -> TableError {
        TableError::Io(e)
    }
}

/// Step 10's error for row `row`'s value, its text as the CSV had it.
pub(crate) fn invalid_number(
    table: &SplayedTable,
    values: &ColumnFiles,
    column: &str,
    row: usize,
) -> QueryError {
    let text = match values.ty {
        ColumnType::String => {
            let id = u32::from_le_bytes(values.values[4 * row..4 * row + 4].try_into().expect("4"));
            table.symbol(id).to_vec()
        }
        ColumnType::Text => values.text_at(row).to_vec(),
        ColumnType::Date => {
            let mut text = Vec::new();
            let days =
                i32::from_le_bytes(values.values[4 * row..4 * row + 4].try_into().expect("4"));
            date::format(days, &mut text);
            text
        }
        ColumnType::Bool => {
            if values.values[row] == 1 {
                b"true".to_vec()
            } else {
                b"false".to_vec()
            }
        }
        _ => unreachable!("numbers are numbers"),
    };
    QueryError::InvalidNumber {
        record: row as u64 + 1,
        place: None, // a table keeps no lines or offsets: said so in the message
        column: column.to_string(),
        text,
    }
}
