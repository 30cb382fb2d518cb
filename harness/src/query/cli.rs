//! The `main` of a query step, written once: what [`crate::run::cli::run`] is to a parsing
//! step. A query step implements [`QueryStep`] (how it runs the query over a file,
//! its own options, the same query on step 1's parser) and its `main` is one line,
//! `harness::query_cli::run_query::<Step5>()`.
//!
//! `stepN [FILE] [--group-by COLUMN] [--sum COLUMN] [--runs N] [--json] [--row-json]
//! [--records FILE]` plus the step's own options: the gate, then the query `runs`
//! times, its answer (a table, or JSON with `--json`), the fingerprint of the parse
//! checked against the reference parser's, the row of the results table (JSON with
//! `--row-json`), and the speedup over the same query on step 1's parser, whose
//! answer must be the same.
//!
//! Exit status: 0 on success; 1 when the gate fails, the query fails (its error printed,
//! as JSON with `--json`), or the answer on step 1's parser differs; 2 when the file
//! cannot be read, or changed while it was read ([`crate::run::changed`]); 135 when
//! it shrank while it was mapped (SIGBUS); a step may add its own (step 13: 3 when a
//! device was required). With `--json`, every error is also one JSON object on stdout,
//! `{"error": …}`.

use crate::query::args;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Arg, ArgAction, Command};

use crate::error::Error;
use crate::query::{
    Aggs, Groups, Query, QueryError, first_difference, groups_to_1brc, groups_to_json_with,
    groups_to_table_with, same_answer,
};
use crate::run::cli::{self, Options, PassError, Stamp};
use crate::run::measure::{Measurement, time_runs};

mod query_step;

pub use query_step::{NotCompared, QueryStep, RunError, Step1Error};

/// Prints `e` after the step's name (and with `--json` as JSON on stdout: a file
/// that could not be read as `{"error":"io",…}`, a query's error as its own, the
/// step's machinery as `{"error":"step",…}`) and returns its exit status.
fn run_failed<S: QueryStep>(e: &RunError, json: bool) -> ExitCode {
    match e {
        RunError::File(e) => cli::fail_as(S::NAME, e, json),
        RunError::Query(e) => report::<S>(e, json),
        RunError::Step(e) => failed::<S>("step", e, ExitCode::FAILURE, json),
    }
}

/// Prints `message` after the step's name, and with `json` as `{"error": kind, …}` on
/// stdout; returns `code`.
fn failed<S: QueryStep>(
    kind: &str,
    message: impl std::fmt::Display,
    code: ExitCode,
    json: bool,
) -> ExitCode {
    if json {
        println!("{}", cli::error_object(kind, &message));
    }
    eprintln!("{}: {message}", S::NAME);
    code
}

/// The clap command of `S`: the query's options and the step's own.
pub fn command<S: QueryStep>() -> Command {
    let command = S::args(args::query_command::<S>());
    match S::VERBOSE {
        Some(help) => command.arg(
            Arg::new("verbose")
                .long("verbose")
                .action(ArgAction::SetTrue)
                .help(help),
        ),
        None => command,
    }
}

