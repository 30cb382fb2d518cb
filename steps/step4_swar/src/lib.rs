//! # Step 4 — measure, then decide: SWAR
//!
//! **The idea.** Step 3 still sends every byte through the state machine, yet a byte
//! in the middle of a field changes nothing. Inside an unquoted field only a
//! delimiter, an LF or a CR can change the state; inside a quoted field only a quote.
//! So after each byte that the state machine handles, jump: find the next byte that
//! can matter with a scan ([`scan`]), and hand only that one to the state machine. A
//! scan can test many bytes per instruction. SWAR (SIMD Within A Register) loads
//! eight bytes into a `u64` and tests all eight with plain integer arithmetic
//! ([`scan::Swar`]; the bit trick, with a worked example, is on `flag_bytes` in
//! `src/scan.rs`). Then measure, and decide: `cargo bench -p step4` times it against
//! a byte loop and against `memchr::memchr3`, which uses SSE2/AVX2.
//!
//! **What changed since the previous step.** Step 3's `while` loop over every byte
//! now adds, after each byte, the scanner's jump to `i`; the state machine's
//! arms are step 3's, unchanged. The new file `src/scan.rs` holds three tiers behind
//! one trait, [`scan::Scanner`]; [`With<S>`] is this step scanning with tier `S`, and
//! [`Step4`] is `With<`[`scan::Best`]`>`. The gate runs on every tier
//! (`tests/tiers.rs`), and every tier is checked against a byte loop at every length
//! from 0 to 80 bytes (`tests/scan.rs`).
//!
//! **Why SWAR, and when memchr** (the chapter has the criterion table and the
//! recorded figures). On short fields a scan nearly always ends in its first word,
//! and what a field costs is the branch at its end, which the CPU cannot predict and
//! which every tier pays alike. On long fields, bytes per step is what counts: 8 for
//! SWAR, 32 for memchr's AVX2 loop. In the parse, SWAR wins on the bench file's
//! short fields because it is inlined into the parser's loop, while `memchr3` is a
//! call, through a pointer chosen once by CPU detection, with set-up for a long
//! haystack, paid once per field. So [`scan::Best`] is SWAR, for files like the
//! bench file. For long text fields memchr is the winner; the next steps keep
//! SWAR's lesson (no call per field) and take memchr's (wider is better once a scan
//! runs long).
//!
//! **Assumptions and policy.** As step 3. No `unsafe` in the scan: `chunks_exact(8)`
//! and `u64::from_le_bytes` (byte 0 is the lowest, on any CPU); no measurement asked
//! for more. The tail of under eight bytes goes to the byte loop, so no scan
//! reads outside its input.
//!
//! **Read more.** Bit Twiddling Hacks (Sean Eron Anderson), "Determine if a word has
//! a zero byte", after Alan Mycroft's 1987 post; the `memchr` crate's source: its
//! portable SWAR fallback and its SSE2/AVX2 loops (BurntSushi/memchr).

use std::fs::File;
use std::marker::PhantomData;
use std::path::Path;

use harness::dialect::Dialect;
use harness::{Error, Fingerprint, ParseError, Record as OwnedRecord, Step};
use memmap2::Mmap;

pub mod machine;
pub mod record;

pub use machine::Parser;
pub use record::{Field, Record, Span};

pub mod scan;

use scan::{Best, Scanner};

/// Step 4 on the harness's [`Step`] interface, scanning with the [`Best`] tier.
pub type Step4 = With<Best>;

/// Step 4 scanning with the tier `S`: the gate and the tests run every tier.
pub struct With<S>(PhantomData<S>);

impl<S: Scanner> Step for With<S> {
    const NUMBER: u32 = 4;
    const NAME: &'static str = "step4";
    const IDEA: &'static str = "jump to the next special byte, 8 at a time (SWAR)";

    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<OwnedRecord>, ParseError> {
        let mut records = Vec::new();
        Parser::new(dialect.delimiter).for_each_record_with::<S>(input, |record| {
            records.push(record.fields().map(|f| f.cooked().into_owned()).collect());
        })?;
        Ok(records)
    }

    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        fingerprint_with::<S>(input, dialect)
    }

    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let input = map(path)?;
        Ok(fingerprint_with::<S>(&input, dialect)?)
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
    fingerprint_with::<Best>(input, dialect)
}

/// [`fingerprint`], scanning with the tier `S`.
///
/// # Errors
/// As [`fingerprint`].
pub fn fingerprint_with<S: Scanner>(
    input: &[u8],
    dialect: Dialect,
) -> Result<Fingerprint, ParseError> {
    let mut fp = Fingerprint::default();
    Parser::new(dialect.delimiter).for_each_record_with::<S>(input, |record| {
        fp.add_record(record.fields().map(|f| f.cooked_len()));
    })?;
    Ok(fp)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    fn records(s: &[u8]) -> Vec<Vec<String>> {
        Step4::records(s)
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
        let e = Step4::records(b"\xEF\xBB\xBFa\n\nb,\"x\ny").unwrap_err();
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
