//! Fields as views into the input: coordinates, not copies (step 3's idea, carried
//! unchanged). A [`Field`] is a slice of the input and whether it needs unescaping;
//! [`split_record`] finds where the fields of one row lie, from its first byte: the
//! twin of the field seek in `kernels/groupby.cu`, and what `--records` and the
//! fingerprint use, so that the gate checks the same code the query runs.

use std::borrow::Cow;

use harness::dialect::{CR, LF, QUOTE};

use crate::machine::{NEXT, QUOTE_IN_QUOTED, QUOTED, START_RECORD, class};

// ANCHOR: field
/// One field: a view into the input, valid as long as the input (`'a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    pub(crate) raw: &'a [u8],
    pub(crate) needs_unescape: bool,
}

impl<'a> Field<'a> {
    /// The field of `input` that `span` describes.
    pub fn new(input: &'a [u8], span: Span) -> Field<'a> {
        Field {
            raw: &input[span.start..span.end],
            needs_unescape: span.needs_unescape,
        }
    }

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
    /// ends at `end`, seen in `state`. A quoted field that needs no unescaping is
    /// shown without its quotes, so its view is its cooked bytes.
    pub(crate) fn new(state: u8, start: usize, end: usize, escaped: bool) -> Span {
        if state == QUOTE_IN_QUOTED && !escaped {
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
// ANCHOR_END: span

// ANCHOR: split_record
/// The fields of the row whose first byte is `start` (a row start of the index),
/// into `spans` (cleared first). Returns the offset just past the row's terminator
/// (or the input's end).
///
/// # Errors
/// `Err(byte)`: the offset of the opening quote of a field still open at the input's
/// end (the caller knows the record).
pub fn split_record(
    input: &[u8],
    start: usize,
    spans: &mut Vec<Span>,
    delimiter: u8,
) -> Result<usize, usize> {
    spans.clear();
    let (mut state, mut field, mut escaped) = (START_RECORD, start, false);
    let mut i = start;
    while i < input.len() {
        let b = input[i];
        let next = NEXT[class(input, i, delimiter)][state as usize];
        match (state, b) {
            (QUOTE_IN_QUOTED, QUOTE) => escaped = true, // `""`: one literal quote
            (QUOTED, _) | (_, QUOTE) => {}
            (_, LF) => {
                // A CR right before this LF (outside quotes) is the terminator's.
                let end = if i > field && input[i - 1] == CR {
                    i - 1
                } else {
                    i
                };
                spans.push(Span::new(state, field, end, escaped));
                return Ok(i + 1);
            }
            (_, b) if b == delimiter => {
                spans.push(Span::new(state, field, i, escaped));
                (field, escaped) = (i + 1, false);
            }
            (QUOTE_IN_QUOTED, _) if next != QUOTE_IN_QUOTED => escaped = true, // `"ab"c`
            _ => {}
        }
        state = next;
        i += 1;
    }
    if state == QUOTED {
        return Err(field);
    }
    // The last row may lack a terminator.
    spans.push(Span::new(state, field, input.len(), escaped));
    Ok(input.len())
}
// ANCHOR_END: split_record

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(input: &[u8], start: usize) -> Vec<String> {
        let mut spans = Vec::new();
        split_record(input, start, &mut spans, b',').unwrap();
        spans
            .iter()
            .map(|&s| String::from_utf8(Field::new(input, s).cooked().into_owned()).unwrap())
            .collect()
    }

    #[test]
    fn splits_quoted_lenient_and_crlf_fields() {
        assert_eq!(
            fields(br#"a,"b,c","d""e",f"g"#, 0),
            ["a", "b,c", "d\"e", "f\"g"]
        );
        assert_eq!(fields(br#""ab"c,"a"b"c"#, 0), ["abc", "ab\"c"]);
        assert_eq!(fields(b"x\r\ny", 0), ["x"]);
        assert_eq!(fields(b"x\r\ny", 3), ["y"]);
        assert_eq!(fields(b"a\r\r\n", 0), ["a\r"]);
        assert_eq!(fields(b"\"q\"\r\n", 0), ["q"]);
        assert_eq!(fields(b",", 0), ["", ""]);
        assert_eq!(fields(b"\"a\"\"\"\n", 0), ["a\""]);
    }

    #[test]
    fn an_open_quote_is_reported_at_its_opening() {
        let mut spans = Vec::new();
        assert_eq!(split_record(b"a,\"b\nc", 0, &mut spans, b','), Err(2));
    }
}
