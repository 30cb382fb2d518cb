//! `query TABLE_DIR [--group-by C] [--sum C] [--where C=V [--scan]] [--runs N]
//! [--json] [--verbose]`: the query over a loaded table, `--runs` times over the
//! open table; its answer, and with `--verbose` how the rows were found and each
//! run's time.

use harness::query::args;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Arg, ArgAction, ArgMatches, Command};
use harness::query::{groups_to_1brc, groups_to_json_with, groups_to_table_with};
use harness::run::cli;

use crate::cli::{NAME, read_options, report, split, table_arg, threads_arg};
use crate::hash_index::IndexFiles;
use crate::hash_index::select::{Where, describe, select};
use crate::splayed::query::run_selected;
use crate::splayed::scan::SplayedTable;

/// The subcommand's arguments.
pub fn command() -> Command {
    let query = Command::new("query")
        .about("SELECT key, COUNT(*), SUM(value) GROUP BY key over the table at TABLE_DIR")
        .arg(table_arg())
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("print the answer (or the error) as JSON"),
        )
        .arg(
            Arg::new("where")
                .long("where")
                .value_name("COLUMN=VALUE")
                .value_parser(clap::value_parser!(OsString))
                .help("only the rows whose COLUMN equals VALUE, byte for byte (empty: NULL; in bash, $'caf\\xe9' passes the byte E9); through the column's hash index if the table has one (index, load --index), else by a scan"),
        )
        .arg(
            Arg::new("scan")
                .long("scan")
                .action(ArgAction::SetTrue)
                .requires("where")
                .help("find the --where rows by a scan even when the column has an index (to compare)"),
        )
        .arg(
            Arg::new("runs")
                .long("runs")
                .value_name("N")
                .default_value("1")
                .value_parser(clap::value_parser!(u32).range(1..))
                .help("run the query N times over the open table (the first run maps the columns and faults their pages in)"),
        )
        .arg(
            Arg::new("verbose")
                .long("verbose")
                .action(ArgAction::SetTrue)
                .help("say how the rows were found and how long each run took"),
        );
    threads_arg(args::query_args(query).mut_arg("format", |a| {
        // The load read the file: over a table, 1brc only picks the columns and
        // the printing.
        a.help(
            "1brc: the One Billion Row Challenge's answer, {name=min/mean/max, ...}, \
             grouping by column 1 and summing column 2 (a table loaded from its \
             station;temperature lines); --group-by, --sum and --agg cannot be given \
             with it",
        )
    }))
}

/// Opens the table, runs the query, prints the answer (and its first run's time).
///
/// # Errors
/// The exit status after saying why the query failed ([`report`]).
pub fn run(m: &ArgMatches) -> Result<ExitCode, ExitCode> {
    let dir = m.get_one::<PathBuf>("table").expect("required");
    let json = m.get_flag("json");
    if json {
        cli::sigbus_as_json(); // the SIGBUS explained below, as JSON on stdout too
    }
    let read = read_options(m, json)?;
    let query = args::query(m, &read);
    let filter = m
        .get_one::<OsString>("where")
        .map(|w| Where::parse(w.as_encoded_bytes()))
        .transpose()
        .map_err(|e| report(&e, json))?;
    let runs = *m.get_one::<u32>("runs").expect("a default");
    // The first run's time includes opening the table.
    let mut start = Instant::now();
    // A table's files are mapped: one truncated by another program during the query
    // raises SIGBUS, which gets a sentence instead of a bare "Bus error".
    harness::run::cli::explain_sigbus_with(format!(
        "error: a file of the table {} changed size while it was mapped (SIGBUS): another \
         program truncated or rewrote it during the query. A table is read where it lies, \
         mapped; load it again, and `{NAME} verify` it.",
        dir.display()
    ));
    let table = SplayedTable::open(dir).map_err(|e| report(&e, json))?;
    let index = match (filter, m.get_flag("scan")) {
        (Some(_), false) => IndexFiles::open(&table).map_err(|e| report(&e, json))?,
        _ => None,
    };
    let mut first_seconds = None;
    let mut answer = None;
    for _ in 0..runs {
        let (groups, access) = select(&table, filter, index.as_ref())
            .and_then(|(selection, access)| {
                let groups = run_selected(&table, query, &selection, split(m).threads)?;
                Ok((groups, access))
            })
            .map_err(|e| report(&e, json))?;
        let seconds = start.elapsed().as_secs_f64();
        start = Instant::now();
        first_seconds.get_or_insert(seconds);
        if m.get_flag("verbose") {
            let rows = groups.values().map(|g| g.count).sum();
            eprintln!(
                "{} in {:.3} ms",
                describe(filter, access, rows),
                seconds * 1e3
            );
        }
        answer = Some(groups);
    }
    let groups = answer.expect("one run at least");
    let seconds = first_seconds.expect("one run at least");
    if json {
        println!("{}", groups_to_json_with(&groups, query.aggs));
    } else if read.brc {
        let text = groups_to_1brc(&groups).map_err(|e| {
            eprintln!("{NAME}: {e}");
            ExitCode::FAILURE
        })?;
        println!("{text}");
    } else {
        println!(
            "{}",
            groups_to_table_with(&groups, query.group_by, query.sum, query.aggs)
        );
        println!("{} groups in {seconds:.4} s", groups.len());
    }
    Ok(ExitCode::SUCCESS)
}
