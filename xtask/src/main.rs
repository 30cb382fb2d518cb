//! Project chores, so that local equals CI.
//!
//! - `cargo x ci`: exactly what `.ci/run` runs, in the same order: format check,
//!   clippy, `cargo x lint`, the API docs with every link resolved (`cargo doc`), the tests (the
//!   README's test command), the Arrow and Parquet exports of `tools/export`
//!   (features `arrow` and `parquet`: clippy and their tests), step 7's tests under
//!   AddressSanitizer, step 13's kernels compiled by NVRTC (no GPU needed;
//!   `NVRTC_LIB_DIR` from `.ci/install-nvrtc.sh`), a smoke run of every step binary on
//!   a small generated file and a `--records` check of every conformance case through
//!   every step binary, the peers' answer check (`tools/peers/test_peers.py`),
//!   `./bench.sh --quick --peers` (the results table with Polars, DuckDB, pyarrow and
//!   simd-csv, `results.json` and the chart, on a small file, one run), the hand-off
//!   to Spark and DataFusion (`cargo x handoff`, with `REQUIRE_HANDOFF=1`), the book,
//!   and every fuzz target for
//!   [`CI_FUZZ_SECONDS`] seconds (`cargo x fuzz`).
//! - `cargo x exercise list|start NAME|check NAME|reset NAME|solve NAME|prefetch|book|verify`:
//!   the workshop's exercises, stubbed in place in the steps (`exercise/`); CI runs
//!   `verify` after the tests.
//! - `cargo stepdiff A B` (`cargo x diff A B`): the source diff (`src/`, and `kernels/`
//!   where a step has them; new files in full) from step A to step B, which is the one
//!   idea that step B adds.
//! - `cargo x steps`: the steps of the ladder, in order.
//! - `cargo x fuzz [SECONDS]`: builds the fuzz targets of `fuzz/` (nightly,
//!   AddressSanitizer), seeds each one's corpus with `data/conformance/*.csv`, then runs
//!   each for SECONDS (default 20). A crash fails it; see `fuzz/README.md`.
//! - `cargo x nvrtc`: step 13's kernels compiled by NVRTC (the CI stage alone).
//! - `cargo x handoff`: a table of the load step, exported as Parquet by
//!   `tools/export`, read by Spark and DataFusion, whose answers must be the parallel
//!   step's (`handoff.rs`).
//! - `cargo x lint [--circles]`: no `Result<_, String>` in library code, and no
//!   circle between the modules of one crate; with `--circles`, the circles alone
//!   (`lint/`).
//! - `cargo x msrv`: every member's `rust-version` covers its dependencies' (and
//!   clippy's `incompatible_msrv`, in the clippy stage, covers its own code).
//! - `cargo x book [--figures | --readme]`: checks every `{{#include}}` of the book
//!   (file and anchor exist; no line numbers), the README's recorded blocks and the
//!   typed figures, builds it with `mdbook build book`, then checks its links and
//!   opens every page in headless Chromium (`book.rs`).

mod book;
mod diff;
mod error;
mod exercise;
mod fuzz;
mod handoff;
mod lint;
mod msrv;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Parser;
use clap_derive::{Parser, Subcommand};
use error::{Error, Result, failed};

/// Rows of the smoke-test file: enough to cross many buffer sizes, quick in CI.
const SMOKE_ROWS: &str = "20000";

/// Seconds each fuzz target runs in `cargo x ci`. Measured on the 2-core CI machine:
/// eight targets at 30 s took 5 min 53 s with the cold ASan build (1 min 31 s); at
/// 20 s the stage stays under 5 minutes.
const CI_FUZZ_SECONDS: u64 = 20;

/// Project chores, so that local equals CI.
#[derive(Parser)]
#[command(name = "xtask", bin_name = "cargo x")]
struct Cli {
    #[command(subcommand)]
    command: Chore,
}

/// The commands of `cargo x`.
#[derive(Subcommand)]
enum Chore {
    /// Exactly what CI runs, in the same order (`.ci/run` runs this)
    Ci,
    /// The workshop's exercises, stubbed in place in the steps
    #[command(subcommand)]
    Exercise(exercise::Command),
    /// The source diff from step A to step B: the one idea that B adds (`cargo stepdiff A B`)
    Diff {
        /// The step to compare from: `7` or `step7`
        #[arg(value_parser = step_number)]
        a: u32,
        /// The step to compare to
        #[arg(value_parser = step_number)]
        b: u32,
    },
    /// Checks and builds the book: includes, the README's recorded blocks, typed
    /// figures, `mdbook build`, links, every page in headless Chromium
    Book(book::Args),
    /// No `Result<_, String>` in library code, no circle between the modules of one
    /// crate; with --circles, the circles alone
    Lint(lint::Args),
    /// Every member's rust-version covers its dependencies'
    Msrv,
    /// Step 13's kernels compiled by NVRTC (the CI stage alone; needs NVRTC_LIB_DIR)
    Nvrtc,
    /// The columnar step's Parquet export read by Spark and DataFusion
    Handoff,
    /// Every fuzz target of fuzz/, seeded with the conformance cases, for SECONDS each
    Fuzz {
        /// How long each target runs
        #[arg(default_value_t = CI_FUZZ_SECONDS)]
        seconds: u64,
    },
    /// The steps of the ladder, in order
    Steps,
}

