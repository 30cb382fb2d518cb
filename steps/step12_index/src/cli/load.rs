//! `load FILE TABLE_DIR [--schema S] [--index C] [--verbose]`: the load, its
//! rows, its time and its table's size, each column's type and NULLs; with
//! `--verbose`, where its time and its memory went; with `--index C`, then the
//! index of column C added to the table ([`crate::cli::index`]).

use harness::query::args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Arg, ArgAction, ArgMatches, Command};
use harness::run::alloc::{AllocCount, count_allocations};
use harness::run::cli;
use harness::run::measure::thousands;

use crate::cli::{NAME, index, report, schema_args, split, split_args, table_arg};
use crate::splayed::load::{Phases, load_timed, remove_staging_on_interrupt};

/// The subcommand's arguments.
pub fn command() -> Command {
    let load = Command::new("load")
        .about("load FILE (CSV) into a new table at TABLE_DIR")
        .arg(
            Arg::new("file")
                .value_name("FILE")
                .required(true)
                .value_parser(clap::value_parser!(PathBuf)),
        )
        .arg(table_arg());
    split_args(schema_args(args::read_args(load)))
        .arg(cli::delimiter_arg())
        .arg(
            Arg::new("index")
                .long("index")
                .value_name("COLUMN")
                .help("then add a hash index on COLUMN (its rows per distinct value) to the table"),
        )
        .arg(
            Arg::new("verbose")
                .long("verbose")
                .action(ArgAction::SetTrue)
                .help("print where the load's time went, phase by phase"),
        )
}

/// Loads, and prints what it loaded.
///
/// # Errors
/// The exit status after saying why the load failed ([`report`]).
pub fn run(m: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let file = m.get_one::<PathBuf>("file").expect("required");
    let dir = m.get_one::<PathBuf>("table").expect("required");
    let path = cli::bench_input(Some(file)).map_err(|e| cli::fail(NAME, &e))?;
    let input = crate::map(&path).map_err(|e| cli::fail(NAME, &e))?;
    let options = crate::cli::load_options(m).map_err(|e| report(&e, false))?;
    // Ctrl-C or SIGTERM during the load removes its staging directory.
    remove_staging_on_interrupt().expect("the first handler of this process");
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
    match m.get_one::<String>("index") {
        Some(column) => index::add_and_say(dir, column, split(m).threads),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// Where a load's time went, on stderr.
pub fn print_phases(p: &Phases) {
    eprintln!(
        "load phases: plan {:.3} s, pass 1 (widths, types) {:.3} s, pass 2 (columns, dictionaries) {:.3} s, interning {:.3} s, writing {:.3} s",
        p.plan, p.infer, p.encode, p.intern, p.write
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
pub fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
