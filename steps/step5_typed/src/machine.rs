//! The parser: the dialect's state machine over the input, and the [`Parser`] that
//! walks it and hands out each record as a view ([`crate::record`]).

use crate::scan::{Best, Scanner};
use harness::ParseError;
use harness::dialect::{CR, DELIMITER, LF, QUOTE, bom_len};

use crate::record::{Record, Span};

// ANCHOR: state
/// Where the parser is, one byte at a time: step 1's four states and `StartRecord`,
/// which this step needs because one machine now also finds where records end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// At the first byte of a record: an LF (or CR LF) here is a blank line, no record.
    StartRecord,
    /// At the first byte of a field after a delimiter: a quote here opens a quoted field.
    StartField,
    /// Inside a field that is not quoted, or in the bytes after a closing quote.
    Unquoted,
    /// Inside a quoted field: delimiters, CR and LF are data.
    Quoted,
    /// Just after a quote inside a quoted field: either it closes the field, or the
    /// next byte is a quote too and the pair is one literal quote.
    QuoteInQuoted,
}
// ANCHOR_END: state

/// The parser: the one state machine, and the spans of the record it is in, kept
/// between records and between passes so that a warm parser allocates nothing.
#[derive(Clone, Debug)]
pub struct Parser {
    pub(crate) spans: Vec<Span>,
    /// The delimiter: a comma unless [`Parser::new`] was given another.
    pub(crate) delimiter: u8,
}

impl Default for Parser {
    fn default() -> Parser {
        Parser::new(DELIMITER)
    }
}

impl Parser {
    /// A parser for fields separated by `delimiter` (see `harness::dialect::Dialect`).
    pub fn new(delimiter: u8) -> Parser {
        Parser {
            spans: Vec::new(),
            delimiter,
        }
    }

    /// Calls `on_record` with each record of `input`, its fields views into `input`,
    /// scanning with the [`Best`] tier.
    ///
    /// # Errors
    /// [`ParseError`] when a quoted field is still open at the end of the input,
    /// naming its opening quote; the records before it have been passed on.
    pub fn for_each_record<'a>(
        &mut self,
        input: &'a [u8],
        on_record: impl FnMut(Record<'_, 'a>),
    ) -> Result<(), ParseError> {
        self.for_each_record_with::<Best>(input, on_record)
    }

    /// [`Parser::for_each_record`], scanning with the tier `S`.
    ///
    /// # Errors
    /// As [`Parser::for_each_record`].
    pub fn for_each_record_with<'a, S: Scanner>(
        &mut self,
        input: &'a [u8],
        on_record: impl FnMut(Record<'_, 'a>),
    ) -> Result<(), ParseError> {
        // The delimiter as a constant for the common four: the scanners' broadcast
        // (`LO * delimiter`) then folds away instead of being redone at every field.
        match self.delimiter {
            DELIMITER => self.walk::<S, DELIMITER>(input, on_record),
            b';' => self.walk::<S, b';'>(input, on_record),
            b'\t' => self.walk::<S, b'\t'>(input, on_record),
            b'|' => self.walk::<S, b'|'>(input, on_record),
            _ => self.walk::<S, 0>(input, on_record),
        }
    }

    // ANCHOR: for_each_record
    /// The walk: only the bytes that can change the state go through the state
    /// machine; the scanner `S` jumps over the rest of each field. The delimiter is
    /// `D`, or the parser's when `D` is 0.
    fn walk<'a, S: Scanner, const D: u8>(
        &mut self,
        input: &'a [u8],
        mut on_record: impl FnMut(Record<'_, 'a>),
    ) -> Result<(), ParseError> {
        use State::*;
        let delimiter = if D == 0 { self.delimiter } else { D };
        self.spans.clear();
        let mut state = StartRecord;
        let mut produced = 0u64; // records handed out, for the error's position
        let mut start = bom_len(input); // the current field's first byte
        let mut escaped = false; // the current field's cooked bytes are not one run
        let mut i = start;
        while i < input.len() {
            let b = input[i];
            state = match (state, b) {
                (Quoted, QUOTE) => QuoteInQuoted,
                (Quoted, _) => Quoted,
                (QuoteInQuoted, QUOTE) => {
                    escaped = true; // `""`: one literal quote, still inside
                    Quoted
                }
                (StartRecord | StartField, QUOTE) => Quoted,
                // A CR followed by an LF is the first half of the terminator: skip it and
                // let the LF decide. Looking ahead is free in a slice.
                (_, CR) if input.get(i + 1) == Some(&LF) => state,
                (StartRecord, LF) => {
                    start = i + 1; // a blank line is no record
                    StartRecord
                }
                (_, LF) => {
                    // Outside quotes, a CR right before this LF was skipped above: it is
                    // the terminator's, not the field's.
                    let end = if input[i - 1] == CR { i - 1 } else { i };
                    self.spans.push(Span::new(
                        state == State::QuoteInQuoted,
                        start,
                        end,
                        escaped,
                    ));
                    on_record(Record {
                        input,
                        spans: &self.spans,
                    });
                    self.spans.clear();
                    produced += 1;
                    (start, escaped) = (i + 1, false);
                    StartRecord
                }
                (_, b) if b == delimiter => {
                    self.spans
                        .push(Span::new(state == State::QuoteInQuoted, start, i, escaped));
                    (start, escaped) = (i + 1, false);
                    StartField
                }
                (QuoteInQuoted, _) => {
                    escaped = true; // bytes after the closing quote (lenient, rule 7)
                    Unquoted
                }
                (_, _) => Unquoted,
            };
            i += 1;
            // The new idea: inside a field, jump to the next byte that can end it.
            let rest = &input[i..];
            i += match state {
                Unquoted => S::find_field_end(rest, delimiter).unwrap_or(rest.len()),
                Quoted => S::find_quote(rest).unwrap_or(rest.len()),
                StartRecord | StartField | QuoteInQuoted => 0,
            };
        }
        match state {
            StartRecord => {}
            Quoted => return Err(ParseError::unterminated_quote(input, produced, start)),
            StartField | Unquoted | QuoteInQuoted => {
                // The last record may lack a terminator.
                self.spans.push(Span::new(
                    state == State::QuoteInQuoted,
                    start,
                    input.len(),
                    escaped,
                ));
                on_record(Record {
                    input,
                    spans: &self.spans,
                });
                self.spans.clear();
            }
        }
        Ok(())
    }
    // ANCHOR_END: for_each_record
}
