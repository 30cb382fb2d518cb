//! The payoff query, end to end from the bytes:
//! `SELECT key, COUNT(*), SUM(value) GROUP BY key`, over the field views of this
//! step's parser, with the values parsed straight from the views ([`crate::value`])
//! and the groups kept in a table ([`crate::table`]), or, once the groups are too many
//! for it, the rows set aside by partition ([`crate::scatter`]): one aggregator a
//! thread, over that thread's chunks ([`crate::parallel`]), all merged partition by
//! partition at the end ([`crate::merge`]).

use std::borrow::Cow;

use harness::query::{Groups, Place, QueryError};

use crate::Record;
use crate::exact::{Number, parse_number};
use crate::lanes16::parse_simd_fixed;
use crate::project::{Row, plain_span, raw_cooked};
use crate::scatter::{self, Scattered};
use crate::table::{GroupBy, GroupTable, QueryTable};

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
    pub(crate) table: T,
    /// The rows set aside instead of added, once the table no longer pays
    /// ([`crate::scatter`]).
    pub(crate) scattered: Option<Scattered>,
    /// The table's groups and the records at the last review ([`Aggregator::review`]).
    pub(crate) reviewed: (usize, u64),
}

/// Records between two reviews of whether the table still pays
/// ([`Aggregator::review`]): as many as the groups the table holds before it may
/// give up, so that no more than those go into a table past the cache.
pub const REVIEW: u64 = scatter::SCATTER_FROM as u64;

impl<'q, T: GroupBy> Aggregator<'q, T> {
    /// Ready for the header.
    pub fn new(query: Query<'q>) -> Aggregator<'q, T> {
        Aggregator {
            query,
            columns: None,
            records: 0,
            table: T::default(),
            scattered: None,
            reviewed: (0, 0),
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
    ) -> Result<Option<Number>, QueryError> {
        if self.query.is_null(&text) {
            return Ok(None); // empty, or a `--null` text
        }
        parse_number(&text).map_err(|_| QueryError::InvalidNumber {
            record: index,
            place: place(),
            column: self.query.sum.to_string(),
            text: text.into_owned(),
        })
    }

    // ANCHOR: add_row
    /// [`Aggregator::add`] for a row of the projected walk over `input`, after the
    /// first record. The common row takes the fast path: the header's width, a
    /// plain decimal value parsed straight from the input's bytes ([`parse_simd_fixed`]),
    /// a key looked up as it lies in the input (a quoted key between its quotes,
    /// [`plain_span`]), neither of them a `--null` text; anything else (a key with a
    /// `""` pair or text after its closing quote, a quoted or empty value, a `--null`
    /// text, a value [`parse_simd_fixed`] does not take, a width that differs) goes to the
    /// general path (`add_row_slow`, out of line), through the cooked bytes, as
    /// [`Aggregator::add`].
    ///
    /// # Errors
    /// As [`Aggregator::add`].
    ///
    /// # Panics
    /// Before the first record was added.
    //
    // Inlined into the walk's loop, with the parse and the key lookup. Left to
    // itself, the compiler inlines them in some builds and not in others, and three
    // calls a row then cost register saves and moves in every row. The slow path is
    // out of line, so that the fast one needs fewer registers.
    #[inline(always)]
    pub fn add_row(&mut self, input: &[u8], row: &Row) -> Result<(), QueryError> {
        let (_, _, width) = self.columns.expect("the first record names the columns");
        let [key, (value_start, value_end)] = row.fields;
        if row.width == width
            && let Some((key_start, key_end)) = plain_span(input, key)
            && self
                .query
                .neither_null(input, (key_start, key_end), (value_start, value_end))
            && let Some(number) = parse_simd_fixed(input, value_start, value_end)
        {
            self.records += 1;
            match &mut self.scattered {
                Some(rows) if rows.is_on() => {
                    let table = &self.table;
                    let held = || table.contains_at(input, key_start, key_end);
                    rows.push(input, (key_start, key_end), number, held);
                }
                _ => self
                    .table
                    .entry_at(input, key_start, key_end)
                    .add(Some(Number::Fixed(number))),
            }
            return Ok(());
        }
        self.add_row_slow(input, row)
    }

    /// [`Aggregator::add_row`] for the rows its fast path does not take.
    ///
    /// # Errors
    /// As [`Aggregator::add`].
    #[cold]
    #[inline(never)]
    fn add_row_slow(&mut self, input: &[u8], row: &Row) -> Result<(), QueryError> {
        let index = self.records;
        self.records += 1;
        let (_, _, width) = self.columns.expect("the first record names the columns");
        if row.width != width {
            return Err(QueryError::FieldCount {
                record: index,
                place: Some(Place::of(input, row.start, row.start)),
                expected: width,
                found: row.width,
            });
        }
        let [(key_start, key_end), (value_start, value_end)] = row.fields;
        let plain = self.query.nulls.is_empty();
        let fast = if plain {
            parse_simd_fixed(input, value_start, value_end)
        } else {
            None
        };
        let number = match fast {
            Some(v) => Some(Number::Fixed(v)),
            None => {
                // `value_start` is the raw field's: its quote, if it has one.
                let place = || Some(Place::of(input, row.start, value_start));
                let value = &input[value_start..value_end];
                self.value_of(raw_cooked(value), index, place)?
            }
        };
        let cooked = raw_cooked(&input[key_start..key_end]);
        self.table.entry(self.query.key(&cooked)).add(number);
        Ok(())
    }
    // ANCHOR_END: add_row

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
    /// [`QueryError::NoHeader`] when no record was added;
    /// [`QueryError::SumOutOfRange`] when the query shows SUM and a group's exact sum
    /// is beyond `f64`'s range (its rounding is infinite), whatever the order its
    /// values came in.
    pub fn finish(self) -> Result<Groups, QueryError> {
        if self.columns.is_none() {
            return Err(QueryError::NoHeader);
        }
        let groups = self.table.to_groups();
        groups.check_exact_sums(self.query)?;
        Ok(groups)
    }
}

impl Aggregator<'_, GroupTable> {
    // ANCHOR: review
    /// Decides, every [`REVIEW`] records, whether the next rows are added to the
    /// table or set aside by partition ([`Scattered::pays`], [`Scattered::review`]),
    /// from what the rows since the last review did; rows set aside go to `2^bits`
    /// partitions ([`crate::scatter::bits`]).
    pub fn review(&mut self, bits: u32) {
        let (groups, records) = (self.table.len(), self.records);
        let new = groups - self.reviewed.0;
        let rows = records - self.reviewed.1;
        match &mut self.scattered {
            Some(scattered) => scattered.review(groups, new, rows),
            None if Scattered::pays(groups, new, rows) => {
                self.scattered = Some(Scattered::new(bits));
            }
            None => {}
        }
        self.reviewed = (groups, records);
    }
    // ANCHOR_END: review
}

impl<'q, T: GroupBy> Aggregator<'q, T> {
    /// A new aggregator for another chunk: the same query and columns, no groups.
    pub fn fork(&self) -> Aggregator<'q, T> {
        Aggregator {
            columns: self.columns,
            ..Aggregator::new(self.query)
        }
    }
}
