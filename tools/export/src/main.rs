//! `export TABLE_DIR --arrow FILE | --parquet FILE`: a table that step 11 loaded, as
//! a file that other engines open (the crate's docs), when the tool was built with
//! that feature: `cargo run --release -p export --features parquet -- TABLE_DIR
//! --parquet FILE`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Arg, ArgGroup, Command};
use step11::splayed::error::TableError;
use step11::splayed::scan::SplayedTable;

fn command() -> Command {
    Command::new("export")
        .about("write the table at TABLE_DIR (loaded by step 11) as an Arrow IPC file (needs --features arrow) or a Parquet file (--features parquet)")
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
        .group(ArgGroup::new("format").args(["arrow", "parquet"]).required(true))
}

/// Writes the export, and says how large it is; exit status 1 when the tool was
/// built without the format's feature, the table does not open or the file cannot
/// be written.
fn main() -> ExitCode {
    let m = command().get_matches();
    let dir = m.get_one::<PathBuf>("table").expect("required");
    let (out, feature) = match m.get_one::<PathBuf>("arrow") {
        Some(out) => (out, "arrow"),
        None => (
            m.get_one::<PathBuf>("parquet").expect("one of the group"),
            "parquet",
        ),
    };
    let start = Instant::now();
    let written = SplayedTable::open(dir).map(|table| export_as(&table, out, feature));
    match written {
        Ok(Some(Ok(()))) => {
            println!(
                "wrote {} ({:.1} MB) in {:.3} s",
                out.display(),
                std::fs::metadata(out).map_or(0, |m| m.len()) as f64 / 1e6,
                start.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Ok(None) => {
            eprintln!(
                "export: built without the {feature} feature; run it as \
                 cargo run --release -p export --features {feature} -- TABLE_DIR --{feature} FILE"
            );
            ExitCode::FAILURE
        }
        Ok(Some(Err(e))) | Err(e) => {
            eprintln!("export: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `table` to `out` in the format of `feature`; `None` when the tool was
/// built without it.
fn export_as(table: &SplayedTable, out: &Path, feature: &str) -> Option<Result<(), TableError>> {
    match feature {
        #[cfg(feature = "arrow")]
        "arrow" => Some(export::arrow::export(table, out)),
        #[cfg(feature = "parquet")]
        "parquet" => Some(export::parquet::export(table, out)),
        _ => {
            let _ = (table, out); // used by the features' arms
            None
        }
    }
}
