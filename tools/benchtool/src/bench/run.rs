//! The rounds: every row run as a process of its own, once per round ([`Runner`]),
//! what it printed read as JSON ([`outcome`]) and checked against the first step
//! ([`Checks`]).
//!
//! Each run appends one line to `runs.jsonl`, `{"round": R, "role": ROLE, "result":
//! {…the binary's JSON…}}`, which [`crate::report::rows`] reads. Its stderr goes to
//! `logs/TAG.R.log`, printed (indented) after the first round's run and, when the
//! run fails, its last 40 lines before bench.sh stops.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use serde_json::{Value, json};

use crate::bench::rows::RowSpec;
use crate::error::{BenchError, Error, Result};
use crate::report::Role;

/// A limit pass takes milliseconds, and the first passes of a process are the
/// slowest (a step's timed pass comes after its gate has run for a while), so a limit
/// run is its best of this many passes.
pub const LIMIT_PASSES: u32 = 20;

/// The program and arguments of one run of `row` on `file`: the binary, the row's
/// options, the file, the flag and `--runs PASSES`.
pub fn program(
    row: &RowSpec,
    bin: &Path,
    root: &Path,
    file: &Path,
    passes: u32,
) -> (PathBuf, Vec<String>) {
    let mut args = row.options.clone();
    let program = match row.role {
        Role::Step => bin.join(&row.name),
        Role::Baseline => bin.join(row.name.split('-').next().unwrap_or(&row.name)),
        Role::Limit => {
            args.insert(0, "limit".to_string());
            bin.join("benchtool")
        }
        Role::Peer => {
            let script = root.join("tools/peers/peers.py").display().to_string();
            args.splice(0..0, [script, row.name.clone()]);
            root.join("target/peers/venv/bin/python")
        }
    };
    args.extend([
        file.display().to_string(),
        row.flag.to_string(),
        "--runs".to_string(),
        passes.to_string(),
    ]);
    (program, args)
}

/// What a run came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Its measurement, the binary's JSON.
    Measured(Value),
    /// A peer whose answer is not the reference (or that could not read the file):
    /// a row that says so, never a time.
    Failed(Value),
}

/// Reads what a run printed on stdout; `failure` is how its process ended when that
/// was not exit status 0 ([`status_text`]).
///
/// # Errors
/// [`BenchError::RunFailed`] when it failed or printed no JSON object,
/// [`BenchError::NoMeasurement`] when its JSON has no `best_s`.
pub fn outcome(
    row: &RowSpec,
    failure: Option<String>,
    stdout: &str,
    file: &Path,
    log: &Path,
) -> Result<Outcome, BenchError> {
    let text = stdout.trim();
    let json: Option<Value> = serde_json::from_str(text).ok();
    if let Some(json) = &json {
        if row.role == Role::Peer && json["failed"].is_string() {
            return Ok(Outcome::Failed(json.clone()));
        }
    }
    let failure = match failure {
        None if !text.starts_with('{') => Some("exit status 0".to_string()),
        failure => failure,
    };
    if let Some(status) = failure {
        return Err(BenchError::RunFailed {
            tag: row.tag(),
            status,
            file: file.to_path_buf(),
            log: log.to_path_buf(),
        });
    }
    match json {
        Some(json) if json.get("best_s").is_some() => Ok(Outcome::Measured(json)),
        _ => Err(BenchError::NoMeasurement {
            tag: row.tag(),
            flag: row.flag.to_string(),
            start: text.chars().take(200).collect(),
        }),
    }
}

/// What the runs found besides their times: the first step's fingerprint, which
/// every step must match, and the notes printed under the table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checks {
    /// The first step's name and fingerprint.
    pub first: Option<(String, Value)>,
    /// The baseline parsed the file otherwise (the csv crate's dialect is not ours).
    pub baseline_note: Option<String>,
    /// The last row whose answer is not gen's reference.
    pub answer_note: Option<String>,
}

impl Checks {
    /// Checks a measured run of `row`.
    ///
    /// # Errors
    /// [`BenchError::Fingerprint`] when a step's fingerprint is not the first step's.
    pub fn check(
        &mut self,
        row: &RowSpec,
        json: &Value,
        file: &Path,
        log: &Path,
    ) -> Result<(), BenchError> {
        let fingerprint = json.get("fingerprint").cloned().unwrap_or(Value::Null);
        match (&self.first, row.role) {
            (None, Role::Step) => self.first = Some((row.name.clone(), fingerprint)),
            (Some((first, want)), Role::Step) if *want != fingerprint => {
                return Err(BenchError::Fingerprint {
                    step: row.name.clone(),
                    first: first.clone(),
                    file: file.to_path_buf(),
                    got: fingerprint.to_string(),
                    want: want.to_string(),
                });
            }
            (Some((first, want)), Role::Baseline) if *want != fingerprint => {
                self.baseline_note = Some(format!(
                    "the baseline's fingerprint differs from {first}'s on {} ({fingerprint}, \
                     not {want}): the csv crate's dialect is not ours (see its log)",
                    file.display()
                ));
            }
            _ => {}
        }
        if has_wrong_answer(json) {
            self.answer_note = Some(format!(
                "{}'s answer is not gen's reference for {} (see {})",
                row.name,
                file.display(),
                log.display()
            ));
        }
        Ok(())
    }
}

