//! The runs file's lines grouped into rows: what a row is ([`Role`], [`Row`]) and
//! which of its runs counts.

use serde_json::Value;

use crate::error::{BadRun, Error, Result};
use crate::report::s;

/// What a row is: a step of the ladder, the csv crate's baseline, or a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// A step of the ladder (`stepN`).
    Step,
    /// The `baseline` binary: the csv crate (and, for a query, `simd-csv`).
    Baseline,
    /// Another tool running the same query (`tools/peers/peers.py`).
    Peer,
    /// `benchtool limit`: an LF count with memchr, not a parse.
    Limit,
}

impl Role {
    /// The name in the runs file and in `results.json`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Step => "step",
            Role::Baseline => "baseline",
            Role::Peer => "peer",
            Role::Limit => "limit",
        }
    }

    fn parse(name: &str) -> Result<Role> {
        [Role::Step, Role::Baseline, Role::Peer, Role::Limit]
            .into_iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| Error::UnknownRole(name.to_string()))
    }
}

/// One row of the table: every run of one binary (one thread count, for a limit).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Step, baseline or limit.
    pub role: Role,
    /// The binary's JSON of each run, in round order.
    pub runs: Vec<Value>,
}

impl Row {
    pub(super) fn first(&self, key: &str) -> &Value {
        &self.runs[0][key]
    }

    /// `stepN`, `baseline` or `limit`.
    pub fn step(&self) -> &str {
        self.first("step").as_str().unwrap_or("?")
    }

    /// The step's number (0 for the baseline and the limits).
    pub fn number(&self) -> u64 {
        self.first("number").as_u64().unwrap_or(0)
    }

    /// Whether the row times a query (`"query": true` in its JSON, as the baseline's
    /// `--query` prints) rather than a parse. Step 5's row times its query too, but
    /// brings its own speedup over step 1, so it needs no such mark.
    pub fn query(&self) -> bool {
        self.first("query") == true
    }

    /// Threads of a limit row, or of a step that says how many it ran on (1 for
    /// every other row).
    pub fn threads(&self) -> u64 {
        self.first("threads").as_u64().unwrap_or(1)
    }

    /// The idea the row adds, as its binary says; `(CPU twin: no GPU ran it)` added
    /// when a device step ran on its CPU twin.
    pub fn idea(&self) -> String {
        let idea = self.first("idea").as_str().unwrap_or("");
        match self.first("device").as_str() {
            Some(device) if device.starts_with("cpu") => {
                format!("{idea} (CPU twin: no GPU ran it)")
            }
            _ => idea.to_string(),
        }
    }

    /// The part of a step's run the row is: `table query`, or empty for the run itself.
    pub fn part(&self) -> &str {
        self.first("part").as_str().unwrap_or("")
    }

    /// The row's name in the table and the chart: `1 step1`, `9 step9, 1 thread`
    /// ([`one_thread_of_many`]), `11 step11, table query`, `baseline (csv crate)`,
    /// `baseline query (csv crate)`, `baseline query (simd-csv)`, `polars 2.1.0`,
    /// `limit, 1 core`, `limit, 2 threads`.
    pub fn label(&self) -> String {
        match self.role {
            Role::Step => {
                let mut label = format!("{} {}", self.number(), self.step());
                if !self.part().is_empty() {
                    label += &format!(", {}", self.part());
                }
                if one_thread_of_many(&self.runs[0]) {
                    label += ", 1 thread";
                }
                label
            }
            Role::Baseline if self.step() == "baseline-simd-csv" => {
                "baseline query (simd-csv)".to_string()
            }
            Role::Baseline if self.query() => "baseline query (csv crate)".to_string(),
            Role::Peer => format!(
                "{} {}",
                self.step(),
                self.first("version").as_str().unwrap_or("")
            ),
            Role::Baseline => "baseline (csv crate)".to_string(),
            Role::Limit if self.threads() == 1 => "limit, 1 core".to_string(),
            Role::Limit => format!("limit, {} threads", self.threads()),
        }
    }

    /// The fastest run: the least disturbed by the rest of the machine.
    pub fn best(&self) -> &Value {
        let best_s = |v: &Value| v["best_s"].as_f64().unwrap_or(f64::INFINITY);
        self.runs
            .iter()
            .min_by(|a, b| best_s(a).total_cmp(&best_s(b)))
            .expect("a row has at least one run")
    }

