//! `step11 [FILE] [--group-by C] [--sum C] [--runs N] [--json] [--row-json]
//! [--records FILE] [--threads N] [--chunk BYTES] [--schema S]`: the gate, then per
//! run: load FILE into a table (a temporary directory), the query over the table, and
//! the same query over the CSV with step 10's path, interleaved; the answer, the rows
//! (the load's throughput, and the table query's) and the two queries' times.
//!
//! `step11 load FILE TABLE_DIR [--schema S]` loads; `step11 query TABLE_DIR
//! [--group-by C] [--sum C] [--json] [--verbose]` queries a loaded table; `step11
//! verify TABLE_DIR` checks one. Each is a module of [`step11::cli`]. (The exports to
//! Arrow and Parquet are a tool of their own: `tools/export`.)

use std::process::ExitCode;

use clap::Command;
use step11::{Step11, cli};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn command() -> Command {
    harness::query::cli::command::<Step11>()
        .args_conflicts_with_subcommands(true)
        .subcommand(cli::load::command())
        .subcommand(cli::query::command())
        .subcommand(cli::verify::command())
}

fn main() -> ExitCode {
    let matches = harness::run::cli::matches_of(command());
    let result = match matches.subcommand() {
        Some(("load", m)) => cli::load::run(m),
        Some(("query", m)) => cli::query::run(m),
        Some(("verify", m)) => cli::verify::run(m),
        _ => cli::bench::run(&matches),
    };
    result.unwrap_or_else(|code| code)
}
