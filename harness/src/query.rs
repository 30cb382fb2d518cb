//! What every query step (5 and later) shares: the query's options, its result, the
//! errors a typed query can meet, and how both are printed, so that any two query
//! steps can be compared from outside (`--json`).
//!
//! The query is `SELECT key, COUNT(*), SUM(value) FROM file GROUP BY key`, with SQL's
//! NULL rule (as DuckDB has it): an empty value is NULL, counted by `COUNT(*)` and
//! skipped by `SUM`; a group whose values are all NULL has a NULL sum.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value, json};

use crate::error::{ErrorKind, ParseError};
use crate::json::hex;

/// Which columns the query groups by and sums, by their names in the header: the
/// same type for every query step (and the baseline), so that one command line
/// ([`crate::query_cli`]) and one family of tests serve them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Query<'q> {
    /// The GROUP BY column (default `category`).
    pub group_by: &'q str,
    /// The SUM column (default `value`).
    pub sum: &'q str,
}

impl Default for Query<'_> {
    fn default() -> Self {
        Query {
            group_by: "category",
            sum: "value",
        }
    }
}

/// One group of the answer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Group {
    /// `COUNT(*)`: every record of the group, NULL values included.
    pub count: u64,
    /// `SUM(value)` over the non-NULL values; `None` when there were none (SQL NULL).
    pub sum: Option<f64>,
}

/// The answer: groups by key bytes, in key order.
pub type Groups = BTreeMap<Vec<u8>, Group>;

/// Why a query stopped. Records are 0-based indexes among all records, the header
/// being record 0; `line` is the 1-based line where the record starts.
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
    /// A record has another number of fields than the header.
    FieldCount {
        /// 0-based record index (the header is record 0).
        record: u64,
        /// 1-based line of the record's first byte; 0 when the source kept no lines.
        line: u64,
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
        /// The column's name.
        column: String,
        /// The field's cooked bytes.
        text: Vec<u8>,
    },
}

impl QueryError {
    /// The stable name printed as `"error"` in JSON.
    pub fn name(&self) -> &'static str {
        match self {
            QueryError::Parse(e) => e.kind().name(),
            QueryError::NoHeader => "no_header",
            QueryError::MissingColumn { .. } => "missing_column",
            QueryError::FieldCount { .. } => "field_count",
            QueryError::InvalidNumber { .. } => "invalid_number",
        }
    }

    /// The error as one JSON object, e.g.
    /// `{"error":"invalid_number","record":R,"column":"value","text":"…"}`.
    pub fn to_json(&self) -> Value {
        match self {
            QueryError::Parse(e) => {
                json!({"error": ErrorKind::UnterminatedQuote.name(), "record": e.record, "byte": e.byte})
            }
            QueryError::NoHeader => json!({"error": self.name()}),
            QueryError::MissingColumn { column, header } => {
                json!({"error": self.name(), "column": column, "header": header})
            }
            QueryError::FieldCount {
                record,
                expected,
                found,
                ..
            } => {
                json!({"error": self.name(), "record": record, "expected": expected, "found": found})
            }
            QueryError::InvalidNumber {
                record,
                column,
                text,
                ..
            } => {
                json!({"error": self.name(), "record": record, "column": column, "text": key_text(text)})
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
                write!(f, "no column named {column:?}; the header has {header:?}")
            }
            QueryError::FieldCount {
                record,
                line,
                expected,
                found,
            } => write!(
                f,
                "{} has {found} fields, but the header has {expected}",
                at(*line, *record)
            ),
            QueryError::InvalidNumber {
                record,
                line,
                column,
                text,
            } => write!(
                f,
                "{}, column {column:?}: {:?} is not a finite decimal number",
                at(*line, *record),
                key_text(text)
            ),
        }
    }
}

/// Where a record is, for a message: `line 7 (record 5)`, or `record 5` when the line
/// is 0, which no record has: the query read a source that kept no lines (step 8's
/// table).
fn at(line: u64, record: u64) -> String {
    match line {
        0 => format!("record {record}"),
        line => format!("line {line} (record {record})"),
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

/// A key (or any field) as text, without losing a byte: valid UTF-8 as it is but for
/// the backslash, written `\\`; each byte of an invalid sequence as `\xNN`. So the
/// key of the byte `0xFF` (`\xff`) and the key of the four characters `\xff`
/// (`\\xff`) stay two keys. The same text in the table and in JSON.
pub fn key_text(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{}", hex(&[*b])));
        }
    }
    out
}

