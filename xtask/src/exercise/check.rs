//! Running an exercise's tests in its step and telling the learner, in a few lines,
//! where they stand (`check`), and readying a machine for a day offline
//! (`prefetch`).
//!
//! A check builds with one cargo command the unit tests, the test binary `main` and
//! the binary of every step (`cargo test --workspace --lib --test main --no-run`),
//! not only the exercise's step: cargo resolves the features of shared dependencies
//! from the packages a command names, so `-p step2` alone and `-p step4` alone would
//! each build the harness, its dependencies and the test kit again (steps 4 to 11 add
//! `criterion`, step 13 `cudarc`). Naming the whole workspace, every check shares one
//! build of each with `prefetch`, with the README's `cargo test --workspace` and with
//! CI's test stage, and recompiles only the step that changed. Then it runs the
//! exercise's step's two test binaries itself (cargo's own run would name one package
//! and resolve again): the unit tests, then `main` filtered to the gate's family and
//! the exercise's own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::anchor::{self, TODO_PREFIX};
use super::catalog::{EXERCISES, Exercise};
use super::live::{is_live, learner_file, reference, rel_file};
use super::report::{Function, Verdict, indent, suites, verdict};
use super::status::{Status, save, saved, untouched};
use crate::error::{Error, Result, failed};

fn package(e: &Exercise) -> String {
    format!("step{}", e.step)
}

/// `cargo test --workspace --lib --test main --no-run`: everything any check runs,
/// built (members without those targets build nothing).
fn build_args() -> Vec<String> {
    ["test", "--workspace", "--lib", "--test", "main", "--no-run"]
        .map(String::from)
        .to_vec()
}

/// The test families of `main` a check runs: the gate's and the exercise's own.
pub(super) fn families(e: &Exercise) -> Vec<&'static str> {
    std::iter::once("gate")
        .chain(e.tests.iter().copied())
        .collect()
}

/// `main`'s filters: `gate:: scan::`.
fn filters(e: &Exercise) -> Vec<String> {
    families(e).iter().map(|f| format!("{f}::")).collect()
}

fn cargo(root: &Path, e: &Exercise, args: &[String]) -> Result<Output> {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .envs(e.env.iter().copied())
        .current_dir(root)
        .output()
        .map_err(Error::spawn("cargo"))
}