/// `7` or `step7`: a step's number.
fn step_number(arg: &str) -> Result<u32> {
    arg.trim_start_matches("step")
        .parse()
        .map_err(|_| failed!("not a step number: {arg}"))
}

fn main() -> ExitCode {
    let root = workspace_root();
    let result = match Cli::parse().command {
        Chore::Ci => ci(&root),
        Chore::Exercise(command) => exercise::run(&root, &command),
        Chore::Diff { a, b } => diff::diff(&root, a, b),
        Chore::Book(args) => book::book(&root, &args),
        Chore::Lint(args) => lint::lint(&root, &args),
        Chore::Msrv => msrv::check(&root),
        Chore::Nvrtc => nvrtc_step13(&root),
        Chore::Handoff => handoff::handoff(&root),
        Chore::Fuzz { seconds } => fuzz::fuzz(&root, seconds),
        Chore::Steps => {
            for (n, dir) in steps(&root) {
                println!(
                    "step{n}\t{}",
                    dir.strip_prefix(&root).unwrap_or(&dir).display()
                );
            }
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The command has said why already.
        Err(Error::Reported) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    let xtask_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask_dir.parent().unwrap_or(xtask_dir).to_path_buf()
}

/// `(number, directory)` of every `steps/stepN_*` folder, in ladder order.
fn steps(root: &Path) -> Vec<(u32, PathBuf)> {
    let mut steps: Vec<(u32, PathBuf)> = std::fs::read_dir(root.join("steps"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter_map(|p| {
                    let name = p.file_name()?.to_str()?.to_string();
                    let n = name.strip_prefix("step")?.split('_').next()?.parse().ok()?;
                    Some((n, p))
                })
                .collect()
        })
        .unwrap_or_default();
    steps.sort();
    steps
}

fn run(root: &Path, program: &str, args: &[&str]) -> Result {
    run_env(root, &[], program, args)
}

/// [`run`] with `env` added to the environment.
fn run_env(root: &Path, env: &[(&str, &str)], program: &str, args: &[&str]) -> Result {
    let shown: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    println!("\n==> {}{program} {}", shown.concat(), args.join(" "));
    let status = Command::new(program)
        .envs(env.iter().copied())
        .args(args)
        .current_dir(root)
        .status()
        .map_err(Error::spawn(program))?;
    if status.success() {
        Ok(())
    } else {
        Err(failed!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

fn ci(root: &Path) -> Result {
    run(root, "cargo", &["fmt", "--all", "--check"])?;
    run(
        root,
        "cargo",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    lint::ci(root)?;
    msrv::check(root)?;
    // The API docs a learner reads with `cargo doc --open`: every link resolves.
    run_env(
        root,
        &[("RUSTDOCFLAGS", "-D warnings")],
        "cargo",
        &["doc", "--workspace", "--no-deps"],
    )?;
    // The README's test command. REQUIRE_CXX=1: step 13's kernels run on the host's C++
    // compiler (`tests/kernels_on_host.rs`), which must not skip in CI. CSV_FULL_TESTS=1:
    // the slow checks at their full size (`testkit::query_checks::full_tests`).
    run_env(
        root,
        &[("REQUIRE_CXX", "1"), ("CSV_FULL_TESTS", "1")],
        "cargo",
        &["test", "--workspace"],
    )?;
    // The workshop's exercises: the book's sections current, every stub red, every
    // step's body green.
    exercise::run(root, &exercise::Command::Verify)?;
    export_tool(root)?;
    asan_step7(root)?;
    nvrtc_step13(root)?;
    smoke(root)?;
    // The whole bench pipeline on a small file: every step, the baseline, the limit,
    // the peers (installed from PyPI on first use; REQUIRE_PEERS=1: a failed install
    // fails CI instead of skipping them), results.json and the chart (under
    // target/bench/quick/, so a real run's results in target/bench/ stay). First the
    // peers' answer check on its own, which needs no peer library.
    run(
        root,
        "python3",
        &["-m", "unittest", "discover", "-s", "tools/peers", "-v"],
    )?;
    run_env(
        root,
        &[("REQUIRE_PEERS", "1")],
        "bash",
        &["bench.sh", "--quick", "--peers"],
    )?;
    // The real-file excerpts' expected answers are still DuckDB's (its virtual
    // environment is the one bench.sh --peers just used).
    run(
        root,
        "target/peers/venv/bin/python",
        &["tools/peers/real_files.py", "--check"],
    )?;
    handoff::ci(root)?;
    book::ci(root)?;
    fuzz::fuzz(root, CI_FUZZ_SECONDS)?;
    println!("\nci: all checks passed");
    Ok(())
}

/// The export tool's Arrow and Parquet files (`tools/export`), which sit behind the
/// features `arrow` and `parquet` (off by default, so that `cargo test --workspace`
/// does not build those crates): clippy and their tests.
fn export_tool(root: &Path) -> Result {
    let features = ["-p", "export", "--features", "arrow,parquet"];
    run(
        root,
        "cargo",
        &[
            &["clippy"],
            &features[..],
            &["--all-targets", "--", "-D", "warnings"],
        ]
        .concat(),
    )?;
    run(root, "cargo", &[&["test"], &features[..]].concat())
}

/// Step 13's kernels compiled by NVRTC for compute_80 and compute_90, with no GPU:
/// the tests of `tests/nvrtc.rs` with `REQUIRE_NVRTC=1`, so that a missing library fails here
/// instead of skipping. The library is the folder `NVRTC_LIB_DIR`, which `.ci/run`
/// sets from `.ci/install-nvrtc.sh` (run that script once to run this locally).
fn nvrtc_step13(root: &Path) -> Result {
    let dir = std::env::var("NVRTC_LIB_DIR").map_err(|_| {
        "NVRTC_LIB_DIR is not set: export NVRTC_LIB_DIR=\"$(bash .ci/install-nvrtc.sh)\" (what .ci/run does)"
            .to_string()
    })?;
    let library_path = match std::env::var("LD_LIBRARY_PATH") {
        Ok(old) if !old.is_empty() => format!("{dir}:{old}"),
        _ => dir,
    };
    println!(
        "\n==> REQUIRE_NVRTC=1 LD_LIBRARY_PATH={library_path} cargo test -p step13 --test main nvrtc::"
    );
    let status = Command::new("cargo")
        .current_dir(root)
        .env("REQUIRE_NVRTC", "1")
        .env("LD_LIBRARY_PATH", &library_path)
        .args(["test", "-p", "step13", "--test", "main", "nvrtc::"])
        .status()
        .map_err(Error::spawn("cargo"))?;
    if status.success() {
        Ok(())
    } else {
        Err(failed!("step 13's NVRTC test failed ({status})"))
    }
}

/// Step 7's tests under AddressSanitizer (nightly): its SIMD loads are `unsafe`, and
/// ASan catches a load past the input or the tail's stack buffer. Its own target
/// directory, so the instrumented build does not replace the ordinary one.
fn asan_step7(root: &Path) -> Result {
    println!(
        "\n==> RUSTFLAGS=-Zsanitizer=address cargo +nightly test --target x86_64-unknown-linux-gnu -p step7 --lib --tests"
    );
    let status = Command::new("cargo")
        .current_dir(root)
        .env("RUSTFLAGS", "-Zsanitizer=address")
        .env("CARGO_TARGET_DIR", root.join("target/asan"))
        .args([
            "+nightly",
            "test",
            "--target",
            "x86_64-unknown-linux-gnu",
            "-p",
            "step7",
            "--lib",
            "--tests",
        ])
        .status()
        .map_err(Error::spawn("cargo +nightly"))?;
    if !status.success() {
        return Err(failed!(
            "step 7's tests under AddressSanitizer failed: {status}"
        ));
    }
    Ok(())
}

/// Every step binary, built in release mode: the gate and a one-run measurement on a
/// small generated file, then `--records` on every conformance case, compared with
/// the case's JSON byte for byte.
fn smoke(root: &Path) -> Result {
    run(root, "cargo", &["build", "--release", "--bins"])?;
    let file = root.join("target/smoke/smoke.csv");
    let file_str = file.to_str().ok_or("the smoke path is not UTF-8")?;
    run(
        root,
        "target/release/gen",
        &["--rows", SMOKE_ROWS, "--out", file_str],
    )?;
    let cases = fuzz::conformance_cases(root)?;
    for (n, _) in steps(root) {
        let bin = format!("target/release/step{n}");
        run(root, &bin, &[file_str, "--runs", "1"])?;
        for (csv, json) in &cases {
            let out = Command::new(root.join(&bin))
                .arg("--records")
                .arg(csv)
                .output()
                .map_err(Error::spawn(&bin))?;
            let expected = std::fs::read(json).map_err(Error::io(&json))?;
            // Exit 0 for records, 1 for the parse error whose JSON the case records.
            let status = if expected.starts_with(b"{\"error\"") {
                1
            } else {
                0
            };
            if out.status.code() != Some(status) || out.stdout != expected {
                return Err(failed!(
                    "step{n} --records {} differs from {}",
                    csv.display(),
                    json.display()
                ));
            }
        }
        println!(
            "step{n} --records: all {} cases reproduce their JSON",
            cases.len()
        );
    }
    Ok(())
}