/// The answer as JSON: `{"<key>": {"count": N, "sum": S}, …}`, keys as
/// [`key_text`] in the order of that text, `sum` `null` for a group without a
/// non-NULL value (SQL NULL). A finite sum prints as the shortest decimal that reads
/// back to the same bits; a sum that overflowed `f64` prints as the string `"inf"` or
/// `"-inf"` (JSON has no infinity, and `null` would read as SQL NULL).
pub fn groups_to_json(groups: &Groups) -> Value {
    let map: Map<String, Value> = groups
        .iter()
        .map(|(key, g)| {
            (
                key_text(key),
                json!({"count": g.count, "sum": sum_to_json(g.sum)}),
            )
        })
        .collect();
    Value::Object(map)
}

fn sum_to_json(sum: Option<f64>) -> Value {
    match sum {
        None => Value::Null,
        Some(s) if s.is_finite() => json!(s),
        Some(s) => Value::String(s.to_string()),
    }
}

/// The answer as an aligned text table: key, count, sum, one group a line.
pub fn groups_to_table(groups: &Groups, key_column: &str, sum_column: &str) -> String {
    let sum_header = format!("sum({sum_column})");
    let rows: Vec<[String; 3]> = groups
        .iter()
        .map(|(key, g)| {
            [
                key_text(key),
                g.count.to_string(),
                g.sum.map_or("NULL".into(), |s| format!("{s:.6}")),
            ]
        })
        .collect();
    let width = |i: usize, header: &str| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([header.len()])
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2) = (
        width(0, key_column),
        width(1, "count"),
        width(2, &sum_header),
    );
    let mut out = format!("{key_column:<w0$}  {:>w1$}  {sum_header:>w2$}\n", "count");
    for [k, c, s] in &rows {
        out += &format!("{k:<w0$}  {c:>w1$}  {s:>w2$}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_table_of_groups() {
        let mut groups = Groups::new();
        groups.insert(
            b"b".to_vec(),
            Group {
                count: 2,
                sum: Some(0.1 + 0.2),
            },
        );
        groups.insert(
            b"a\xff".to_vec(),
            Group {
                count: 1,
                sum: None,
            },
        );
        let json = groups_to_json(&groups).to_string();
        assert_eq!(
            json,
            r#"{"a\\xff":{"count":1,"sum":null},"b":{"count":2,"sum":0.30000000000000004}}"#
        );
        let table = groups_to_table(&groups, "category", "value");
        assert_eq!(
            table,
            "category  count  sum(value)\na\\xff         1        NULL\nb             2    0.300000\n"
        );
    }

    #[test]
    fn no_two_keys_print_alike_and_an_overflowed_sum_is_not_null() {
        let mut groups = Groups::new();
        groups.insert(
            b"\xff".to_vec(),
            Group {
                count: 1,
                sum: Some(f64::INFINITY),
            },
        );
        groups.insert(
            b"\\xff".to_vec(),
            Group {
                count: 2,
                sum: Some(f64::NEG_INFINITY),
            },
        );
        groups.insert(
            b"a\\b".to_vec(),
            Group {
                count: 3,
                sum: None,
            },
        );
        let json = groups_to_json(&groups);
        assert_eq!(json.as_object().unwrap().len(), 3, "{json}");
        assert_eq!(json[r"\xff"]["sum"], "inf");
        assert_eq!(json[r"\\xff"]["sum"], "-inf");
        assert_eq!(json[r"a\\b"]["sum"], Value::Null);
    }

    #[test]
    fn errors_print_their_position() {
        let e = QueryError::InvalidNumber {
            record: 3,
            line: 4,
            column: "value".into(),
            text: b"1e400".to_vec(),
        };
        assert_eq!(
            e.to_json().to_string(),
            r#"{"column":"value","error":"invalid_number","record":3,"text":"1e400"}"#
        );
        assert!(e.to_string().contains("line 4 (record 3)"));
        let e = QueryError::FieldCount {
            record: 2,
            line: 2,
            expected: 7,
            found: 6,
        };
        assert_eq!(
            e.to_json().to_string(),
            r#"{"error":"field_count","expected":7,"found":6,"record":2}"#
        );
        assert_eq!(line_at(b"a\nb\nc", 4), 3);
    }

    #[test]
    fn an_unknown_line_is_left_out_not_printed_as_0() {
        let e = QueryError::FieldCount {
            record: 2,
            line: 0,
            expected: 7,
            found: 6,
        };
        assert_eq!(e.to_string(), "record 2 has 6 fields, but the header has 7");
    }
}
