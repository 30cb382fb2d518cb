//! Why a query stopped: the errors a typed query can meet, in words (with where) and
//! as JSON, the same for every query step.

use serde_json::{Value, json};

use crate::error::ParseError;
use crate::query::COMMON_NULLS;
use crate::query::answer::key_text;

/// Why a query stopped. Records are 0-based indexes among all records, the header
/// being record 0; where in the input an error is, when the source kept it, is a
/// [`Place`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum QueryError {
    /// The CSV breaks the dialect.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The input has no record at all, so no header to find the columns in.
    #[error("the input is empty: there is no header to find the columns in")]
    NoHeader,
    /// A column named in the query is not in the header.
    #[error(
        "no column named {column:?}; the header has {header:?}{}",
        delimiter_hint(header)
    )]
    MissingColumn {
        /// The name asked for.
        column: String,
        /// The header's names, as text.
        header: Vec<String>,
    },
    /// A column named in the query is in the header more than once.
    #[error(
        "the header has {} columns named {column:?}, at positions {}; name the one \
         you mean by its position (e.g. --group-by {})",
        positions.len(),
        positions.iter().map(usize::to_string).collect::<Vec<_>>().join(" and "),
        positions[0]
    )]
    DuplicateColumn {
        /// The name asked for.
        column: String,
        /// Its 1-based positions in the header.
        positions: Vec<usize>,
    },
    /// `--no-header`, and a column asked for is not a position `1..=width`.
    #[error(
        "this file is read without a header, so columns are named by position, 1 to \
         {width}; {column:?} is not one"
    )]
    NotAPosition {
        /// What was asked for.
        column: String,
        /// Fields in the first record.
        width: usize,
    },
    /// A record has another number of fields than the header.
    #[error("{} has {found} fields, but the header has {expected}", at(*record, *place))]
    FieldCount {
        /// 0-based record index (the header is record 0).
        record: u64,
        /// Where the record starts (its first byte); `None` when the source kept no
        /// lines or offsets (step 1's owned records, a saved table).
        place: Option<Place>,
        /// Fields in the header.
        expected: usize,
        /// Fields in this record.
        found: usize,
    },
    /// A value is not a finite decimal number.
    #[error(
        "{}, column {column:?}: {:?} is not a finite decimal number{}",
        at(*record, *place),
        key_text(text),
        null_hint(text)
    )]
    InvalidNumber {
        /// 0-based record index (the header is record 0).
        record: u64,
        /// The line where the record starts, and the field's first byte, its opening
        /// quote if it is quoted ([`Place::of`]); `None` when the source kept no
        /// lines or offsets.
        place: Option<Place>,
        /// The column's name.
        column: String,
        /// The field's cooked bytes.
        text: Vec<u8>,
    },
    /// A group's exact sum lies past the largest `f64` (about 1.8e308): no `f64` holds
    /// it. Only the steps whose sums are exact raise it ([`crate::query::Groups::
    /// check_exact_sums`]); a row-order `f64` sum overflows to `inf`, as IEEE 754 has it.
    #[error(
        "SUM({column}) of the group {:?} is past the range of a 64-bit float: its \
         exact value is beyond 1.8e308 in magnitude",
        key_text(key)
    )]
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
    /// `{"error":"invalid_number","record":R,"column":"value","text":"…"}`, with
    /// `"line"` and `"byte"` where the error has a [`Place`].
    pub fn to_json(&self) -> Value {
        match self {
            QueryError::Parse(e) => e.to_json_value(),
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
                place,
                expected,
                found,
            } => with_place(
                json!({"error": self.name(), "record": record, "expected": expected, "found": found}),
                *place,
            ),
            QueryError::InvalidNumber {
                record,
                place,
                column,
                text,
            } => with_place(
                json!({"error": self.name(), "record": record, "column": column, "text": key_text(text)}),
                *place,
            ),
            QueryError::SumOutOfRange { column, key } => {
                json!({"error": self.name(), "column": column, "key": key_text(key)})
            }
        }
    }
}

