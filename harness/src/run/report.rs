//! How a binary reports an error: `STEP: message` on stderr with its exit status, and
//! with `--json` also one JSON object on stdout, `{"error": kind, …}`, so that `--json`
//! keeps its promise (the answer, or the error, as JSON) for every error a process can
//! report. (A query's own error, under `--json`, is its JSON alone, as it always was.)
//! Re-exported from [`crate::run::cli`].
//!
//! ```text
//! kind            what                                        exit status
//! usage           arguments that cannot be read (clap)        2
//! io              a file that cannot be read                  2
//! file_changed    a file changed while it was read            2 (135 by SIGBUS)
//! options         an option the step cannot honour            the step's (2; step 13: 3)
//! gate            the gate did not pass                       1
//! fingerprint     a pass disagrees with the reference parser  1
//! step            the step's own machinery failed             1
//! (the query's)   a query error, with its place               1
//! ```

use std::process::ExitCode;

use clap::{ArgMatches, Command};

use crate::error::Error;
use crate::run::changed::FileChanged;

/// The matches of `command` over this process's arguments. A usage error ends the
/// process as clap ends it (its message on stderr, exit status 2), after printing it
/// as `{"error":"usage","message":…}` on stdout when `--json` is among the
/// arguments: that the arguments could not be read does not keep `--json`'s promise
/// from them.
pub fn matches_of(command: Command) -> ArgMatches {
    use clap::error::ErrorKind;
    command.try_get_matches().unwrap_or_else(|e| {
        let shown = matches!(
            e.kind(),
            ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        );
        if !shown && std::env::args_os().any(|a| a == "--json") {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            println!(
                "{}",
                error_object("usage", first.trim_start_matches("error: "))
            );
        }
        e.exit()
    })
}

/// `{"error": kind, "message": message}`: the JSON object of an error that has no
/// richer one.
pub fn error_object(kind: &str, message: impl std::fmt::Display) -> serde_json::Value {
    serde_json::json!({"error": kind, "message": message.to_string()})
}

/// The gate failed (its failures are on stderr): with `json`, said as
/// `{"error":"gate",…}` on stdout too. Exit status 1.
pub fn gate_failed(step: &str, json: bool) -> ExitCode {
    if json {
        let message = format!("{step}: the gate did not pass (what failed is on stderr)");
        println!("{}", error_object("gate", message));
    }
    ExitCode::FAILURE
}

/// Why [`crate::run::cli::time_pass`] has no measurement.
#[derive(Debug)]
pub enum PassError {
    /// The file cannot be read, or breaks the dialect.
    File(Error),
    /// The file changed while the runs read it.
    Changed(FileChanged),
    /// A run's fingerprint differs from the reference parser's over the same bytes:
    /// a bug in the step that the gate missed.
    Fingerprint(String),
}

impl std::fmt::Display for PassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PassError::File(e) => e.fmt(f),
            PassError::Changed(e) => e.fmt(f),
            PassError::Fingerprint(message) => f.write_str(message),
        }
    }
}

impl PassError {
    /// Prints the error after `step`'s name, and with `json` as JSON on stdout too;
    /// returns the exit status: [`FileChanged::EXIT`] for a file that changed, else 1.
    pub fn report(&self, step: &str, json: bool) -> ExitCode {
        if json {
            let object = match self {
                PassError::File(e) => error_json(e),
                PassError::Changed(e) => e.to_json(),
                PassError::Fingerprint(message) => error_object("fingerprint", message),
            };
            println!("{object}");
        }
        eprintln!("{step}: {self}");
        match self {
            PassError::Changed(_) => ExitCode::from(FileChanged::EXIT),
            _ => ExitCode::FAILURE,
        }
    }
}

/// [`fail`], and with `json` the error as JSON on stdout too ([`error_json`]).
pub fn fail_as(step: &str, error: &Error, json: bool) -> ExitCode {
    if json {
        println!("{}", error_json(error));
    }
    fail(step, error)
}

/// A file's error as JSON: `{"error":"io","message":…}`, or a parse error as the
/// query steps give it ([`crate::ParseError::to_json_value`]: its record, line and byte).
pub fn error_json(error: &Error) -> serde_json::Value {
    match error {
        Error::Io { .. } => error_object("io", error),
        Error::Parse(p) => p.to_json_value(),
    }
}

/// Prints `error` as `NAME: error` and returns the matching exit status.
pub fn fail(step: &str, error: &Error) -> ExitCode {
    eprintln!("{step}: {error}");
    match error {
        Error::Io { .. } => ExitCode::from(2),
        Error::Parse(_) => ExitCode::FAILURE,
    }
}
