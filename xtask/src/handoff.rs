//! `cargo x handoff`: the hand-off past one machine. The columnar step loads the
//! bench file into a table and the export tool (`tools/export`) writes it as
//! Parquet; Apache Spark (PySpark, local mode) and Apache DataFusion run the same
//! GROUP BY over that file, and their answers must be the parallel step's
//! (`tools/handoff/`, the book's "Past one machine").
//!
//! First the comparison's unit tests (no engine needed: a deliberately wrong expected
//! value must fail), then `tools/handoff/handoff.py check`, which installs what it
//! needs: the pinned Python packages into `target/handoff/venv`, and a Java runtime
//! from Debian's packages when none is found. Where Java cannot be installed, Spark is
//! skipped with one line saying why; `cargo x ci` sets `REQUIRE_HANDOFF=1`, which makes
//! that, and a failed install of the packages, an error.

use std::path::Path;

use crate::error::Result;
use crate::run_env;

/// `cargo x handoff`: `REQUIRE_HANDOFF` as the environment has it.
pub fn handoff(root: &Path) -> Result {
    stage(root, &[NO_BYTECODE])
}

/// The CI stage: a missing Java or package is an error, not a skip.
pub fn ci(root: &Path) -> Result {
    stage(root, &[NO_BYTECODE, ("REQUIRE_HANDOFF", "1")])
}

/// No `__pycache__` folders left in `tools/handoff/`, where git would see them.
const NO_BYTECODE: (&str, &str) = ("PYTHONDONTWRITEBYTECODE", "1");

fn stage(root: &Path, env: &[(&str, &str)]) -> Result {
    run_env(
        root,
        &[NO_BYTECODE],
        "python3",
        &["-m", "unittest", "discover", "-s", "tools/handoff", "-v"],
    )?;
    run_env(root, env, "python3", &["tools/handoff/handoff.py", "check"])
}
