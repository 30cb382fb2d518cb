//! The gate: the checks every step passes before it may print a number.
//!
//! (a) Every case of `data/conformance/`, as it is and padded in front and behind with
//! 0–[`MAX_PADDING`] bytes of filler that cannot change its parse ([`crate::gate::padding`]);
//! (b) a differential run against [`crate::reference`] on the random documents of
//! [`crate::gate::random::Family`]. Each input is checked twice: [`crate::Step::records`] must give
//! the same records (or the same error) as the answer, and [`crate::Step::fingerprint`] the
//! same fingerprint; (c) every case and document again with each other delimiter
//! of [`crate::dialect::GATE_DELIMITERS`]. A step's binary runs [`run`] before it benchmarks; its tests run
//! the same checks one test per case (`testkit::gate_tests!`).

pub mod cases;
pub mod delimiters;
pub mod padding;
pub mod random;

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use rayon::prelude::*;

use crate::dialect::Dialect;
use crate::gate::cases::{Case, CaseError, load_all};
use crate::gate::padding::{MAX_PADDING, behind, in_front};
use crate::gate::random::Family;
use crate::json::Outcome;
use crate::reference;
use crate::step::{Fingerprint, StepFns};
pub use delimiters::check_delimiters;

/// What a step returned for one input, or that it panicked.
#[derive(Clone, Debug, PartialEq)]
pub enum Got<T> {
    /// The step returned.
    Returned(T),
    /// The step panicked with this message.
    Panicked(String),
}

/// The first check a step failed, with everything needed to see why.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The step's name.
    pub step: &'static str,
    /// Which check: `case quoted_lf, padded in front with 17 bytes`, …
    pub check: String,
    /// The input the step was given.
    pub input: Vec<u8>,
    /// What went wrong, in words, with expected and got.
    pub difference: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} failed the gate: {}", self.step, self.check)?;
        writeln!(
            f,
            "  input ({} bytes): {}",
            self.input.len(),
            show(&self.input, 200)
        )?;
        write!(f, "{}", self.difference)
    }
}

/// How many checks passed, or the first that failed.
pub type GateResult = Result<usize, Box<Failure>>;

/// Checks `step` on one input whose right answer is `expected`.
///
/// # Errors
/// The failure, when the records, the error or the fingerprint differ, or `step`
/// panics.
pub fn check_input(step: StepFns, check: &str, input: &[u8], expected: &Outcome) -> GateResult {
    check_input_in(step, check, input, expected, Dialect::default())
}

/// [`check_input`] with `dialect`'s delimiter.
///
/// # Errors
/// As [`check_input`].
pub fn check_input_in(
    step: StepFns,
    check: &str,
    input: &[u8],
    expected: &Outcome,
    dialect: Dialect,
) -> GateResult {
    let fail = |difference: String| {
        Box::new(Failure {
            step: step.name,
            check: check.to_string(),
            input: input.to_vec(),
            difference,
        })
    };
    let got = guarded(|| (step.records_in)(input, dialect));
    if let Some(difference) = describe_records(expected, &got) {
        return Err(fail(difference));
    }
    let expected_fp = expected
        .as_ref()
        .map(|records| fingerprint_of(records))
        .map_err(|e| *e);
    let got_fp = guarded(|| (step.fingerprint_in)(input, dialect));
    if got_fp != Got::Returned(expected_fp) {
        return Err(fail(format!(
            "  fingerprint: expected {}\n               got      {}\n",
            show_fp(&expected_fp),
            match got_fp {
                Got::Returned(fp) => show_fp(&fp),
                Got::Panicked(msg) => format!("a panic: {msg}"),
            }
        )));
    }
    Ok(2)
}

/// Checks `step` on one case at every padding in front and behind, the paddings on
/// every core (the pool's threads: see [`run`]).
///
/// # Errors
/// The first failing check, in the order: as it is, then padding 0, 1, … in front
/// and behind.
pub fn check_case(step: StepFns, case: &Case) -> GateResult {
    let as_is = check_input(
        step,
        &format!("case `{}`", case.name),
        &case.input,
        &case.expected,
    );
    let padded = (0..=MAX_PADDING).into_par_iter().map(|n| {
        let (input, expected) = in_front(&case.input, &case.expected, n);
        let what = format!("case `{}`, padded in front with {n} bytes", case.name);
        let mut checks = check_input(step, &what, &input, &expected)?;
        if let Some((input, expected)) = behind(&case.input, &case.expected, n) {
            let what = format!("case `{}`, padded behind with {n} bytes", case.name);
            checks += check_input(step, &what, &input, &expected)?;
        }
        Ok(checks)
    });
    first_failure(std::iter::once(as_is).chain(padded.collect::<Vec<_>>()))
}

/// Checks `step` against the reference parser on every document of `family`, on every
/// core.
///
/// # Errors
/// The first failing document.
pub fn check_family(step: StepFns, family: Family) -> GateResult {
    let results: Vec<GateResult> = family
        .documents()
        .par_iter()
        .enumerate()
        .map(|(i, doc)| {
            let expected = reference::parse(doc);
            check_input(
                step,
                &format!("random document {i} of family {family:?}"),
                doc,
                &expected,
            )
        })
        .collect();
    first_failure(results)
}

