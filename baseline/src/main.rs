//! `baseline [FILE] [--runs N] [--json] [--records FILE]`: the csv crate, gated and
//! measured like a step, with the same options and the same JSON (plus the gate's
//! survey and whether the fingerprint is the reference parser's).
//!
//! Unlike a step, it does not stop when the gate fails: the csv crate's dialect differs
//! from ours on purpose (see the crate docs), so it prints what differs, surveyed over
//! every input of the gate, and measures anyway. It exits 1 only when a difference is
//! not one of the known kinds, or when the pass fails; the JSON says whether its
//! fingerprint on the file equals the reference parser's.

use std::path::Path;
use std::process::ExitCode;

use baseline::{Baseline, Difference, Survey, survey};
use harness::cli::{self, Options};
use harness::measure::{Measurement, thousands, time_runs};
use harness::{Fingerprint, Step, gate};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> ExitCode {
    let matches = cli::command::<Baseline>().get_matches();
    let options = Options::from_matches(&matches);
    // `--row-json`, where the harness's command line has it, means `--json` here: the
    // baseline has no answer to print but its measurement.
    let row_json = matches.try_get_one::<bool>("row-json").ok().flatten() == Some(&true);
    if let Some(path) = &options.records {
        return cli::dump_records::<Baseline>(path);
    }
    let path = match cli::bench_input(options.file.as_deref()) {
        Ok(path) => path,
        Err(e) => return cli::fail(Baseline::NAME, &e),
    };
    let Some((gate_failures, survey)) = gate_and_survey() else {
        return ExitCode::FAILURE;
    };
    let (measurement, expected) = match measure(&path, options.runs) {
        Ok(m) => m,
        Err(e) => return cli::fail(Baseline::NAME, &e),
    };
    let same = measurement.fingerprint == expected;
    eprintln!(
        "fingerprint: {} records, {} fields, {} bytes, {}",
        thousands(measurement.fingerprint.records),
        thousands(measurement.fingerprint.fields),
        thousands(measurement.fingerprint.bytes),
        if same {
            "the same as the reference parser's".to_string()
        } else {
            format!("NOT the reference parser's {}", expected.to_json())
        }
    );
    if options.json || row_json {
        let mut json = measurement.to_json();
        json["fingerprint_matches_reference"] = same.into();
        json["reference_fingerprint"] = fingerprint_json(&expected);
        json["gate"] = serde_json::json!({
            "passed": gate_failures == 0,
            "failures": gate_failures,
            "survey": survey.to_json(),
        });
        println!("{json}");
    } else {
        cli::print_measurement(&measurement, false);
    }
    ExitCode::SUCCESS
}

/// Runs the gate as every step does, then the survey; prints both. `None` (after
/// printing why) when the corpus cannot be loaded or a difference is unexplained.
fn gate_and_survey() -> Option<(usize, Survey)> {
    let start = std::time::Instant::now();
    let report = gate::run::<Baseline>()
        .map_err(|e| eprintln!("gate: cannot load the conformance corpus: {e}"))
        .ok()?;
    let cases = harness::cases::load_all().ok()?;
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
    let expected = cli::expected_fingerprint(path)?;
    let (fingerprints, times, allocs) = time_runs(runs, || Baseline::pass(path))?;
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
