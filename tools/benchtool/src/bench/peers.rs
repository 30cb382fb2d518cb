//! `--peers`: Polars, DuckDB and pyarrow in a virtual environment under `target/`
//! ([`install`]), made once and made again when the pinned versions change; nothing
//! is installed outside it.

use std::path::Path;
use std::process::Command;

use crate::error::{BenchError, Result};

/// The environment, from the repository's root.
pub const VENV: &str = "target/peers/venv";

/// The pinned versions, from the repository's root.
pub const REQUIREMENTS: &str = "tools/peers/requirements.txt";

/// Why the peers were skipped.
pub const NO_PYTHON: &str = "no python3 on this machine";

/// Why the peers were skipped when pip failed (its error is printed above).
pub const NOT_INSTALLED: &str =
    "the pinned versions could not be installed from PyPI (pip's error above)";

/// Whether the peers run: their environment made when it is missing or its pinned
/// versions changed. When they cannot be installed, a line says why and they are
/// skipped, unless `required` (`REQUIRE_PEERS=1`).
///
/// # Errors
/// [`BenchError::PeersRequired`] when they cannot be installed and `required`.
pub fn install(root: &Path, required: bool) -> Result<bool> {
    let skipped = if Command::new("python3").arg("--version").output().is_err() {
        Some(NO_PYTHON)
    } else if !installed(root) {
        Some(NOT_INSTALLED)
    } else {
        None
    };
    match skipped {
        None => Ok(true),
        Some(why) if required => Err(BenchError::PeersRequired(why).into()),
        Some(why) => {
            eprintln!("bench.sh: --peers: Polars, DuckDB and pyarrow skipped: {why}.");
            Ok(false)
        }
    }
}

/// Whether the environment holds the pinned versions, making it first when it does
/// not (pip's output goes to stderr).
fn installed(root: &Path) -> bool {
    let wanted_path = root.join(REQUIREMENTS);
    let venv = root.join(VENV);
    let stamp = venv.join("installed.txt");
    let Ok(wanted) = std::fs::read(&wanted_path) else {
        return false;
    };
    if std::fs::read(&stamp).is_ok_and(|s| s == wanted) {
        return true;
    }
    eprintln!(
        "==> installing the peers into {VENV} (once): {}",
        pins(&String::from_utf8_lossy(&wanted))
    );
    // A half-made environment from an interrupted install is not reused.
    let _ = std::fs::remove_dir_all(&venv);
    let ok = |command: &mut Command| {
        command
            .stdout(std::io::stderr())
            .status()
            .is_ok_and(|s| s.success())
    };
    ok(Command::new("python3").args(["-m", "venv"]).arg(&venv))
        && ok(Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
            .arg(&wanted_path))
        && std::fs::write(&stamp, &wanted).is_ok()
}

/// The requirements' lines but comments, each followed by a space.
pub fn pins(requirements: &str) -> String {
    requirements
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| format!("{line} "))
        .collect()
}
