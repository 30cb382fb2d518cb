//! `index TABLE_DIR COLUMN [--threads N]`: a hash index of COLUMN added to a loaded
//! table ([`crate::hash_index::add`]); `load --index COLUMN` does the same after the
//! load.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Arg, ArgMatches, Command};
use harness::run::measure::thousands;

use crate::cli::{report, split, table_arg, threads_arg};
use crate::hash_index::add::add;
use crate::splayed::load::remove_staging_on_interrupt;

/// The subcommand's arguments.
pub fn command() -> Command {
    threads_arg(
        Command::new("index")
            .about("add a hash index of COLUMN to the table at TABLE_DIR (replacing one on another column)")
            .arg(table_arg())
            .arg(Arg::new("column").value_name("COLUMN").required(true)),
    )
}

/// Adds the index, and says what it built.
///
/// # Errors
/// The exit status after saying why not ([`report`]).
pub fn run(m: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let dir = m.get_one::<PathBuf>("table").expect("required");
    let column = m.get_one::<String>("column").expect("required");
    // Ctrl-C or SIGTERM before the index is the table's removes its files.
    remove_staging_on_interrupt().expect("the first handler of this process");
    add_and_say(dir, column, split(m).threads)
}

/// Adds the index of `column` to the table at `dir` on `threads` threads, and says
/// how many groups it has and how long it took.
///
/// # Errors
/// The exit status after saying why not ([`report`]); the table is then as it was.
pub fn add_and_say(dir: &Path, column: &str, threads: usize) -> Result<ExitCode, ExitCode> {
    let start = Instant::now();
    let (k, index) = add(dir, column, threads).map_err(|e| report(&e, false))?;
    println!(
        "hash index on column {} ({column}): {} groups, {} rows, in {:.3} s",
        k + 1,
        thousands(index.groups() as u64),
        thousands(index.rows.len() as u64),
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
