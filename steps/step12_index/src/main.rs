//! `step12 [FILE] [--group-by C] [--sum C] [--runs N] [--json] [--row-json]
//! [--records FILE] [--threads N] [--chunk BYTES] [--schema S]`: step 11's benchmark
//! (the gate, then per run the load, the query over the table and over the CSV).
//!
//! `step12 load FILE TABLE_DIR [--schema S] [--index C]` loads, and adds an index;
//! `step12 index TABLE_DIR C` adds one to a loaded table; `step12 query TABLE_DIR
//! [--group-by C] [--sum C] [--where C=V [--scan]] [--json] [--verbose]` queries a
//! loaded table; `step12 verify TABLE_DIR` checks one, its index too. Each is a
//! module of [`step12::cli`].

use std::process::ExitCode;

use clap::Command;
use step12::{Step12, cli};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn command() -> Command {
    harness::query::cli::command::<Step12>()
        .args_conflicts_with_subcommands(true)
        .subcommand(cli::load::command())
        .subcommand(cli::index::command())
        .subcommand(cli::query::command())
        .subcommand(cli::verify::command())
}

fn main() -> ExitCode {
    let matches = harness::run::cli::matches_of(command());
    let result = match matches.subcommand() {
        Some(("load", m)) => cli::load::run(m),
        Some(("index", m)) => cli::index::run(m),
        Some(("query", m)) => cli::query::run(m),
        Some(("verify", m)) => cli::verify::run(m),
        _ => cli::bench::run(&matches),
    };
    result.unwrap_or_else(|code| code)
}
