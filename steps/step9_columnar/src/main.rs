//! `step9 [FILE] [--group-by C] [--sum C] [--runs N] [--json] [--row-json]
//! [--records FILE] [--threads N] [--chunk BYTES] [--schema S]`: the gate, then per
//! run: load FILE into a table (a temporary directory), the query over the table, and
//! the same query over the CSV with step 8's path, interleaved; the answer, the row
//! (the load's throughput) and the two queries' times.
//!
//! `step9 load FILE TABLE_DIR [--schema S] [--index C]` loads; `step9 query TABLE_DIR
//! [--group-by C] [--sum C] [--where C=V [--scan]] [--json] [--verbose]` queries a
//! loaded table.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Arg, ArgAction, ArgMatches, Command};
use harness::query::{Aggs, Groups, groups_to_1brc, groups_to_json_with, groups_to_table_with};
use harness::run::alloc::{AllocCount, count_allocations};
use harness::run::cli::{self, Options};
use harness::run::measure::{Measurement, thousands};
use step9::cli::{first_in_record_order, query_table, schema_args, split, split_args, threads_arg};
use step9::error::TableError;
use step9::load::{LoadOptions, Phases, load_timed};
use step9::query::{self, Query, Split};
use step9::scan::Table;
use step9::select::{Where, describe, select};
use step9::{Step9, table_query};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn command() -> Command {
    let bench = harness::query::cli::command::<Step9>();
    let load = Command::new("load")
        .about("load FILE (CSV) into a new table at TABLE_DIR")
        .arg(
            Arg::new("file")
                .value_name("FILE")
                .required(true)
                .value_parser(clap::value_parser!(PathBuf)),
        )
        .arg(
            Arg::new("table")
                .value_name("TABLE_DIR")
                .required(true)
                .value_parser(clap::value_parser!(PathBuf)),
        );
    let query = Command::new("query")
        .about("SELECT key, COUNT(*), SUM(value) GROUP BY key over the table at TABLE_DIR")
        .arg(
            Arg::new("table")
                .value_name("TABLE_DIR")
                .required(true)
                .value_parser(clap::value_parser!(PathBuf)),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("print the answer (or the error) as JSON"),
        )
        .arg(
            Arg::new("where")
                .long("where")
                .value_name("COLUMN=VALUE")
                .help("only the rows whose COLUMN equals VALUE (empty: NULL); through the column's hash index if the load built one (--index), else by a scan"),
        )
        .arg(
            Arg::new("scan")
                .long("scan")
                .action(ArgAction::SetTrue)
                .requires("where")
                .help("find the --where rows by a scan even when the column has an index (to compare)"),
        )
        .arg(
            Arg::new("runs")
                .long("runs")
                .value_name("N")
                .default_value("1")
                .value_parser(clap::value_parser!(u32).range(1..))
                .help("run the query N times over the open table (the first run maps the columns and faults their pages in)"),
        )
        .arg(
            Arg::new("verbose")
                .long("verbose")
                .action(ArgAction::SetTrue)
                .help("say how the rows were found and how long each run took"),
        );
    let export = Command::new("export")
        .about("write the table at TABLE_DIR as an Arrow IPC file (needs --features arrow) or a Parquet file (--features parquet)")
        .arg(
            Arg::new("table")
                .value_name("TABLE_DIR")
                .required(true)
                .value_parser(clap::value_parser!(PathBuf)),
        )
        .arg(
            Arg::new("arrow")
                .long("arrow")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help("the Arrow IPC file to write (DuckDB, Polars, DataFusion read it)"),
        )
        .arg(
            Arg::new("parquet")
                .long("parquet")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help("the Parquet file to write (DuckDB, Spark, DataFusion read it)"),
        )
        .group(
            clap::ArgGroup::new("format")
                .args(["arrow", "parquet"])
                .required(true),
        );
    bench
        .args_conflicts_with_subcommands(true)
        .subcommand(
            split_args(schema_args(cli::read_args(load)))
                .arg(cli::delimiter_arg())
                .arg(
                    Arg::new("verbose")
                        .long("verbose")
                        .action(ArgAction::SetTrue)
                        .help("print where the load's time went, phase by phase"),
                ),
        )
        .subcommand(threads_arg(cli::query_args(query).mut_arg("format", |a| {
            // The load read the file: over a table, 1brc only picks the columns and
            // the printing.
            a.help(
                "1brc: the One Billion Row Challenge's answer, {name=min/mean/max, ...}, \
                 grouping by column 1 and summing column 2 (a table loaded from its \
                 station;temperature lines)",
            )
        })))
        .subcommand(export)
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    let result = match matches.subcommand() {
        Some(("load", m)) => load_command(m),
        Some(("query", m)) => query_command(m),
        Some(("export", m)) => export_command(m),
        _ => bench(&matches),
    };
    result.unwrap_or_else(|code| code)
}

