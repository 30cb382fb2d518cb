//! # Step 2 — map, don't read
//!
//! **The idea.** Ask the operating system to map the file into our address space
//! (`mmap`), and the whole input is one `&[u8]`: no `read()` copying it into a
//! buffer, no lines, nothing to re-join. One state machine walks those bytes once,
//! first to last, and copies each field's cooked bytes into one buffer that every
//! record reuses ([`RecordBuf`]).
//!
//! **What changed since the previous step.** Step 1 looked at every byte twice (once
//! to find where a record ends, once to split it) and allocated a `Vec` per record
//! and per field. Now:
//! - the file is mapped ([`map`]), not read through an 8 KB `BufReader`;
//! - one pass: the state machine that split fields also finds where records end. It
//!   gains one state, `StartRecord` (the only place a blank line can be), and reads
//!   the terminator itself: at a CR it looks one byte ahead for the LF, which a slice
//!   allows and a line reader did not;
//! - one [`RecordBuf`] for the whole pass: clearing it keeps its capacity, so the
//!   number of allocations no longer grows with the file (`tests/alloc.rs` counts them).
//!
//! **Why it is faster** (the chapter has the recorded figures): no allocation per
//! record or field, one look at each byte instead of two, and no copy from the
//! kernel's page cache into a read buffer (the mapping shows the page cache's own
//! pages).
//!
//! **Assumptions and policy.** The dialect of the `harness` crate, all of it. The
//! file must not shrink while it is mapped: [`map`] says why (SIGBUS), and
//! `tests/sigbus.rs` shows the crash; this step documents the risk and takes no
//! defence against it. An empty file is fine: `mmap(2)` refuses a zero-length map,
//! and memmap2 (0.9) works around that by mapping one byte and showing an empty
//! slice; a test checks that an empty file gives zero records. The whole file is
//! mapped at once, which a 64-bit address space allows for any file on disk.
//!
//! **Read more.** `man 2 mmap` (the paragraph on SIGBUS); the docs of memmap2's
//! `Mmap::map`; csv-core (BurntSushi/rust-csv), whose state machine names its states
//! for where the parser is, as these do.

use std::fs::File;
use std::path::Path;

use harness::dialect::{CR, Dialect, LF, QUOTE, bom_len};
use harness::{Error, Fingerprint, ParseError, Record, Step};
use memmap2::Mmap;

/// Step 2 on the harness's [`Step`] interface.
pub struct Step2;

impl Step for Step2 {
    const NUMBER: u32 = 2;
    const NAME: &'static str = "step2";
    const IDEA: &'static str = "mmap + one-pass state machine, one reused buffer";

    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError> {
        let mut records = Vec::new();
        for_each_record(input, dialect.delimiter, |record| {
            records.push(record.fields().map(<[u8]>::to_vec).collect());
        })?;
        Ok(records)
    }

    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        fingerprint(input, dialect.delimiter)
    }

    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let input = map(path)?;
        Ok(fingerprint(&input, dialect.delimiter)?)
    }
}

// ANCHOR: map
/// Maps the file at `path` read-only; the [`Mmap`] derefs to the file's bytes as one
/// `&[u8]`, valid until the `Mmap` is dropped (the borrow checker sees to that).
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or mapped.
pub fn map(path: &Path) -> Result<Mmap, Error> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: `Mmap::map` is unsafe because the `&[u8]` it gives is only as immutable
    // as the file under it, and no Rust type can promise that. If another process
    // writes to the file while it is mapped, the bytes change under a shared borrow.
    // If it truncates the file, every page past the new end is unmapped, and the next
    // read of one raises SIGBUS: the process dies at once ("Bus error" in a shell,
    // exit status 135 = 128 + 7), with no panic and no `Err` (step 2's
    // `tests/sigbus.rs` demonstrates it). What this step does about it: nothing at run time, by choice.
    // It maps a file that nothing else is writing: its own input. The defences all
    // cost something this ladder is removing: read the file instead (step 1's copy),
    // or catch SIGBUS in a handler and jump out of the parse (not expressible in safe
    // Rust). Advisory locks (`flock`) do not stop another process's `truncate`.
    unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))
}
// ANCHOR_END: map

/// The fingerprint (records, fields, cooked bytes) of `input`, its fields separated
/// by `delimiter`.
///
/// # Errors
/// [`ParseError`] on an unterminated quote.
pub fn fingerprint(input: &[u8], delimiter: u8) -> Result<Fingerprint, ParseError> {
    let mut fp = Fingerprint::default();
    for_each_record(input, delimiter, |record| {
        fp.add_record(record.fields().map(<[u8]>::len))
    })?;
    Ok(fp)
}

// ANCHOR: record_buf
/// One record's cooked fields, copied back to back into one buffer that the whole
/// pass reuses: clearing it keeps its capacity, so it allocates only while it grows
/// to the size of the largest record.
#[derive(Clone, Debug, Default)]
pub struct RecordBuf {
    /// The cooked bytes of every field of the record, back to back.
    bytes: Vec<u8>,
    /// `ends[k]` is where field `k` ends in `bytes` (exclusive); field `k` starts where
    /// field `k - 1` ends, field 0 at 0.
    ends: Vec<usize>,
}

