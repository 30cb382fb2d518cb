//! `baseline [FILE] [--query] [--runs N] [--json] [--row-json] [--records FILE]`: the
//! csv crate, gated and measured like a step, with the same options and the same JSON
//! (plus the gate's survey and whether the fingerprint is the reference parser's).
//!
//! Unlike a step, it does not stop when the gate fails: the csv crate's dialect differs
//! from ours on purpose (see the crate docs), so it prints what differs, surveyed over
//! every input of the gate, and measures anyway. It exits 1 only when a difference is
//! not one of the known kinds, or when the pass (or the query) fails; the JSON says
//! whether its fingerprint on the file equals the reference parser's.
//!
//! With `--query` it times the GROUP BY ([`baseline::query`]; with `--simd-csv`, the
//! same query on the `simd-csv` reader, [`baseline::simd_query`]) instead of the pass, and,
//! like step 5, prints its answer as a table, or as JSON with `--json`, or its
//! measurement as JSON with `--row-json` (with `"query": true`, and whether the answer
//! is `gen`'s reference, when the file has one). It does not time the same query on
//! step 1's parser, so unlike step 5's its JSON has no `speedup_over_step1`.

use std::path::Path;
use std::process::ExitCode;

use baseline::query::{self, Query, QueryFailure};
use baseline::{Baseline, Difference, Survey, reference, survey};
use clap::{Arg, ArgAction};
use harness::dialect::Dialect;
use harness::query::{Groups, groups_to_json};
use harness::run::cli::{self, Options};
use harness::run::measure::{Measurement, thousands, time_runs};
use harness::{Fingerprint, Step, StepFns, gate};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

/// Which reader the query runs on: the csv crate, or `simd-csv` (`--simd-csv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reader {
    Csv,
    SimdCsv,
}

impl Reader {
    /// The row's name in the JSON (`step`), which tells `bench.sh`'s two query rows apart.
    fn name(self) -> &'static str {
        match self {
            Reader::Csv => Baseline::NAME,
            Reader::SimdCsv => "baseline-simd-csv",
        }
    }

    /// The idea of the query row, in the table's "idea added" column.
    fn idea(self) -> &'static str {
        match self {
            Reader::Csv => "GROUP BY with the csv crate: ByteRecord, fast-float2, hashbrown",
            Reader::SimdCsv => "GROUP BY with simd-csv: ZeroCopyReader, fast-float2, hashbrown",
        }
    }

    fn run(self, path: &Path, query: Query<'_>) -> Result<Groups, QueryFailure> {
        match self {
            Reader::Csv => query::run_path(path, query),
            Reader::SimdCsv => baseline::simd_query::run_path(path, query),
        }
    }
}

fn main() -> ExitCode {
    let command = cli::command::<Baseline>()
        .arg(
            Arg::new("query")
                .long("query")
                .action(ArgAction::SetTrue)
                .help(
                    "time SELECT category, COUNT(*), SUM(value) GROUP BY category instead of \
                     the pass; --json then prints the answer, --row-json the measurement",
                ),
        )
        .arg(
            Arg::new("simd-csv")
                .long("simd-csv")
                .action(ArgAction::SetTrue)
                .requires("query")
                .help(
                    "with --query: read the CSV with the simd-csv crate instead of the csv crate",
                ),
        );
    let matches = cli::matches_of(command);
    let options = Options::from_matches(&matches);
    if options.json {
        cli::sigbus_as_json();
    }
    if let Some(path) = &options.records {
        return cli::dump_records_as::<Baseline>(path, options.dialect, options.json);
    }
    let path = match cli::bench_input(options.file.as_deref()) {
        Ok(path) => path,
        Err(e) => return cli::fail_as(Baseline::NAME, &e, options.json),
    };
    let Some((gate_failures, survey)) = gate_and_survey() else {
        return cli::gate_failed(Baseline::NAME, options.json);
    };
    let gate_json = serde_json::json!({
        "passed": gate_failures == 0,
        "failures": gate_failures,
        "survey": survey.to_json(),
    });
    if matches.get_flag("query") {
        let reader = if matches.get_flag("simd-csv") {
            Reader::SimdCsv
        } else {
            Reader::Csv
        };
        return run_query(&path, &options, gate_json, reader);
    }
    let (measurement, expected) = match measure(&path, options.runs) {
        Ok(m) => m,
        Err(e) => return cli::fail_as(Baseline::NAME, &e, options.json),
    };
    let same = report_fingerprint(&measurement.fingerprint, &expected);
    // `--row-json` means `--json` here: without `--query`, the baseline has no answer
    // to print but its measurement.
    if options.json || options.row_json {
        let mut json = measurement.to_json();
        json["fingerprint_matches_reference"] = same.into();
        json["reference_fingerprint"] = fingerprint_json(&expected);
        json["gate"] = gate_json;
        println!("{json}");
    } else {
        cli::print_measurement(&measurement, false);
    }
    ExitCode::SUCCESS
}