    /// MB/s of the best run (MB = 10^6 bytes).
    pub fn mb_per_s(&self) -> f64 {
        self.best()["mb_per_s"].as_f64().unwrap_or(0.0)
    }

    /// MB/s of the first timed run of each process (a fresh map of the file, the
    /// pages not yet in this process's page tables), the median over the rounds;
    /// `None` for a row whose runs give no `times_s` (the limit, the peers).
    pub fn first_run_mb_per_s(&self) -> Option<f64> {
        let mut firsts: Vec<f64> = self
            .runs
            .iter()
            .filter(|r| r["runs"].as_u64().is_some_and(|n| n > 1))
            .filter_map(|r| Some(r["bytes"].as_f64()? / r["times_s"][0].as_f64()? / 1e6))
            .collect();
        if firsts.is_empty() {
            return None;
        }
        firsts.sort_by(f64::total_cmp);
        let n = firsts.len();
        Some(match n % 2 {
            1 => firsts[n / 2],
            _ => (firsts[n / 2 - 1] + firsts[n / 2]) / 2.0,
        })
    }

    /// Why a peer's row has no time: its first failed run's message (a wrong answer).
    pub fn failed(&self) -> Option<&str> {
        self.runs.iter().find_map(|r| r["failed"].as_str())
    }

    /// What the row times, for the chart's two panels: `parse` (steps 1–4 and the
    /// baseline's pass: records and fields, no answer), `query` (steps 5 and later,
    /// which answer the GROUP BY, the yardsticks' queries and the peers) or `limit`.
    pub fn kind(&self) -> &'static str {
        match self.role {
            Role::Limit => "limit",
            Role::Peer => "query",
            Role::Step if self.number() >= 5 => "query",
            Role::Baseline if self.query() => "query",
            _ => "parse",
        }
    }

    fn key(&self) -> (Role, u64, String, bool, u64, String) {
        let (part, name) = (self.part().to_string(), self.step().to_string());
        (
            self.role,
            self.number(),
            part,
            self.query(),
            self.threads(),
            name,
        )
    }
}

/// Whether a step's run (its JSON) ran on one thread where the step runs on every
/// core: a step that says how many threads it ran on (`"threads"`, which only a step
/// that takes `--threads` prints) and says 1. bench.sh `--threads` runs such a step
/// twice, as it is and with `--threads 1`: two rows of one step.
pub fn one_thread_of_many(run: &Value) -> bool {
    run["threads"].as_u64() == Some(1)
}

/// Groups the lines of a runs file into rows: steps by number, then the baseline (its
/// pass, then its query), then the limits by thread count.
///
/// # Errors
/// [`Error::RunsFile`] naming the first line that is not a run, or
/// [`Error::UnknownRole`].
pub fn rows(runs_file: &str) -> Result<Vec<Row>> {
    let mut rows: Vec<Row> = Vec::new();
    for (i, line) in runs_file
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = |why: BadRun| Error::RunsFile { line: i + 1, why };
        let value: Value = serde_json::from_str(line).map_err(|e| bad(BadRun::Json(e)))?;
        let role = Role::parse(value["role"].as_str().ok_or_else(|| bad(BadRun::NoRole))?)?;
        let result = value["result"].clone();
        let failed_peer = role == Role::Peer && result["failed"].is_string();
        if !result["best_s"].is_number() && !failed_peer {
            return Err(bad(BadRun::NoMeasurement));
        }
        if role != Role::Peer && result["build"] != "release" {
            return Err(bad(BadRun::NotRelease {
                step: s(&result["step"]).to_string(),
                build: result["build"].clone(),
            }));
        }
        let mut found = vec![table_query(&result)];
        found.insert(0, Some(result));
        for result in found.into_iter().flatten() {
            let row = Row {
                role,
                runs: vec![result],
            };
            match rows.iter_mut().find(|r| r.key() == row.key()) {
                Some(existing) => existing.runs.extend(row.runs),
                None => rows.push(row),
            }
        }
    }
    rows.sort_by_key(Row::key);
    Ok(rows)
}

/// The table query of a step's run, as a run of its own (`part`: `table query`), if
/// the run brings one: its measurement, with the step's name, number, threads and
/// build.
fn table_query(run: &Value) -> Option<Value> {
    let mut query = run["table_query"].clone();
    let fields = query.as_object_mut()?;
    for key in ["step", "number", "threads", "build"] {
        fields.insert(key.to_string(), run[key].clone());
    }
    fields.insert("part".to_string(), "table query".into());
    Some(query)
}
