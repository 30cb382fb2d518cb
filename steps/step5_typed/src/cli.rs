//! The step on the command line: how `harness::query::cli` runs its query over a file,
//! and the same query on step 1's parser for the speedup it prints. Nothing here is
//! the step's idea; the harness does the rest (gate, timing, answer, row).

use std::path::Path;
use std::process::ExitCode;

use clap::ArgMatches;
use harness::query::cli::{QueryStep, RunError};
use harness::query::{Groups, Query};

use crate::{Step5, map, run, step1_query};

impl QueryStep for Step5 {
    type Config = ();
    const COMPARES_WITH_STEP1: bool = true;

    fn config(_matches: &ArgMatches) -> Result<(), (String, ExitCode)> {
        Ok(())
    }

    fn query_file(path: &Path, query: Query<'_>, _config: &()) -> Result<Groups, RunError> {
        Ok(run(&map(path)?, query)?)
    }

    fn on_step1(path: &Path, query: Query<'_>) -> Result<Groups, RunError> {
        step1_query::run(path, query)
    }
}
