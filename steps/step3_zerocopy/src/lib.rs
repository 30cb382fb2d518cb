//! # Step 3 — coordinates, not copies
//!
//! **The idea.** Step 2 copied every byte of every field into its buffer, only to
//! count them. But the bytes are already in memory, in the mapping, and stay there
//! for the whole pass: a field can be a view into them, a `&[u8]` (a position and a
//! length). So the parser's output becomes coordinates ([`Span`]s, one per field) and
//! nothing is copied. The one field a view cannot show is one whose cooked bytes are
//! not one run of the input: a quoted field holding `""` (or, leniently, bytes after
//! its closing quote). That field keeps its raw bytes and a flag,
//! [`Field::needs_unescape`]; only a consumer that asks for the cooked bytes
//! ([`Field::cooked`]) pays for the copy, and gets a borrowed `Cow` for every other
//! field.
//!
//! **What changed since the previous step.** `RecordBuf` (bytes copied back to back)
//! becomes [`Parser`], which keeps only where each field lies, and [`Record`] and
//! [`Field`], views that borrow the input. The state machine is step 2's, state for
//! state; its arms now remember where a field starts and whether it needs unescaping,
//! instead of pushing bytes. The CR of a CR LF is still skipped by looking ahead; as
//! nothing is pushed any more, the LF that ends the record looks back one byte to
//! leave that CR out of the last field. A [`Parser`] can be kept between passes, and a
//! second pass then allocates nothing at all (`tests/alloc.rs` counts).
//!
//! **Why not much faster** (the chapter has the recorded figures): the copy was one
//! store per byte beside the real cost, which is still here: every byte goes through
//! the state machine. Written as `for (i, &b) in input.iter().enumerate()`, this
//! loop was no faster than step 2's: the compiler kept `i` on the stack, and a load,
//! add and store of it per byte set the pace. The `while` loop keeps it in a
//! register; step 2 has the same loop, so the two differ only in the copy.
//!
//! **Assumptions and policy.** As step 2, the dialect of the `harness` crate and a
//! file that does not shrink while mapped ([`map`]). Lifetimes carry the new promise:
//! a [`Field<'a>`] borrows the input (the mapping) for `'a`, so the compiler refuses
//! a program that drops the mapping while a field still points into it:
//!
//! ```compile_fail,E0597
//! # use std::path::Path;
//! let first = {
//!     let input = step3::map(Path::new("data/bench.csv")).unwrap();
//!     let mut first = None;
//!     step3::Parser::default()
//!         .for_each_record(&input, |record| first = first.or(Some(record.field(0))))
//!         .unwrap();
//!     first
//! }; // error[E0597]: `input` does not live long enough
//! println!("{:?}", first.map(|f| f.cooked()));
//! ```
//!
//! Keep the mapping alive as long as the fields, and the same code compiles:
//!
//! ```
//! # use std::path::Path;
//! # let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/conformance/doubled_quote_start.csv");
//! let input = step3::map(&path).unwrap();
//! let mut first = None;
//! step3::Parser::default()
//!     .for_each_record(&input, |record| first = first.or(Some(record.field(0))))
//!     .unwrap();
//! println!("{:?}", first.map(|f| f.cooked()));
//! ```
//!
//! **Read more.** The `Cow` docs (`std::borrow::Cow`); the Rust book's chapter on
//! lifetimes ("Validating References with Lifetimes"); simdjson and simdcsv, which
//! also hand out positions (a structural index) instead of copies.

use std::fs::File;
use std::path::Path;

use harness::dialect::Dialect;
use harness::{Error, Fingerprint, ParseError, Record as OwnedRecord, Step};
use memmap2::Mmap;

pub mod machine;
pub mod record;

pub use machine::Parser;
pub use record::{Field, Record, Span};

/// Step 3 on the harness's [`Step`] interface.
pub struct Step3;

impl Step for Step3 {
    const NUMBER: u32 = 3;
    const NAME: &'static str = "step3";
    const IDEA: &'static str = "fields are views into the mapping (no copies)";

    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<OwnedRecord>, ParseError> {
        let mut records = Vec::new();
        Parser::new(dialect.delimiter).for_each_record(input, |record| {
            records.push(record.fields().map(|f| f.cooked().into_owned()).collect());
        })?;
        Ok(records)
    }

    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        fingerprint(input, dialect)
    }

    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let input = map(path)?;
        Ok(fingerprint(&input, dialect)?)
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

/// The fingerprint (records, fields, cooked bytes) of `input` in `dialect`. Only fields that need
/// unescaping are walked to learn their cooked length; nothing is copied.
///
/// # Errors
/// [`ParseError`] on an unterminated quote.
pub fn fingerprint(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
    let mut fp = Fingerprint::default();
    Parser::new(dialect.delimiter).for_each_record(input, |record| {
        fp.add_record(record.fields().map(|f| f.cooked_len()));
    })?;
    Ok(fp)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    fn records(s: &[u8]) -> Vec<Vec<String>> {
        Step3::records(s)
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
        let e = Step3::records(b"\xEF\xBB\xBFa\n\nb,\"x\ny").unwrap_err();
        assert_eq!((e.record, e.byte, e.line), (1, 8, 3));
    }

    #[test]
    fn fields_are_views_and_only_escaped_ones_are_copied() {
        let input = b"ab,\"c,d\",\"e\"\"f\",\"g\"h\r\n";
        let mut seen = Vec::new();
        Parser::default()
            .for_each_record(input, |record| {
                for f in record.fields() {
                    let borrowed = matches!(f.cooked(), Cow::Borrowed(_));
                    seen.push((f.raw(), f.needs_unescape(), borrowed, f.cooked_len()));
                }
            })
            .unwrap();
        let expected: [(&[u8], bool, bool, usize); 4] = [
            (b"ab", false, true, 2),
            (b"c,d", false, true, 3),
            (b"\"e\"\"f\"", true, false, 3),
            (b"\"g\"h", true, false, 2),
        ];
        assert_eq!(seen, expected);
        // A borrowed view points into the input itself: no copy was made.
        let (raw, ..) = seen[1];
        assert_eq!(raw.as_ptr(), input[4..].as_ptr());
    }
}
