//! `verify TABLE_DIR`: checks every file of a table against its size and its
//! checksum in the manifest ([`SplayedTable::verify`]), as SQLite's `PRAGMA
//! integrity_check` does for a database file: a table is input, and may have been
//! damaged since its load.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{ArgMatches, Command};
use harness::run::measure::thousands;

use crate::cli::{report, table_arg};
use crate::splayed::scan::SplayedTable;

/// The subcommand's arguments.
pub fn command() -> Command {
    Command::new("verify")
        .about("check every file of the table at TABLE_DIR against its size and checksum, and every value against what a load writes")
        .arg(table_arg())
}

/// Verifies, and says what it checked.
///
/// # Errors
/// The exit status after saying which file does not match ([`report`]).
pub fn run(m: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let dir = m.get_one::<PathBuf>("table").expect("required");
    let start = Instant::now();
    let table = SplayedTable::open(dir).map_err(|e| report(&e, false))?;
    let (files, bytes) = table.verify().map_err(|e| report(&e, false))?;
    println!(
        "{}: {} rows, {} columns; {files} files and the manifest, {} bytes: every size \
         and checksum matches, and every value is as a load writes it \
         ({:.3} s)",
        dir.display(),
        thousands(table.manifest.rows),
        table.manifest.columns.len(),
        thousands(bytes),
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
