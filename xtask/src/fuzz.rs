//! `cargo x fuzz [SECONDS]`: every fuzz target of `fuzz/`, seeded with the
//! conformance cases (see `fuzz/README.md`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::run;

/// Builds every fuzz target (nightly, AddressSanitizer: cargo-fuzz's default), seeds
/// its corpus with the conformance cases, and runs it for `seconds`. libFuzzer stops at
/// the first crash and writes the input to `fuzz/artifacts/TARGET/`; that fails here.
pub fn fuzz(root: &Path, seconds: u64) -> Result {
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
        .map_err(Error::spawn("cargo fuzz"))?;
    let targets = String::from_utf8_lossy(&list.stdout).to_string();
    let cases = conformance_cases(root)?;
    let max_time = format!("-max_total_time={seconds}");
    for target in targets.split_whitespace() {
        let corpus = root.join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(Error::io(&corpus))?;
        for (csv, _) in &cases {
            let seed = corpus.join(csv.file_name().unwrap_or_default());
            std::fs::copy(csv, &seed).map_err(Error::io(&seed))?;
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

pub fn conformance_cases(root: &Path) -> Result<Vec<(PathBuf, PathBuf)>> {
    let dir = root.join("data/conformance");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .map_err(Error::io(&dir))?
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
