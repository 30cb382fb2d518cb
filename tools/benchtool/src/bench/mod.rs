//! `benchtool bench`: all that `./bench.sh` does, which builds this binary and runs
//! it with its arguments (`./bench.sh --help` for the options).
//!
//! In order: the options are checked ([`options`]); the recording's kind is named and
//! `--record` refused on a tree with changes ([`machine::Tree`]); the machine is read
//! ([`machine`]); every binary is built (`cargo build --release --bins`); the steps
//! are found and the file is made when missing ([`rows`], [`mod@file`]); the rows are
//! listed and, with `--peers`, the peers installed ([`peers`]); every row is run as a
//! process of its own, round by round, each step's fingerprint checked against the
//! first step's ([`run`]); then `results.json`, the markdown, the chart and, with
//! `--record`, the copy into the book ([`record`]).
//!
//! Output: the table on stdout; the machine, the progress lines, the runs' logs of
//! the first round and the notes on stderr. Files under `target/bench/` (or
//! `target/bench/KIND/`): `results.json`, `table.md`, `figures.md`, `rows.md`,
//! `mbps.svg`, `runs.jsonl` and `logs/`. MB = 10^6 bytes.
//!
//! Errors end the run with `bench.sh: WHY` and exit status 1: a wrong option, a
//! failed build, gate or run, a step whose fingerprint is not the first step's.
//! Paths are read from the current folder, the repository's root (bench.sh goes
//! there first); the binaries are those beside this one (`target/release/`).

pub mod file;
pub mod machine;
pub mod options;
pub mod peers;
pub mod record;
pub mod rows;
pub mod run;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::bench::file::Input;
use crate::bench::machine::{Machine, Tree, utc_now};
use crate::bench::options::{Options, Parsed, Threads, USAGE};
use crate::bench::record::Context;
use crate::bench::run::{Checks, Runner, status_text};
use crate::error::{BenchError, Error, Result};

/// Runs bench.sh with `args` (without the program's name): 0 when it measured (or
/// printed its help), 1 after printing why it stopped.
pub fn main(args: &[OsString]) -> ExitCode {
    match bench(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench.sh: {e}");
            ExitCode::FAILURE
        }
    }
}

fn bench(args: &[OsString]) -> Result {
    let started = utc_now();
    let command = options::typed_again(args);
    let options = match options::parse(args)? {
        Parsed::Help => {
            print!("{USAGE}");
            return Ok(());
        }
        Parsed::Run(options) => options,
    };
    let root = std::env::current_dir().map_err(Error::io("."))?;
    let tree = Tree::read(&root);
    let kind = options.kind();
    if options.record {
        tree.check_recordable(options.allow_dirty)?;
    }
    let machine = Machine::read();
    let threads = options.threads.map(|t| match t {
        Threads::N(n) => n,
        Threads::EveryCore => machine.cores.unwrap_or(1) as u64,
    });
    build()?;
    let bin = bin_dir()?;
    let steps = rows::select(&rows::discover(&root)?, &options)?;
    let input = Input::of(&options);
    let out_dir = root.join(&input.out_dir);
    let logs = out_dir.join("logs");
    std::fs::create_dir_all(&logs).map_err(Error::io(&logs))?;
    input.make(&bin)?;
    let runs = options.runs.unwrap_or(if options.quick { 1 } else { 3 });
    let in_process = options
        .in_process
        .unwrap_or(if options.quick { 1 } else { 3 });
    for entry in std::fs::read_dir(&logs).map_err(Error::io(&logs))? {
        let path = entry.map_err(Error::io(&logs))?.path();
        if path.extension().is_some_and(|e| e == "log") {
            std::fs::remove_file(&path).map_err(Error::io(&path))?;
        }
    }
    let runs_path = out_dir.join("runs.jsonl");
    let runs_file = File::create(&runs_path).map_err(Error::io(&runs_path))?;
    let names: Vec<String> = steps.iter().map(|s| s.package.clone()).collect();
    let context = Context {
        machine: &machine,
        tree: &tree,
        command: &command,
        kind: &kind,
        started: &started,
        file: &input.file,
        runs,
        in_process,
    };
    eprint!("{}", header(&context, &options, &names, threads)?);
    let helps: Vec<(String, String)> = names.iter().map(|n| (n.clone(), help(&bin, n))).collect();
    let required = std::env::var("REQUIRE_PEERS").is_ok_and(|v| v == "1");
    let peers = options.peers && peers::install(&root, required)?;
    let rows = rows::rows(&options, &helps, threads, peers);
    eprintln!();
    let mut runner = Runner {
        bin: &bin,
        root: &root,
        file: &input.file,
        out_dir: &out_dir,
        runs,
        in_process,
        runs_file,
        lines: String::new(),
        checks: Checks::default(),
    };
    runner.rounds(&rows)?;
    eprintln!();
    record::report(&context, &runner.lines, &out_dir)?;
    for note in record::notes(&runner.checks, &options, &input.file) {
        eprintln!("{note}");
    }
    eprintln!(
        "Wrote {}/results.json, table.md, figures.md, rows.md and mbps.svg.",
        input.out_dir.display()
    );
    if options.record {
        record::record(&root, &out_dir, &context, &options)?;
    }
    Ok(())
}

