//! `step5 [FILE] [--group-by COLUMN] [--sum COLUMN] [--runs N] [--json] [--row-json]
//! [--records FILE]`: the gate, then the query, its answer, its row, and its speedup
//! over the same query on step 1's parser.

use std::path::Path;
use std::process::ExitCode;

use clap::ArgMatches;
use harness::cli::{self, Options};
use harness::measure::{Measurement, time_runs};
use harness::query::{Groups, QueryError, groups_to_json, groups_to_table};
use step5::query::{self, Query};
use step5::{Step5, step1_query};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> ExitCode {
    let matches = cli::query_command::<Step5>().get_matches();
    let options = Options::from_matches(&matches);
    if let Some(path) = &options.records {
        return cli::dump_records::<Step5>(path);
    }
    let path = match cli::bench_input(options.file.as_deref()) {
        Ok(path) => path,
        Err(e) => return cli::fail("step5", &e),
    };
    if !cli::gate_passes::<Step5>() {
        return ExitCode::FAILURE;
    }
    match run(&path, &options, &matches) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run(path: &Path, options: &Options, matches: &ArgMatches) -> Result<(), ExitCode> {
    let query = Query {
        group_by: matches
            .get_one::<String>("group-by")
            .expect("has a default"),
        sum: matches.get_one::<String>("sum").expect("has a default"),
    };
    let (answers, times, allocs) = time_runs(options.runs, || {
        let input = step5::map(path).map_err(|e| cli::fail("step5", &e))?;
        Ok::<_, ExitCode>(query::run(&input, query))
    })?;
    let groups = match &answers[0] {
        Ok(groups) => groups,
        Err(e) => return Err(report(e, options.json)),
    };
    if options.json {
        println!("{}", groups_to_json(groups));
        return Ok(());
    }
    // The parse's fingerprint must be the reference parser's, as for every step.
    let parsed = cli::time_pass::<Step5>(path, 1).map_err(|message| {
        eprintln!("step5: {message}");
        ExitCode::FAILURE
    })?;
    let m = Measurement {
        times,
        allocs,
        ..parsed
    };
    let step1_best = step1_speed(path, query, groups, options.runs)?;
    if options.row_json {
        let mut json = m.to_json();
        json["step1_query_best_s"] = step1_best.into();
        json["speedup_over_step1"] = (step1_best / m.best().as_secs_f64()).into();
        println!("{json}");
        return Ok(());
    }
    println!(
        "\nSELECT {}, COUNT(*), SUM({}) FROM {} GROUP BY {}\n",
        query.group_by,
        query.sum,
        path.display(),
        query.group_by
    );
    println!("{}", groups_to_table(groups, query.group_by, query.sum));
    cli::print_measurement(&m, false);
    println!(
        "\nthe same query on step 1's parser: best {:.3} s; step 5 is {:.1}x faster",
        step1_best,
        step1_best / m.best().as_secs_f64()
    );
    Ok(())
}

/// Times the same query on step 1's parser and checks it gives the same answer, bit
/// for bit (the first cross-check, also a test). Returns its best time in seconds.
fn step1_speed(
    path: &Path,
    query: Query<'_>,
    expected: &Groups,
    runs: u32,
) -> Result<f64, ExitCode> {
    let (answers, times, _) = time_runs(runs, || Ok::<_, ExitCode>(step1_query::run(path, query)))?;
    for answer in &answers {
        let same =
            matches!(answer, Ok(groups) if groups_to_json(groups) == groups_to_json(expected));
        if !same {
            eprintln!("step5: the same query on step 1's parser gives another answer: {answer:?}");
            return Err(ExitCode::FAILURE);
        }
    }
    Ok(times.iter().min().expect("at least one run").as_secs_f64())
}

/// Prints a query error (as JSON with `--json`) and returns the exit status.
fn report(e: &QueryError, json: bool) -> ExitCode {
    if json {
        println!("{}", e.to_json());
    } else {
        eprintln!("step5: {e}");
    }
    ExitCode::FAILURE
}
