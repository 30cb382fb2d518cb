//! Why a query stopped: the errors a typed query can meet, in words (with where) and
//! as JSON, the same for every query step.

use std::fmt;

use serde_json::{Value, json};

use crate::error::{ErrorKind, ParseError};
use crate::query::COMMON_NULLS;
use crate::query::answer::key_text;

/// Why a query stopped. Records are 0-based indexes among all records, the header
/// being record 0; `line` is the 1-based line where the record starts, and `byte`
/// the 0-based offset in the input of what the error names.
#[derive(Clone, Debug, PartialEq)]
pub enum QueryError {
    /// The CSV breaks the dialect.
    Parse(ParseError),
    /// The input has no record at all, so no header to find the columns in.
    NoHeader,
    /// A column named in the query is not in the header.
    MissingColumn {
        /// The name asked for.
        column: String,
        /// The header's names, as text.
        header: Vec<String>,
    },
    /// A column named in the query is in the header more than once.
    DuplicateColumn {
        /// The name asked for.
        column: String,
        /// Its 1-based positions in the header.
        positions: Vec<usize>,
    },
    /// `--no-header`, and a column asked for is not a position `1..=width`.
    NotAPosition {
        /// What was asked for.
        column: String,
        /// Fields in the first record.
        width: usize,
    },
    /// A record has another number of fields than the header.
    FieldCount {
        /// 0-based record index (the header is record 0).
        record: u64,
        /// 1-based line of the record's first byte; 0 when the source kept no lines.
        line: u64,
        /// Byte offset of the record's first byte (meaningless when `line` is 0).
        byte: u64,
        /// Fields in the header.
        expected: usize,
        /// Fields in this record.
        found: usize,
    },
    /// A value is not a finite decimal number.
    InvalidNumber {
        /// 0-based record index (the header is record 0).
        record: u64,
        /// 1-based line of the record's first byte; 0 when the source kept no lines.
        line: u64,
        /// Byte offset of the field's first byte, its opening quote if it is quoted
        /// ([`field_byte`]; meaningless when `line` is 0).
        byte: u64,
        /// The column's name.
        column: String,
        /// The field's cooked bytes.
        text: Vec<u8>,
    },
    /// A group's exact sum lies past the largest `f64` (about 1.8e308): no `f64` holds
    /// it. Only the steps whose sums are exact raise it ([`crate::query::Groups::
    /// check_exact_sums`]); a row-order `f64` sum overflows to `inf`, as IEEE 754 has it.
    SumOutOfRange {
        /// The SUM column, as the query named it.
        column: String,
        /// The group's key.
        key: Vec<u8>,
    },
}

