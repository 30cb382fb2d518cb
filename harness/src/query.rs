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

use crate::dialect::Dialect;
use crate::error::{ErrorKind, ParseError};
use crate::json::hex;

/// Which columns the query groups by and sums, and how it reads the file: the same
/// type for every query step (and the baseline), so that one command line
/// ([`crate::query_cli`]) and one family of tests serve them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Query<'q> {
    /// The GROUP BY column (default `category`): its name in the header, or its
    /// 1-based position ([`Query::columns`]).
    pub group_by: &'q str,
    /// The SUM column (default `value`), named the same way.
    pub sum: &'q str,
    /// Texts that mean NULL besides the empty field (`--null`, as DuckDB's `nullstr`):
    /// `NA`, `NULL`, …; none by default.
    pub nulls: &'q [String],
    /// The delimiter (`--delimiter`).
    pub dialect: Dialect,
    /// Whether the first record is a header (`--no-header`: false, and the columns
    /// are named by position).
    pub header: bool,
    /// The aggregates printed (`--agg`); every step computes them all but step 9's
    /// device, which leaves MIN and MAX to the host when they are asked for.
    pub aggs: Aggs,
}

impl Default for Query<'_> {
    fn default() -> Self {
        Query {
            group_by: "category",
            sum: "value",
            nulls: &[],
            dialect: Dialect::default(),
            header: true,
            aggs: Aggs::DEFAULT,
        }
    }
}

/// A set of the aggregates the answer shows: `COUNT(*)`, `SUM`, `MIN`, `MAX` and
/// `MEAN` (SQL's `AVG`: the sum over the non-NULL values, divided by their number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aggs(u8);

impl Default for Aggs {
    fn default() -> Aggs {
        Aggs::DEFAULT
    }
}

impl Aggs {
    /// `COUNT(*)`.
    pub const COUNT: Aggs = Aggs(1);
    /// `SUM(value)`.
    pub const SUM: Aggs = Aggs(2);
    /// `MIN(value)`.
    pub const MIN: Aggs = Aggs(4);
    /// `MAX(value)`.
    pub const MAX: Aggs = Aggs(8);
    /// `AVG(value)`.
    pub const MEAN: Aggs = Aggs(16);
    /// `count,sum`: the answer of every step before `--agg`.
    pub const DEFAULT: Aggs = Aggs(1 | 2);
    /// All five.
    pub const ALL: Aggs = Aggs(31);
    /// The names, in the order the answer shows them.
    pub const NAMES: [(&'static str, Aggs); 5] = [
        ("count", Aggs::COUNT),
        ("sum", Aggs::SUM),
        ("min", Aggs::MIN),
        ("max", Aggs::MAX),
        ("mean", Aggs::MEAN),
    ];

    /// Parses `count,sum,min,max,mean` (any of them, any order, at least one).
    ///
    /// # Errors
    /// The word that is not one of them.
    pub fn parse(text: &str) -> Result<Aggs, String> {
        let mut set = 0;
        for word in text.split(',').map(str::trim) {
            let (_, agg) = Aggs::NAMES
                .iter()
                .find(|(name, _)| *name == word)
                .ok_or_else(|| {
                    format!("--agg: {word:?} is not one of count, sum, min, max, mean")
                })?;
            set |= agg.0;
        }
        Ok(Aggs(set))
    }

    /// True when every aggregate of `other` is in the set.
    pub fn has(self, other: Aggs) -> bool {
        self.0 & other.0 == other.0
    }

    /// The set with `other`'s aggregates too.
    pub const fn with(self, other: Aggs) -> Aggs {
        Aggs(self.0 | other.0)
    }

    /// True when MIN or MAX is asked for.
    pub fn min_or_max(self) -> bool {
        self.0 & (Aggs::MIN.0 | Aggs::MAX.0) != 0
    }
}

/// Texts that files often use for a missing value: a value that is one of them and
/// is not a `--null` gets an error that suggests `--null`.
pub const COMMON_NULLS: [&str; 7] = ["NA", "N/A", "NULL", "null", "NaN", "-", "?"];

impl Query<'_> {
    // ANCHOR: nulls
    /// True when a value field is SQL NULL: empty, or one of [`Query::nulls`].
    #[inline]
    pub fn is_null(&self, field: &[u8]) -> bool {
        field.is_empty()
            || (!self.nulls.is_empty() && self.nulls.iter().any(|n| n.as_bytes() == field))
    }