/// Whether `json`, or any object inside it (a table query's), says its answer is not
/// the reference.
fn has_wrong_answer(json: &Value) -> bool {
    match json {
        Value::Object(fields) => fields.iter().any(|(key, value)| {
            (key == "answer_matches_reference" && *value == Value::Bool(false))
                || has_wrong_answer(value)
        }),
        Value::Array(items) => items.iter().any(has_wrong_answer),
        _ => false,
    }
}

/// `exit status N`, or the signal that ended a process.
pub fn status_text(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    format!("exit status {}", status.code().unwrap_or(-1))
}

/// Runs the rows, round by round, on one file.
pub struct Runner<'a> {
    /// The binaries' folder, `target/release`.
    pub bin: &'a Path,
    /// The repository's root.
    pub root: &'a Path,
    /// The measured file.
    pub file: &'a Path,
    /// The run's folder (absolute): `logs/` and `runs.jsonl` go there.
    pub out_dir: &'a Path,
    /// Rounds.
    pub runs: u32,
    /// Timed runs inside each step's process.
    pub in_process: u32,
    /// `runs.jsonl`, written as the runs finish.
    pub runs_file: File,
    /// The same lines, for the report.
    pub lines: String,
    /// What the runs found.
    pub checks: Checks,
}

impl Runner<'_> {
    /// Every row once per round: round 1 of every row, then round 2, and so on.
    ///
    /// # Errors
    /// The first run's error ([`Runner::run`]).
    pub fn rounds(&mut self, rows: &[RowSpec]) -> Result {
        for round in 1..=self.runs {
            for row in rows {
                self.run(round, row)?;
            }
        }
        Ok(())
    }

    /// One run of `row`: its process, its outcome, its line of `runs.jsonl` and its
    /// progress line.
    ///
    /// # Errors
    /// [`outcome`]'s and [`Checks::check`]'s, [`BenchError::Spawn`] when the binary
    /// cannot start, [`Error::Io`] when a log or `runs.jsonl` cannot be written.
    pub fn run(&mut self, round: u32, row: &RowSpec) -> Result {
        let tag = row.tag();
        let log = self.out_dir.join("logs").join(format!("{tag}.{round}.log"));
        let passes = match row.role {
            Role::Limit => LIMIT_PASSES,
            Role::Step => self.in_process,
            _ => 1,
        };
        let (program, args) = program(row, self.bin, self.root, self.file, passes);
        let stderr = File::create(&log).map_err(Error::io(&log))?;
        let out = Command::new(&program)
            .args(&args)
            .stdin(Stdio::null())
            .stderr(stderr)
            .output()
            .map_err(|source| BenchError::Spawn {
                program: program.display().to_string(),
                source,
            })?;
        let failure = (!out.status.success()).then(|| status_text(out.status));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let logged = std::fs::read_to_string(&log).unwrap_or_default();
        let json = match outcome(row, failure, &stdout, self.file, &log) {
            Ok(Outcome::Measured(json)) => json,
            Ok(Outcome::Failed(json)) => {
                self.append(round, row, &json)?;
                let why = json["failed"].as_str().unwrap_or_default();
                eprintln!(
                    "  round {round}/{}  {:<14} FAILED: {why}",
                    self.runs, row.name
                );
                return Ok(());
            }
            Err(e) => {
                let lines: Vec<&str> = logged.lines().collect();
                for line in &lines[lines.len().saturating_sub(40)..] {
                    eprintln!("    {line}");
                }
                return Err(e.into());
            }
        };
        if round == 1 {
            for line in logged.lines() {
                eprintln!("    {line}");
            }
        }
        self.checks.check(row, &json, self.file, &log)?;
        self.append(round, row, &json)?;
        let mb_per_s = json["mb_per_s"].as_f64().unwrap_or(0.0);
        eprintln!(
            "  round {round}/{}  {tag:<14} {mb_per_s:8.0} MB/s",
            self.runs
        );
        Ok(())
    }

    fn append(&mut self, round: u32, row: &RowSpec, result: &Value) -> Result {
        let line = json!({"round": round, "role": row.role.name(), "result": result});
        let line = format!("{line}\n");
        let path = self.out_dir.join("runs.jsonl");
        self.runs_file
            .write_all(line.as_bytes())
            .map_err(Error::io(&path))?;
        self.lines.push_str(&line);
        Ok(())
    }
}
