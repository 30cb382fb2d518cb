//! # Step 5 — the payoff query: a typed GROUP BY, end to end
//!
//! **The idea.** Parsing is never the goal; an answer is. This step runs
//! `SELECT category, COUNT(*), SUM(value) GROUP BY category` over the file, end to end
//! from the mapping, on step 4's parser. The fields arrive as views, so the query
//! takes what it needs straight from them: the group key's bytes go to a hash table
//! without becoming a `String` ([`table`]), and the value's bytes become an `f64`
//! without a `&str`, a locale or a NUL-terminated copy ([`value`]). No allocation per
//! row: the table copies a key once, when its group is born.
//!
//! This is the query done plainly: the parser cuts every field of every record, the
//! value is parsed by one loop over its digits (Clinger's fast path, `fast-float2`
//! for the rest), and the table compares key bytes. Step 6 makes the parse faster;
//! step 7 measures what the query itself costs and cuts that.
//!
//! **What changed since the previous step.** The parser is step 4's, unchanged. New:
//! [`value`] (a field's bytes to an `f64`), [`table`] (a linear-probe table written
//! by hand for GROUP BY keys, and `hashbrown`'s, behind one trait), [`query`] (the
//! header names the columns; each record adds to its group or stops the query with
//! an error that says where), [`serial`] (the query over a whole input, on one
//! core), and [`step1_query`], the same query on step 1's parser, for the speedup
//! this step prints and for the first of its three cross-checks (`tests/query.rs`;
//! the gate is the third).
//!
//! **Bad input** (each row is a test of `testkit::query_bad_input`, the family that
//! every query step's `tests/bad_input.rs` runs; DuckDB and Polars as a guide):
//!
//! | input | behaviour |
//! |---|---|
//! | empty file, or only blank lines | error `no_header` |
//! | header only | an empty answer (no groups) |
//! | a queried column missing from the header | error `missing_column`, with the header's names |
//! | a record with more or fewer fields than the header | error `field_count` (record, line, expected, found) |
//! | an empty value | NULL: counted, not summed; a group of NULLs has a NULL sum |
//! | `+3`, `.5`, `5.`, `"2.5"` (quoted), 20-digit integers | numbers (the last rounded to the nearest `f64`) |
//! | `-0` | `-0.0`; the sum starts at `+0.0`, so a sum of `-0` is `0.0` |
//! | `1e-400` | `0.0` (underflow, as `str::parse`) |
//! | `1e400`, `inf`, `NaN`, ` 3`, `3 `, `1,5`, `0x10`, `abc` | error `invalid_number` (record, line, column, text) |
//! | a key that is not valid UTF-8 | a group like any other, printed with `\xNN` for the invalid bytes |
//! | an unterminated quote | error `unterminated_quote` (record, byte), as every step |
//!
//! Errors exit with status 1 (2 when the file cannot be read); with `--json` they are
//! printed as one JSON object.
//!
//! **Assumptions and policy.** The dialect of the `harness` crate. The first record
//! is the header; every other record must have as many fields as the header. SQL's
//! NULL rule, as DuckDB has it. Sums are `f64`, added in row order, so they equal
//! `gen`'s reference bit for bit.
//!
//! **Read more.** Daniel Lemire, "Number Parsing at a Gigabyte per Second" (2021),
//! the algorithm of fast_float, ported to Rust as fast-float2; W. D. Clinger, "How to
//! Read Floating Point Numbers Accurately" (PLDI 1990), the fast path; Knuth, TAOCP
//! vol. 3, 6.4 (linear probing); the SwissTable talk (Matt Kulukundis, CppCon 2017),
//! the design of hashbrown; the One Billion Row Challenge (2024), the same query
//! taken very far.

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

pub mod acc;
pub mod cli;
pub mod query;
pub mod scan;
pub mod serial;

use scan::{Best, Scanner};
pub mod step1_query;
pub mod table;
pub mod value;

pub use serial::run;

/// Step 5 on the harness's [`Step`] interface, scanning with the [`Best`] tier.
pub type Step5 = With<Best>;

/// Step 5's parser scanning with the tier `S` (step 4's tiers, carried forward).
pub struct With<S>(PhantomData<S>);

impl<S: Scanner> Step for With<S> {
    const NUMBER: u32 = 5;
    const NAME: &'static str = "step5";
    const IDEA: &'static str = "typed GROUP BY: values and keys straight from the views";

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
        Step5::records(s)
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
        let e = Step5::records(b"\xEF\xBB\xBFa\n\nb,\"x\ny").unwrap_err();
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
