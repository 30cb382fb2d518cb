//! `step11 export TABLE_DIR --arrow FILE | --parquet FILE`: the table as a file that
//! other engines open ([`crate::export`]), when the step was built with that
//! feature.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Arg, ArgMatches, Command};

use crate::cli::report;
use crate::splayed::error::TableError;
use crate::splayed::scan::Table;

/// The subcommand's arguments.
pub fn command() -> Command {
    Command::new("export")
        .about("write the table at TABLE_DIR as an Arrow IPC file (needs --features arrow) or a Parquet file (--features parquet)")
        .arg(
            Arg::new("table")
                .value_name("TABLE_DIR")
                .required(true)
                .value_parser(clap::value_parser!(PathBuf)),
        )
        .arg(
            Arg::new("arrow")
                .long("arrow")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help("the Arrow IPC file to write (DuckDB, Polars, DataFusion read it)"),
        )
        .arg(
            Arg::new("parquet")
                .long("parquet")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help("the Parquet file to write (DuckDB, Spark, DataFusion read it)"),
        )
        .group(
            clap::ArgGroup::new("format")
                .args(["arrow", "parquet"])
                .required(true),
        )
}

/// Writes the export, and says how large it is.
///
/// # Errors
/// The exit status after saying why not: a build without the feature, a table that
/// does not open, a file that cannot be written.
pub fn run(m: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let dir = m.get_one::<PathBuf>("table").expect("required");
    let (out, feature) = match m.get_one::<PathBuf>("arrow") {
        Some(out) => (out, "arrow"),
        None => (
            m.get_one::<PathBuf>("parquet").expect("one of the group"),
            "parquet",
        ),
    };
    let start = Instant::now();
    let table = Table::open(dir).map_err(|e| report(&e, false))?;
    let Some(written) = export_as(&table, out, feature) else {
        eprintln!(
            "step11: built without the {feature} feature; run it as \
             cargo run --release -p step11 --features {feature} -- export TABLE_DIR --{feature} FILE"
        );
        return Err(ExitCode::FAILURE);
    };
    written.map_err(|e| report(&e, false))?;
    println!(
        "wrote {} ({:.1} MB) in {:.3} s",
        out.display(),
        std::fs::metadata(out).map_or(0, |m| m.len()) as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `table` to `out` in the format of `feature`; `None` when the step was
/// built without it.
fn export_as(table: &Table, out: &Path, feature: &str) -> Option<Result<(), TableError>> {
    match feature {
        #[cfg(feature = "arrow")]
        "arrow" => Some(crate::export::arrow::export(table, out)),
        #[cfg(feature = "parquet")]
        "parquet" => Some(crate::export::parquet::export(table, out)),
        _ => {
            let _ = (table, out); // used by the features' arms
            None
        }
    }
}
