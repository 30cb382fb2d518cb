//! Every page of the built book as a reader's browser shows it: headless Chromium opens
//! each page, and the check fails on a script error, an error on the console, a
//! resource that fails to load, an image that does not decode, a table wider than the
//! page, or a page with no text.
//!
//! The pages are opened by `book-browser` (`src/bin/book-browser.rs`), which drives
//! Chromium through the DevTools protocol with the `headless_chrome` crate. It is built
//! with xtask's feature `browser`, here on first use, so that `cargo test --workspace`
//! and `cargo stepdiff` never build a DevTools client.
//!
//! The browser is `CHROMIUM`, else `chromium`, `chromium-browser` or `google-chrome` on
//! the `PATH` (`.ci/run` installs Debian's `chromium`). Without one the check skips
//! with one line saying why; with `REQUIRE_BROWSER=1` (CI) a missing browser fails
//! instead.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result, failed};

/// What the check did: its one line of summary, or why it did not run.
pub enum Outcome {
    Checked(String),
    Skipped(String),
}

/// Opens every page under `out` (the built book). `require`: a missing browser is an
/// error, not a skip.
pub fn check(root: &Path, out: &Path, require: bool) -> Result<Outcome> {
    let Some(chromium) = find() else {
        let why = "no Chromium found (set CHROMIUM=/path/to/chrome, or install Debian's \
                   `chromium`: apt-get install chromium)";
        if require {
            return Err(failed!("no headless browser: {why} (REQUIRE_BROWSER=1)"));
        }
        return Ok(Outcome::Skipped(why.to_string()));
    };
    let mut run = cargo(root, "run");
    run.args(["--quiet", "--bin", "book-browser", "--"])
        .arg(&chromium)
        .arg(out);
    println!("\n==> {}", shown(&run));
    // Cargo's progress (the first build takes a while) on the terminal; the check's
    // lines are the result.
    let ran = run.output().map_err(Error::spawn("cargo"))?;
    let said = String::from_utf8_lossy(&ran.stdout).trim().to_string();
    match ran.status.code() {
        Some(0) => Ok(Outcome::Checked(said)),
        // The problems, one a line.
        Some(1) if !said.is_empty() => Err(failed!(
            "{} problems in the browser ({}):\n{said}",
            said.lines().count(),
            chromium.display()
        )),
        _ => Err(failed!("`{}` failed ({})", shown(&run), ran.status)),
    }
}

/// The CI stage's part for the check itself, whose feature the workspace's clippy and
/// tests leave off: its lints, and its tests with `REQUIRE_BROWSER=1` (a deliberately
/// broken page must fail in the browser).
pub fn lint_and_test(root: &Path) -> Result {
    let mut clippy = cargo(root, "clippy");
    clippy.args(["--all-targets", "--", "-D", "warnings"]);
    let mut test = cargo(root, "test");
    test.args(["--bin", "book-browser"])
        .env("REQUIRE_BROWSER", "1");
    for mut command in [clippy, test] {
        println!("\n==> {}", shown(&command));
        let status = command.status().map_err(Error::spawn("cargo"))?;
        if !status.success() {
            return Err(failed!("`{}` failed ({status})", shown(&command)));
        }
    }
    Ok(())
}

/// `cargo SUBCOMMAND` on xtask with the feature `browser`, in the profile of the same
/// name (the workspace's Cargo.toml: unoptimized, built apart in target/browser/).
fn cargo(root: &Path, subcommand: &str) -> Command {
    let mut cargo = Command::new("cargo");
    cargo
        .arg(subcommand)
        .args([
            "--profile",
            "browser",
            "--package",
            "xtask",
            "--features",
            "browser",
        ])
        .current_dir(root);
    // What `cargo run` told xtask about its own package: a build script that watches
    // one of these (ring's watches CARGO_MANIFEST_DIR) would see it change between this
    // build and one from a shell, and rebuild the DevTools client each time.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_MANIFEST_")
            || [
                "CARGO_CRATE_NAME",
                "CARGO_BIN_NAME",
                "CARGO_PRIMARY_PACKAGE",
            ]
            .contains(&name.as_ref())
        {
            cargo.env_remove(name.as_ref());
        }
    }
    cargo
}

/// A command as a shell would show it.
fn shown(command: &Command) -> String {
    let env: Vec<String> = command
        .get_envs()
        .filter_map(|(k, v)| Some(format!("{}={} ", k.to_string_lossy(), v?.to_string_lossy())))
        .collect();
    let args: Vec<String> = command
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    format!(
        "{}{} {}",
        env.concat(),
        command.get_program().to_string_lossy(),
        args.join(" ")
    )
}

fn find() -> Option<PathBuf> {
    if let Some(exe) = std::env::var_os("CHROMIUM").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(exe));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .into_iter()
    .find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}
