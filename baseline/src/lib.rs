//! # The baseline: what a learner would use in production
//!
//! Not a step of the ladder: the same pass (records, fields, cooked bytes) done with
//! BurntSushi's [`csv`] crate, the way its documentation recommends for speed: a
//! [`csv::ReaderBuilder`] with `has_headers(false)` and `flexible(true)`, reading
//! every record into one reused [`csv::ByteRecord`] (no UTF-8 check, no allocation per
//! record once the record's buffers have grown). `bench.sh` prints it as the
//! `baseline (csv crate)` row, so every step can be read against it. And the same
//! GROUP BY as step 5, written with the csv crate as a learner would write it for
//! production ([`query`], `baseline --query`): `bench.sh`'s `baseline query (csv
//! crate)` row, the yardstick of step 5 and of every query step after it.
//!
//! It implements [`harness::Step`] so that the gate runs on it like on a step, but
//! its binary does not stop when the gate fails: the csv crate's dialect is not
//! ours on two points, and the binary reports them ([`survey`]) instead of hiding
//! them. Every other rule of our dialect (BOM, blank lines, CR LF, doubled and
//! lenient quotes, ragged records, bytes that are not UTF-8) agrees on every
//! conformance case.
//!
//! ## Where the csv crate's dialect differs from ours
//!
//! Measured with csv 1.4 (csv-core 0.1.13) on `data/conformance/`; the baseline's tests
//! pin the list, so a new csv version that changes it fails them.
//!
//! 1. **A lone CR ends a record** ([`Difference::LoneCrEndsRecord`]). The csv crate's
//!    default terminator (`Terminator::CRLF`) takes CR, LF or CR LF as a record's end;
//!    our rule 3 keeps every CR that is not right before an LF as data. So `a\rb,c`
//!    LF is one record `a` CR `b`, `c` for us and two records (`a`; `b`, `c`) for the
//!    csv crate; `a,b` CR at the end of the input keeps its CR for us and loses it in
//!    the csv crate; a line of only CRs is a record for us and a blank line for the
//!    csv crate. 12 cases: `cr_at_eof`, `cr_cr_lf`, `cr_mid_field`,
//!    `cr_before_delimiter`, `cr_only_input`, `cr_only_last_line`, `lf_then_cr_data`,
//!    `line_of_two_crs`, `delimiter_then_cr_at_eof`, `lenient_cr_after_closing`,
//!    `lenient_cr_at_eof_after_quote`, `boundary_cr_data_split`. No setting of the
//!    crate gives our rule: `Terminator::Any(b'\n')` would keep the CR of every CR LF.
//!    A CR inside quotes is data in both (`quoted_cr` agrees).
//! 2. **An unterminated quote is no error** ([`Difference::OpenQuoteClosedAtEnd`]).
//!    Our rule 8 makes a quoted field still open at the end of the input the error
//!    `unterminated_quote`; the csv crate ends the field there, as if a closing quote
//!    followed, and returns the record. 15 cases: every `error_*` case and
//!    `boundary_error_open_quote_at_64`. The baseline therefore never returns a
//!    [`ParseError`].
//!
//! The bench file has neither (no CR, every quote closed), so on it the baseline's
//! fingerprint equals the reference parser's; its binary checks that on every run.
//!
//! ## The query
//!
//! `SELECT category, COUNT(*), SUM(value) FROM file GROUP BY category`, in [`query`]:
//! a [`csv::ReaderBuilder`] with its defaults (the first record is the header; a
//! record of another width is the crate's `UnequalLengths` error) reading the file
//! through the crate's buffered reader (`from_path`) into one reused
//! [`csv::ByteRecord`]; the two columns found by their names in the header; the value
//! parsed with `fast-float2` straight from the bytes (not `str::parse::<f64>`, which
//! would put back the UTF-8 check that a `ByteRecord` skips; [`query::parse_value`]
//! says more), an empty value being NULL (counted, not summed); a
//! `hashbrown::HashMap<Vec<u8>, Acc>` looked up with `get_mut(&[u8])` and inserted
//! into on a miss, so a key is copied once, when its group is born. Its allocations
//! do not grow with the file (`tests/query_alloc.rs`): 93 in a query over the bench
//! file (the reader's buffers, the table as it grows, and each of the 32 keys copied
//! once into the table and once into the answer).
//!
//! The semantics are step 5's, so the answers can be compared: on generated files
//! (LF and CR LF, from no name quoted to every name quoted) its counts are step 5's,
//! and its sums step 5's and `gen`'s reference bit for bit (`tests/query.rs`), and
//! `baseline --query` checks its answer against the file's `gen` reference
//! (`bench.ref.json`) on every run (`"answer_matches_reference"` in its JSON).
//!
//! Its errors say what and where (a [`query::QueryFailure`]: step 5's
//! [`harness::query::QueryError`] where there is one, a read error otherwise), but
//! exact parity with step 5's is not a goal. `tests/query.rs` runs step 5's bad inputs
//! through both and pins every difference:
//!
//! | input | the baseline against step 5 |
//! |---|---|
//! | an empty input, a header only, a missing column, a record of another width, a value that is not a finite number, NULLs, a BOM, a key that is not UTF-8 | the same answer or the same error |
//! | an error after blank lines, or in a CR LF file | the same error but for its `line`: the csv crate's `Position::line`, where its reader stood when the record began, before the blank lines and before the LF of the previous record's CR LF (the record index is step 5's) |
//! | a quote still open at the end | not `unterminated_quote`: the csv crate closes the quote, and then the record is too short (`field_count`), its value is not a number (`invalid_number`), or it is fine (an answer) |
//! | a lone CR | the end of a record, where step 5 keeps it as data (so, often, an answer where step 5 has a `field_count` error) |
//!
//! **Measured** on an Intel Xeon Processor (KVM guest, family 6 model 167, 2 cores,
//! shared and noisy), rustc 1.95.0, one full `./bench.sh` (the 1,000,000-row
//! `data/bench.csv`, 49.3 MB; best of 3 interleaved runs, each a process of its own):
//!
//! | row | MB/s | Mrows/s | heap allocs/pass | runs (MB/s) |
//! |---|---:|---:|---:|---|
//! | 5 step5 (its query) | 649 | 13.2 | 76 | 628, 649, 624 |
//! | 6 step7 (its query) | 756 | 15.3 | 76 | 719, 745, 756 |
//! | baseline (csv crate), the pass | 583 | 11.8 | 16 | 583, 562, 458 |
//! | baseline query (csv crate) | 407 | 8.2 | 93 | 402, 372, 407 |
//!
//! So in that run step 5's query is 1.6 times the csv crate's (649 against 407 MB/s,
//! best for best) and step 7's 1.9 times. The ratio moves between sittings on this
//! shared machine: an earlier full run the same day (before step 7 existed) gave
//! step 5 566 and the baseline's query 460 MB/s, 1.2 times. In both, the query costs
//! the csv crate about 30% of its pass's speed (407 against 583, 460 against 647
//! MB/s): a number parse and a table lookup per record. Step 5 measures its own
//! speedup over the same query on step 1's parser (5.1x in that run); the baseline
//! does not run step 1, so its query row has no `x step 1`.

