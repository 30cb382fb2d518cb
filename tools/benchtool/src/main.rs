//! `benchtool limit | report | chart`: the helper of `bench.sh` (see the crate docs).
//!
//! - `benchtool limit [FILE] [--runs N] [--threads N] [--json]`: the limit row, in the
//!   same JSON as a step (`--json`) or as a table row.
//! - `benchtool report --runs-file RUNS --out-dir DIR --file FILE --runs N [--cpu …]`:
//!   `DIR/results.json` and `DIR/table.md` from the runs; prints the table.
//! - `benchtool chart RESULTS --out SVG`: the MB/s bar chart of `results.json`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use benchtool::report::{self, Meta};
use benchtool::{chart, limit};
use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use harness::Fingerprint;
use harness::run::measure::{Measurement, time_runs};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> ExitCode {
    let matches = command().get_matches();
    let result = match matches.subcommand() {
        Some(("limit", m)) => run_limit(m),
        Some(("report", m)) => run_report(m),
        Some(("chart", m)) => run_chart(m),
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
    let text = |name: &'static str, help: &'static str| {
        Arg::new(name).long(name).default_value("?").help(help)
    };
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
    let report = Command::new("report")
        .about("results.json and table.md from the runs bench.sh collected; prints the table")
        .arg(
            path("runs-file")
                .long("runs-file")
                .value_name("RUNS")
                .required(true),
        )
        .arg(
            path("out-dir")
                .long("out-dir")
                .value_name("DIR")
                .required(true),
        )
        .arg(
            path("file")
                .long("file")
                .value_name("FILE")
                .required(true)
                .help("the measured file"),
        )
        .arg(
            Arg::new("runs")
                .long("runs")
                .value_name("N")
                .value_parser(value_parser!(u32))
                .required(true),
        )
        .arg(text("cpu", "CPU model"))
        .arg(text("cores", "cores"))
        .arg(text("memory", "memory, in words"))
        .arg(text("os", "operating system"))
        .arg(text("rustc", "rustc --version"));
    let chart = Command::new("chart")
        .about("The SVG bar chart of MB/s per row, from results.json")
        .arg(path("results").value_name("RESULTS").required(true))
        .arg(path("out").long("out").value_name("SVG").required(true));
    Command::new("benchtool")
        .about("bench.sh's helper: the limit row, results.json and the table, the chart")
        .subcommand_required(true)
        .subcommands([limit, report, chart])
}

fn run_limit(m: &ArgMatches) -> Result<(), String> {
    let path = harness::run::cli::bench_input(m.get_one::<PathBuf>("file").map(PathBuf::as_path))
        .map_err(|e| e.to_string())?;
    let threads = *m.get_one::<u64>("threads").expect("has a default");
    let runs = *m.get_one::<u32>("runs").expect("has a default");
    let (counts, times, allocs) =
        time_runs(runs, || limit::count_lfs(&path, threads as usize)).map_err(|e| e.to_string())?;
    let bytes = std::fs::metadata(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
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

fn run_report(m: &ArgMatches) -> Result<(), String> {
    let get = |name: &str| m.get_one::<String>(name).cloned().unwrap_or_default();
    let path = |name: &str| m.get_one::<PathBuf>(name).expect("required").clone();
    let meta = Meta {
        cpu: get("cpu"),
        cores: get("cores"),
        memory: get("memory"),
        os: get("os"),
        rustc: get("rustc"),
        file: path("file"),
        runs: *m.get_one::<u32>("runs").expect("required"),
    };
    let runs_file = path("runs-file");
    let text =
        std::fs::read_to_string(&runs_file).map_err(|e| format!("{}: {e}", runs_file.display()))?;
    let rows = report::rows(&text)?;
    let results = report::results(&meta, report::file_info(&meta.file)?, &rows);
    let table = format!(
        "{}\n{}",
        report::preamble(&results),
        report::table(&results)
    );
    let out_dir = path("out-dir");
    write(&out_dir.join("results.json"), &format!("{results:#}\n"))?;
    write(&out_dir.join("table.md"), &table)?;
    print!("{table}");
    Ok(())
}

fn run_chart(m: &ArgMatches) -> Result<(), String> {
    let results_path = m.get_one::<PathBuf>("results").expect("required");
    let text = std::fs::read_to_string(results_path)
        .map_err(|e| format!("{}: {e}", results_path.display()))?;
    let results =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", results_path.display()))?;
    chart::write_svg(&results, m.get_one::<PathBuf>("out").expect("required"))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