/// `--query`: times the GROUP BY over `path`, best of `options.runs`, and prints the
/// answer (a table, or JSON with `--json`) or the measurement (`--row-json`).
fn run_query(
    path: &Path,
    options: &Options,
    gate_json: serde_json::Value,
    reader: Reader,
) -> ExitCode {
    let query = Query::default();
    let timed = time_runs(options.runs, || reader.run(path, query));
    let (answers, times, allocs) = match timed {
        Ok(timed) => timed,
        Err(e) => return query_failed(path, &e, options.json),
    };
    // Every run reads the same bytes the same way; report the first run's answer.
    let groups = &answers[0];
    if options.json {
        println!("{}", groups_to_json(groups));
        return ExitCode::SUCCESS;
    }
    // The measurement's records, fields and bytes: one (untimed) pass of the csv crate.
    let untimed = || -> Result<_, harness::Error> {
        let bytes = std::fs::metadata(path)
            .map_err(|e| harness::Error::io(path, e))?
            .len();
        Ok((
            bytes,
            cli::expected_fingerprint(path, Dialect::default())?,
            Baseline::pass(path, Dialect::default())?,
        ))
    };
    let (bytes, expected, fingerprint) = match untimed() {
        Ok(all) => all,
        Err(e) => return cli::fail_as(Baseline::NAME, &e, options.json),
    };
    let same = report_fingerprint(&fingerprint, &expected);
    let reference = reference::check_reference(path, groups);
    match &reference {
        Some(Ok(())) => eprintln!(
            "answer: {} groups, the same as gen's reference (counts, and sums bit for bit)",
            groups.len()
        ),
        Some(Err(what)) => eprintln!("answer: NOT gen's reference: {what}"),
        None => eprintln!(
            "answer: {} groups (no gen reference for this file to compare with)",
            groups.len()
        ),
    }
    let m = Measurement {
        step: reader.name().to_string(),
        number: Baseline::NUMBER,
        idea: reader.idea().to_string(),
        bytes,
        fingerprint,
        times,
        allocs,
    };
    if options.row_json {
        let mut json = m.to_json();
        json["query"] = true.into();
        json["groups"] = groups.len().into();
        json["answer_matches_reference"] = reference.map(|r| r.is_ok()).into();
        json["fingerprint_matches_reference"] = same.into();
        json["reference_fingerprint"] = fingerprint_json(&expected);
        json["gate"] = gate_json;
        println!("{json}");
        return ExitCode::SUCCESS;
    }
    harness::query::cli::print_answer(path, query, groups);
    cli::print_measurement(&m, false);
    ExitCode::SUCCESS
}

/// Prints why the query stopped (as JSON with `--json`, like step 5's errors) and
/// returns the exit status: 2 when the file cannot be read, 1 otherwise.
fn query_failed(path: &Path, e: &QueryFailure, json: bool) -> ExitCode {
    match e {
        QueryFailure::Io(source) => {
            let message = format!("cannot read {}: {source}", path.display());
            if json {
                println!("{}", cli::error_object("io", &message));
            }
            eprintln!("{}: {message}", Baseline::NAME);
            return ExitCode::from(2);
        }
        QueryFailure::Query(e) if json => println!("{}", e.to_json()),
        QueryFailure::Csv(e) if json => {
            println!(
                "{}",
                serde_json::json!({"error": "csv", "message": e.to_string()})
            )
        }
        QueryFailure::Simd(e) if json => {
            println!(
                "{}",
                serde_json::json!({"error": "simd-csv", "message": e.to_string()})
            )
        }
        _ => eprintln!("{}: {}: {e}", Baseline::NAME, path.display()),
    }
    ExitCode::FAILURE
}

