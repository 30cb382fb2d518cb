//! The step on the command line: its options (`--threads`, `--chunk`, `--schema`)
//! and its query over a file the table's way, for the binary and for the
//! query tests that every query step runs (`testkit::query_tests!`): load the CSV into
//! a table in a temporary directory, then run the query over the table.
//!
//! ```text
//! step11 [FILE]                 the benchmark: the gate, then per run the load, the
//!                              query over the table and over the CSV      (bench)
//! step11 load FILE TABLE_DIR    the load                                    (load)
//! step11 query TABLE_DIR        the query over a loaded table               (query)
//! step11 verify TABLE_DIR       every file against its size and checksum    (verify)
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches, Command};
use harness::query::cli::{QueryStep, RunError};
use harness::query::{Groups, Query};

use crate::cli::scratch::Scratch;
use crate::parallel::Split;
use crate::pool;
use crate::splayed::error::TableError;
use crate::splayed::load::{LoadOptions, load, parse_schema};
use crate::splayed::scan::SplayedTable;
use crate::{Step11, chunks, map};

/// This step on the harness's interface, as the subcommands run it.
pub type ThisStep = Step11;

/// The step's binary, which its messages start with.
pub const NAME: &str = "step11";

pub mod bench;
pub mod load;
pub mod query;
pub mod scratch;
pub mod verify;

/// Prints `e` (as JSON on stdout with `json`) and returns its exit status: 2 for a
/// file that cannot be read or written and for a `--schema` that is malformed or
/// does not fit its column's type (as for an `--agg` or `--null` that cannot be
/// honoured, and as clap does for any option it refuses), else 1: the query or the
/// load failed, the table is not one, or a column named is not in the header (as
/// `--group-by` in every step).
pub fn report(e: &TableError, json: bool) -> ExitCode {
    if json {
        println!("{}", e.to_json());
    } else {
        eprintln!("{NAME}: {e}");
    }
    match e {
        TableError::Io(_) | TableError::Schema(_) => ExitCode::from(2),
        _ => ExitCode::FAILURE,
    }
}

/// The `--null` texts and `--agg`, or the exit status after saying why not (with
/// `json`, as `{"error":"options",…}` on stdout too).
///
/// # Errors
/// Exit status 2 for options that do not parse.
pub fn read_options(
    m: &ArgMatches,
    json: bool,
) -> Result<harness::query::args::QueryOptions, ExitCode> {
    harness::query::args::query_options(m).map_err(|message| {
        if json {
            println!("{}", harness::run::cli::error_object("options", &message));
        }
        eprintln!("{NAME}: {message}");
        ExitCode::from(2)
    })
}

/// `TABLE_DIR`: the folder of a table, read as a path (`load`'s second argument,
/// the first of the subcommands that read a table).
pub fn table_arg() -> Arg {
    Arg::new("table")
        .value_name("TABLE_DIR")
        .required(true)
        .value_parser(clap::value_parser!(PathBuf))
}

/// `--threads`: the query over a table has only this option of step 10's.
pub fn threads_arg(command: Command) -> Command {
    command.arg(
        Arg::new("threads")
            .long("threads")
            .value_name("N")
            .value_parser(clap::value_parser!(u64).range(1..=pool::MAX_THREADS))
            .help("threads, 1 to 1024 [default: every core]"),
    )
}

/// `--threads` and `--chunk`: how the CSV is split (step 10's options).
pub fn split_args(command: Command) -> Command {
    threads_arg(command).arg(
        Arg::new("chunk")
            .long("chunk")
            .value_name("BYTES")
            .value_parser(clap::value_parser!(u64).range(chunks::MIN_CHUNK..))
            .help("bytes per chunk of the CSV, at least 4096 [default: eight chunks a thread, 256 KiB to 8 MiB]"),
    )
}

/// `--schema` and `--no-guess`: what the load makes of the columns.
pub fn schema_args(command: Command) -> Command {
    command
        .arg(
            Arg::new("schema")
                .long("schema")
                .value_name("NAME=TYPE,...")
                .help("types for some columns instead of the inferred ones: int64, float64 (stored as decimal(S) when every value is a plain decimal, so that its sums are the CSV's), decimal(S), date, bool, string (interned), text (stored as it is)"),
        )
        .arg(
            Arg::new("no-guess")
                .long("no-guess")
                .action(ArgAction::SetTrue)
                .help("check every field's type in pass 1 instead of guessing the types from the first MiB (the same table, slower)"),
        )
}

/// The split that `--threads` and `--chunk` ask for.
pub fn split(matches: &ArgMatches) -> Split {
    Split {
        threads: matches
            .get_one::<u64>("threads")
            .map_or_else(pool::available_threads, |&n| n as usize),
        chunk: match matches.try_get_one::<u64>("chunk") {
            Ok(Some(&chunk)) => chunk as usize,
            _ => 0, // the default; the query over a table has no chunks
        },
    }
}

