//! What every query step (5 and later) shares: the query's options (its columns, by
//! name or position; the NULL texts; the delimiter; the aggregates). Its answer is in
//! [`crate::query::answer`], its errors in [`crate::query::error`], both re-exported here.
//!
//! The query is `SELECT key, COUNT(*), SUM(value) FROM file GROUP BY key`, with SQL's
//! NULL rule (as DuckDB has it): an empty value is NULL, counted by `COUNT(*)` and
//! skipped by `SUM`; a group whose values are all NULL has a NULL sum.

pub mod answer;
pub mod args;
pub mod cli;
pub mod error;
pub mod groups;

use crate::dialect::Dialect;

pub use crate::query::answer::{
    BrcError, Group, Groups, GroupsBuilder, first_difference, groups_to_1brc, groups_to_json,
    groups_to_json_with, groups_to_table, groups_to_table_with, key_text, same_answer,
};
pub use crate::query::error::{Place, QueryError, field_byte, line_at};

/// Which columns the query groups by and sums, and how it reads the file: the same
/// type for every query step (and the baseline), so that one command line
/// ([`crate::query::cli`]) and one family of tests serve them all.
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
    /// The aggregates printed (`--agg`); every step computes them all but step 13's
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
    /// [`NotAnAggregate`]: the word that is not one of them.
    pub fn parse(text: &str) -> Result<Aggs, NotAnAggregate> {
        let mut set = 0;
        for word in text.split(',').map(str::trim) {
            let (_, agg) = Aggs::NAMES
                .iter()
                .find(|(name, _)| *name == word)
                .ok_or_else(|| NotAnAggregate(word.to_string()))?;
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

/// An `--agg` word that is not one of `count`, `sum`, `min`, `max`, `mean`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--agg: {0:?} is not one of count, sum, min, max, mean")]
pub struct NotAnAggregate(pub String);

/// Texts that files often use for a missing value: a value that is one of them and
/// is not a `--null` gets an error that suggests `--null`.
pub const COMMON_NULLS: [&str; 7] = ["NA", "N/A", "NULL", "null", "NaN", "-", "?"];

impl Query<'_> {
    // ANCHOR: nulls
    /// True when a value field is SQL NULL: empty, or one of [`Query::nulls`].
    #[inline]
    pub fn is_null(&self, field: &[u8]) -> bool {
        field.is_empty() || is_null_text(self.nulls, field)
    }

    /// A key as the query groups it: a `--null` text is the NULL key, the same group
    /// as an empty field (so a file's `NA` keys and its empty keys are one group, as
    /// in DuckDB with `nullstr`).
    #[inline]
    pub fn key<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        if is_null_text(self.nulls, key) {
            b""
        } else {
            key
        }
    }

    /// True when neither a row's key nor its value, the bytes `input[key.0..key.1]`
    /// and `input[value.0..value.1]` (unquoted, as written), is a `--null` text: the
    /// test of the query steps' fast paths, which look a key up as it lies in the
    /// input. Without `--null` texts (the common case) it is one length test.
    ///
    /// # Panics
    /// When there are `--null` texts and a range is not within `input`.
    #[inline]
    pub fn neither_null(&self, input: &[u8], key: (usize, usize), value: (usize, usize)) -> bool {
        self.nulls.is_empty() || self.neither_null_text(input, key, value)
    }

    // Out of line: inlined, its slicing cost the fast path of a query without
    // `--null` 12 instructions a row (step 7, callgrind), though it never runs there.
    #[inline(never)]
    fn neither_null_text(&self, input: &[u8], key: (usize, usize), value: (usize, usize)) -> bool {
        !is_null_text(self.nulls, &input[key.0..key.1])
            && !is_null_text(self.nulls, &input[value.0..value.1])
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

/// True when `field` is one of the `--null` texts `nulls` (the check costs one length
/// test when there are none: the common case).
#[inline]
pub fn is_null_text(nulls: &[String], field: &[u8]) -> bool {
    !nulls.is_empty() && nulls.iter().any(|n| n.as_bytes() == field)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