/// The sum of the checks, or the first failure in `results`' order (the order a
/// sequential gate would have found it in, whichever thread finished first).
pub(crate) fn first_failure(results: impl IntoIterator<Item = GateResult>) -> GateResult {
    results.into_iter().sum()
}

/// The whole gate, as a step binary runs it before benchmarking.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GateReport {
    /// Conformance cases checked.
    pub cases: usize,
    /// Random documents checked.
    pub documents: usize,
    /// Checks that passed (records and fingerprint count one each).
    pub checks: usize,
    /// The first failure of each case or family that failed.
    pub failures: Vec<Failure>,
}

impl GateReport {
    /// True when nothing failed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Runs every case and every family on `step` and reports.
///
/// The checks run on every core, on rayon's pool: the gate's 59,926 checks are
/// independent, and a parallel step (7, 8) that takes its workers from the same pool
/// then runs a check's chunks on the calling thread or a stealing one, instead of
/// waking threads (see step 10's `map_chunks`). Which check failed first does not
/// depend on the threads.
///
/// # Errors
/// [`CaseError`] when the corpus itself cannot be loaded.
pub fn run(step: StepFns) -> Result<GateReport, CaseError> {
    let cases = load_all()?;
    let case_results: Vec<GateResult> = cases.par_iter().map(|c| check_case(step, c)).collect();
    let family_results: Vec<GateResult> = Family::ALL
        .iter()
        .map(|&f| check_family(step, f))
        .chain([check_delimiters(step, &cases)])
        .collect();
    let mut report = GateReport {
        cases: cases.len(),
        documents: Family::ALL.iter().map(|f| f.documents().len()).sum(),
        ..GateReport::default()
    };
    for result in case_results.into_iter().chain(family_results) {
        match result {
            Ok(n) => report.checks += n,
            Err(failure) => report.failures.push(*failure),
        }
    }
    Ok(report)
}

fn guarded<T>(f: impl FnOnce() -> T) -> Got<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => Got::Returned(v),
        Err(payload) => Got::Panicked(
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".to_string()),
        ),
    }
}

fn fingerprint_of(records: &[crate::step::Record]) -> Fingerprint {
    let mut fp = Fingerprint::default();
    for record in records {
        fp.add_record(record.iter().map(Vec::len));
    }
    fp
}

/// `None` when `got` equals `expected`; else the first difference in words.
fn describe_records(expected: &Outcome, got: &Got<Outcome>) -> Option<String> {
    let got = match got {
        Got::Returned(got) if got == expected => return None,
        Got::Returned(got) => got,
        Got::Panicked(msg) => {
            return Some(format!(
                "  expected {}\n  got a panic: {msg}\n",
                show_outcome(expected)
            ));
        }
    };
    let (Ok(exp), Ok(got)) = (expected, got) else {
        return Some(format!(
            "  expected {}\n  got      {}\n",
            show_outcome(expected),
            show_outcome(got)
        ));
    };
    let r = (0..exp.len().max(got.len()))
        .find(|&r| exp.get(r) != got.get(r))
        .unwrap_or(0);
    let mut out = format!(
        "  expected {} records, got {}; first difference in record {r}\n",
        exp.len(),
        got.len()
    );
    match (exp.get(r), got.get(r)) {
        (Some(e), Some(g)) => {
            let f = (0..e.len().max(g.len()))
                .find(|&f| e.get(f) != g.get(f))
                .unwrap_or(0);
            out += &format!(
                "  field {f} (expected {} fields in this record, got {}):\n",
                e.len(),
                g.len()
            );
            out += &format!(
                "    expected {}\n    got      {}\n",
                show_field(e.get(f)),
                show_field(g.get(f))
            );
        }
        (e, g) => {
            out += &format!(
                "    expected {}\n    got      {}\n",
                show_record(e),
                show_record(g)
            );
        }
    }
    Some(out)
}

fn show_outcome(outcome: &Outcome) -> String {
    match outcome {
        Ok(records) => format!("{} records", records.len()),
        Err(e) => format!(
            "the error `{}` at record {}, byte {} (line {})",
            e.kind().name(),
            e.record,
            e.byte,
            e.line
        ),
    }
}

fn show_field(field: Option<&Vec<u8>>) -> String {
    field.map_or("no field".to_string(), |f| show(f, 80))
}

fn show_record(record: Option<&crate::step::Record>) -> String {
    match record {
        None => "no record".to_string(),
        Some(fields) => format!(
            "[{}]",
            fields
                .iter()
                .map(|f| show(f, 40))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn show_fp(fp: &Result<Fingerprint, crate::error::ParseError>) -> String {
    match fp {
        Ok(fp) => format!(
            "{} records, {} fields, {} bytes",
            fp.records, fp.fields, fp.bytes
        ),
        Err(e) => format!("the error at record {}, byte {}", e.record, e.byte),
    }
}

/// `bytes` as an escaped string literal (`"a\r\n\"b\xff"`), cut to `max` bytes.
pub fn show(bytes: &[u8], max: usize) -> String {
    let cut = &bytes[..bytes.len().min(max)];
    let more = if bytes.len() > max {
        format!("… ({} more bytes)", bytes.len() - max)
    } else {
        String::new()
    };
    format!("\"{}\"{more}", cut.escape_ascii())
}