use std::io::Read;
use std::path::Path;

use harness::dialect::Dialect;
use harness::{Error, Fingerprint, ParseError, Record, Step};

pub mod query;
pub mod reference;
pub mod simd_query;
pub mod survey;

pub use survey::{Difference, Survey};

/// The csv crate on the harness's [`Step`] interface.
pub struct Baseline;

impl Step for Baseline {
    /// Not on the ladder: 0 sorts it apart from the steps.
    const NUMBER: u32 = 0;
    const NAME: &'static str = "baseline";
    const IDEA: &'static str = "the csv crate (one reused ByteRecord)";

    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError> {
        let mut reader = reader(input, dialect);
        let mut record = csv::ByteRecord::new();
        let mut records = Vec::new();
        while read(&mut reader, &mut record) {
            records.push(record.iter().map(<[u8]>::to_vec).collect());
        }
        Ok(records)
    }

    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        let mut reader = reader(input, dialect);
        let mut record = csv::ByteRecord::new();
        let mut fp = Fingerprint::default();
        while read(&mut reader, &mut record) {
            add(&mut fp, &record);
        }
        Ok(fp)
    }

    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let to_error = |e: csv::Error| match e.into_kind() {
            csv::ErrorKind::Io(e) => Error::io(path, e),
            other => Error::io(path, std::io::Error::other(format!("{other:?}"))),
        };
        let mut reader = builder(dialect).from_path(path).map_err(to_error)?;
        let mut record = csv::ByteRecord::new();
        let mut fp = Fingerprint::default();
        while reader.read_byte_record(&mut record).map_err(to_error)? {
            add(&mut fp, &record);
        }
        Ok(fp)
    }
}

// ANCHOR: builder
/// The reader settings of every baseline pass: no header row (the header is a record,
/// as in every step), records of any length, the dialect's delimiter, everything else
/// the crate's default (quote `"`, doubled quotes, terminator CR, LF or CR LF).
fn builder(dialect: Dialect) -> csv::ReaderBuilder {
    let mut builder = csv::ReaderBuilder::new();
    builder
        .has_headers(false)
        .flexible(true)
        .delimiter(dialect.delimiter);
    builder
}
// ANCHOR_END: builder

fn reader<R: Read>(input: R, dialect: Dialect) -> csv::Reader<R> {
    builder(dialect).from_reader(input)
}

/// Reads the next record into `record`; false at the end of the input.
fn read(reader: &mut csv::Reader<&[u8]>, record: &mut csv::ByteRecord) -> bool {
    reader
        .read_byte_record(record)
        // Reading bytes from memory cannot fail, and a flexible reader of ByteRecords
        // has no error of its own (no UTF-8 check, no record-length check).
        .expect("a flexible ByteRecord reader over a byte slice cannot fail")
}

/// Adds `record` to `fp`: `as_slice` is all its fields' bytes end to end.
fn add(fp: &mut Fingerprint, record: &csv::ByteRecord) {
    fp.records += 1;
    fp.fields += record.len() as u64;
    fp.bytes += record.as_slice().len() as u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_counts_cooked_bytes() {
        let input = b"\xEF\xBB\xBFa,\"b,\"\"c\"\n\n\"\",,\r\nlast";
        let fp = Baseline::fingerprint(input).unwrap();
        assert_eq!(fp, harness::reference::fingerprint(input).unwrap());
        assert_eq!((fp.records, fp.fields, fp.bytes), (3, 6, 9));
    }

    #[test]
    fn a_lone_cr_ends_a_record_in_the_csv_crate() {
        let got = Baseline::records(b"a\rb,c\n").unwrap();
        assert_eq!(
            got,
            vec![vec![b"a".to_vec()], vec![b"b".to_vec(), b"c".to_vec()]]
        );
    }

    #[test]
    fn an_open_quote_at_the_end_is_closed_without_an_error() {
        let got = Baseline::records(b"a,\"b\nc").unwrap();
        assert_eq!(got, vec![vec![b"a".to_vec(), b"b\nc".to_vec()]]);
    }
}