impl QueryError {
    /// The stable name printed as `"error"` in JSON.
    pub fn name(&self) -> &'static str {
        match self {
            QueryError::Parse(e) => e.kind().name(),
            QueryError::NoHeader => "no_header",
            QueryError::MissingColumn { .. } => "missing_column",
            QueryError::DuplicateColumn { .. } => "duplicate_column",
            QueryError::NotAPosition { .. } => "not_a_position",
            QueryError::FieldCount { .. } => "field_count",
            QueryError::InvalidNumber { .. } => "invalid_number",
            QueryError::SumOutOfRange { .. } => "sum_out_of_range",
        }
    }

    /// The record the error is at (0-based, the header being record 0), for the
    /// errors that have one.
    pub fn record(&self) -> Option<u64> {
        match self {
            QueryError::Parse(e) => Some(e.record),
            QueryError::FieldCount { record, .. } | QueryError::InvalidNumber { record, .. } => {
                Some(*record)
            }
            _ => None,
        }
    }

    /// The error as one JSON object, e.g.
    /// `{"error":"invalid_number","record":R,"column":"value","text":"…"}`.
    pub fn to_json(&self) -> Value {
        match self {
            QueryError::Parse(e) => {
                json!({"error": ErrorKind::UnterminatedQuote.name(), "record": e.record, "line": e.line, "byte": e.byte})
            }
            QueryError::NoHeader => json!({"error": self.name()}),
            QueryError::MissingColumn { column, header } => {
                json!({"error": self.name(), "column": column, "header": header})
            }
            QueryError::DuplicateColumn { column, positions } => {
                json!({"error": self.name(), "column": column, "positions": positions})
            }
            QueryError::NotAPosition { column, width } => {
                json!({"error": self.name(), "column": column, "width": width})
            }
            QueryError::FieldCount {
                record,
                line,
                byte,
                expected,
                found,
            } => with_place(
                json!({"error": self.name(), "record": record, "expected": expected, "found": found}),
                *line,
                *byte,
            ),
            QueryError::InvalidNumber {
                record,
                line,
                byte,
                column,
                text,
            } => with_place(
                json!({"error": self.name(), "record": record, "column": column, "text": key_text(text)}),
                *line,
                *byte,
            ),
            QueryError::SumOutOfRange { column, key } => {
                json!({"error": self.name(), "column": column, "key": key_text(key)})
            }
        }
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::Parse(e) => e.fmt(f),
            QueryError::NoHeader => write!(
                f,
                "the input is empty: there is no header to find the columns in"
            ),
            QueryError::MissingColumn { column, header } => {
                write!(f, "no column named {column:?}; the header has {header:?}")?;
                if header.len() == 1 {
                    if let Some(d) = [b';', b'\t', b'|']
                        .iter()
                        .find(|&&d| header[0].contains(d as char))
                    {
                        let arg = if *d == b'\t' {
                            "'\\t'".to_string()
                        } else {
                            format!("'{}'", *d as char)
                        };
                        write!(
                            f,
                            " (one column: is the file delimited by {:?}? then run with --delimiter {arg})",
                            *d as char
                        )?;
                    }
                }
                Ok(())
            }
            QueryError::DuplicateColumn { column, positions } => {
                let list: Vec<String> = positions.iter().map(usize::to_string).collect();
                write!(
                    f,
                    "the header has {} columns named {column:?}, at positions {}; name the one \
                     you mean by its position (e.g. --group-by {})",
                    positions.len(),
                    list.join(" and "),
                    positions[0]
                )
            }
            QueryError::NotAPosition { column, width } => write!(
                f,
                "this file is read without a header, so columns are named by position, 1 to \
                 {width}; {column:?} is not one"
            ),
            QueryError::FieldCount {
                record,
                line,
                byte,
                expected,
                found,
            } => write!(
                f,
                "{} has {found} fields, but the header has {expected}",
                at(*line, *record, *byte)
            ),
            QueryError::InvalidNumber {
                record,
                line,
                byte,
                column,
                text,
            } => {
                write!(
                    f,
                    "{}, column {column:?}: {:?} is not a finite decimal number",
                    at(*line, *record, *byte),
                    key_text(text)
                )?;
                // A common marker of a missing value: say how to read it as NULL.
                match std::str::from_utf8(text) {
                    Ok(marker) if COMMON_NULLS.contains(&marker) => write!(
                        f,
                        "; if {marker:?} marks a missing value, run with --null {}",
                        shell_word(marker)
                    ),
                    _ => Ok(()),
                }
            }
            QueryError::SumOutOfRange { column, key } => write!(
                f,
                "SUM({column}) of the group {:?} is past the range of a 64-bit float: its \
                 exact value is beyond 1.8e308 in magnitude",
                key_text(key)
            ),
        }
    }
}

/// `error` with `"line"` and `"byte"` added, as the message gives them; left out when
/// the line is 0, which no record has: the query read a source that kept no lines
/// or offsets (step 11's table).
fn with_place(mut error: Value, line: u64, byte: u64) -> Value {
    if line != 0 {
        error["line"] = line.into();
        error["byte"] = byte.into();
    }
    error
}

/// `text` as one shell word: quoted when the shell would read it otherwise (`?`).
fn shell_word(text: &str) -> String {
    if text
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_/.".contains(&b))
    {
        text.to_string()
    } else {
        format!("'{text}'")
    }
}

