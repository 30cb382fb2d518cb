//! `FILE [--group-by C] [--sum C] [--runs N] [--json] [--row-json] [--records FILE]
//! [--threads N] [--chunk BYTES] [--schema S]`, no subcommand: the benchmark. The
//! gate, then per run: the load of FILE into a table (in a scratch directory,
//! [`crate::cli::scratch`]), the
//! query over the table, and the same query over the CSV on step 10's path, each
//! timed by the harness ([`time_runs`]), interleaved so that the three see the same
//! machine; the answer, the rows and the two queries' times.
//!
//! ```text
//! per run:  load -> table   query the table   query the CSV   (the answers compared)
//! row 1:    the load: its times and allocations, MB/s of CSV loaded
//! row 2:    the table query (`table_query` in --row-json): its times and
//!           allocations, MB/s of the CSV it stands for, and its median over the
//!           CSV query's, timed in the same process
//! beside:   the table's bytes, its symbols
//! ```

use harness::query::args;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clap::ArgMatches;
use harness::query::{Aggs, Groups, groups_to_1brc, groups_to_json_with};
use harness::run::alloc::AllocCount;
use harness::run::cli::{self, Options};
use harness::run::measure::{Measurement, thousands, time_runs};

use crate::cli::load::{dir_bytes, print_phases};
use crate::cli::scratch::Scratch;
use crate::cli::{NAME, ThisStep, first_in_record_order, query_table, report, split};
use crate::parallel::{self, Split};
use crate::query::Query;
use crate::splayed::error::TableError;
use crate::splayed::load::{LoadOptions, load_timed, remove_staging_on_interrupt};

/// What the second row times, as the results table names it.
const TABLE_QUERY: &str = "the query over the loaded table (MB/s: the CSV bytes it stands for)";

/// What the table query is set against, in the same process.
const VERSUS: &str = "step 10's query over the CSV, timed in the same process";

/// Runs the benchmark and prints its answer and its row.
///
/// # Errors
/// The exit status after saying why not: the input, the gate, the options, a failed
/// load or query ([`report`]).
pub fn run(matches: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let options = Options::from_matches(matches);
    if options.json {
        cli::sigbus_as_json();
    }
    if let Some(path) = &options.records {
        return Ok(cli::dump_records_as::<ThisStep>(
            path,
            options.dialect,
            options.json,
        ));
    }
    let path = cli::bench_input(options.file.as_deref())
        .map_err(|e| report(&TableError::Io(e), options.json))?;
    // A file that another program changes during the runs is said to have changed.
    let stamp = cli::Stamp::of(&path)
        .map_err(|e| report(&TableError::Io(harness::Error::io(&path, e)), options.json))?;
    let unchanged = || match stamp.changed(&path) {
        Some(changed) => Err(cli::PassError::Changed(changed).report(NAME, options.json)),
        None => Ok(()),
    };
    if !cli::gate_passes::<ThisStep>() {
        return Err(cli::gate_failed(NAME, options.json));
    }
    let read = args::query_options(matches).map_err(|message| {
        if options.json {
            println!("{}", cli::error_object("options", &message));
        }
        eprintln!("{NAME}: {message}");
        ExitCode::from(2)
    })?;
    let (query, split) = (args::query(matches, &read), split(matches));
    // The query says how to read the file (`--format 1brc` sets the delimiter and
    // that there is no header).
    let load_options = LoadOptions {
        dialect: query.dialect,
        no_header: !query.header,
        ..crate::cli::load_options(matches).map_err(|e| report(&e, options.json))?
    };
    let verbose = matches.get_flag("verbose");
    // Scratch space is the system's: a missing TMPDIR is an error, never created.
    let tmp = std::env::temp_dir();
    if !tmp.is_dir() {
        let message = format!(
            "the scratch directory {} (TMPDIR) does not exist: create it, or set TMPDIR \
             to one that does",
            tmp.display()
        );
        if options.json {
            println!("{}", cli::error_object("io", &message));
        }
        eprintln!("{NAME} bench: {message}");
        return Err(ExitCode::FAILURE);
    }
    let input = crate::map(&path).map_err(|e| cli::fail_as(NAME, &e, options.json))?;
    // Ctrl-C or SIGTERM removes the scratch directory, the table and a load's
    // staging directory in it; an error or the end of the run, its `Drop`.
    remove_staging_on_interrupt().expect("the first handler of this process");
    let scratch = Scratch::create("bench").map_err(|e| report(&e, options.json))?;
    let dir = scratch.table();
    let bench = Bench {
        input: &input,
        dir: &dir,
        options: &load_options,
        query,
        split,
        verbose,
    };
    let mut times = Times::default();
    let mut last = None;
    for _ in 0..options.runs {
        last = Some(
            bench
                .round(&mut times)
                .map_err(|e| report(&e, options.json))?,
        );
    }
    drop(scratch);
    let last = last.expect("at least one run");
    unchanged()?;
    if options.json {
        println!("{}", groups_to_json_with(&last.groups, query.aggs));
        return Ok(ExitCode::SUCCESS);
    }
    if read.brc && !options.row_json {
        let text = groups_to_1brc(&last.groups).map_err(|e| {
            eprintln!("{NAME}: {e}");
            ExitCode::FAILURE
        })?;
        println!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    let parsed =
        cli::time_pass::<ThisStep>(&path, 1, query.dialect).map_err(|e| e.report(NAME, false))?;
    unchanged()?;
    let load = Measurement {
        times: times.load,
        allocs: times.load_allocs,
        ..parsed
    };
    // The queries' series, in the harness's form for its best and median.
    let series = |times: Vec<Duration>, allocs| Measurement {
        times,
        allocs,
        ..load.clone()
    };
    let table_query = Measurement {
        idea: TABLE_QUERY.into(),
        ..series(times.query, times.query_allocs)
    };
    let csv_query = series(times.csv_query, AllocCount::default());
    let queries = [&table_query, &csv_query];
    print_row(&path, &bench, &load, queries, &last, options.row_json);
    Ok(ExitCode::SUCCESS)
}

/// Prints the answer and the row, or with `row_json` the row as JSON: the load's
/// measurement and, beside it, `queries` (over the table, over the CSV).
fn print_row(
    path: &Path,
    bench: &Bench<'_>,
    load: &Measurement,
    queries: [&Measurement; 2],
    last: &Round,
    row_json: bool,
) {
    let (query, split) = (bench.query, bench.split);
    let [table, csv] = queries;
    let seconds = |d: Duration| d.as_secs_f64();
    let speedup = seconds(csv.median()) / seconds(table.median());
    if row_json {
        let mut json = load.to_json();
        json["query_best_s"] = seconds(table.best()).into();
        json["query_median_s"] = seconds(table.median()).into();
        json["csv_query_best_s"] = seconds(csv.best()).into();
        json["csv_query_median_s"] = seconds(csv.median()).into();
        json["query_speedup_over_csv"] = speedup.into();
        json["table_bytes"] = last.table_bytes.into();
        json["symbols"] = last.symbols.into();
        json["threads"] = split.threads.into();
        let mut table_query = table.to_json();
        table_query["speedup_over_csv"] = speedup.into();
        table_query["versus"] = VERSUS.into();
        json["table_query"] = table_query;
        println!("{json}");
        return;
    }
    harness::query::cli::print_answer(path, query, &last.groups);
    println!(
        "on {} thread(s); the row times the load (CSV to table)",
        split.threads
    );
    cli::print_measurement(load, false);
    println!(
        "\ntable: {:.1} MB on disk ({:.0}% of the CSV's {:.1} MB), {} symbols",
        last.table_bytes as f64 / 1e6,
        100.0 * last.table_bytes as f64 / load.bytes as f64,
        load.bytes as f64 / 1e6,
        thousands(last.symbols)
    );
    println!(
        "query over the table: median {:.4} s ({:.0} MB/s of the CSV it stands for); over the CSV (step 10's path): median {:.4} s; {speedup:.1}x faster",
        seconds(table.median()),
        table.bytes as f64 / 1e6 / seconds(table.median()),
        seconds(csv.median())
    );
}

/// What every round does: load `input` into a table at `dir`, and query it.
struct Bench<'a> {
    input: &'a [u8],
    dir: &'a Path,
    options: &'a LoadOptions,
    query: Query<'a>,
    split: Split,
    /// `--verbose`: print each load's phases.
    verbose: bool,
}