/// The last `lines` lines of a command's output: where cargo says why a build failed
/// (a compile error, a full disk), without the pages of `Compiling` before it.
pub(super) fn tail(output: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(output);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The executables of the exercise's step that the build made.
pub(super) struct Built {
    /// The unit tests (the library built as a test).
    unit: PathBuf,
    /// The test binary `main`: every family, a module each.
    main: PathBuf,
    /// The step's binary (dev profile): the learner's, for the speed comparison.
    pub bin: PathBuf,
}

/// Builds what every check runs. `Ok(Err(output))` when it does not compile: cargo's
/// output, whose stderr holds the compiler's messages.
pub(super) fn build(root: &Path, e: &Exercise) -> Result<Result<Built, Output>> {
    let mut args = build_args();
    // The compiler's messages on stderr as usual; each artifact's path on stdout.
    args.push("--message-format=json-render-diagnostics".into());
    let out = cargo(root, e, &args)?;
    if !out.status.success() {
        return Ok(Err(out));
    }
    let manifest = Path::new(e.step_dir).join("Cargo.toml");
    let (mut unit, mut main, mut bin) = (None, None, None);
    for line in out.stdout.split(|&b| b == b'\n') {
        let Ok(msg) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let in_step = msg["manifest_path"]
            .as_str()
            .is_some_and(|p| Path::new(p).ends_with(&manifest));
        let Some(exe) = msg["executable"].as_str().filter(|_| in_step) else {
            continue;
        };
        let kinds = msg["target"]["kind"].to_string();
        let name = msg["target"]["name"].as_str().unwrap_or_default();
        let exe = Some(PathBuf::from(exe));
        if msg["profile"]["test"] == true && kinds.contains("\"lib\"") {
            unit = exe;
        } else if kinds.contains("\"test\"") && name == "main" {
            main = exe;
        } else if kinds.contains("\"bin\"") && name == package(e) {
            bin = exe;
        }
    }
    match (unit, main, bin) {
        (Some(unit), Some(main), Some(bin)) => Ok(Ok(Built { unit, main, bin })),
        _ => Err(failed!(
            "cargo {} did not report the unit tests, the test binary `main` and the \
             binary of {}",
            build_args().join(" "),
            package(e)
        )),
    }
}

/// Builds, then runs the unit tests and `main`'s families, as one output: the
/// build's when it fails, else both runs' stdout one after the other, a `Running`
/// line for each on stderr (as cargo writes them, for [`suites`]), and a success only
/// when both passed.
pub(super) fn run_tests(root: &Path, e: &Exercise) -> Result<(Output, Option<PathBuf>)> {
    let built = match build(root, e)? {
        Ok(built) => built,
        Err(failed) => return Ok((failed, None)),
    };
    let run = |exe: &Path, args: &[String]| {
        Command::new(exe)
            .args(args)
            .envs(e.env.iter().copied())
            // The report shows what a test said, not where the panic went.
            .env("RUST_BACKTRACE", "0")
            // Where `cargo test` runs a package's tests.
            .env("CARGO_MANIFEST_DIR", root.join(e.step_dir))
            .current_dir(root.join(e.step_dir))
            .output()
            .map_err(Error::spawn(exe.display()))
    };
    let unit = run(&built.unit, &[])?;
    let main = run(&built.main, &filters(e))?;
    let out = Output {
        status: if unit.status.success() {
            main.status
        } else {
            unit.status
        },
        stdout: [unit.stdout, main.stdout].concat(),
        stderr: [
            b"     Running unittests src/lib.rs\n".as_slice(),
            &unit.stderr,
            b"     Running tests/main.rs\n",
            &main.stderr,
        ]
        .concat(),
    };
    Ok((out, Some(built.bin)))
}

/// `cargo x exercise check NAME`.
pub fn check(root: &Path, e: &Exercise) -> Result {
    if !is_live(root, e) {
        return Err(failed!(
            "{} is not started: `cargo x exercise start {}` stubs its function in {}",
            e.name,
            e.name,
            rel_file(e)
        ));
    }
    let reds = saved(root, e).map_or(0, |(_, _, reds)| reds);
    println!(
        "exercise {}: {} (step {}, book/src/{})",
        e.name,
        e.title,
        e.step,
        e.chapter()
    );
    if untouched(root, e) {
        println!(
            "\nnot started: the function in {} still says todo!().\n\
             Write its body, then run this again.\n\nhint: {}",
            rel_file(e),
            e.hints[0]
        );
        return Err(Error::Reported);
    }
    let shown_env: Vec<String> = e.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    println!(
        "building: cargo {} (the step you changed)",
        build_args().join(" ")
    );
    println!(
        "running:  {}step {}'s unit tests, and its tests/main.rs filtered to {}",
        shown_env.concat(),
        e.step,
        filters(e).join(" ")
    );
    let (out, bin) = run_tests(root, e)?;
    let summary = suites(&out);
    let file = rel_file(e);
    let function = Function {
        file: &file,
        lines: learner_file(root, e)
            .and_then(|text| anchor::region_lines(&text, e))
            .unwrap_or(0..=0),
    };
    match verdict(&out, &function) {
        Verdict::Green => {
            save(root, e, Status::Green, reds);
            println!("\ngreen: {summary}");
            if let Some(bin) = bin {
                speed(root, e, &bin);
            }
            return Ok(());
        }
        Verdict::DoesNotCompile(error) => {
            println!("\nred: it does not compile yet.\n\n{error}");
        }
        Verdict::Failed {
            test,
            message,
            failed,
        } => {
            let todo = format!("not yet implemented: {TODO_PREFIX}{}", e.name);
            if message.contains(&todo) {
                println!(
                    "\nred: the function still reaches todo!() (in test {test}). Replace \
                     the whole todo!(…) line with your code."
                );
            } else {
                println!(
                    "\nred: {summary}\n{failed} test(s) failed; {test} shows it best:\n\n{}",
                    indent(&message)
                );
            }
        }
    }
    save(root, e, Status::Red, reds + 1);
    // The "not started" check showed hint 1; each red check shows one more.
    let shown = (reds + 2).min(e.hints.len());
    for (k, hint) in e.hints[..shown].iter().enumerate() {
        println!("\nhint {}: {hint}", k + 1);
    }
    if shown == e.hints.len() {
        println!("\n(that is every hint; the solution is folded at the end of the chapter)");
    }
    // The report said it all; the exit status says red.
    Err(Error::Reported)
}

/// Green: the learner's binary (the check's build) and the step's (saved by
/// `start`) on the bench file, one after the other, each the best of three runs: the
/// same dev build for both, so the ratio is the point, not the figure. One round, not
/// several interleaved: each run of a step binary first reads the whole file once
/// more to compare its fingerprint with the reference's, which at step 10's speed
/// makes a round about six seconds.
fn speed(root: &Path, e: &Exercise, yours_bin: &Path) {
    let mb_per_s = |bin: &Path| -> Option<f64> {
        let out = Command::new(bin)
            .args(["--runs", "3", "--row-json"])
            .envs(e.env.iter().copied())
            .current_dir(root)
            .output()
            .ok()?;
        let row: serde_json::Value =
            serde_json::from_slice(out.stdout.split(|&b| b == b'\n').next()?).ok()?;
        row["mb_per_s"].as_f64()
    };
    let tier = e
        .env
        .iter()
        .find(|(k, _)| *k == "CSV_TIER")
        .map_or(String::new(), |(_, v)| format!(", both on the {v} tier"));
    println!(
        "\nspeed on data/bench.csv: each binary's best of 3 runs, yours then the step's \
         (the dev build{tier}):"
    );
    let (Some(y), Some(s)) = (mb_per_s(yours_bin), mb_per_s(&reference(root, e))) else {
        println!("(the binaries did not report a speed)");
        return;
    };
    println!(
        "  yours:    {y:>7.0} MB/s\n  the step: {s:>7.0} MB/s ({:.2}x)",
        y / s
    );
    if matches!(e.step, 11 | 12) {
        println!(
            "  (the speed of step {}'s row is its load, CSV to table)",
            e.step
        );
    }
}

/// `cargo x exercise prefetch`: before a workshop, with a network: the crates, the
/// build that every check shares (each step with exercises, on its own body: a check
/// then recompiles only its step), and the bench file; afterwards everything runs
/// offline.
pub fn prefetch(root: &Path) -> Result {
    if let Some(e) = EXERCISES.iter().find(|e| is_live(root, e)) {
        return Err(failed!(
            "{} is live, so its step would be built with the learner's body: `cargo x \
             exercise solve {}` first",
            e.name,
            e.name
        ));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for args in [vec!["fetch".to_string()], build_args()] {
        println!("==> cargo {}", args.join(" "));
        let status = Command::new(&cargo)
            .args(&args)
            .current_dir(root)
            .status()
            .map_err(Error::spawn("cargo"))?;
        if !status.success() {
            return Err(failed!("cargo {} failed", args.join(" ")));
        }
    }
    // The bench file (the speed comparison runs on it), generated by a step's binary
    // that the build above made.
    let e = &EXERCISES[0];
    let bin = match build(root, e)? {
        Ok(built) => built.bin,
        Err(out) => return Err(tail(&out.stderr, 40).into()),
    };
    println!("==> {} --runs 1 --row-json", package(e));
    let status = Command::new(&bin)
        .args(["--runs", "1", "--row-json"])
        .current_dir(root)
        .status()
        .map_err(Error::spawn(bin.display()))?;
    if !status.success() {
        return Err(failed!("{} could not write the bench file", bin.display()));
    }
    println!("\nprefetch: done; `cargo x exercise start NAME` and `check` now need no network");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_builds_every_step_and_filters_main_to_its_families() {
        let e = super::super::catalog::find("step11-intern").unwrap();
        assert_eq!(filters(e).join(" "), "gate:: round_trip:: query::");
        assert_eq!(
            build_args().join(" "),
            "test --workspace --lib --test main --no-run"
        );
    }

    #[test]
    fn every_family_a_check_filters_on_is_a_module_of_the_steps_main() {
        let root = crate::workspace_root();
        for e in EXERCISES {
            let main =
                super::super::live::read(&root.join(e.step_dir).join("tests/main.rs")).unwrap();
            for family in families(e) {
                assert!(
                    main.lines().any(|l| l.trim() == format!("mod {family};")),
                    "{}: no `mod {family};` in {}/tests/main.rs",
                    e.name,
                    e.step_dir
                );
            }
        }
    }
}
