//! The gate must be able to fail: a correct parser passes it, and deliberately broken
//! parsers fail it with a report a learner can read.

use std::path::Path;

use harness::dialect::Dialect;
use harness::gate::cases;
use harness::gate::random::Family;
use harness::gate::{self, check_case};
use harness::reference;
use harness::{Error, Fingerprint, ParseError, Record, Step, StepFns};

/// The reference parser itself, as a step: it must pass the whole gate.
struct Reference;

impl Step for Reference {
    const NUMBER: u32 = 0;
    const NAME: &'static str = "reference";
    const IDEA: &'static str = "the executable spec";
    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError> {
        reference::parse_in(input, dialect)
    }
    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        reference::fingerprint_in(input, dialect)
    }
    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Ok(reference::fingerprint_in(&bytes, dialect)?)
    }
}

/// The classic bug: every LF ends a record, even inside a quoted field.
struct EndsRecordsAtEveryLf;

impl Step for EndsRecordsAtEveryLf {
    const NUMBER: u32 = 0;
    const NAME: &'static str = "broken";
    const IDEA: &'static str = "lines are records";
    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError> {
        let mut records = Vec::new();
        for line in input.split(|&b| b == b'\n') {
            // Each line parsed alone; a quote left open at the line's end is closed there.
            match reference::parse_in(line, dialect) {
                Ok(parsed) => records.extend(parsed),
                Err(_) => records.extend(
                    reference::parse_in(&[line, b"\""].concat(), dialect).unwrap_or_default(),
                ),
            }
        }
        Ok(records)
    }
    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        let mut fp = Fingerprint::default();
        for record in Self::records_in(input, dialect)? {
            fp.add_record(record.iter().map(Vec::len));
        }
        Ok(fp)
    }
    fn pass(_: &Path, _: Dialect) -> Result<Fingerprint, Error> {
        unreachable!("the gate never calls pass")
    }
}

/// Right records, but a fingerprint that forgets empty fields.
struct MiscountsEmptyFields;

impl Step for MiscountsEmptyFields {
    const NUMBER: u32 = 0;
    const NAME: &'static str = "miscounts";
    const IDEA: &'static str = "skips empty fields in the count";
    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError> {
        reference::parse_in(input, dialect)
    }
    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        let mut fp = Fingerprint::default();
        for record in reference::parse_in(input, dialect)? {
            fp.add_record(record.iter().map(Vec::len).filter(|&len| len > 0));
        }
        Ok(fp)
    }
    fn pass(_: &Path, _: Dialect) -> Result<Fingerprint, Error> {
        unreachable!("the gate never calls pass")
    }
}

/// Panics on a lone CR, as a parser that indexes one byte too far might.
struct PanicsOnCr;

impl Step for PanicsOnCr {
    const NUMBER: u32 = 0;
    const NAME: &'static str = "panics";
    const IDEA: &'static str = "reads past the end";
    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError> {
        if input.last() == Some(&b'\r') {
            let _ = input[input.len()]; // one byte too far
        }
        reference::parse_in(input, dialect)
    }
    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        reference::fingerprint_in(input, dialect)
    }
    fn pass(_: &Path, _: Dialect) -> Result<Fingerprint, Error> {
        unreachable!("the gate never calls pass")
    }
}

#[test]
fn the_reference_parser_passes_the_whole_gate() {
    let report = gate::run(StepFns::of::<Reference>()).unwrap();
    assert!(report.passed(), "{}", report.failures[0]);
    assert!(report.cases >= 40);
    assert!(report.checks > 10_000);
}

#[test]
fn a_parser_that_ends_records_at_every_lf_fails_with_a_readable_report() {
    let case = cases::load("quoted_lf").unwrap();
    let failure = check_case(StepFns::of::<EndsRecordsAtEveryLf>(), &case).unwrap_err();
    let report = failure.to_string();
    assert!(
        report.starts_with("broken failed the gate: case `quoted_lf`"),
        "{report}"
    );
    assert!(report.contains("first difference in record"), "{report}");
    assert!(
        report.contains("expected") && report.contains("got"),
        "{report}"
    );
    assert!(
        report.contains("\\n"),
        "the report shows the LF escaped: {report}"
    );
    // And the whole gate counts it as failed.
    assert!(
        !gate::run(StepFns::of::<EndsRecordsAtEveryLf>())
            .unwrap()
            .passed()
    );
}

#[test]
fn a_wrong_fingerprint_fails_even_when_the_records_are_right() {
    let case = cases::load("runs_of_empty_fields").unwrap();
    let failure = check_case(StepFns::of::<MiscountsEmptyFields>(), &case).unwrap_err();
    assert!(failure.difference.contains("fingerprint"), "{failure}");
}

#[test]
fn a_panic_is_reported_not_propagated() {
    let case = cases::load("cr_at_eof").unwrap();
    let failure = check_case(StepFns::of::<PanicsOnCr>(), &case).unwrap_err();
    assert!(failure.difference.contains("got a panic"), "{failure}");
    assert!(gate::check_family(StepFns::of::<PanicsOnCr>(), Family::Mixed).is_err());
}

/// Right with the comma, but the delimiter is a constant: the gate's other
/// delimiters catch it.
struct IgnoresTheDelimiter;

impl Step for IgnoresTheDelimiter {
    const NUMBER: u32 = 0;
    const NAME: &'static str = "comma-only";
    const IDEA: &'static str = "a constant delimiter";
    fn records_in(input: &[u8], _: Dialect) -> Result<Vec<Record>, ParseError> {
        reference::parse(input)
    }
    fn fingerprint_in(input: &[u8], _: Dialect) -> Result<Fingerprint, ParseError> {
        reference::fingerprint(input)
    }
    fn pass(_: &Path, _: Dialect) -> Result<Fingerprint, Error> {
        unreachable!("the gate never calls pass")
    }
}

#[test]
fn a_parser_that_ignores_the_delimiter_fails_the_gate() {
    let cases = cases::load_all().unwrap();
    for case in &cases {
        assert!(
            check_case(StepFns::of::<IgnoresTheDelimiter>(), case).is_ok(),
            "{}",
            case.name
        );
    }
    let failure = gate::check_delimiters(StepFns::of::<IgnoresTheDelimiter>(), &cases).unwrap_err();
    assert!(
        failure.check.contains("delimited by ';'"),
        "{}",
        failure.check
    );
    let report = gate::run(StepFns::of::<IgnoresTheDelimiter>()).unwrap();
    assert_eq!(report.failures.len(), 1, "only the delimiters' check fails");
}
