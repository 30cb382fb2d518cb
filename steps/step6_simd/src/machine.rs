//! The parser: the dialect's state machine over the input, and the [`Parser`] that
//! walks it and hands out each record as a view ([`crate::record`]).

use harness::ParseError;
use harness::dialect::{CR, DELIMITER, LF, QUOTE, bom_len};

use crate::blocks::Tier;
use crate::record::{Record, Span};

// ANCHOR: state
/// Where the parser is, one byte at a time: step 1's four states and `StartRecord`,
/// which this step needs because one machine now also finds where records end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
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

/// The parser: the block walk ([`crate::structural`]) and the state machine it falls back on,
/// and the spans of the record it is in, kept between records and between passes so
/// that a warm parser allocates nothing.
#[derive(Clone, Debug)]
pub struct Parser {
    pub(crate) spans: Vec<Span>,
    /// The delimiter: a comma unless [`Parser::new`] was given another.
    pub(crate) delimiter: u8,
    /// Records handed out in this pass, for the error's position.
    pub(crate) produced: u64,
    pub(crate) stats: Stats,
}

/// What a pass did: printed by `--verbose`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The tier that ran.
    pub tier: Option<Tier>,
    /// Blocks walked by the bitmaps.
    pub blocks: u64,
    /// Times the walk handed over to the state machine.
    pub fallbacks: u64,
    /// Bytes the state machine parsed in those hand-overs.
    pub fallback_bytes: u64,
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
            produced: 0,
            stats: Stats::default(),
        }
    }

    /// Calls `on_record` with each record of `input`, its fields views into `input`,
    /// with the tier [`Tier::chosen`].
    ///
    /// # Errors
    /// [`ParseError`] when a quoted field is still open at the end of the input,
    /// naming its opening quote; the records before it have been passed on.
    pub fn for_each_record<'a>(
        &mut self,
        input: &'a [u8],
        on_record: impl FnMut(Record<'_, 'a>),
    ) -> Result<(), ParseError> {
        self.for_each_record_in(Tier::chosen(), input, on_record)
    }

    /// [`Parser::for_each_record`] with `tier` ([`Tier::Portable`] if the CPU lacks
    /// it). [`Parser::stats`] then tells what the pass did.
    ///
    /// # Errors
    /// As [`Parser::for_each_record`].
    pub fn for_each_record_in<'a>(
        &mut self,
        tier: Tier,
        input: &'a [u8],
        mut on_record: impl FnMut(Record<'_, 'a>),
    ) -> Result<(), ParseError> {
        self.spans.clear();
        self.produced = 0;
        let tier = tier.or_portable();
        self.stats = Stats {
            tier: Some(tier),
            ..Stats::default()
        };
        if tier == Tier::Scalar {
            let from = bom_len(input);
            return self
                .state_machine(input, from, State::StartRecord, usize::MAX, &mut on_record)
                .map(|_| ());
        }
        self.walk_blocks(tier, input, &mut on_record)
    }

    /// What the last pass did: its tier, its blocks and its fallbacks.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    // ANCHOR: state_machine
    /// Step 5's state machine, from byte `from` (a field's first byte) in `state`
    /// (`StartRecord` or `StartField`), with the record so far in `self.spans`. It
    /// returns `Some(i)` at the first record start `i >= resume_at`, where the block
    /// walk can take over again, or `None` when it has finished the input.
    ///
    /// # Errors
    /// As [`Parser::for_each_record`].
    pub(crate) fn state_machine<'a>(
        &mut self,
        input: &'a [u8],
        from: usize,
        mut state: State,
        resume_at: usize,
        on_record: &mut impl FnMut(Record<'_, 'a>),
    ) -> Result<Option<usize>, ParseError> {
        use State::*;
        let delimiter = self.delimiter;
        let mut start = from; // the current field's first byte
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
                    self.emit(input, on_record);
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
            if b == LF && state == StartRecord && i >= resume_at {
                return Ok(Some(i)); // a record start: the block walk may resume here
            }
            // Inside a field, jump to the next byte that can end it.
            let rest = &input[i..];
            i += match state {
                Unquoted => memchr::memchr3(delimiter, LF, CR, rest).unwrap_or(rest.len()),
                Quoted => memchr::memchr(QUOTE, rest).unwrap_or(rest.len()),
                StartRecord | StartField | QuoteInQuoted => 0,
            };
        }
        match state {
            StartRecord => {}
            Quoted => return Err(ParseError::unterminated_quote(input, self.produced, start)),
            StartField | Unquoted | QuoteInQuoted => {
                // The last record may lack a terminator.
                self.spans.push(Span::new(
                    state == State::QuoteInQuoted,
                    start,
                    input.len(),
                    escaped,
                ));
                self.emit(input, on_record);
            }
        }
        Ok(None)
    }
    // ANCHOR_END: state_machine

    /// Hands out the record in `self.spans` and starts the next.
    #[inline(always)]
    pub(crate) fn emit<'a>(&mut self, input: &'a [u8], on_record: &mut impl FnMut(Record<'_, 'a>)) {
        on_record(Record {
            input,
            spans: &self.spans,
        });
        self.spans.clear();
        self.produced += 1;
    }
}