    /// A key as the query groups it: a `--null` text is the NULL key, the same group
    /// as an empty field (so a file's `NA` keys and its empty keys are one group, as
    /// in DuckDB with `nullstr`).
    #[inline]
    pub fn key<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        if !self.nulls.is_empty() && self.is_null(key) {
            b""
        } else {
            key
        }
    }

    // ANCHOR_END: nulls

    // ANCHOR: columns
    /// The GROUP BY and SUM columns' indexes (0-based) in records of `width` fields
    /// whose first record is `first` (the header, or with `--no-header` the first data
    /// record). A column is found by its name in the header; failing that, a number
    /// `1..=width` is its position (so `--group-by 2` works with or without a header).
    ///
    /// # Errors
    /// [`QueryError::DuplicateColumn`] when the name is in the header twice (which one
    /// was meant is not for the engine to guess); [`QueryError::MissingColumn`] when it
    /// is neither a name nor a position; [`QueryError::NotAPosition`] with
    /// `--no-header` when it is not a position.
    pub fn columns(&self, first: &[&[u8]]) -> Result<(usize, usize), QueryError> {
        Ok((
            self.column(self.group_by, first)?,
            self.column(self.sum, first)?,
        ))
    }
    // ANCHOR_END: columns

    fn column(&self, spec: &str, first: &[&[u8]]) -> Result<usize, QueryError> {
        find_column(spec, first, self.header)
    }
}

/// The index of the column `spec` (a name in the header, or a 1-based position) in
/// records whose first record is `first`; with `header` false, positions only. As
/// [`Query::columns`], for one column.
///
/// # Errors
/// As [`Query::columns`].
pub fn find_column(spec: &str, first: &[&[u8]], header: bool) -> Result<usize, QueryError> {
    let position = spec
        .parse::<usize>()
        .ok()
        .filter(|&p| (1..=first.len()).contains(&p))
        .map(|p| p - 1);
    if !header {
        return position.ok_or_else(|| QueryError::NotAPosition {
            column: spec.to_string(),
            width: first.len(),
        });
    }
    let named: Vec<usize> = (0..first.len())
        .filter(|&k| first[k] == spec.as_bytes())
        .collect();
    match (named.as_slice(), position) {
        ([k], _) => Ok(*k),
        ([], Some(p)) => Ok(p),
        ([], None) => Err(QueryError::MissingColumn {
            column: spec.to_string(),
            header: first.iter().map(|n| key_text(n)).collect(),
        }),
        (many, _) => Err(QueryError::DuplicateColumn {
            column: spec.to_string(),
            positions: many.iter().map(|k| k + 1).collect(),
        }),
    }
}

/// One group of the answer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Group {
    /// `COUNT(*)`: every record of the group, NULL values included.
    pub count: u64,
    /// `SUM(value)` over the non-NULL values; `None` when there were none (SQL NULL).
    pub sum: Option<f64>,
    /// `MIN(value)`; `None` when there was no non-NULL value (or the step did not
    /// compute it: the baseline, step 9's device without `--agg min`).
    pub min: Option<f64>,
    /// `MAX(value)`, as `min`.
    pub max: Option<f64>,
    /// `AVG(value)`: the sum over the non-NULL values divided by their number; from
    /// an exact sum (steps 7 to 9) rounded once.
    pub mean: Option<f64>,
}

impl Group {
    /// The aggregate `agg` (one of [`Aggs::NAMES`]) as JSON: a number, `null`, or
    /// `"inf"`/`"-inf"` for a sum that overflowed.
    fn json(&self, agg: Aggs) -> Value {
        match agg {
            Aggs::COUNT => json!(self.count),
            Aggs::SUM => sum_to_json(self.sum),
            Aggs::MIN => sum_to_json(self.min),
            Aggs::MAX => sum_to_json(self.max),
            _ => sum_to_json(self.mean),
        }
    }

    /// The aggregate `agg` as the table shows it: six decimals, or `NULL`.
    fn text(&self, agg: Aggs) -> String {
        let number = |v: Option<f64>| v.map_or("NULL".into(), |s| format!("{s:.6}"));
        match agg {
            Aggs::COUNT => self.count.to_string(),
            Aggs::SUM => number(self.sum),
            Aggs::MIN => number(self.min),
            Aggs::MAX => number(self.max),
            _ => number(self.mean),
        }
    }
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
            QueryError::DuplicateColumn { .. } => "duplicate_column",
            QueryError::NotAPosition { .. } => "not_a_position",
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
            QueryError::DuplicateColumn { column, positions } => {
                json!({"error": self.name(), "column": column, "positions": positions})
            }
            QueryError::NotAPosition { column, width } => {
                json!({"error": self.name(), "column": column, "width": width})
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
                "--no-header: columns are named by position, 1 to {width}; {column:?} is not one"
            ),
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
            } => {
                write!(
                    f,
                    "{}, column {column:?}: {:?} is not a finite decimal number",
                    at(*line, *record),
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
        }
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
    groups_to_json_with(groups, Aggs::DEFAULT)
}

