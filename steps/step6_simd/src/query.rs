//! The payoff query, end to end from the bytes:
//! `SELECT key, COUNT(*), SUM(value) GROUP BY key`, over the field views of this
//! step's parser, with the values parsed straight from the views ([`crate::value`])
//! and the groups kept in a table ([`crate::table`]).
//!
//! The aggregator is here; [`crate::serial`] runs it over a whole input, on one core.

use std::borrow::Cow;

use harness::query::{Groups, Place, QueryError};

use crate::Record;
use crate::table::{GroupBy, QueryTable};
use crate::value::parse_value;

/// Which columns the query groups by and sums: the harness's, as every query step's.
pub use harness::query::Query;

/// A record as the aggregation sees it: a number of fields and their cooked bytes.
/// This step's views and step 1's owned records both provide it, so the same
/// aggregation runs on both parsers (the speedup and the first cross-check).
pub trait Fields {
    /// Fields in the record.
    fn width(&self) -> usize;
    /// The cooked bytes of field `k` (borrowed wherever the parser allows).
    fn cooked(&self, k: usize) -> Cow<'_, [u8]>;
}

impl Fields for Record<'_, '_> {
    fn width(&self) -> usize {
        Record::len(self)
    }
    fn cooked(&self, k: usize) -> Cow<'_, [u8]> {
        self.field(k).cooked()
    }
}

impl Fields for [Vec<u8>] {
    fn width(&self) -> usize {
        <[Vec<u8>]>::len(self)
    }
    fn cooked(&self, k: usize) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self[k])
    }
}

/// The aggregation, one record at a time: the header names the columns, every
/// other record adds to its group.
pub struct Aggregator<'q, T = QueryTable> {
    query: Query<'q>,
    /// `(key column, value column, header width)` once the header is read.
    pub(crate) columns: Option<(usize, usize, usize)>,
    /// Records added, the header included: errors count records from here.
    pub(crate) records: u64,
    table: T,
}

impl<'q, T: GroupBy> Aggregator<'q, T> {
    /// Ready for the header.
    pub fn new(query: Query<'q>) -> Aggregator<'q, T> {
        Aggregator {
            query,
            columns: None,
            records: 0,
            table: T::default(),
        }
    }

    // ANCHOR: add
    /// Adds one record; `place(k)` gives where it and its field `k` are, when the
    /// source knows, asked only to report an error.
    ///
    /// # Errors
    /// [`QueryError::MissingColumn`] (or `DuplicateColumn`, `NotAPosition`) when a
    /// queried column is not found in the first record,
    /// [`QueryError::FieldCount`] for a record whose width differs from the header's,
    /// [`QueryError::InvalidNumber`] for a value that is not a finite number.
    #[inline]
    pub fn add(
        &mut self,
        record: &(impl Fields + ?Sized),
        place: impl FnOnce(usize) -> Option<Place>,
    ) -> Result<(), QueryError> {
        let index = self.records;
        self.records += 1;
        let (key, value, width) = match self.columns {
            Some(columns) => columns,
            None => {
                let columns = self.find_columns(record)?;
                self.columns = Some(columns);
                if self.query.header {
                    return Ok(()); // the header only names the columns
                }
                columns // `--no-header`: the first record is data too
            }
        };
        if record.width() != width {
            return Err(QueryError::FieldCount {
                record: index,
                place: place(0),
                expected: width,
                found: record.width(),
            });
        }
        let number = self.value_of(record.cooked(value), index, || place(value))?;
        self.table
            .entry(self.query.key(&record.cooked(key)))
            .add(number);
        Ok(())
    }
    // ANCHOR_END: add

    /// [`Aggregator::add`] for a record of this step's parser over `input`: an error
    /// names the record's line and its field's byte ([`Place::of`]).
    ///
    /// # Errors
    /// As [`Aggregator::add`].
    pub fn add_record(&mut self, input: &[u8], record: &Record<'_, '_>) -> Result<(), QueryError> {
        let spans = record.spans();
        self.add(record, |k| {
            Some(Place::of(input, spans[0].start, spans[k].start))
        })
    }

    /// The value of record `index` from its cooked bytes `text`: NULL (empty, or a
    /// `--null` text), a number, or [`QueryError::InvalidNumber`] at the place that
    /// `place` gives.
    fn value_of(
        &self,
        text: Cow<'_, [u8]>,
        index: u64,
        place: impl FnOnce() -> Option<Place>,
    ) -> Result<Option<f64>, QueryError> {
        if self.query.is_null(&text) {
            return Ok(None); // empty, or a `--null` text
        }
        parse_value(&text).map_err(|_| QueryError::InvalidNumber {
            record: index,
            place: place(),
            column: self.query.sum.to_string(),
            text: text.into_owned(),
        })
    }

    /// The columns' indexes and the width, from the first record (the header, or
    /// with `--no-header` the first data record): [`Query::columns`].
    fn find_columns(
        &self,
        first: &(impl Fields + ?Sized),
    ) -> Result<(usize, usize, usize), QueryError> {
        let cooked: Vec<Cow<'_, [u8]>> = (0..first.width()).map(|k| first.cooked(k)).collect();
        let names: Vec<&[u8]> = cooked.iter().map(|c| &**c).collect();
        let (key, value) = self.query.columns(&names)?;
        Ok((key, value, first.width()))
    }

    /// The answer: the groups in key order.
    ///
    /// # Errors
    /// [`QueryError::NoHeader`] when no record was added.
    pub fn finish(self) -> Result<Groups, QueryError> {
        if self.columns.is_none() {
            return Err(QueryError::NoHeader);
        }
        Ok(self.table.to_groups())
    }
}