/// Builds every binary of the default members (the steps, the baseline, gen, this
/// tool; not the exercises).
fn build() -> Result<(), BenchError> {
    eprintln!("==> cargo build --release --bins");
    let status = Command::new("cargo")
        .args(["build", "--release", "--bins"])
        .status()
        .map_err(|source| BenchError::Spawn {
            program: "cargo".to_string(),
            source,
        })?;
    match status.success() {
        true => Ok(()),
        false => Err(BenchError::Command {
            command: "cargo build --release --bins".to_string(),
            status: status_text(status),
        }),
    }
}

/// The binaries' folder: this binary's own.
fn bin_dir() -> Result<PathBuf> {
    let exe = std::env::current_exe().map_err(Error::io("benchtool"))?;
    Ok(exe
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf))
}

/// What `bin/name --help` prints: whether a step has `--row-json` and `--threads`.
fn help(bin: &Path, name: &str) -> String {
    Command::new(bin.join(name))
        .arg("--help")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default()
}

/// The lines above the rounds: machine, toolchain, commit, file, runs and rows.
fn header(
    c: &Context,
    options: &Options,
    names: &[String],
    threads: Option<u64>,
) -> Result<String> {
    let m = c.machine;
    let mut commit = c
        .tree
        .commit
        .clone()
        .unwrap_or("none (not a git work tree)".to_string());
    commit.push_str(c.tree.dirty_note());
    if options.record {
        commit.push_str(&format!("; recorded as {}/{}/", record::RESULTS, c.kind));
    }
    let bytes = std::fs::metadata(c.file).map_err(Error::io(c.file))?.len();
    // A first look at the line endings: the table counts them.
    let mut head = Vec::new();
    File::open(c.file)
        .and_then(|f| f.take(1_000_000).read_to_end(&mut head))
        .map_err(Error::io(c.file))?;
    let ending = if head.contains(&b'\r') { "CRLF" } else { "LF" };
    let brc = if options.brc.is_some() {
        " (--format 1brc)"
    } else {
        ""
    };
    let (one_thread, limits) = match threads {
        Some(n) => (
            " (a step that runs on every core also on one thread)".to_string(),
            format!(" (1 core and {n} threads)"),
        ),
        None => (String::new(), String::new()),
    };
    let baseline = match (options.brc, options.peers) {
        (Some(_), _) => "",
        (None, true) => {
            ", the baseline (csv crate: its pass and its query; the same query on simd-csv)"
        }
        (None, false) => ", the baseline (csv crate: its pass and its query)",
    };
    let peers = if options.peers {
        ", the peers (Polars, DuckDB, pyarrow) if they install"
    } else {
        ""
    };
    Ok(format!(
        "\nMachine:   {}, {} cores, {} memory ({})\nToolchain: {}\nCommit:    {commit}\n\
         File:      {} ({:.1} MB, {ending} line endings)\n\
         Runs:      best of {} per row, interleaved (round 1 of every row, then round 2, ...); \
         {} timed runs in each step's process\n\
         Rows:      {}{brc}{one_thread}{baseline}, the limit{limits}{peers}\n",
        m.cpu(),
        m.cores_text(),
        m.memory,
        m.os,
        m.rustc,
        c.file.display(),
        bytes as f64 / 1e6,
        c.runs,
        c.in_process,
        names.join(" "),
    ))
}