/// [`groups_to_json`] with the aggregates `aggs` (`--agg`), named as in
/// [`Aggs::NAMES`], in that order.
pub fn groups_to_json_with(groups: &Groups, aggs: Aggs) -> Value {
    let map: Map<String, Value> = groups
        .iter()
        .map(|(key, g)| {
            let fields: Map<String, Value> = Aggs::NAMES
                .iter()
                .filter(|(_, agg)| aggs.has(*agg))
                .map(|(name, agg)| (name.to_string(), g.json(*agg)))
                .collect();
            (key_text(key), Value::Object(fields))
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

/// The answer as the One Billion Row Challenge prints it: `{name=min/mean/max, ...}`,
/// sorted by name, one decimal each, the mean rounded half up as the challenge's
/// `Math.round(x * 10.0) / 10.0` ([`gen_csv::brc::answer_text`] writes the reference).
/// The values have one decimal, so ten times the sum and the extremes are integers
/// that the `f64`s hold exactly (to 2^53 / 10: about 9e14 degrees); the mean is then
/// computed from integers, rounded once.
pub fn groups_to_1brc(groups: &Groups) -> String {
    let tenths_of = |v: Option<f64>| v.map_or(0, |v| (v * 10.0).round() as i64);
    let parts: Vec<String> = groups
        .iter()
        .map(|(key, g)| {
            let count = g.count.max(1) as i128;
            let mean = gen_csv::brc::round_half_up(i128::from(tenths_of(g.sum)), count);
            format!(
                "{}={}/{}/{}",
                key_text(key),
                gen_csv::brc::tenths(tenths_of(g.min)),
                gen_csv::brc::tenths(mean as i64),
                gen_csv::brc::tenths(tenths_of(g.max))
            )
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The answer as an aligned text table: key, count, sum, one group a line.
pub fn groups_to_table(groups: &Groups, key_column: &str, sum_column: &str) -> String {
    groups_to_table_with(groups, key_column, sum_column, Aggs::DEFAULT)
}

/// [`groups_to_table`] with the aggregates `aggs`, one column each.
pub fn groups_to_table_with(
    groups: &Groups,
    key_column: &str,
    sum_column: &str,
    aggs: Aggs,
) -> String {
    let chosen: Vec<(&str, Aggs)> = Aggs::NAMES
        .iter()
        .copied()
        .filter(|(_, agg)| aggs.has(*agg))
        .collect();
    let mut headers = vec![key_column.to_string()];
    headers.extend(chosen.iter().map(|(name, agg)| match *agg {
        Aggs::COUNT => "count".to_string(),
        _ => format!("{name}({sum_column})"),
    }));
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|(key, g)| {
            let mut row = vec![key_text(key)];
            row.extend(chosen.iter().map(|(_, agg)| g.text(*agg)));
            row
        })
        .collect();
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([headers[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let mut out = format!("{:<w$}", cells[0], w = widths[0]);
        for (cell, w) in cells.iter().zip(&widths).skip(1) {
            out += &format!("  {cell:>w$}");
        }
        out + "\n"
    };
    let mut out = line(&headers);
    for row in &rows {
        out += &line(row);
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
                ..Group::default()
            },
        );
        groups.insert(
            b"a\xff".to_vec(),
            Group {
                count: 1,
                sum: None,
                ..Group::default()
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
                ..Group::default()
            },
        );
        groups.insert(
            b"\\xff".to_vec(),
            Group {
                count: 2,
                sum: Some(f64::NEG_INFINITY),
                ..Group::default()
            },
        );
        groups.insert(
            b"a\\b".to_vec(),
            Group {
                count: 3,
                sum: None,
                ..Group::default()
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
    fn columns_by_name_or_position_and_duplicates() {
        let header: Vec<&[u8]> = vec![b"k", b"v", b"k", b"2"];
        let q = |g, s| Query {
            group_by: g,
            sum: s,
            ..Query::default()
        };
        assert_eq!(q("v", "3").columns(&header), Ok((1, 2)));
        // A name wins over a position: column 4 is named "2".
        assert_eq!(q("2", "1").columns(&header), Ok((3, 0)));
        let e = q("k", "v").columns(&header).unwrap_err();
        assert_eq!(
            e,
            QueryError::DuplicateColumn {
                column: "k".into(),
                positions: vec![1, 3]
            }
        );
        assert_eq!(
            e.to_json().to_string(),
            r#"{"column":"k","error":"duplicate_column","positions":[1,3]}"#
        );
        assert!(matches!(
            q("5", "v").columns(&header),
            Err(QueryError::MissingColumn { .. })
        ));
        let no_header = Query {
            header: false,
            ..q("2", "v")
        };
        assert_eq!(
            no_header.columns(&header),
            Err(QueryError::NotAPosition {
                column: "v".into(),
                width: 4
            })
        );
    }

    #[test]
    fn null_texts_and_the_null_key() {
        let nulls = ["NA".to_string(), "-".to_string()];
        let q = Query {
            nulls: &nulls,
            ..Query::default()
        };
        assert!(q.is_null(b"") && q.is_null(b"NA") && q.is_null(b"-"));
        assert!(!q.is_null(b"na") && !q.is_null(b"0"));
        assert_eq!(q.key(b"NA"), b"");
        assert_eq!(q.key(b"NAB"), b"NAB");
        assert!(Query::default().is_null(b"") && !Query::default().is_null(b"NA"));
    }

    #[test]
    fn a_common_marker_gets_a_suggestion_and_a_one_column_header_a_delimiter() {
        let e = |text: &[u8]| QueryError::InvalidNumber {
            record: 1,
            line: 2,
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
            expected: 7,
            found: 6,
        };
        assert_eq!(e.to_string(), "record 2 has 6 fields, but the header has 7");
    }
}