/// `error` with `"line"` and `"byte"` added, as the message gives them, when the error
/// has a place.
fn with_place(mut error: Value, place: Option<Place>) -> Value {
    if let Some(Place { line, byte }) = place {
        error["line"] = line.into();
        error["byte"] = byte.into();
    }
    error
}

/// Where an error is, for a message: `line 7 (record 5, byte 130)`, or `record 5`
/// for a source that kept no lines or offsets.
fn at(record: u64, place: Option<Place>) -> String {
    match place {
        Some(Place { line, byte }) => format!("line {line} (record {record}, byte {byte})"),
        None => format!("record {record}"),
    }
}

/// For a one-column header that holds a likely delimiter: how to run with it.
fn delimiter_hint(header: &[String]) -> String {
    let [only] = header else {
        return String::new();
    };
    match [b';', b'\t', b'|']
        .iter()
        .find(|&&d| only.contains(d as char))
    {
        Some(&d) => {
            let arg = if d == b'\t' {
                "'\\t'".to_string()
            } else {
                format!("'{}'", d as char)
            };
            format!(
                " (one column: is the file delimited by {:?}? then run with --delimiter {arg})",
                d as char
            )
        }
        None => String::new(),
    }
}

/// For a value that is a common marker of a missing value: how to read it as NULL.
fn null_hint(text: &[u8]) -> String {
    match std::str::from_utf8(text) {
        Ok(marker) if COMMON_NULLS.contains(&marker) => format!(
            "; if {marker:?} marks a missing value, run with --null {}",
            shell_word(marker)
        ),
        _ => String::new(),
    }
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

/// 1-based line of byte `offset` of `input`: the LFs before it, plus one. For error
/// messages only: it scans `input[..offset]`.
pub fn line_at(input: &[u8], offset: usize) -> u64 {
    input[..offset].iter().filter(|&&b| b == b'\n').count() as u64 + 1
}

/// Where in the input an error is: the line its record starts on, and the byte
/// offset of what it names (the record's first byte, or a field's: [`field_byte`]).
/// An error whose source kept no lines or offsets has no `Place` (`Option<Place>`),
/// never a made-up one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// 1-based line of the record's first byte (the LFs before it, plus one).
    pub line: u64,
    /// 0-based byte offset.
    pub byte: u64,
}

impl Place {
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
            place: Some(Place { line: 4, byte: 57 }),
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
            place: Some(Place { line: 2, byte: 20 }),
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
            place: Some(Place { line: 2, byte: 8 }),
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
    fn an_error_without_a_place_names_its_record_only() {
        let e = QueryError::FieldCount {
            record: 2,
            place: None,
            expected: 7,
            found: 6,
        };
        assert_eq!(e.to_string(), "record 2 has 6 fields, but the header has 7");
        assert_eq!(
            e.to_json().to_string(),
            r#"{"error":"field_count","expected":7,"found":6,"record":2}"#
        );
    }

    #[test]
    fn the_messages_of_the_columns_read_as_sentences() {
        let e = QueryError::DuplicateColumn {
            column: "v".into(),
            positions: vec![2, 5],
        };
        assert_eq!(
            e.to_string(),
            "the header has 2 columns named \"v\", at positions 2 and 5; name the one you \
             mean by its position (e.g. --group-by 2)"
        );
        let e = QueryError::MissingColumn {
            column: "city".into(),
            header: vec!["city\ttemp".into()],
        };
        assert_eq!(
            e.to_string(),
            "no column named \"city\"; the header has [\"city\\ttemp\"] (one column: is the \
             file delimited by '\\t'? then run with --delimiter '\\t')"
        );
        let e = QueryError::MissingColumn {
            column: "city".into(),
            header: vec!["a".into(), "b".into()],
        };
        assert_eq!(
            e.to_string(),
            "no column named \"city\"; the header has [\"a\", \"b\"]"
        );
        let e = QueryError::InvalidNumber {
            record: 4,
            place: None,
            column: "v".into(),
            text: b"NA".to_vec(),
        };
        assert_eq!(
            e.to_string(),
            "record 4, column \"v\": \"NA\" is not a finite decimal number; if \"NA\" marks \
             a missing value, run with --null NA"
        );
    }
}
