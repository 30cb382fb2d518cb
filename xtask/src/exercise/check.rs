//! Running an exercise's tests and telling the learner, in a few lines, where they
//! stand: the learner's `check`, `list`, `reset` and `prefetch`, and CI's `verify`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::catalog::{EXERCISES, Exercise};
use super::generate::{self, Body, TODO_PREFIX};
use super::report::{Verdict, indent, suites, verdict};
use super::status::{Status, learner_file, save, saved, status_path, untouched};

/// The `cargo test` arguments of `e`'s check: its unit tests, the gate, its tests.
fn test_args(e: &Exercise) -> Vec<String> {
    let mut args: Vec<String> = [
        "test",
        "-p",
        e.name,
        "--features",
        "check",
        "--no-fail-fast",
        "--lib",
    ]
    .map(String::from)
    .to_vec();
    // Every family is a module of the one test binary `main`; the filters pick the
    // gate's module and the exercise's own.
    args.extend(["--test", "main", "--"].map(String::from));
    for t in std::iter::once(&"gate").chain(e.tests) {
        args.push(format!("{t}::"));
    }
    args
}

/// The last `lines` lines of a command's stderr: where cargo says why a build failed
/// (a compile error, a full disk), without the pages of `Compiling` before it.
fn tail(stderr: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(stderr);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn cargo(root: &Path, e: &Exercise, args: &[String]) -> Result<Output, String> {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .envs(e.env.iter().copied())
        // The report shows what a test said, not where the panic went.
        .env("RUST_BACKTRACE", "0")
        .current_dir(root)
        .output()
        .map_err(|err| format!("cannot run cargo: {err}"))
}

/// `cargo x exercise check NAME`.
pub fn check(root: &Path, e: &Exercise) -> Result<(), String> {
    let reds = saved(root, e).map_or(0, |(_, _, reds)| reds);
    println!(
        "exercise {}: {} (step {}, book/src/{})",
        e.name,
        e.title,
        e.step,
        e.chapter()
    );
    if untouched(root, e)? {
        println!(
            "\nnot started: the function in exercises/{}/{} still says todo!().\n\
             Write its body, then run this again.\n\nhint: {}",
            e.name, e.file, e.hints[0]
        );
        return Err(String::new());
    }
    let shown_env: Vec<String> = e.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    println!(
        "running: {}cargo {}",
        shown_env.concat(),
        test_args(e).join(" ")
    );
    if saved(root, e).is_none() {
        println!("(the first check builds the crate: a minute or so)");
    }
    let out = cargo(root, e, &test_args(e))?;
    let summary = suites(&out);
    match verdict(&out) {
        Verdict::Green => {
            save(root, e, Status::Green, reds);
            println!("\ngreen: {summary}");
            speed(root, e);
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
    Err(String::new())
}

/// Green: the exercise's binary and the step's, on the bench file, one after the
/// other and twice, as the same (dev) build: the ratio is the point, not the figure.
fn speed(root: &Path, e: &Exercise) {
    let step = format!("step{}", e.step);
    let build = cargo(
        root,
        e,
        &["build", "-q", "-p", e.name, "-p", &step].map(String::from),
    );
    if !build.is_ok_and(|o| o.status.success()) {
        println!("(could not build the binaries to compare speeds)");
        return;
    }
    let target = std::env::var("CARGO_TARGET_DIR").map_or(root.join("target"), PathBuf::from);
    let mb_per_s = |bin: &str| -> Option<f64> {
        let out = Command::new(target.join("debug").join(bin))
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
        "\nspeed on data/bench.csv: each binary's best of 3 runs, in two rounds, yours then \
         the solution's (the dev build{tier}):"
    );
    let mut yours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..2 {
        yours.extend(mb_per_s(e.name));
        theirs.extend(mb_per_s(&step));
    }
    let best = |v: &[f64]| v.iter().copied().fold(f64::NAN, f64::max);
    if yours.is_empty() || theirs.is_empty() {
        println!("(the binaries did not report a speed)");
        return;
    }
    let (y, s) = (best(&yours), best(&theirs));
    println!(
        "  yours:        {y:>7.0} MB/s\n  the solution: {s:>7.0} MB/s ({:.2}x)",
        y / s
    );
    if e.step == 8 {
        println!("  (step 9's row times the load, CSV to table)");
    }
}

/// `cargo x exercise reset NAME`: the generated crate again; the edited file is
/// kept in `target/exercises/`.
pub fn reset(root: &Path, e: &Exercise) -> Result<(), String> {
    if let Ok(text) = learner_file(root, e) {
        let dir = root.join("target/exercises");
        let _ = std::fs::create_dir_all(&dir);
        let keep = (1..)
            .map(|n| dir.join(format!("{}-{n}.rs", e.name)))
            .find(|p| !p.exists())
            .expect("a free name");
        std::fs::write(&keep, text).map_err(|err| format!("{}: {err}", keep.display()))?;
        println!(
            "your version is kept: to take it back, cp {} exercises/{}/{}",
            keep.strip_prefix(root).unwrap_or(&keep).display(),
            e.name,
            e.file
        );
    }
    write_crate(root, e, Body::Stub)?;
    let _ = std::fs::remove_file(status_path(root, e));
    println!("exercise {}: back to the stub", e.name);
    Ok(())
}

fn write_crate(root: &Path, e: &Exercise, body: Body) -> Result<(), String> {
    for (path, text) in generate::crate_files(root, e, body)? {
        let path = root.join(path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|err| err.to_string())?;
        }
        std::fs::write(&path, text).map_err(|err| format!("{}: {err}", path.display()))?;
    }
    Ok(())
}

/// `cargo x exercise prefetch`: before a workshop, with a network: the crates, every
/// build a check needs, and the bench file; afterwards everything runs offline.
pub fn prefetch(root: &Path) -> Result<(), String> {
    let run = |args: &[&str], env: &[(&str, &str)]| -> Result<(), String> {
        println!("==> cargo {}", args.join(" "));
        let status = Command::new("cargo")
            .args(args)
            .envs(env.iter().copied())
            .current_dir(root)
            .status()
            .map_err(|err| err.to_string())?;
        status
            .success()
            .then_some(())
            .ok_or_else(|| format!("cargo {} failed", args.join(" ")))
    };
    run(&["fetch"], &[])?;
    run(&["test", "--workspace", "--no-run"], &[])?;
    for e in EXERCISES {
        let mut args = test_args(e);
        let filters = args.iter().position(|a| a == "--").unwrap_or(args.len());
        args.truncate(filters);
        args.push("--no-run".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&args, &[])?;
        run(
            &["build", "-p", e.name, "-p", &format!("step{}", e.step)],
            &[],
        )?;
    }
    // The bench file (the speed comparison runs on it), generated once.
    run(
        &[
            "run",
            "-q",
            "-p",
            "step1",
            "--",
            "--runs",
            "1",
            "--row-json",
        ],
        &[],
    )?;
    println!("\nprefetch: done; `cargo x exercise check NAME` now needs no network");
    Ok(())
}

/// CI: the untouched stub of `e` is red, and green once its body is the solution's.
pub fn verify_one(root: &Path, e: &Exercise) -> Result<(), String> {
    let start = std::time::Instant::now();
    let stub = cargo(root, e, &test_args(e))?;
    let todo = format!("not yet implemented: {TODO_PREFIX}{}", e.name);
    let stub_red = !stub.status.success()
        && (String::from_utf8_lossy(&stub.stdout).contains(&todo)
            || String::from_utf8_lossy(&stub.stderr).contains(&todo));
    write_crate(root, e, Body::Solution)?;
    let solved = cargo(root, e, &test_args(e));
    let restored = write_crate(root, e, Body::Stub);
    let solved = solved?;
    restored?;
    if !stub_red {
        return Err(format!(
            "{}: the untouched stub is not red on its todo!() (a defect: its tests do not reach the function, or they did not build)\n{}\n{}",
            e.name,
            String::from_utf8_lossy(&stub.stdout),
            tail(&stub.stderr, 40)
        ));
    }
    if !solved.status.success() {
        return Err(format!(
            "{}: the solution's body does not pass the exercise's tests\n{}\n{}",
            e.name,
            String::from_utf8_lossy(&solved.stdout),
            String::from_utf8_lossy(&solved.stderr)
        ));
    }
    println!(
        "exercise {}: stub red, solution green ({:.0} s)",
        e.name,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