/// The `--null` texts and `--agg`, or the exit status after saying why not.
fn query_options(m: &ArgMatches) -> Result<cli::QueryOptions, ExitCode> {
    cli::query_options(m).map_err(|message| {
        eprintln!("step9: {message}");
        ExitCode::from(2)
    })
}

fn load_options(m: &ArgMatches) -> Result<LoadOptions, ExitCode> {
    step9::cli::load_options(m).map_err(|e| report(&e, false))
}

/// Prints `e` (as JSON on stdout with `json`) and returns its exit status: 2 for a
/// file that cannot be read or written, else 1.
fn report(e: &TableError, json: bool) -> ExitCode {
    if json {
        println!("{}", e.to_json());
    } else {
        eprintln!("step9: {e}");
    }
    match e {
        TableError::Io(_) => ExitCode::from(2),
        _ => ExitCode::FAILURE,
    }
}

fn load_command(m: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let file = m.get_one::<PathBuf>("file").expect("required");
    let dir = m.get_one::<PathBuf>("table").expect("required");
    let path = cli::bench_input(Some(file)).map_err(|e| cli::fail("step9", &e))?;
    let input = step9::map(&path).map_err(|e| cli::fail("step9", &e))?;
    let options = load_options(m)?;
    let start = Instant::now();
    let (loaded, heap) = count_allocations(|| load_timed(&input, dir, &options));
    let (manifest, phases) = loaded.map_err(|e| report(&e, false))?;
    let seconds = start.elapsed().as_secs_f64();
    if m.get_flag("verbose") {
        print_phases(&phases);
        print_memory(heap, input.len());
    }
    let on_disk = dir_bytes(dir);
    println!(
        "loaded {} rows of {} ({:.1} MB) into {} in {seconds:.3} s ({:.0} MB/s): {:.1} MB on disk, {} symbols",
        thousands(manifest.rows),
        path.display(),
        input.len() as f64 / 1e6,
        dir.display(),
        input.len() as f64 / 1e6 / seconds,
        on_disk as f64 / 1e6,
        thousands(manifest.symbols)
    );
    for c in &manifest.columns {
        println!(
            "  {:<12} {:<11} {} nulls",
            harness::query::key_text(&c.name),
            c.ty.name(),
            thousands(c.nulls)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn query_command(m: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let dir = m.get_one::<PathBuf>("table").expect("required");
    let json = m.get_flag("json");
    let read = query_options(m)?;
    let query = cli::query(m, &read);
    let filter = m
        .get_one::<String>("where")
        .map(|w| Where::parse(w))
        .transpose()
        .map_err(|e| report(&e, json))?;
    let runs = *m.get_one::<u32>("runs").expect("a default");
    // The first run's time includes opening the table.
    let mut start = Instant::now();
    let table = Table::open(dir).map_err(|e| report(&e, json))?;
    let mut first_seconds = None;
    let mut answer = None;
    for _ in 0..runs {
        let (groups, access) = select(&table, filter, !m.get_flag("scan"))
            .and_then(|(selection, access)| {
                let groups =
                    table_query::run_selected(&table, query, &selection, split(m).threads)?;
                Ok((groups, access))
            })
            .map_err(|e| report(&e, json))?;
        let seconds = start.elapsed().as_secs_f64();
        start = Instant::now();
        first_seconds.get_or_insert(seconds);
        if m.get_flag("verbose") {
            let rows = groups.values().map(|g| g.count).sum();
            eprintln!(
                "{} in {:.3} ms",
                describe(filter, access, rows),
                seconds * 1e3
            );
        }
        answer = Some(groups);
    }
    let groups = answer.expect("one run at least");
    let seconds = first_seconds.expect("one run at least");
    if json {
        println!("{}", groups_to_json_with(&groups, query.aggs));
    } else if read.brc {
        println!("{}", groups_to_1brc(&groups));
    } else {
        println!(
            "{}",
            groups_to_table_with(&groups, query.group_by, query.sum, query.aggs)
        );
        println!("{} groups in {seconds:.4} s", groups.len());
    }
    Ok(ExitCode::SUCCESS)
}

/// `export`: the table as an Arrow IPC or a Parquet file, when the step was built
/// with that feature.
fn export_command(m: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let dir = m.get_one::<PathBuf>("table").expect("required");
    let (out, feature) = match m.get_one::<PathBuf>("arrow") {
        Some(out) => (out, "arrow"),
        None => (
            m.get_one::<PathBuf>("parquet").expect("one of the group"),
            "parquet",
        ),
    };
    let start = Instant::now();
    let table = Table::open(dir).map_err(|e| report(&e, false))?;
    let Some(written) = export_as(&table, out, feature) else {
        eprintln!(
            "step9: built without the {feature} feature; run it as \
             cargo run --release -p step9 --features {feature} -- export TABLE_DIR --{feature} FILE"
        );
        return Err(ExitCode::FAILURE);
    };
    written.map_err(|e| report(&e, false))?;
    println!(
        "wrote {} ({:.1} MB) in {:.3} s",
        out.display(),
        std::fs::metadata(out).map_or(0, |m| m.len()) as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `table` to `out` in the format of `feature`; `None` when the step was
/// built without it.
fn export_as(table: &Table, out: &Path, feature: &str) -> Option<Result<(), TableError>> {
    match feature {
        #[cfg(feature = "arrow")]
        "arrow" => Some(step9::arrow::export(table, out)),
        #[cfg(feature = "parquet")]
        "parquet" => Some(step9::parquet::export(table, out)),
        _ => {
            let _ = (table, out); // used by the features' arms
            None
        }
    }
}

/// Where a load's time went, on stderr.
fn print_phases(p: &Phases) {
    eprintln!(
        "load phases: plan {:.3} s, pass 1 (widths, types) {:.3} s, pass 2 (columns, dictionaries) {:.3} s, interning {:.3} s, hash index {:.3} s, writing {:.3} s",
        p.plan, p.infer, p.encode, p.intern, p.index, p.write
    );
    if p.guessed_wrong {
        eprintln!(
            "load: a field broke the types guessed from the first MiB, so the load ran again with every field's type checked in pass 1 (the phases above are that run's)"
        );
    }
}

/// The load's heap use and the process's peak resident memory, on stderr. The
/// mapped CSV's pages count in the resident memory (as file pages, which the kernel
/// can drop), so it is named apart.
fn print_memory(heap: AllocCount, csv_bytes: usize) {
    let mb = |b: u64| b as f64 / 1e6;
    eprintln!(
        "load heap: {} allocations, {:.1} MB asked for ({:.2}x the CSV's {:.1} MB)",
        thousands(heap.allocations),
        mb(heap.bytes),
        heap.bytes as f64 / csv_bytes.max(1) as f64,
        mb(csv_bytes as u64)
    );
    match peak_resident_bytes() {
        Some(peak) => eprintln!(
            "peak resident memory: {:.1} MB, of which up to {:.1} MB are the mapped CSV's pages",
            mb(peak),
            mb(csv_bytes as u64)
        ),
        None => eprintln!("peak resident memory: unknown here (no /proc/self/status)"),
    }
}

/// The process's peak resident set (`VmHWM` in `/proc/self/status`), on Linux.
fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes of the files in `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// The benchmark's tables are `step9-bench-PID` in the temporary directory.
const BENCH_TABLE: &str = "step9-bench-";

/// Removes the benchmark tables of processes that no longer run (killed, or ended by
/// SIGBUS, before they could remove their own). Only where `/proc` tells which
/// processes run.
fn remove_stale_bench_tables() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name.to_str().and_then(|n| n.strip_prefix(BENCH_TABLE));
        if let Some(pid) = pid.filter(|p| p.parse::<u32>().is_ok())
            && !Path::new("/proc").join(pid).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// One round of the benchmark: the load, the query over the table, the query over
/// the CSV, each timed, and the load's allocations.
struct Round {
    load: Duration,
    load_allocs: AllocCount,
    query: Duration,
    csv_query: Duration,
    groups: Groups,
    table_bytes: u64,
    symbols: u64,
}

fn round(
    input: &[u8],
    dir: &Path,
    options: &LoadOptions,
    query: Query<'_>,
    split: Split,
    verbose: bool,
) -> Result<Round, TableError> {
    let _ = std::fs::remove_dir_all(dir);
    let result = load_and_query(input, dir, options, query, split, verbose);
    let _ = std::fs::remove_dir_all(dir); // also when the query failed
    result
}

fn load_and_query(
    input: &[u8],
    dir: &Path,
    options: &LoadOptions,
    query: Query<'_>,
    split: Split,
    verbose: bool,
) -> Result<Round, TableError> {
    let start = Instant::now();
    let (loaded, load_allocs) = count_allocations(|| load_timed(input, dir, options));
    let load_time = start.elapsed();
    let (manifest, phases) = loaded.map_err(|e| first_in_record_order(input, query, split, e))?;
    if verbose {
        print_phases(&phases);
    }
    let table_bytes = dir_bytes(dir);
    let start = Instant::now();
    let groups = query_table(input, dir, query, split)?;
    let query_time = start.elapsed();
    let start = Instant::now();
    let csv_groups = query::run_split(input, query, split)?;
    let csv_query = start.elapsed();
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
        load: load_time,
        load_allocs,
        query: query_time,
        csv_query,
        groups,
        table_bytes,
        symbols: manifest.symbols,
    })
}

fn median(times: &[Duration]) -> f64 {
    let mut t: Vec<f64> = times.iter().map(Duration::as_secs_f64).collect();
    t.sort_by(f64::total_cmp);
    match t.len() {
        0 => 0.0,
        n if n % 2 == 1 => t[n / 2],
        n => (t[n / 2 - 1] + t[n / 2]) / 2.0,
    }
}

fn best(times: &[Duration]) -> f64 {
    times
        .iter()
        .map(Duration::as_secs_f64)
        .fold(f64::INFINITY, f64::min)
}

fn bench(matches: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let options = Options::from_matches(matches);
    if let Some(path) = &options.records {
        return Ok(cli::dump_records::<Step9>(path, options.dialect));
    }
    let path = cli::bench_input(options.file.as_deref()).map_err(|e| cli::fail("step9", &e))?;
    if !cli::gate_passes::<Step9>() {
        return Err(ExitCode::FAILURE);
    }
    let read = query_options(matches)?;
    let (query, split) = (cli::query(matches, &read), split(matches));
    // The query says how to read the file (`--format 1brc` sets the delimiter and
    // that there is no header).
    let load_options = LoadOptions {
        dialect: query.dialect,
        no_header: !query.header,
        ..load_options(matches)?
    };
    let verbose = matches.get_flag("verbose");
    remove_stale_bench_tables();
    let dir = std::env::temp_dir().join(format!("{BENCH_TABLE}{}", std::process::id()));
    let input = step9::map(&path).map_err(|e| cli::fail("step9", &e))?;
    let mut rounds = Vec::new();
    for _ in 0..options.runs {
        let r = round(&input, &dir, &load_options, query, split, verbose);
        rounds.push(r.map_err(|e| report(&e, options.json))?);
    }
    let last = rounds.last().expect("at least one run");
    if options.json {
        println!("{}", groups_to_json_with(&last.groups, query.aggs));
        return Ok(ExitCode::SUCCESS);
    }
    if read.brc && !options.row_json {
        println!("{}", groups_to_1brc(&last.groups));
        return Ok(ExitCode::SUCCESS);
    }
    let parsed = cli::time_pass::<Step9>(&path, 1, query.dialect).map_err(|message| {
        eprintln!("step9: {message}");
        ExitCode::FAILURE
    })?;
    let loads: Vec<Duration> = rounds.iter().map(|r| r.load).collect();
    let queries: Vec<Duration> = rounds.iter().map(|r| r.query).collect();
    let csv_queries: Vec<Duration> = rounds.iter().map(|r| r.csv_query).collect();
    let m = Measurement {
        times: loads,
        allocs: last.load_allocs,
        ..parsed
    };
    let speedup = median(&csv_queries) / median(&queries);
    if options.row_json {
        let mut json = m.to_json();
        json["query_best_s"] = best(&queries).into();
        json["query_median_s"] = median(&queries).into();
        json["csv_query_best_s"] = best(&csv_queries).into();
        json["csv_query_median_s"] = median(&csv_queries).into();
        json["query_speedup_over_csv"] = speedup.into();
        json["table_bytes"] = last.table_bytes.into();
        json["symbols"] = last.symbols.into();
        json["threads"] = split.threads.into();
        println!("{json}");
        return Ok(ExitCode::SUCCESS);
    }
    harness::query::cli::print_answer(&path, query, &last.groups);
    println!(
        "on {} thread(s); the row times the load (CSV to table)",
        split.threads
    );
    cli::print_measurement(&m, false);
    println!(
        "\ntable: {:.1} MB on disk ({:.0}% of the CSV's {:.1} MB), {} symbols",
        last.table_bytes as f64 / 1e6,
        100.0 * last.table_bytes as f64 / m.bytes as f64,
        m.bytes as f64 / 1e6,
        thousands(last.symbols)
    );
    println!(
        "query over the table: median {:.4} s; over the CSV (step 8's path): median {:.4} s; {speedup:.1}x faster",
        median(&queries),
        median(&csv_queries)
    );
    Ok(ExitCode::SUCCESS)
}
