//! The projected walk: the query reads two fields of each record, so the walk keeps
//! only their bounds, not a span of every field ([`crate::record`]'s record).
//!
//! ```text
//! record start r, n = 0 delimiters; at each byte the scanner stops on, outside quotes:
//!     a delimiter: n += 1; next[min(n, last)] = i + 1   (field n starts; one store, no branch)
//!     an LF:       the width is n + 1; field f is next[f] .. next[f+1] - 1 (f < last);
//!                  hand out (r, n + 1, key field, value field); r = i + 1, n = 0
//! ```
//!
//! It is step 4's walk with the span pushes taken out: the same state machine, the
//! same scanner jumping over the bytes of a field. Fields past the last one the
//! query reads all land in one spare slot, so a record of 7 fields and one of 700
//! cost the same stores. A field is handed out as written (a quoted field with its
//! quotes): the query cooks only the rare field that starts with a quote
//! ([`raw_cooked`]), so the walk tracks no `""` pairs.

use std::borrow::Cow;

use harness::ParseError;
use harness::spec::dialect::{CR, DELIMITER, LF, QUOTE};

use crate::machine::{Parser, State};
use crate::record::Field;
use crate::scan::Scanner;

// ANCHOR: row
/// One record as the projected walk hands it out: where it starts, how many fields
/// it has, and the two fields the query reads, as byte ranges of the input
/// (`start..end`, a quoted field with its quotes; cook it with [`raw_cooked`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// Offset of the record's first byte.
    pub start: usize,
    /// Fields in the record.
    pub width: usize,
    /// The fields asked for, in the order asked; `(0, 0)` for one past the width.
    pub fields: [(usize, usize); 2],
}
// ANCHOR_END: row

/// Where each field of the current record starts, for the fields up to the last one
/// asked for; every field after that shares the spare last slot.
struct Bounds {
    /// `next[f]` is the first byte of field `f`; `next[last]` is the spare slot.
    next: Vec<usize>,
    last: usize,
    wanted: [usize; 2],
}

impl Bounds {
    /// Bounds for the fields `wanted`, of a record that starts at `record`.
    fn new(wanted: [usize; 2], record: usize) -> Bounds {
        let last = wanted[0].max(wanted[1]) + 2;
        Bounds {
            next: vec![record; last + 1],
            last,
            wanted,
        }
    }

    /// The first byte of field `n`, the current one (`next[0]` is the record's start).
    #[inline(always)]
    fn start_of(&self, n: usize) -> usize {
        self.next[n.min(self.last)]
    }

    /// The row of a record that starts at `start` and has `width` fields, the last
    /// of which ends at `end`.
    #[inline(always)]
    fn row(&mut self, start: usize, width: usize, end: usize) -> Row {
        self.next[width.min(self.last)] = end + 1;
        let field = |f: usize| match f < width {
            true => (self.next[f], self.next[f + 1] - 1),
            false => (0, 0),
        };
        Row {
            start,
            width,
            fields: [field(self.wanted[0]), field(self.wanted[1])],
        }
    }
}

impl Parser {
    /// The records from `from` (a record start) to the end of `input`, each handed to
    /// `on_row` as the fields `wanted` (0-based), scanning with the tier `S`.
    ///
    /// # Errors
    /// [`ParseError`] on an unterminated quote, after every record before it; its
    /// record counts from `from`.
    pub fn walk_projected<S: Scanner>(
        &mut self,
        input: &[u8],
        from: usize,
        wanted: [usize; 2],
        on_row: impl FnMut(&Row),
    ) -> Result<(), ParseError> {
        // The delimiter as a constant for the common four, as in step 4's walk.
        match self.delimiter {
            DELIMITER => self.project::<S, DELIMITER>(input, from, wanted, on_row),
            b';' => self.project::<S, b';'>(input, from, wanted, on_row),
            b'\t' => self.project::<S, b'\t'>(input, from, wanted, on_row),
            b'|' => self.project::<S, b'|'>(input, from, wanted, on_row),
            _ => self.project::<S, 0>(input, from, wanted, on_row),
        }
    }

    // ANCHOR: walk_projected
    /// [`Parser::walk_projected`] with the delimiter `D` (the parser's when `D` is 0):
    /// step 4's walk, a store of a field's start where it pushed a span.
    fn project<S: Scanner, const D: u8>(
        &mut self,
        input: &[u8],
        from: usize,
        wanted: [usize; 2],
        mut on_row: impl FnMut(&Row),
    ) -> Result<(), ParseError> {
        use State::*;
        let delimiter = if D == 0 { self.delimiter } else { D };
        let mut bounds = Bounds::new(wanted, from);
        let (mut record, mut n) = (from, 0); // the record's first byte; delimiters seen
        let mut produced = 0u64; // records handed out, for the error's position
        let mut state = StartRecord;
        let mut i = from;
        while i < input.len() {
            state = match (state, input[i]) {
                (Quoted, QUOTE) => QuoteInQuoted,
                (Quoted, _) => Quoted,
                (QuoteInQuoted, QUOTE) => Quoted, // `""`: cooking finds the pairs
                (StartRecord | StartField, QUOTE) => Quoted,
                (_, CR) if input.get(i + 1) == Some(&LF) => state, // the LF decides
                (StartRecord, LF) => {
                    record = i + 1; // a blank line is no record
                    bounds.next[0] = record;
                    StartRecord
                }
                (_, LF) => {
                    let end = if input[i - 1] == CR { i - 1 } else { i };
                    on_row(&bounds.row(record, n + 1, end));
                    produced += 1;
                    (record, n) = (i + 1, 0);
                    bounds.next[0] = record;
                    StartRecord
                }
                (_, b) if b == delimiter => {
                    n += 1;
                    bounds.next[n.min(bounds.last)] = i + 1;
                    StartField
                }
                (_, _) => Unquoted, // after a closing quote too (lenient, rule 7)
            };
            i += 1;
            // Inside a field, jump to the next byte that can end it (step 4's idea).
            let rest = &input[i..];
            i += match state {
                Unquoted => S::find_field_end(rest, delimiter).unwrap_or(rest.len()),
                Quoted => S::find_quote(rest).unwrap_or(rest.len()),
                StartRecord | StartField | QuoteInQuoted => 0,
            };
        }
        match state {
            StartRecord => {}
            Quoted => {
                let start = bounds.start_of(n); // the open field's quote
                return Err(ParseError::unterminated_quote(input, produced, start));
            }
            StartField | Unquoted | QuoteInQuoted => {
                // The last record may lack a terminator.
                on_row(&bounds.row(record, n + 1, input.len()));
            }
        }
        Ok(())
    }
    // ANCHOR_END: walk_projected
}

// ANCHOR: raw_cooked
/// The cooked bytes of a field as the projected walk hands it out: the bytes as they
/// are unless the field starts with a quote; then the bytes between the quotes,
/// borrowed when they hold no `""` pair and nothing follows the closing quote, else
/// unescaped into a new `Vec` ([`Field::cooked`]).
#[inline]
pub fn raw_cooked(raw: &[u8]) -> Cow<'_, [u8]> {
    if raw.first() != Some(&QUOTE) {
        return Cow::Borrowed(raw);
    }
    if let [QUOTE, inside @ .., QUOTE] = raw
        && !inside.contains(&QUOTE)
    {
        return Cow::Borrowed(inside);
    }
    Field {
        raw,
        needs_unescape: true,
    }
    .cooked()
}
// ANCHOR_END: raw_cooked