/// The load that the options ask for (the command has [`schema_args`], and
/// `--null` and `--no-header` from `harness::query::args::query_args` or `read_args`).
///
/// # Errors
/// [`TableError::Schema`] for a `--schema` that does not parse, or a `--null` that
/// is a number.
pub fn load_options(matches: &ArgMatches) -> Result<LoadOptions, TableError> {
    let schema = matches
        .get_one::<String>("schema")
        .map_or("", String::as_str);
    Ok(LoadOptions {
        split: Some(split(matches)),
        schema: parse_schema(schema)?,
        nulls: harness::query::args::query_options(matches)
            .map_err(|e| TableError::Schema(e.to_string()))?
            .nulls,
        dialect: harness::query::args::read_dialect(matches).unwrap_or_default(),
        no_header: harness::query::args::read_no_header(matches),
        no_guess: matches.get_flag("no-guess"),
    })
}

/// Runs `query` over the table at `dir`, loaded from `input`. A table keeps no
/// lines, so a query error over the table is reported as the CSV query finds it (the
/// same record, tests/round_trip.rs), with its line.
///
/// # Errors
/// As [`SplayedTable::open`] and [`crate::splayed::query::run`].
pub fn query_table(
    input: &[u8],
    dir: &Path,
    query: Query<'_>,
    split: Split,
) -> Result<Groups, TableError> {
    match crate::splayed::query::run(&SplayedTable::open(dir)?, query, split.threads) {
        Err(TableError::Query(e)) => Err(crate::parallel::run_split(input, query, split)
            .err()
            .unwrap_or(e)
            .into()),
        answer => answer,
    }
}

/// Loads `input` into a table at `dir` and queries it ([`query_table`]).
///
/// # Errors
/// As [`load()`] and [`query_table`]; a load error as [`first_in_record_order`] says.
pub fn load_and_query(
    input: &[u8],
    dir: &Path,
    options: &LoadOptions,
    query: Query<'_>,
) -> Result<Groups, TableError> {
    let split = options.split.unwrap_or_else(Split::all_cores);
    if let Err(e) = load(input, dir, options) {
        return Err(first_in_record_order(input, query, split, e));
    }
    query_table(input, dir, query, split)
}

// ANCHOR: first_error
/// The error a query of `input` reports when the load failed with `e`: the first in
/// record order. The load checks every record's width in its first pass and the
/// fields' types in its second, so it can stop at record 2's width while record 1
/// holds a value that is not a number; the query over the CSV (step 10's, carried)
/// stops at the first record with any error, so its error wins whenever it comes
/// before the load's.
pub fn first_in_record_order(
    input: &[u8],
    query: Query<'_>,
    split: Split,
    e: TableError,
) -> TableError {
    let record = match &e {
        TableError::Query(q) => match q.record() {
            Some(record) => record,
            None => return e,
        },
        TableError::Type { record, .. } => *record,
        _ => return e,
    };
    match crate::parallel::run_split(input, query, split) {
        Err(first) if first.record().is_some_and(|r| r < record) => first.into(),
        _ => e,
    }
}
// ANCHOR_END: first_error

impl QueryStep for Step11 {
    type Config = LoadOptions;
    const VERBOSE: Option<&'static str> = Some("print where each load's time went");

    fn args(command: Command) -> Command {
        split_args(schema_args(command))
    }

    fn config(matches: &ArgMatches) -> Result<LoadOptions, (String, ExitCode)> {
        load_options(matches).map_err(|e| (e.to_string(), ExitCode::FAILURE))
    }

    fn query_file(
        path: &Path,
        query: Query<'_>,
        options: &LoadOptions,
    ) -> Result<Groups, RunError> {
        let input = map(path)?;
        let scratch = Scratch::create("query").map_err(|e| match e {
            TableError::Io(e) => RunError::File(e),
            e => RunError::Step(Box::new(e)),
        })?;
        let dir = scratch.table();
        // The query says how to read the file (the harness's tests set it there).
        let options = LoadOptions {
            nulls: query.nulls.to_vec(),
            no_header: !query.header,
            dialect: query.dialect,
            ..options.clone()
        };
        let answer = load_and_query(&input, &dir, &options, query);
        drop(scratch); // also when the query failed
        match answer {
            Ok(groups) => Ok(groups),
            Err(TableError::Query(e)) => Err(RunError::Query(e)),
            Err(TableError::Io(e)) => Err(RunError::File(e)),
            Err(e) => Err(RunError::Step(Box::new(e))),
        }
    }
}