/// The whole `main` of a query step.
pub fn run_query<S: QueryStep>() -> ExitCode {
    crate::run::alloc::keep_freed_memory();
    let matches = cli::matches_of(command::<S>());
    if let Some(code) = S::own_command(&matches) {
        return code;
    }
    let options = Options::from_matches(&matches);
    if options.json {
        cli::sigbus_as_json();
    }
    if let Some(path) = &options.records {
        return cli::dump_records_as::<S>(path, options.dialect, options.json);
    }
    let path = match cli::bench_input(options.file.as_deref()) {
        Ok(path) => path,
        Err(e) => return cli::fail_as(S::NAME, &e, options.json),
    };
    if !cli::gate_passes::<S>() {
        return cli::gate_failed(S::NAME, options.json);
    }
    // An option the step cannot honour (step 13's `--device cuda` without a device).
    let config = match S::config(&matches) {
        Ok(config) => config,
        Err((message, code)) => return failed::<S>("options", message, code, options.json),
    };
    let read = match args::query_options(&matches) {
        Ok(read) => read,
        Err(message) => {
            return failed::<S>("options", message, ExitCode::from(2), options.json);
        }
    };
    let query = args::query(&matches, &read);
    let verbose = S::VERBOSE.is_some() && matches.get_flag("verbose");
    if verbose {
        S::verbose(&path, query, &config);
    }
    match run::<S>(&path, &options, &read, query, &config, verbose) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run<S: QueryStep>(
    path: &Path,
    options: &Options,
    read: &args::QueryOptions,
    query: Query<'_>,
    config: &S::Config,
    verbose: bool,
) -> Result<(), ExitCode> {
    let json = options.json;
    let stamp = Stamp::of(path).map_err(|e| cli::fail_as(S::NAME, &Error::io(path, e), json))?;
    // Before any verdict and before the answer: a file that another program changed
    // meanwhile is said to have changed, not blamed on the step or answered for.
    // `changed` reports it (and is `None` when the file did not change).
    let changed = || {
        let changed = stamp.changed(path)?;
        Some(PassError::Changed(changed).report(S::NAME, json))
    };
    let unchanged = || changed().map_or(Ok(()), Err);
    let (answers, times, allocs) = time_runs(options.runs, || {
        S::query_file(path, query, config)
            .map_err(|e| changed().unwrap_or_else(|| run_failed::<S>(&e, json)))
    })?;
    S::after_runs(path, config, &times);
    let groups = &answers[0];
    unchanged()?;
    // A timed pass ends when every group is complete, as a peer's does; the order by
    // key, for printing, is made here, timed apart.
    let start = Instant::now();
    groups.sort();
    let order_s = start.elapsed().as_secs_f64();
    if verbose {
        eprintln!("ordering the answer by key, not in the timed runs: {order_s:.4} s");
    }
    if options.json {
        println!("{}", groups_to_json_with(groups, query.aggs));
        return Ok(());
    }
    if read.brc && !options.row_json {
        let text = groups_to_1brc(groups).map_err(|e| {
            eprintln!("{}: {e}", S::NAME);
            ExitCode::FAILURE
        })?;
        println!("{text}");
        return Ok(());
    }
    // The parse's fingerprint must be the reference parser's, as for every step.
    let parsed = cli::time_pass::<S>(path, 1, query.dialect).map_err(|e| match e {
        PassError::Changed(_) => e.report(S::NAME, false),
        e => changed().unwrap_or_else(|| e.report(S::NAME, false)),
    })?;
    let m = Measurement {
        times,
        allocs,
        ..parsed
    };
    let step1_best = step1_speed::<S>(path, query, groups, options.runs).map_err(|message| {
        changed().unwrap_or_else(|| {
            eprintln!("{}: {message}", S::NAME);
            ExitCode::FAILURE
        })
    })?;
    unchanged()?;
    let described = S::describe(config);
    if options.row_json {
        let mut json = m.to_json();
        json["order_s"] = order_s.into();
        if let Some(best) = step1_best {
            json["step1_query_best_s"] = best.into();
            json["speedup_over_step1"] = (best / m.best().as_secs_f64()).into();
        }
        for (key, value) in described {
            json[key] = value;
        }
        println!("{json}");
        return Ok(());
    }
    print_answer(path, query, groups);
    for (key, value) in described {
        match value {
            serde_json::Value::String(text) => println!("{key}: {text}"),
            value => println!("{key}: {value}"),
        }
    }
    cli::print_measurement(&m, false);
    if let Some(best) = step1_best {
        let dev = if crate::run::measure::BUILD == "release" {
            ""
        } else {
            " (a dev build: not representative either)"
        };
        println!(
            "\nthe same query on step 1's parser: best {best:.3} s; {}{dev}",
            versus_step1(S::NUMBER, best / m.best().as_secs_f64())
        );
    }
    Ok(())
}

/// Step `number`'s speed against step 1's parser, `speedup` times as fast, in words
/// that are true on either side of 1: "faster" above it, "slower" below (with how
/// many times as long it took: `0.5x faster` says nothing).
pub fn versus_step1(number: u32, speedup: f64) -> String {
    if speedup >= 1.0 {
        format!("step {number} is {speedup:.1}x faster")
    } else {
        format!(
            "step {number} is slower: {:.1}x as long as step 1 ({speedup:.2}x its speed)",
            1.0 / speedup
        )
    }
}

/// Prints the query as SQL and its answer as a table: what every query binary shows.
pub fn print_answer(path: &Path, query: Query<'_>, groups: &Groups) {
    let aggs: Vec<String> = Aggs::NAMES
        .iter()
        .filter(|(_, agg)| query.aggs.has(*agg))
        .map(|(name, agg)| match *agg {
            Aggs::COUNT => "COUNT(*)".to_string(),
            Aggs::MEAN => format!("AVG({})", query.sum),
            _ => format!("{}({})", name.to_uppercase(), query.sum),
        })
        .collect();
    println!(
        "\nSELECT {}, {} FROM {} GROUP BY {}\n",
        query.group_by,
        aggs.join(", "),
        path.display(),
        query.group_by
    );
    println!(
        "{}",
        groups_to_table_with(groups, query.group_by, query.sum, query.aggs)
    );
}

/// Times the same query on step 1's parser and checks that it gives the same answer,
/// JSON for JSON (the first cross-check, also a test). Its best time in seconds, or
/// `None` for a step that does not compare itself with step 1.
///
/// # Errors
/// [`Step1Error`]: step 1's parser failed, or what differs, in one line
/// ([`first_difference`]: never every group).
fn step1_speed<S: QueryStep>(
    path: &Path,
    query: Query<'_>,
    expected: &Groups,
    runs: u32,
) -> Result<Option<f64>, Step1Error> {
    if !S::COMPARES_WITH_STEP1 {
        return Ok(None);
    }
    let (answers, times, _) =
        time_runs(runs, || S::on_step1(path, query)).map_err(Step1Error::Failed)?;
    for groups in &answers {
        // Compared group by group: the two answers' JSON would take hundreds of bytes
        // a group, gigabytes with millions of keys.
        if !same_answer(groups, expected, query.aggs) {
            let names = (S::NAME, "step 1's parser");
            let difference =
                first_difference(expected, groups, query.aggs, names).unwrap_or_default();
            return Err(Step1Error::Differs(difference));
        }
    }
    Ok(times.iter().min().map(|t| t.as_secs_f64()))
}

/// Prints a query error (as JSON with `--json`) and returns the exit status.
fn report<S: QueryStep>(e: &QueryError, json: bool) -> ExitCode {
    if json {
        println!("{}", e.to_json());
    } else {
        eprintln!("{}: {e}", S::NAME);
    }
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::versus_step1;

    #[test]
    fn slower_is_said_in_words() {
        assert_eq!(versus_step1(5, 7.25), "step 5 is 7.2x faster");
        assert_eq!(versus_step1(8, 1.0), "step 8 is 1.0x faster");
        assert_eq!(
            versus_step1(8, 0.6),
            "step 8 is slower: 1.7x as long as step 1 (0.60x its speed)"
        );
    }
}
