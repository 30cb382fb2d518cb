//! `benchtool bench | limit | markdown | chart | keys`: what bench.sh runs (see
//! the crate docs).
//!
//! - `benchtool bench [OPTIONS]`: all of bench.sh (`./bench.sh --help` for its
//!   options), which builds this binary and runs it; its errors start `bench.sh: `.
//! - `benchtool limit [FILE] [--runs N] [--threads N] [--json]`: the limit row, in the
//!   same JSON as a step (`--json`) or as a table row.
//! - `benchtool markdown RESULTS [--out-dir DIR]`: `table.md`, `figures.md` and
//!   `rows.md` from `results.json` (beside it unless told), so that a recording's
//!   snippets can be made again without measuring again.
//! - `benchtool chart RESULTS --out SVG`: the MB/s bar chart of `results.json`.
//! - `benchtool keys DIR`: `DIR/keys.svg` and `DIR/keys.md`, MB/s against distinct
//!   keys, from the recordings `DIR/keys-N/results.json` (`bench.sh --keys N --record`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use benchtool::{Error, Result, bench, chart, limit, outputs};
use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use harness::Fingerprint;
use harness::run::measure::{Measurement, time_runs};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    // bench.sh's options are read by `bench` itself, so that its errors keep bench.sh's
    // words and exit status instead of clap's.
    if args.get(1).is_some_and(|a| a == "bench") {
        return bench::main(&args[2..]);
    }
    let matches = command().get_matches();
    let result = match matches.subcommand() {
        Some(("limit", m)) => run_limit(m),
        Some(("chart", m)) => run_chart(m),
        Some(("markdown", m)) => run_markdown(m),
        Some(("keys", m)) => run_keys(m),
        _ => unreachable!("clap requires a subcommand"),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("benchtool: {e}");
            ExitCode::FAILURE
        }
    }
}

fn command() -> Command {
    let path = |name: &'static str| Arg::new(name).value_parser(value_parser!(PathBuf));
    let limit = Command::new("limit")
        .about("The limit row: the file's LFs counted with memchr over a memory map")
        .arg(
            path("file")
                .value_name("FILE")
                .help("file to count [default: data/bench.csv, generated when missing]"),
        )
        .arg(
            Arg::new("runs")
                .long("runs")
                .value_name("N")
                .value_parser(value_parser!(u32).range(1..))
                .default_value("3")
                .help("timed runs; the best is reported"),
        )
        .arg(
            Arg::new("threads")
                .long("threads")
                .value_name("N")
                .value_parser(value_parser!(u64).range(1..))
                .default_value("1")
                .help("split the map into N slices counted on N threads"),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("print the measurement as JSON"),
        );
    let markdown = Command::new("markdown")
        .about("table.md, figures.md and rows.md from results.json")
        .arg(path("results").value_name("RESULTS").required(true))
        .arg(
            path("out-dir")
                .long("out-dir")
                .value_name("DIR")
                .help("where to write them [default: beside RESULTS]"),
        );
    let chart = Command::new("chart")
        .about("The SVG bar chart of MB/s per row, from results.json")
        .arg(path("results").value_name("RESULTS").required(true))
        .arg(path("out").long("out").value_name("SVG").required(true));
    let keys = Command::new("keys")
        .about("keys.svg and keys.md: MB/s against distinct keys, from DIR/keys-N/results.json")
        .arg(
            path("dir")
                .value_name("DIR")
                .required(true)
                .help("the recordings' folder, book/src/results"),
        );
    let bench = Command::new("bench")
        .about(
            "What bench.sh does: build, run every row, report, chart, record (./bench.sh --help)",
        )
        .disable_help_flag(true);
    Command::new("benchtool")
        .about(
            "What bench.sh runs: the rounds, the limit row, results.json and the table, the chart",
        )
        .subcommand_required(true)
        .subcommands([bench, limit, markdown, chart, keys])
}

fn run_limit(m: &ArgMatches) -> Result {
    let path = harness::run::cli::bench_input(m.get_one::<PathBuf>("file").map(PathBuf::as_path))?;
    let threads = *m.get_one::<u64>("threads").expect("has a default");
    let runs = *m.get_one::<u32>("runs").expect("has a default");
    let (counts, times, allocs) = time_runs(runs, || limit::count_lfs(&path, threads as usize))?;
    let bytes = std::fs::metadata(&path).map_err(Error::io(&path))?.len();
    let cores = if threads == 1 {
        "1 core".to_string()
    } else {
        format!("{threads} threads")
    };
    let measurement = Measurement {
        step: "limit".to_string(),
        number: 0,
        idea: format!("LF count with memchr over a memory map, {cores}"),
        bytes,
        // Not a parse: "records" are the LFs counted, and there are no fields.
        fingerprint: Fingerprint {
            records: counts[0],
            fields: 0,
            bytes: 0,
        },
        times,
        allocs,
    };
    if m.get_flag("json") {
        let mut json = measurement.to_json();
        json["threads"] = threads.into();
        println!("{json}");
    } else {
        harness::run::cli::print_measurement(&measurement, false);
    }
    Ok(())
}

fn run_markdown(m: &ArgMatches) -> Result {
    let results_path = m.get_one::<PathBuf>("results").expect("required");
    let results = outputs::read_results(results_path)?;
    let out_dir = match m.get_one::<PathBuf>("out-dir") {
        Some(dir) => dir.clone(),
        None => results_path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
    };
    outputs::write_markdown(&results, &out_dir)?;
    Ok(())
}

fn run_chart(m: &ArgMatches) -> Result {
    let results = outputs::read_results(m.get_one::<PathBuf>("results").expect("required"))?;
    chart::write_svg(&results, m.get_one::<PathBuf>("out").expect("required"))
}

fn run_keys(m: &ArgMatches) -> Result {
    let dir = m.get_one::<PathBuf>("dir").expect("required");
    for path in benchtool::keys::write(dir)? {
        eprintln!("Wrote {}", path.display());
    }
    Ok(())
}
