//! Project chores, so that local equals CI.
//!
//! - `cargo x ci`: exactly what `.ci/run` runs, in the same order: format check,
//!   clippy, the tests (the README's test command), step 8's Arrow export (feature
//!   `arrow`: clippy and its test), step 6's tests under
//!   AddressSanitizer, step 9's kernels compiled by NVRTC (no GPU needed;
//!   `NVRTC_LIB_DIR` from `.ci/install-nvrtc.sh`), a smoke run of every step binary on
//!   a small generated file and a `--records` check of every conformance case through
//!   every step binary, the peers' answer check (`tools/peers/test_peers.py`),
//!   `./bench.sh --quick --peers` (the results table with Polars, DuckDB, pyarrow and
//!   simd-csv, `results.json` and the chart, on a small file, one run), the book, and
//!   every fuzz target for
//!   [`CI_FUZZ_SECONDS`] seconds (`cargo x fuzz`).
//! - `cargo stepdiff A B` (`cargo x diff A B`): the source diff (`src/`, and `kernels/`
//!   where a step has them; new files in full) from step A to step B, which is the one
//!   idea that step B adds.
//! - `cargo x steps`: the steps of the ladder, in order.
//! - `cargo x fuzz [SECONDS]`: builds the fuzz targets of `fuzz/` (nightly,
//!   AddressSanitizer), seeds each one's corpus with `data/conformance/*.csv`, then runs
//!   each for SECONDS (default 20). A crash fails it; see `fuzz/README.md`.
//! - `cargo x nvrtc`: step 9's kernels compiled by NVRTC (the CI stage alone).
//! - `cargo x book`: checks every `{{#include}}` of the book (file and anchor exist;
//!   no line numbers), then builds it with `mdbook build book`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Rows of the smoke-test file: enough to cross many buffer sizes, quick in CI.
const SMOKE_ROWS: &str = "20000";

