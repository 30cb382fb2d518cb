//! What both export tests start from: a table that step 11 loaded from gen's file,
//! with one more row that is NULL in every typed column.

use std::path::PathBuf;

use gen_csv::{Config, Reference, generate_in_memory};
use step11::splayed::load::{LoadOptions, load, parse_schema};
use step11::splayed::scan::SplayedTable;

/// Rows of gen's file; the table has one more, row 3,000, NULL in every typed column.
pub const ROWS: u64 = 3_000;

/// Loads [`ROWS`] rows of gen's file (`seed`) and the NULL row, `name` as text and
/// `category` interned, into a fresh directory of the test's own
/// (`export-EXTENSION-PID`), which the test removes at its end. Returns that
/// directory, the export's file in it (`bench.EXTENSION`, not written yet), the
/// table, and gen's answer for its rows (the NULL row adds nothing to a sum).
pub fn loaded(extension: &str, seed: u64) -> (PathBuf, PathBuf, SplayedTable, Reference) {
    let (mut csv, reference) = generate_in_memory(&Config {
        rows: ROWS,
        seed,
        quoted_pct: 10.0,
        crlf: false,
    });
    let tmp = std::env::temp_dir().join(format!("export-{extension}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).unwrap(); // a load makes its table's directory only
    let (dir, out) = (tmp.join("table"), tmp.join(format!("bench.{extension}")));
    csv.extend_from_slice(b"3000,books,,x,,,\n"); // NULLs in every typed column
    let options = LoadOptions {
        schema: parse_schema("name=text").unwrap(),
        ..LoadOptions::default()
    };
    load(&csv, &dir, &options).unwrap();
    let table = SplayedTable::open(&dir).unwrap();
    (tmp, out, table, reference)
}
