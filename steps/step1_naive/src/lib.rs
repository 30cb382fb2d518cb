//! # Step 1 — the parser everyone writes first
//!
//! **The idea.** Read the file line by line with `BufRead::read_until`, and split each
//! line into fields, copying every field into a `Vec<u8>` of its own. It is the
//! parser most of us write first, and the baseline every later step is measured
//! against.
//!
//! **The subtlety most homemade parsers miss.** A CSV record is not a line: a quoted
//! field may hold LFs. So after reading a line we ask whether it ended inside a
//! quoted field, and if it did we read the next line and join it to the record
//! ([`RecordReader::next_record`]). Only then are fields split off ([`split_fields`]).
//!
//! **What changed since the previous step.** Nothing: this is the first step.
//!
//! **Assumptions and policy.** The dialect of the `harness` crate, all of it: bytes,
//! not text (so `read_until` into `Vec<u8>`, not `read_line` into `String`, which
//! would reject invalid UTF-8); a BOM skipped; LF or CR LF terminators; blank lines
//! skipped; lenient quotes. The cost model is the point: an 8 KB `BufReader`, a new
//! buffer per record and per field, every byte looked at twice (once to find the end
//! of the record, once to split it).
//!
//! **Read more.** RFC 4180 (the format); `data/README.md` (the dialect, with examples).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use harness::dialect::{BOM, Dialect, LF, QUOTE};
use harness::{Error, Fingerprint, ParseError, Record, Step};

/// Step 1 on the harness's [`Step`] interface.
pub struct Step1;

impl Step for Step1 {
    const NUMBER: u32 = 1;
    const NAME: &'static str = "step1";
    const IDEA: &'static str = "BufRead lines + owned copies";

    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError> {
        let mut records = Vec::new();
        for_each_record(input, dialect.delimiter, |record| records.push(record))
            .map_err(parse_error_only)?;
        Ok(records)
    }

    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        fingerprint(input, dialect.delimiter).map_err(parse_error_only)
    }

    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        fingerprint(BufReader::new(file), dialect.delimiter).map_err(|e| match e {
            Error::Io { source, .. } => Error::io(path, source),
            other => other,
        })
    }
}

/// The fingerprint (records, fields, cooked bytes) of everything `reader` yields, its
/// fields separated by `delimiter`.
///
/// # Errors
/// [`Error::Io`] when reading fails, [`Error::Parse`] on an unterminated quote.
pub fn fingerprint(reader: impl BufRead, delimiter: u8) -> Result<Fingerprint, Error> {
    let mut fp = Fingerprint::default();
    for_each_record(reader, delimiter, |record| {
        fp.add_record(record.iter().map(Vec::len))
    })?;
    Ok(fp)
}

/// Calls `on_record` with each record of `reader`, its fields (separated by
/// `delimiter`) split and copied.
///
/// # Errors
/// As [`fingerprint`]; the records before the error have been passed on.
pub fn for_each_record(
    reader: impl BufRead,
    delimiter: u8,
    mut on_record: impl FnMut(Record),
) -> Result<(), Error> {
    let mut records = RecordReader::new(reader, delimiter);
    while let Some(text) = records.next_record()? {
        on_record(split_fields(without_terminator(&text), delimiter));
    }
    Ok(())
}

// ANCHOR: state
/// Where we are inside a record, one byte at a time. Both passes of this step (finding
/// where a record ends, splitting it) walk the same four states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// At the first byte of a field: a quote here opens a quoted field.
    StartField,
    /// Inside a field that is not quoted, or in the bytes after a closing quote.
    Unquoted,
    /// Inside a quoted field: delimiters, CR and LF are data.
    Quoted,
    /// Just after a quote inside a quoted field: either it closes the field, or the
    /// next byte is a quote too and the pair is one literal quote.
    QuoteInQuoted,
}

/// The state after `byte`, starting from `state`, when fields are separated by
/// `delimiter`.
fn next_state(state: State, byte: u8, delimiter: u8) -> State {
    use State::*;
    match (state, byte) {
        (StartField, QUOTE) => Quoted,
        (StartField | Unquoted | QuoteInQuoted, b) if b == delimiter => StartField,
        (StartField | Unquoted, _) => Unquoted,
        (Quoted, QUOTE) => QuoteInQuoted,
        (Quoted, _) => Quoted,
        (QuoteInQuoted, QUOTE) => Quoted, // `""`: a literal quote, still inside
        (QuoteInQuoted, _) => Unquoted,   // lenient: bytes after the closing quote
    }
}
// ANCHOR_END: state

/// Reads whole records from a `BufRead`, re-joining the lines of quoted fields that
/// hold LFs, and skipping the BOM and blank lines.
pub struct RecordReader<R> {
    reader: R,
    /// Separates fields: a quote after it opens a quoted field.
    delimiter: u8,
    /// Bytes of the input consumed so far (the BOM included).
    offset: u64,
    /// LFs consumed so far.
    lines: u64,
    /// Records returned so far.
    records: u64,
}