/// Seconds each fuzz target runs in `cargo x ci`. Measured on the 2-core CI machine:
/// eight targets at 30 s took 5 min 53 s with the cold ASan build (1 min 31 s); at
/// 20 s the stage stays under 5 minutes.
const CI_FUZZ_SECONDS: u64 = 20;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["ci"] => ci(&root),
        ["diff", a, b] => diff(&root, a, b),
        ["book"] => book(&root),
        ["nvrtc"] => nvrtc_step9(&root),
        ["fuzz"] => fuzz(&root, CI_FUZZ_SECONDS),
        ["fuzz", seconds] => match seconds.parse() {
            Ok(seconds) => fuzz(&root, seconds),
            Err(_) => Err(format!("not a number of seconds: {seconds}")),
        },
        ["steps"] => {
            for (n, dir) in steps(&root) {
                println!(
                    "step{n}\t{}",
                    dir.strip_prefix(&root).unwrap_or(&dir).display()
                );
            }
            Ok(())
        }
        _ => Err(
            "usage: cargo x ci | cargo x book | cargo x nvrtc | cargo x fuzz [SECONDS] | cargo x diff A B (or cargo stepdiff A B) | cargo x steps"
                .to_string(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
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

fn run(root: &Path, program: &str, args: &[&str]) -> Result<(), String> {
    run_env(root, &[], program, args)
}

/// [`run`] with `env` added to the environment.
fn run_env(root: &Path, env: &[(&str, &str)], program: &str, args: &[&str]) -> Result<(), String> {
    let shown: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    println!("\n==> {}{program} {}", shown.concat(), args.join(" "));
    let status = Command::new(program)
        .envs(env.iter().copied())
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

fn ci(root: &Path) -> Result<(), String> {
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
    // The README's test command. REQUIRE_CXX=1: step 9's kernels run on the host's C++
    // compiler (`tests/kernels_on_host.rs`), which must not skip in CI.
    run_env(
        root,
        &[("REQUIRE_CXX", "1")],
        "cargo",
        &["test", "--workspace"],
    )?;
    arrow_step8(root)?;
    asan_step6(root)?;
    nvrtc_step9(root)?;
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
    book(root)?;
    fuzz(root, CI_FUZZ_SECONDS)?;
    println!("\nci: all checks passed");
    Ok(())
}

/// Step 8's Arrow export, which sits behind the feature `arrow` (off by default, so
/// that `cargo run -p step8` does not build the arrow crates): clippy and its test.
fn arrow_step8(root: &Path) -> Result<(), String> {
    let with_arrow = ["-p", "step8", "--all-targets", "--features", "arrow"];
    run(
        root,
        "cargo",
        &[&["clippy"], &with_arrow[..], &["--", "-D", "warnings"]].concat(),
    )?;
    run(
        root,
        "cargo",
        &[
            "test",
            "-p",
            "step8",
            "--features",
            "arrow",
            "--test",
            "arrow",
        ],
    )
}

/// Step 9's kernels compiled by NVRTC for compute_80 and compute_90, with no GPU:
/// `tests/nvrtc.rs` with `REQUIRE_NVRTC=1`, so that a missing library fails here
/// instead of skipping. The library is the folder `NVRTC_LIB_DIR`, which `.ci/run`
/// sets from `.ci/install-nvrtc.sh` (run that script once to run this locally).
fn nvrtc_step9(root: &Path) -> Result<(), String> {
    let dir = std::env::var("NVRTC_LIB_DIR").map_err(|_| {
        "NVRTC_LIB_DIR is not set: export NVRTC_LIB_DIR=\"$(bash .ci/install-nvrtc.sh)\" (what .ci/run does)"
            .to_string()
    })?;
    let library_path = match std::env::var("LD_LIBRARY_PATH") {
        Ok(old) if !old.is_empty() => format!("{dir}:{old}"),
        _ => dir,
    };
    println!(
        "\n==> REQUIRE_NVRTC=1 LD_LIBRARY_PATH={library_path} cargo test -p step9 --test nvrtc"
    );
    let status = Command::new("cargo")
        .current_dir(root)
        .env("REQUIRE_NVRTC", "1")
        .env("LD_LIBRARY_PATH", &library_path)
        .args(["test", "-p", "step9", "--test", "nvrtc"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("step 9's NVRTC test failed ({status})"))
    }
}

/// Step 6's tests under AddressSanitizer (nightly): its SIMD loads are `unsafe`, and
/// ASan catches a load past the input or the tail's stack buffer. Its own target
/// directory, so the instrumented build does not replace the ordinary one.
fn asan_step6(root: &Path) -> Result<(), String> {
    println!(
        "\n==> RUSTFLAGS=-Zsanitizer=address cargo +nightly test --target x86_64-unknown-linux-gnu -p step6 --lib --tests"
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
            "step6",
            "--lib",
            "--tests",
        ])
        .status()
        .map_err(|e| format!("cannot run cargo +nightly: {e}"))?;
    if !status.success() {
        return Err(format!(
            "step 6's tests under AddressSanitizer failed: {status}"
        ));
    }
    Ok(())
}

/// Every step binary, built in release mode: the gate and a one-run measurement on a
/// small generated file, then `--records` on every conformance case, compared with
/// the case's JSON byte for byte.
fn smoke(root: &Path) -> Result<(), String> {
    run(
        root,
        "cargo",
        &["build", "--release", "--workspace", "--bins"],
    )?;
    let file = root.join("target/smoke/smoke.csv");
    let file_str = file.to_str().ok_or("the smoke path is not UTF-8")?;
    run(
        root,
        "target/release/gen",
        &["--rows", SMOKE_ROWS, "--out", file_str],
    )?;
    let cases = conformance_cases(root)?;
    for (n, _) in steps(root) {
        let bin = format!("target/release/step{n}");
        run(root, &bin, &[file_str, "--runs", "1"])?;
        for (csv, json) in &cases {
            let out = Command::new(root.join(&bin))
                .arg("--records")
                .arg(csv)
                .output()
                .map_err(|e| format!("cannot run {bin}: {e}"))?;
            let expected = std::fs::read(json).map_err(|e| format!("{}: {e}", json.display()))?;
            if !out.status.success() || out.stdout != expected {
                return Err(format!(
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

/// Builds every fuzz target (nightly, AddressSanitizer: cargo-fuzz's default), seeds
/// its corpus with the conformance cases, and runs it for `seconds`. libFuzzer stops at
/// the first crash and writes the input to `fuzz/artifacts/TARGET/`; that fails here.
fn fuzz(root: &Path, seconds: u64) -> Result<(), String> {
    let start = std::time::Instant::now();
    run(
        root,
        "cargo",
        &["fmt", "--check", "--manifest-path", "fuzz/Cargo.toml"],
    )?;
    run(root, "cargo", &["+nightly", "fuzz", "build"])?;
    let list = Command::new("cargo")
        .args(["+nightly", "fuzz", "list"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
    let targets = String::from_utf8_lossy(&list.stdout).to_string();
    let cases = conformance_cases(root)?;
    let max_time = format!("-max_total_time={seconds}");
    for target in targets.split_whitespace() {
        let corpus = root.join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        for (csv, _) in &cases {
            let seed = corpus.join(csv.file_name().unwrap_or_default());
            std::fs::copy(csv, &seed).map_err(|e| format!("{}: {e}", seed.display()))?;
        }
        run(
            root,
            "cargo",
            &["+nightly", "fuzz", "run", target, "--", &max_time],
        )
        .map_err(|e| {
            format!("{e}\nthe crashing input is in fuzz/artifacts/{target}/; see fuzz/README.md")
        })?;
    }
    println!(
        "fuzz: every target ran {seconds} s without a crash ({:.0} s in all)",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn conformance_cases(root: &Path) -> Result<Vec<(PathBuf, PathBuf)>, String> {
    let dir = root.join("data/conformance");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .map(|csv| {
            let json = csv.with_extension("json");
            (csv, json)
        })
        .collect();
    cases.sort();
    Ok(cases)
}

fn diff(root: &Path, a: &str, b: &str) -> Result<(), String> {
    let find = |n: &str| {
        let n: u32 = n
            .trim_start_matches("step")
            .parse()
            .map_err(|_| format!("not a step number: {n}"))?;
        steps(root)
            .into_iter()
            .find(|(k, _)| *k == n)
            .map(|(_, dir)| dir)
            .ok_or(format!("no step {n}"))
    };
    let (a, b) = (find(a)?, find(b)?);
    // A folder only one step has (step 9's kernels) is compared with an empty one, and
    // -N shows a file only one side has in full: new files are the idea too.
    let empty = root.join("target/stepdiff-empty");
    std::fs::create_dir_all(&empty).map_err(|e| format!("{}: {e}", empty.display()))?;
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    for folder in ["src", "kernels"] {
        let (from, to) = (a.join(folder), b.join(folder));
        if !from.is_dir() && !to.is_dir() {
            continue;
        }
        let side = |p: PathBuf| if p.is_dir() { p } else { empty.clone() };
        // diff exits 1 when the files differ, which is the expected case here.
        let status = Command::new("diff")
            .args(["-ruN", "--color=auto", &rel(&side(from)), &rel(&side(to))])
            .current_dir(root)
            .status()
            .map_err(|e| format!("cannot run diff: {e}"))?;
        if status.code().is_none_or(|c| c > 1) {
            return Err(format!("diff failed ({status})"));
        }
    }
    Ok(())
}

/// Checks the book's includes, then builds it.
fn book(root: &Path) -> Result<(), String> {
    let count = check_book_includes(&root.join("book/src"))?;
    println!("book: all {count} includes name an existing file and anchor");
    run(root, "mdbook", &["build", "book"])
}

/// mdBook only warns when an include's anchor is missing, and silently includes the
/// wrong lines when code moves under a line-number include: both fail here.
fn check_book_includes(src: &Path) -> Result<usize, String> {
    let mut count = 0;
    let mut problems = Vec::new();
    for md in markdown_files(src) {
        let text = std::fs::read_to_string(&md).map_err(|e| format!("{}: {e}", md.display()))?;
        problems.extend(unfenced_code_includes(&text).into_iter().map(|t| {
            format!("{}: {{{{#include {t}}}}} is code outside a ``` fence: mdBook would render it as text", md.display())
        }));
        for (target, anchor) in includes(&text) {
            count += 1;
            let file = md.parent().unwrap_or(src).join(&target);
            let where_ = format!("{}: {{{{#include {target}}}}}", md.display());
            let Ok(body) = std::fs::read_to_string(&file) else {
                problems.push(format!("{where_}: no such file"));
                continue;
            };
            match anchor {
                None => {}
                Some(a) if a.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
                    problems.push(format!("{where_}: includes by line number; use an anchor"));
                }
                Some(a)
                    if !has_marker(&body, "ANCHOR", &a) || !has_marker(&body, "ANCHOR_END", &a) =>
                {
                    problems.push(format!(
                        "{where_}: anchor `{a}` not found (needs ANCHOR: {a} and ANCHOR_END: {a})"
                    ));
                }
                Some(_) => {}
            }
        }
    }
    if problems.is_empty() {
        Ok(count)
    } else {
        Err(problems.join("\n"))
    }
}

/// True when a line of `body` holds `MARKER: name` as mdBook reads it: the name is the
/// run of letters, digits, `_` and `-` after the colon.
fn has_marker(body: &str, marker: &str, name: &str) -> bool {
    let tag = format!("{marker}:");
    body.lines().any(|line| {
        line.match_indices(&tag).any(|(at, _)| {
            let word_before = line[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let rest = line[at + tag.len()..].trim_start();
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            !word_before && word == name
        })
    })
}

/// The includes of files other than Markdown that stand outside a fenced code block.
fn unfenced_code_includes(text: &str) -> Vec<String> {
    let mut in_fence = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence {
            found.extend(
                includes(line)
                    .into_iter()
                    .map(|(path, _)| path)
                    .filter(|p| !p.ends_with(".md")),
            );
        }
    }
    found
}

/// `(path, anchor)` of every `{{#include path[:anchor]}}` in `text`.
fn includes(text: &str) -> Vec<(String, Option<String>)> {
    text.split("{{#")
        .skip(1)
        .filter_map(|rest| {
            let inner = rest.split("}}").next()?;
            let arg = inner
                .strip_prefix("include ")
                .or_else(|| inner.strip_prefix("rustdoc_include "))?
                .trim();
            Some(match arg.split_once(':') {
                Some((path, anchor)) => (path.to_string(), Some(anchor.to_string())),
                None => (arg.to_string(), None),
            })
        })
        .collect()
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(markdown_files(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_includes_with_and_without_anchors() {
        let text = "a {{#include ../x.rs:state}} b {{#include ../y.md}} {{#title t}}";
        assert_eq!(
            includes(text),
            [
                ("../x.rs".to_string(), Some("state".to_string())),
                ("../y.md".to_string(), None)
            ]
        );
    }

    #[test]
    fn the_book_includes_resolve() {
        let src = workspace_root().join("book/src");
        assert!(check_book_includes(&src).unwrap() > 0);
    }

    #[test]
    fn a_missing_anchor_or_a_line_number_fails() {
        let dir = std::env::temp_dir().join(format!("xtask-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("code.rs"),
            "// ANCHOR: real\nfn f() {}\n// ANCHOR_END: real\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("bad.md"),
            "{{#include code.rs:gone}} {{#include code.rs:1:3}} {{#include none.rs}}",
        )
        .unwrap();
        let err = check_book_includes(&dir).unwrap_err();
        assert!(
            err.contains("anchor `gone` not found")
                && err.contains("line number")
                && err.contains("no such file"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
