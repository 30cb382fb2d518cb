//! Project chores, so that local equals CI.
//!
//! - `cargo x ci`: exactly what `.ci/run` runs, in the same order: format check,
//!   clippy, the tests (the README's test command), then a smoke run of every step
//!   binary on a small generated file and a `--records` check of every conformance
//!   case through every step binary.
//! - `cargo stepdiff A B` (`cargo x diff A B`): the source diff from step A to step B,
//!   which is the one idea that step B adds.
//! - `cargo x steps`: the steps of the ladder, in order.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Rows of the smoke-test file: enough to cross many buffer sizes, quick in CI.
const SMOKE_ROWS: &str = "20000";

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
            "usage: cargo x ci | cargo x diff A B (or cargo stepdiff A B) | cargo x steps"
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
    println!("\n==> {program} {}", args.join(" "));
    let status = Command::new(program)
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
    run(root, "cargo", &["test", "--workspace"])?; // the README's test command
    smoke(root)?;
    println!("\nci: all checks passed");
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
    let (a, b) = (find(a)?.join("src"), find(b)?.join("src"));
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    // diff exits 1 when the files differ, which is the expected case here.
    let status = Command::new("diff")
        .args(["-ru", "--color=auto", &rel(&a), &rel(&b)])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run diff: {e}"))?;
    if status.code().is_some_and(|c| c <= 1) {
        Ok(())
    } else {
        Err(format!("diff failed ({status})"))
    }
}