impl<R: BufRead> RecordReader<R> {
    /// Starts at the first byte of `reader`, whose fields `delimiter` separates.
    pub fn new(reader: R, delimiter: u8) -> RecordReader<R> {
        RecordReader {
            reader,
            delimiter,
            offset: 0,
            lines: 0,
            records: 0,
        }
    }

    // ANCHOR: next_record
    /// The next record's bytes, its lines joined and its terminator included; `None`
    /// at the end of the input.
    ///
    /// # Errors
    /// [`Error::Io`] when reading fails; [`Error::Parse`] when the input ends inside a
    /// quoted field, naming the field's opening quote.
    pub fn next_record(&mut self) -> Result<Option<Vec<u8>>, Error> {
        loop {
            let start_offset = self.offset;
            let start_line = self.lines;
            let mut text = Vec::new(); // a new buffer per record: the naive way
            if self.read_line(&mut text)? == 0 {
                return Ok(None);
            }
            let bom = if start_offset == 0 && text.starts_with(BOM) {
                BOM.len()
            } else {
                0
            };
            let line = &text[bom..];
            if line.is_empty() || line == b"\n" || line == b"\r\n" {
                continue; // a blank line (or a BOM alone) is no record
            }
            // The subtlety: a line that ends inside a quoted field does not end the record.
            let mut state = State::StartField;
            let mut opening_quote = 0;
            let mut scanned = bom;
            loop {
                for (i, &b) in text.iter().enumerate().skip(scanned) {
                    if state == State::StartField && b == QUOTE {
                        opening_quote = i;
                    }
                    state = next_state(state, b, self.delimiter);
                }
                if state != State::Quoted {
                    break;
                }
                scanned = text.len();
                if self.read_line(&mut text)? == 0 {
                    let line = start_line
                        + text[..opening_quote].iter().filter(|&&b| b == LF).count() as u64
                        + 1;
                    let byte = start_offset + opening_quote as u64;
                    return Err(ParseError {
                        record: self.records,
                        byte,
                        line,
                    }
                    .into());
                }
            }
            self.records += 1;
            text.drain(..bom);
            return Ok(Some(text));
        }
    }
    // ANCHOR_END: next_record

    /// Appends the next line (through its LF, if it has one) to `text`.
    fn read_line(&mut self, text: &mut Vec<u8>) -> Result<usize, Error> {
        let n = self
            .reader
            .read_until(LF, text)
            .map_err(|e| Error::io("input", e))?;
        self.offset += n as u64;
        self.lines += u64::from(text.last() == Some(&LF) && n > 0);
        Ok(n)
    }
}

/// A record's bytes without its terminator: LF or CR LF at the end. A CR at the very
/// end of the input, with no LF after it, is data and stays.
fn without_terminator(text: &[u8]) -> &[u8] {
    text.strip_suffix(b"\r\n")
        .or_else(|| text.strip_suffix(b"\n"))
        .unwrap_or(text)
}

// ANCHOR: split_fields
/// Splits one record (without its terminator) into fields, each copied into a new
/// `Vec<u8>` with its quotes removed and its `""` pairs turned into `"`.
pub fn split_fields(record: &[u8], delimiter: u8) -> Record {
    let mut fields = Vec::new();
    let mut field = Vec::new();
    let mut state = State::StartField;
    for &b in record {
        let next = next_state(state, b, delimiter);
        let is_data = match (state, next) {
            (_, State::StartField) => false,                // a delimiter
            (State::StartField, State::Quoted) => false,    // the opening quote
            (State::Quoted, State::QuoteInQuoted) => false, // a closing (or doubling) quote
            _ => true,
        };
        if next == State::StartField {
            fields.push(std::mem::take(&mut field));
        } else if is_data {
            field.push(b);
        }
        state = next;
    }
    fields.push(field);
    fields
}
// ANCHOR_END: split_fields

fn parse_error_only(e: Error) -> ParseError {
    match e {
        Error::Parse(e) => e,
        Error::Io { .. } => unreachable!("reading from a byte slice cannot fail"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(s: &str) -> Vec<String> {
        split_fields(s.as_bytes(), b',')
            .into_iter()
            .map(|f| String::from_utf8(f).unwrap())
            .collect()
    }

    #[test]
    fn splits_quoted_and_lenient_fields() {
        assert_eq!(
            fields(r#"a,"b,c","d""e",f"g"#),
            ["a", "b,c", "d\"e", "f\"g"]
        );
        assert_eq!(fields(r#""ab"c,"a"b"c"#), ["abc", "ab\"c"]);
        assert_eq!(fields(",,"), ["", "", ""]);
        assert_eq!(fields(r#""""#), [""]);
    }

    #[test]
    fn a_record_is_not_a_line() {
        let input = b"a,\"line one\nline two\"\nb\n";
        let records = Step1::records(input).unwrap();
        assert_eq!(
            records,
            vec![
                vec![b"a".to_vec(), b"line one\nline two".to_vec()],
                vec![b"b".to_vec()]
            ]
        );
    }

    #[test]
    fn unterminated_quote_names_its_opening_quote() {
        let e = Step1::records(b"\xEF\xBB\xBFa\n\nb,\"x\ny").unwrap_err();
        assert_eq!((e.record, e.byte, e.line), (1, 8, 3));
    }
}
