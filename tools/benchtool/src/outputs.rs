//! A run's files in its folder: `results.json` ([`write_results`]) and the markdown
//! made from it, `table.md`, `figures.md` and `rows.md` ([`write_markdown`]), written
//! by `benchtool bench` after a run and by `benchtool markdown` from a run's files.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::{figures, report};

/// Writes `results` as `out_dir/results.json`, indented.
///
/// # Errors
/// [`Error::Io`] when it cannot be written.
pub fn write_results(results: &Value, out_dir: &Path) -> Result {
    write(&out_dir.join("results.json"), &format!("{results:#}\n"))
}

/// Writes `table.md`, `figures.md` and `rows.md` of `results` in `out_dir`; returns
/// the table (with the lines above it), which bench.sh prints.
///
/// # Errors
/// [`Error::Io`] when a file cannot be written.
pub fn write_markdown(results: &Value, out_dir: &Path) -> Result<String> {
    let table = format!("{}\n{}", report::preamble(results), report::table(results));
    write(&out_dir.join("table.md"), &table)?;
    write(&out_dir.join("figures.md"), &figures::figures(results))?;
    write(&out_dir.join("rows.md"), &figures::rows(results))?;
    Ok(table)
}

/// Reads a `results.json`.
///
/// # Errors
/// [`Error::Io`] when it cannot be read, [`Error::Json`] when it is not JSON.
pub fn read_results(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    serde_json::from_str(&text).map_err(Error::json(path))
}

fn write(path: &Path, text: &str) -> Result {
    std::fs::write(path, text).map_err(Error::io(path))
}
