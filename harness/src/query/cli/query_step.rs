//! What a query step implements for [`super::run_query`] to drive it
//! ([`QueryStep`]), and why a run gives no answer ([`RunError`]).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgMatches, Command};

use crate::error::Error;
use crate::query::{Groups, Query, QueryError};
use crate::step::Step;

/// A query step (5 and later) as the command line drives it.
pub trait QueryStep: Step {
    /// What the step's own options decide (threads and chunk size, a device, …).
    type Config;

    /// The help of `--verbose`, for a step that has it; `None` for one that has not.
    const VERBOSE: Option<&'static str> = None;

    /// Whether the step times the same query on step 1's parser ([`QueryStep::on_step1`]).
    const COMPARES_WITH_STEP1: bool = false;

    /// The step's own options, added to the common ones.
    fn args(command: Command) -> Command {
        command
    }

    /// Reads the step's options; called after the gate has passed.
    ///
    /// # Errors
    /// The message and the exit status, when the options cannot be honoured.
    fn config(matches: &ArgMatches) -> Result<Self::Config, (String, ExitCode)>;

    /// A command of the step's own that is not the query (step 13's `--write-ptx`):
    /// its exit status when `matches` ask for it, before the gate; `None` otherwise.
    fn own_command(_matches: &ArgMatches) -> Option<ExitCode> {
        None
    }

    /// Runs `query` over the file at `path`, the step's way: one timed run.
    ///
    /// # Errors
    /// [`RunError`]: the file cannot be read, the query fails (bad input, a column
    /// not found), or the step's own machinery fails (a device).
    fn query_file(path: &Path, query: Query<'_>, config: &Self::Config)
    -> Result<Groups, RunError>;

    /// The same query on step 1's parser, for the speedup and the cross-check, when
    /// [`QueryStep::COMPARES_WITH_STEP1`].
    ///
    /// # Errors
    /// As [`QueryStep::query_file`]; the default, for a step that does not compare
    /// itself with step 1, is [`NotCompared`].
    fn on_step1(_path: &Path, _query: Query<'_>) -> Result<Groups, RunError> {
        Err(RunError::Step(Box::new(NotCompared(Self::NAME))))
    }

    /// `--verbose`: what the step says about `path` before the timed runs of `query`.
    fn verbose(_path: &Path, _query: Query<'_>, _config: &Self::Config) {}

    /// What the step says after the timed runs, `times` long (step 13's `--verbose`:
    /// the last run's stages).
    fn after_runs(_path: &Path, _config: &Self::Config, _times: &[Duration]) {}

    /// What the row says of the config (`"threads": 2`), in the JSON and in a line
    /// under the answer; empty for a step without options.
    fn describe(_config: &Self::Config) -> Vec<(&'static str, serde_json::Value)> {
        Vec::new()
    }
}

/// Why a run of the query gave no answer. Each has its exit status and its JSON, as
/// [`run_query`](super::run_query) prints them.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The file could not be read: exit status 2, `{"error":"io",…}`.
    #[error(transparent)]
    File(Error),
    /// The query failed (the input breaks the dialect, a column is not found, a
    /// value is not a number): exit status 1, the error's own JSON.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The step's own machinery failed (step 13: a CUDA call; steps 11 and 12: a
    /// table): exit status 1, `{"error":"step",…}`.
    #[error(transparent)]
    Step(Box<dyn std::error::Error + Send + Sync>),
}

impl From<Error> for RunError {
    /// An I/O error is the file's; a parse error is the query's, as bad input is.
    fn from(e: Error) -> RunError {
        match e {
            Error::Parse(e) => RunError::Query(QueryError::Parse(e)),
            e => RunError::File(e),
        }
    }
}

/// [`QueryStep::on_step1`] of a step that does not compare itself with step 1: the
/// step's name.
#[derive(Debug, thiserror::Error)]
#[error("{0} does not compare itself with step 1")]
pub struct NotCompared(pub &'static str);

/// Why the same query on step 1's parser does not stand beside the step's answer.
#[derive(Debug, thiserror::Error)]
pub enum Step1Error {
    /// It gave another answer: the first difference, in words ([`first_difference`](crate::query::first_difference)).
    #[error("the same query on step 1's parser gives another answer: {0}")]
    Differs(String),
    /// It failed.
    #[error("the same query on step 1's parser fails: {0}")]
    Failed(#[source] RunError),
}