/// Prints the fingerprint line and says whether it is the reference parser's.
fn report_fingerprint(fingerprint: &Fingerprint, expected: &Fingerprint) -> bool {
    let same = fingerprint == expected;
    eprintln!(
        "fingerprint: {} records, {} fields, {} bytes, {}",
        thousands(fingerprint.records),
        thousands(fingerprint.fields),
        thousands(fingerprint.bytes),
        if same {
            "the same as the reference parser's".to_string()
        } else {
            format!("NOT the reference parser's {}", expected.to_json())
        }
    );
    same
}

/// Runs the gate as every step does, then the survey; prints both. `None` (after
/// printing why) when the corpus cannot be loaded or a difference is unexplained.
fn gate_and_survey() -> Option<(usize, Survey)> {
    let start = std::time::Instant::now();
    let report = gate::run(StepFns::of::<Baseline>())
        .map_err(|e| eprintln!("gate: cannot load the conformance corpus: {e}"))
        .ok()?;
    let cases = harness::gate::cases::load_all().ok()?;
    let found = survey::survey(&cases);
    if report.passed() {
        eprintln!("gate: passed ({} conformance cases)", report.cases);
    } else {
        eprintln!(
            "gate: FAILED, as expected of the csv crate, whose dialect is not ours: {} of {} \
             conformance cases and {} of {} random documents differ. Measured anyway: this is \
             the baseline, not a step. Every difference, over every input of the gate \
             ({:.2} s):",
            found.differing_cases.len(),
            found.cases,
            thousands(found.differing_documents() as u64),
            thousands(found.documents as u64),
            start.elapsed().as_secs_f64()
        );
    }
    for kind in Difference::ALL {
        let (padded, documents) = found.counts.get(&kind).copied().unwrap_or_default();
        if padded + documents > 0 {
            let cases = found.cases_of(kind);
            let names = if cases.is_empty() {
                String::new()
            } else {
                format!(" ({})", cases.join(", "))
            };
            eprintln!(
                "  - {}: {} cases{names}, {} case inputs (as they are and padded), {} random documents",
                kind.describe(),
                cases.len(),
                thousands(padded as u64),
                thousands(documents as u64)
            );
        }
    }
    if !found.unexplained.is_empty() {
        for failure in &found.unexplained {
            eprintln!("{failure}");
        }
        eprintln!(
            "baseline: a difference from the csv crate that the docs do not list; fix the docs or the survey"
        );
        return None;
    }
    Some((report.failures.len(), found))
}

/// Times the baseline's pass over `path` and returns it with the reference parser's
/// fingerprint, which it may differ from (unlike [`cli::time_pass`], no error then).
fn measure(path: &Path, runs: u32) -> Result<(Measurement, Fingerprint), harness::Error> {
    let expected = cli::expected_fingerprint(path, Dialect::default())?;
    let (fingerprints, times, allocs) =
        time_runs(runs, || Baseline::pass(path, Dialect::default()))?;
    let bytes = std::fs::metadata(path)
        .map_err(|e| harness::Error::io(path, e))?
        .len();
    // Every run reads the same bytes the same way; report the first run's answer.
    let fingerprint = fingerprints[0];
    let measurement = Measurement {
        step: Baseline::NAME.to_string(),
        number: Baseline::NUMBER,
        idea: Baseline::IDEA.to_string(),
        bytes,
        fingerprint,
        times,
        allocs,
    };
    Ok((measurement, expected))
}

fn fingerprint_json(fp: &Fingerprint) -> serde_json::Value {
    serde_json::json!({ "records": fp.records, "fields": fp.fields, "bytes": fp.bytes })
}