/// Every round's times, in run order, and the last load's and table query's
/// allocations.
#[derive(Default)]
struct Times {
    load: Vec<Duration>,
    load_allocs: AllocCount,
    query: Vec<Duration>,
    query_allocs: AllocCount,
    csv_query: Vec<Duration>,
}

/// What one round leaves besides its times: the answer, the table's size and its
/// symbols.
struct Round {
    groups: Groups,
    table_bytes: u64,
    symbols: u64,
}

/// Runs `pass` once, timed by the harness: its output, its time, its allocations.
fn timed<T, E>(pass: impl FnMut() -> Result<T, E>) -> Result<(T, Duration, AllocCount), E> {
    let (mut outputs, runs, allocs) = time_runs(1, pass)?;
    Ok((outputs.pop().expect("one run"), runs[0], allocs))
}

impl Bench<'_> {
    /// One round in a fresh table directory, removed after it (also when it failed).
    fn round(&self, times: &mut Times) -> Result<Round, TableError> {
        let _ = std::fs::remove_dir_all(self.dir);
        let result = self.load_and_query(times);
        let _ = std::fs::remove_dir_all(self.dir);
        result
    }

    /// The load, the query over the table, the query over the CSV, each timed into
    /// `times`; an error when the two answers differ.
    fn load_and_query(&self, times: &mut Times) -> Result<Round, TableError> {
        let Bench {
            input,
            dir,
            options,
            query,
            split,
            verbose,
        } = *self;
        let ((manifest, phases), load, allocs) = timed(|| load_timed(input, dir, options))
            .map_err(|e| first_in_record_order(input, query, split, e))?;
        if verbose {
            print_phases(&phases);
        }
        let table_bytes = dir_bytes(dir);
        let (groups, table_query, query_allocs) = timed(|| query_table(input, dir, query, split))?;
        let (csv_groups, csv_query, _) = timed(|| parallel::run_split(input, query, split))?;
        times.load.push(load);
        times.load_allocs = allocs;
        times.query.push(table_query);
        times.query_allocs = query_allocs;
        times.csv_query.push(csv_query);
        // Every aggregate, whatever --agg shows: the table's answer is the CSV's.
        let all = |g: &Groups| groups_to_json_with(g, Aggs::ALL);
        if all(&csv_groups) != all(&groups) {
            return Err(TableError::NotATable(
                dir.into(),
                format!(
                    "the query over the table gives {} but over the CSV {}",
                    all(&groups),
                    all(&csv_groups)
                ),
            ));
        }
        Ok(Round {
            groups,
            table_bytes,
            symbols: manifest.symbols,
        })
    }
}
