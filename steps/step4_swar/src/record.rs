//! Fields and records as views into the input: coordinates, not copies (step 3's
//! idea, carried unchanged). A [`Field`] is a slice of the input and whether it needs
//! unescaping; a [`Record`] is the parser's spans of one record over the same input.

use std::borrow::Cow;

use harness::dialect::QUOTE;

// ANCHOR: field
/// One field: a view into the input, valid as long as the input (`'a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    pub(crate) raw: &'a [u8],
    pub(crate) needs_unescape: bool,
}

impl<'a> Field<'a> {
    /// The field's bytes as they lie in the input: its cooked bytes when
    /// [`Field::needs_unescape`] is false (a quoted field without its quotes); the
    /// whole field as written, opening quote to last byte, when it is true.
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// True when the cooked bytes are not one run of the input: a quoted field that
    /// holds `""`, or that has bytes after its closing quote (`"ab"c`).
    pub fn needs_unescape(&self) -> bool {
        self.needs_unescape
    }

    // ANCHOR: exercise_cooked
    /// The cooked bytes: borrowed from the input, or, only when the field needs
    /// unescaping, a new `Vec` (the one place this step allocates per field).
    pub fn cooked(&self) -> Cow<'a, [u8]> {
        if !self.needs_unescape {
            return Cow::Borrowed(self.raw);
        }
        let (inside, after) = split_quoted(self.raw);
        let mut cooked = Vec::with_capacity(self.cooked_len());
        let mut after_quote = false;
        for &b in inside {
            // Inside the quotes every quote is half of a `""` pair: keep the first half.
            if b == QUOTE && after_quote {
                after_quote = false;
                continue;
            }
            after_quote = b == QUOTE;
            cooked.push(b);
        }
        cooked.extend_from_slice(after);
        Cow::Owned(cooked)
    }
    // ANCHOR_END: exercise_cooked

    /// The length of the cooked bytes, without making them.
    pub fn cooked_len(&self) -> usize {
        if !self.needs_unescape {
            return self.raw.len();
        }
        let (inside, after) = split_quoted(self.raw);
        let pairs = inside.iter().filter(|&&b| b == QUOTE).count() / 2;
        inside.len() - pairs + after.len()
    }
}

// ANCHOR: exercise_split_quoted
/// Splits a closed quoted field as written into the bytes between its quotes
/// (`""` pairs still doubled) and the bytes after its closing quote.
fn split_quoted(raw: &[u8]) -> (&[u8], &[u8]) {
    let mut i = 1; // past the opening quote
    while i < raw.len() {
        if raw[i] == QUOTE {
            if raw.get(i + 1) != Some(&QUOTE) {
                return (&raw[1..i], &raw[i + 1..]);
            }
            i += 1; // a `""` pair
        }
        i += 1;
    }
    unreachable!("the parser flags only closed quoted fields")
}
// ANCHOR_END: exercise_split_quoted
// ANCHOR_END: field

// ANCHOR: span
/// Where one field lies in the input: a position and a length, no bytes. This is
/// all the parser produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Offset of the field's first byte in the input.
    pub start: usize,
    /// Offset one past its last byte.
    pub end: usize,
    /// See [`Field::needs_unescape`].
    pub needs_unescape: bool,
}

impl Span {
    /// The span of the field that began at `start` (its opening quote, if quoted) and
    /// ends at `end`; `closed` when it ended right after its closing quote (the
    /// machine in `QuoteInQuoted`). A quoted field that needs no unescaping is shown
    /// without its quotes, so its view is its cooked bytes.
    pub(crate) fn new(closed: bool, start: usize, end: usize, escaped: bool) -> Span {
        if closed && !escaped {
            Span {
                start: start + 1,
                end: end - 1,
                needs_unescape: false,
            }
        } else {
            Span {
                start,
                end,
                needs_unescape: escaped,
            }
        }
    }
}

/// One record: the spans of its fields over the input they point into.
#[derive(Clone, Copy, Debug)]
pub struct Record<'r, 'a> {
    pub(crate) input: &'a [u8],
    pub(crate) spans: &'r [Span],
}

impl<'r, 'a> Record<'r, 'a> {
    /// Fields in the record (at least 1).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Never true for a record the parser hands out.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Where each field lies in the input.
    pub fn spans(&self) -> &'r [Span] {
        self.spans
    }

    /// Field `k`, a view into the input. Panics when `k >= self.len()`.
    pub fn field(&self, k: usize) -> Field<'a> {
        let Span {
            start,
            end,
            needs_unescape,
        } = self.spans[k];
        Field {
            raw: &self.input[start..end],
            needs_unescape,
        }
    }

    /// Each field, in order.
    pub fn fields(&self) -> impl Iterator<Item = Field<'a>> {
        (0..self.len()).map(|k| self.field(k))
    }
}
// ANCHOR_END: span