/// Where an error is, for a message: `line 7 (record 5, byte 130)`, or `record 5`
/// when the line is 0, which no record has: the query read a source that kept no
/// lines or offsets (step 11's table).
fn at(line: u64, record: u64, byte: u64) -> String {
    match line {
        0 => format!("record {record}"),
        line => format!("line {line} (record {record}, byte {byte})"),
    }
}

impl std::error::Error for QueryError {}

impl From<ParseError> for QueryError {
    fn from(e: ParseError) -> QueryError {
        QueryError::Parse(e)
    }
}

/// 1-based line of byte `offset` of `input`: the LFs before it, plus one. For error
/// messages only: it scans `input[..offset]`.
pub fn line_at(input: &[u8], offset: usize) -> u64 {
    input[..offset].iter().filter(|&&b| b == b'\n').count() as u64 + 1
}

/// Where in the input an error is: the line its record starts on, and the byte
/// offset of what it names (the record's first byte, or a field's: [`field_byte`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// 1-based line of the record's first byte; 0 when the source kept no lines.
    pub line: u64,
    /// 0-based byte offset.
    pub byte: u64,
}

impl Place {
    /// A source that kept no positions (an owned record, a saved table).
    pub const UNKNOWN: Place = Place { line: 0, byte: 0 };

    /// In `input`: the record whose first byte is `record`, and the field whose
    /// view starts at `field` (the record's first field, for an error of the
    /// record). For error messages only: it scans `input[..record]` for lines.
    pub fn of(input: &[u8], record: usize, field: usize) -> Place {
        Place {
            line: line_at(input, record),
            byte: field_byte(input, field),
        }
    }
}

/// The byte offset an error names for a field whose view starts at `start`: its
/// opening quote when it is quoted (a parser's view of a quoted field starts after
/// the quote; an unquoted field never follows a quote, which would have opened it).
pub fn field_byte(input: &[u8], start: usize) -> u64 {
    match start.checked_sub(1) {
        Some(before) if input[before] == crate::dialect::QUOTE => before as u64,
        _ => start as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_print_their_position() {
        let e = QueryError::InvalidNumber {
            record: 3,
            line: 4,
            byte: 57,
            column: "value".into(),
            text: b"1e400".to_vec(),
        };
        assert_eq!(
            e.to_json().to_string(),
            r#"{"byte":57,"column":"value","error":"invalid_number","line":4,"record":3,"text":"1e400"}"#
        );
        assert!(e.to_string().contains("line 4 (record 3, byte 57)"));
        let e = QueryError::FieldCount {
            record: 2,
            line: 2,
            byte: 20,
            expected: 7,
            found: 6,
        };
        assert_eq!(
            e.to_json().to_string(),
            r#"{"byte":20,"error":"field_count","expected":7,"found":6,"line":2,"record":2}"#
        );
        assert_eq!(line_at(b"a\nb\nc", 4), 3);
        assert_eq!(field_byte(b"a,\"b\"", 3), 2, "a quoted field: its quote");
        assert_eq!(field_byte(b"a,b", 2), 2);
        assert_eq!(field_byte(b"b", 0), 0);
    }

    #[test]
    fn a_common_marker_gets_a_suggestion_and_a_one_column_header_a_delimiter() {
        let e = |text: &[u8]| QueryError::InvalidNumber {
            record: 1,
            line: 2,
            byte: 8,
            column: "v".into(),
            text: text.to_vec(),
        };
        assert!(e(b"NULL").to_string().ends_with("run with --null NULL"));
        assert!(e(b"?").to_string().ends_with("run with --null '?'"));
        assert!(!e(b"abc").to_string().contains("--null"));
        let e = QueryError::MissingColumn {
            column: "city".into(),
            header: vec!["city;temp".into()],
        };
        assert!(e.to_string().contains("delimited by ';'"), "{e}");
    }

    #[test]
    fn an_unknown_line_is_left_out_not_printed_as_0() {
        let e = QueryError::FieldCount {
            record: 2,
            line: 0,
            byte: 0,
            expected: 7,
            found: 6,
        };
        assert_eq!(e.to_string(), "record 2 has 6 fields, but the header has 7");
    }
}