impl RecordBuf {
    /// Fields in the record (at least 1 for a record the parser hands out).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True before the first field ends.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    // ANCHOR: exercise_record_buf_field
    /// The cooked bytes of field `k`. Panics when `k >= self.len()`.
    pub fn field(&self, k: usize) -> &[u8] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.bytes[start..self.ends[k]]
    }
    // ANCHOR_END: exercise_record_buf_field

    /// The cooked bytes of each field, in order.
    pub fn fields(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len()).map(|k| self.field(k))
    }

    fn push(&mut self, byte: u8) {
        self.bytes.push(byte);
    }

    fn end_field(&mut self) {
        self.ends.push(self.bytes.len());
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }
}
// ANCHOR_END: record_buf

// ANCHOR: state
/// Where the parser is, one byte at a time: step 1's four states and `StartRecord`,
/// which this step needs because one machine now also finds where records end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
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

// ANCHOR: for_each_record
// ANCHOR: exercise_for_each_record
/// Calls `on_record` with each record of `input`, its cooked fields (separated by
/// `delimiter`) in one reused [`RecordBuf`]. Every byte is looked at once.
///
/// # Errors
/// [`ParseError`] when a quoted field is still open at the end of the input, naming
/// its opening quote; the records before it have been passed to `on_record`.
pub fn for_each_record(
    input: &[u8],
    delimiter: u8,
    mut on_record: impl FnMut(&RecordBuf),
) -> Result<(), ParseError> {
    use State::*;
    let mut record = RecordBuf::default();
    let mut state = StartRecord;
    let mut produced = 0u64; // records handed out, for the error's position
    let mut opening_quote = 0; // byte offset of the last opening quote, for the error
    let mut i = bom_len(input);
    while i < input.len() {
        let b = input[i];
        state = match (state, b) {
            (Quoted, QUOTE) => QuoteInQuoted,
            (Quoted, _) => {
                record.push(b);
                Quoted
            }
            (QuoteInQuoted, QUOTE) => {
                record.push(QUOTE); // `""`: one literal quote, still inside
                Quoted
            }
            (StartRecord | StartField, QUOTE) => {
                opening_quote = i;
                Quoted
            }
            // A CR followed by an LF is the first half of the terminator: skip it and
            // let the LF decide. Looking ahead is free in a slice.
            (_, CR) if input.get(i + 1) == Some(&LF) => state,
            (StartRecord, LF) => StartRecord, // a blank line is no record
            (_, LF) => {
                record.end_field();
                on_record(&record);
                record.clear();
                produced += 1;
                StartRecord
            }
            (_, b) if b == delimiter => {
                record.end_field();
                StartField
            }
            (_, _) => {
                record.push(b); // data; after a closing quote too (lenient, rule 7)
                Unquoted
            }
        };
        i += 1;
    }
    match state {
        StartRecord => {}
        Quoted => {
            return Err(ParseError::unterminated_quote(
                input,
                produced,
                opening_quote,
            ));
        }
        StartField | Unquoted | QuoteInQuoted => {
            record.end_field(); // the last record may lack a terminator
            on_record(&record);
        }
    }
    Ok(())
}
// ANCHOR_END: exercise_for_each_record
// ANCHOR_END: for_each_record

#[cfg(test)]
mod tests {
    use super::*;

    fn records(s: &[u8]) -> Vec<Vec<String>> {
        Step2::records(s)
            .unwrap()
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .map(|f| String::from_utf8(f).unwrap())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn splits_quoted_and_lenient_fields() {
        assert_eq!(
            records(br#"a,"b,c","d""e",f"g"#),
            [["a", "b,c", "d\"e", "f\"g"]]
        );
        assert_eq!(records(br#""ab"c,"a"b"c"#), [["abc", "ab\"c"]]);
        assert_eq!(records(b",,\n\"\""), [vec!["", "", ""], vec![""]]);
    }

    #[test]
    fn a_record_is_not_a_line() {
        assert_eq!(
            records(b"a,\"line one\nline two\"\nb\n"),
            [vec!["a", "line one\nline two"], vec!["b"]]
        );
    }

    #[test]
    fn a_cr_is_data_unless_an_lf_follows() {
        assert_eq!(records(b"a\r\r\nb\r"), [["a\r"], ["b\r"]]);
        assert_eq!(records(b"\r\n\n\"x\"\r\n\r\n"), [["x"]]);
        assert_eq!(records(b"\r"), [["\r"]]);
    }

    #[test]
    fn unterminated_quote_names_its_opening_quote() {
        let e = Step2::records(b"\xEF\xBB\xBFa\n\nb,\"x\ny").unwrap_err();
        assert_eq!((e.record, e.byte, e.line), (1, 8, 3));
    }

    #[test]
    fn the_buffer_is_reused_not_regrown() {
        let mut capacities = Vec::new();
        for_each_record(b"abcdefgh,ij\nk\nlm,n\n", b',', |r| {
            capacities.push(r.bytes.capacity())
        })
        .unwrap();
        assert_eq!(capacities.len(), 3);
        assert!(
            capacities.iter().all(|&c| c == capacities[0]),
            "{capacities:?}"
        );
    }
}
