//! From the runs `bench.sh` collected to `results.json` and the markdown table.
//!
//! `bench.sh` runs every binary once per round (`--json --runs 1`) and appends one line
//! per run to a JSON-lines file: `{"round": R, "role": "step"|"baseline"|"limit",
//! "result": {…the binary's JSON…}}`. This module groups the runs into rows, keeps each
//! row's best run, and adds the two ratios of the table: the speedup over step 1 (for a
//! query step, the one it measures itself: the same query on step 1's parser), and MB/s
//! over the one-core limit's.
//!
//! A run whose JSON says `"query": true` (the baseline's `--query`) is a row of its own
//! beside the same binary's pass. Its speedup over step 1 is left out (`–`) unless it
//! brings its own `speedup_over_step1`: its MB/s over step 1's would compare a query
//! with a parse.
//!
//! A step whose run brings a `table_query` (the load step and the steps after it,
//! which time a load and then the query over the loaded table) is two rows: the load
//! (the run itself) and the table query (`part`: `table query`), whose MB/s is the
//! CSV bytes the table stands for per second of the query, and whose `x_csv_query`
//! is its median time over the CSV query's, both timed in the step's process.
//!
//! A step that ran on the CPU twin of a device (`"device": "cpu …"`, the GPU step
//! without a GPU) says so in its idea.
//!
//! A peer (`bench.sh --peers`: Polars, DuckDB, pyarrow, through `tools/peers/peers.py`)
//! is a query row too. It has no allocation count, and a peer whose answer is not the
//! file's reference brings `"failed"` instead of a time: its row says so and shows no
//! number. Every other run must come from a release build (`"build": "release"`).

use std::path::{Path, PathBuf};

use harness::run::measure::thousands;
use serde_json::{Value, json};

use crate::error::{BadRun, Error, Result};

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
    fn first(&self, key: &str) -> &Value {
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

/// What `bench.sh` knows about the machine and the run, from its command line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// CPU model, in words, with its family and model numbers where the OS gives them.
    pub cpu: String,
    /// CPU model name alone (`model name` of `/proc/cpuinfo`).
    pub cpu_name: String,
    /// CPU family number (`cpu family`), empty where the OS does not say.
    pub cpu_family: String,
    /// CPU model number (`model`), empty where the OS does not say.
    pub cpu_model: String,
    /// Cores the OS shows.
    pub cores: String,
    /// Memory, in words (`23.4 GiB`).
    pub memory: String,
    /// `uname -sr`: the kernel.
    pub os: String,
    /// The distribution (`PRETTY_NAME` of `/etc/os-release`), empty where there is none.
    pub os_release: String,
    /// The SIMD features the steps choose their tiers by, of those the CPU has
    /// (`sse2 avx2 avx512f pclmulqdq bmi2`, or `neon`), empty where the OS does not say.
    pub cpu_features: String,
    /// `rustc --version`.
    pub rustc: String,
    /// The measured file.
    pub file: PathBuf,
    /// Rounds: each row's runs (best of this many).
    pub runs: u32,
    /// How bench.sh was run, and when, on which commit.
    pub run: RunInfo,
}

/// The run itself: what a recording names so that its numbers can be traced and
/// repeated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInfo {
    /// The command, as it would be typed again (`./bench.sh --rows 20000000 …`,
    /// without `--record`).
    pub command: String,
    /// The kind of run, the name of its recording: `bench`, `bench-ROWS`,
    /// `1brc-ROWS`, `keys-N`, `file-NAME`, `quick` (bench.sh's `record_kind`).
    pub kind: String,
    /// Start and end, UTC, ISO 8601 (`2026-12-03T09:28:11Z`).
    pub started_utc: String,
    /// See `started_utc`.
    pub finished_utc: String,
    /// `git rev-parse HEAD`.
    pub commit: String,
    /// Whether the work tree had changes the commit does not hold (outside the
    /// recordings); `None` where git could not say.
    pub dirty: Option<bool>,
    /// Timed runs inside each step's process.
    pub in_process: Option<u32>,
}

/// The measured file's size and line endings, counted once.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read.
pub fn file_info(path: &Path) -> Result<Value> {
    let bytes = std::fs::read(path).map_err(Error::io(path))?;
    let lfs = memchr::memchr_iter(b'\n', &bytes).count();
    let crlfs = memchr::memmem::find_iter(&bytes, b"\r\n").count();
    let line_ending = line_ending(lfs as u64, crlfs as u64);
    Ok(json!({
        "path": path.display().to_string(),
        "bytes": bytes.len(),
        "mb": bytes.len() as f64 / 1e6,
        "lfs": lfs,
        "line_ending": line_ending,
    }))
}

/// `LF`, `CRLF`, or which most LFs follow, with the count of the others (an LF inside
/// a quoted field of a CRLF file counts among them: only a parse can tell).
pub fn line_ending(lfs: u64, crlfs: u64) -> String {
    match (lfs, crlfs) {
        (_, 0) => "LF".to_string(),
        (l, c) if l == c => "CRLF".to_string(),
        (l, c) if 2 * c >= l => format!(
            "CRLF ({} of {} LFs without a CR)",
            thousands(l - c),
            thousands(l)
        ),
        (l, c) => format!("LF ({} of {} LFs after a CR)", thousands(c), thousands(l)),
    }
}

/// `results.json`: the machine, the toolchain, the file, and every run of every row
/// with the row's best figures and ratios.
pub fn results(meta: &Meta, file: Value, rows: &[Row]) -> Value {
    let step1 = rows
        .iter()
        .find(|r| r.role == Role::Step && r.number() == 1);
    let limit = rows
        .iter()
        .find(|r| r.role == Role::Limit && r.threads() == 1);
    let reference = rows.iter().find(|r| r.role == Role::Step);
    let mut file = file;
    if let Some(r) = reference {
        file["records"] = r.best()["fingerprint"]["records"].clone();
    }
    let rows: Vec<Value> = rows
        .iter()
        .map(|row| {
            let best = row.best();
            let ratio = |other: Option<&Row>| other.map(|o| row.mb_per_s() / o.mb_per_s());
            // A query step measures the same query on step 1's parser itself; a query
            // row that does not has no speedup over step 1 to show.
            let (x_step1, x_step1_of) = match best["speedup_over_step1"].as_f64() {
                Some(x) => (Some(x), Some("query")),
                // A query row (steps 5 and later, the yardsticks' queries, the peers)
                // that does not time step 1 itself: its MB/s over step 1's parse
                // would set a query (or step 9's load) against a parse.
                None if row.kind() == "query" => (None, None),
                None => (ratio(step1), Some("MB/s")),
            };
            let failed = row.failed();
            let (x_step1, fraction_of_limit) = match failed {
                Some(_) => (None, None),
                None => (x_step1, ratio(limit)),
            };
            let mut value = json!({
                "label": row.label(),
                "role": row.role.name(),
                "kind": row.kind(),
                "failed": failed,
                "step": row.step(),
                "number": row.number(),
                "threads": row.threads(),
                "query": row.query(),
                "part": row.part(),
                "idea": row.idea(),
                "best_s": best["best_s"],
                "mb_per_s": best["mb_per_s"],
                "first_run_mb_per_s": row.first_run_mb_per_s(),
                "mrows_per_s": best["mrows_per_s"],
                "allocs_per_pass": best["allocs_per_pass"],
                "peak_heap_bytes_per_pass": best["peak_heap_bytes_per_pass"],
                "x_step1": x_step1,
                "x_step1_of": x_step1_of,
                "fraction_of_limit": fraction_of_limit,
                "runs": row.runs,
            });
            if let Some(x) = best["speedup_over_csv"].as_f64() {
                value["x_csv_query"] = x.into();
                value["x_csv_query_of"] = best["versus"].clone();
            }
            if row.role == Role::Peer {
                value["version"] = row.first("version").clone();
                value["import_s"] = best["import_s"].clone();
                value["answer_matches_reference"] = best["answer_matches_reference"].clone();
            } else if row.role != Role::Limit {
                let same = reference.map(|r| r.best()["fingerprint"] == best["fingerprint"]);
                value["fingerprint"] = best["fingerprint"].clone();
                value["fingerprint_matches_first_step"] = same.into();
            }
            value
        })
        .collect();
    let r = &meta.run;
    json!({
        "machine": {
            "cpu": meta.cpu,
            "cpu_name": meta.cpu_name,
            "cpu_family": meta.cpu_family,
            "cpu_model": meta.cpu_model,
            "cores": meta.cores,
            "memory": meta.memory,
            "os": meta.os,
            "os_release": meta.os_release,
            "cpu_features": meta.cpu_features,
        },
        "toolchain": meta.rustc,
        "run": {
            "command": r.command,
            "kind": r.kind,
            "started_utc": r.started_utc,
            "finished_utc": r.finished_utc,
            "commit": r.commit,
            "dirty": r.dirty,
            "in_process": r.in_process,
        },
        "file": file,
        "runs_per_row": meta.runs,
        "interleaved": true,
        "rows": rows,
    })
}

/// The lines above the table: machine, toolchain, file, runs, and (where bench.sh said)
/// when, on which commit and with which command.
pub fn preamble(results: &Value) -> String {
    let m = &results["machine"];
    let f = &results["file"];
    let records = f["records"]
        .as_u64()
        .map_or(String::new(), |r| format!("{} records, ", thousands(r)));
    let mut os = s(&m["os"]).to_string();
    if let Some(release) = m["os_release"].as_str().filter(|r| !r.is_empty()) {
        os += &format!(", {release}");
    }
    let features = m["cpu_features"]
        .as_str()
        .filter(|f| !f.is_empty())
        .map_or(String::new(), |f| format!("; SIMD: {f}"));
    let mut out = format!(
        "- Machine: {}, {} cores, {} memory ({os}){features}\n- Toolchain: {}\n- File: `{}`: {}{} MB, {} line endings\n\
         - Runs: best of {} per row, interleaved (round 1 of every row, then round 2, …)",
        s(&m["cpu"]),
        s(&m["cores"]),
        s(&m["memory"]),
        s(&results["toolchain"]),
        s(&f["path"]),
        records,
        decimal(f["mb"].as_f64().unwrap_or(0.0), 1),
        s(&f["line_ending"]),
        results["runs_per_row"]
    );
    match results["run"]["in_process"].as_u64() {
        Some(1) => out += "; 1 timed run in each step's process",
        Some(n) => out += &format!("; {n} timed runs in each step's process"),
        None => {}
    }
    out += "\n";
    if let Some(when) = when(results) {
        let r = &results["run"];
        out += &format!("- Run: {when}, commit {}", commit_short(results));
        if let Some(command) = r["command"].as_str().filter(|c| !c.is_empty()) {
            out += &format!(", `{command}`");
        }
        out += "\n";
    }
    out
}

/// `2026-12-03, 09:28–09:43 UTC` from the run's start and end, if bench.sh gave them.
pub fn when(results: &Value) -> Option<String> {
    let started = results["run"]["started_utc"].as_str()?;
    let (date, start) = started.split_once('T')?;
    let hm = |t: &str| t.get(..5).unwrap_or(t).to_string();
    let end = results["run"]["finished_utc"]
        .as_str()
        .and_then(|f| f.split_once('T'))
        .map(|(d, t)| {
            if d == date {
                format!("–{}", hm(t))
            } else {
                format!(" – {d} {}", hm(t))
            }
        })
        .unwrap_or_default();
    Some(format!("{date}, {}{end} UTC", hm(start)))
}

/// The run's commit, shortened to 7 hex digits, marked when the tree had changes.
pub fn commit_short(results: &Value) -> String {
    let r = &results["run"];
    let commit = r["commit"].as_str().unwrap_or("?");
    let mut short = commit.get(..7).unwrap_or(commit).to_string();
    if r["dirty"] == true {
        short += " with uncommitted changes";
    }
    short
}

/// The table's header and the line under it.
pub const TABLE_HEADER: &str = "| step | idea added | MB/s | first run MB/s | Mrows/s | heap allocs/pass | x step 1 | % of limit |\n\
     |---|---|---:|---:|---:|---:|---:|---:|";

/// One row of `results.json` as a line of the table (no newline).
pub fn table_row(row: &Value) -> String {
    let f = |key: &str| row[key].as_f64();
    let mut label = s(&row["label"]).to_string();
    if row["fingerprint_matches_first_step"] == false {
        label += " (fingerprint differs)";
    }
    if let Some(why) = row["failed"].as_str() {
        return format!(
            "| {label} | {} | failed: {why} | – | – | – | – | – |",
            s(&row["idea"])
        );
    }
    let mut idea = s(&row["idea"]).to_string();
    if let Some(x) = f("x_csv_query") {
        idea += &format!("; {x:.1}x {}", s(&row["x_csv_query_of"]));
    }
    format!(
        "| {} | {} | {} | {} | {:.1} | {} | {} | {} |",
        label,
        idea,
        thousands(f("mb_per_s").unwrap_or(0.0).round() as u64),
        f("first_run_mb_per_s").map_or("–".to_string(), |x| thousands(x.round() as u64)),
        f("mrows_per_s").unwrap_or(0.0),
        row["allocs_per_pass"]
            .as_u64()
            .map_or("–".to_string(), thousands),
        f("x_step1").map_or("–".to_string(), |x| {
            let query = if row["x_step1_of"] == "query" {
                "*"
            } else {
                ""
            };
            format!("{x:.1}{query}")
        }),
        f("fraction_of_limit").map_or("–".to_string(), percent),
    )
}

/// The markdown table of `results`, with its notes.
pub fn table(results: &Value) -> String {
    let mut out = format!("{TABLE_HEADER}\n");
    let empty = Vec::new();
    for row in results["rows"].as_array().unwrap_or(&empty) {
        out += &table_row(row);
        out += "\n";
    }
    out += "\n";
    out += &table_notes(results);
    out
}

/// The notes under the table: units, columns, and what applies to this run's rows.
pub fn table_notes(results: &Value) -> String {
    let empty = Vec::new();
    let rows = results["rows"].as_array().unwrap_or(&empty);
    let mut out = String::from(
        "MB = 10^6 bytes of input; Mrows/s = 10^6 records per second (for a limit row: \
            10^6 LFs per second). MB/s: the best run of all (each process times several); \
            first run MB/s: each process's first timed run, the median over the rounds (a fresh \
            map of the file: a gap between the two is a first-touch cost, not the idea). x step 1: MB/s over step 1's (*: a query step's \
            time for the same query on step 1's parser over its own, both timed by the step). \
            % of limit: MB/s over the \
            one-core limit's (an LF count with memchr over a memory map: no parse can be \
            faster on one core).\n",
    );
    if rows
        .iter()
        .any(|r| r["query"] == true && r["x_step1"].is_null())
    {
        out += "A query row without x step 1 (–) does not time the same query on step 1's \
                parser, and its MB/s over step 1's would set a query against a parse.\n";
    }
    let parallel: Vec<String> = rows
        .iter()
        .filter(|r| r["role"] != "limit" && r["threads"].as_u64().is_some_and(|t| t > 1))
        .map(|r| format!("{} ({})", s(&r["label"]), r["threads"]))
        .collect();
    if !parallel.is_empty() {
        out += &format!(
            "Rows on more than one thread (threads): {}; every other row ran on one.\n",
            parallel.join(", ")
        );
    }
    if rows.iter().any(|r| r["part"] == "table query") {
        out += "A table query row: the query over the table that the step's run loaded, \
                timed in the same process as the load; its MB/s is the CSV's bytes over the \
                query's time (the bytes the table stands for, not the bytes it reads), and \
                its x is its median time over the CSV query's median, both timed by the step.\n";
    }
    if rows.iter().any(|r| r["step"] == "baseline-simd-csv") {
        out += "baseline query (simd-csv): the csv crate's query with the simd-csv reader \
                instead (bench.sh --peers), the same number parse and table.\n";
    }
    if rows.iter().any(|r| r["role"] == "peer") {
        out += "A peer (Polars, DuckDB, pyarrow) runs the same query in Python, timed inside \
                its process after its import, on the threads it names; its answer is checked \
                against the file's reference (counts exactly, sums within 10^-9 of the exact \
                sum) before its time is shown. It counts no allocations (–).\n";
    }
    let passes = rows
        .iter()
        .find(|r| r["role"] == "limit")
        .map(|r| &r["runs"][0]["runs"]);
    if let Some(passes) = passes.and_then(Value::as_u64).filter(|&p| p > 1) {
        out += &format!(
            "A limit run is its best of {passes} passes in one process: a pass takes \
             milliseconds, and the first passes of a process are the slowest.\n"
        );
    }
    out
}

/// A fraction as the table shows it: `4.8%`, `20%`.
pub fn percent(fraction: f64) -> String {
    match fraction * 100.0 {
        p if p < 10.0 => format!("{p:.1}%"),
        p => format!("{p:.0}%"),
    }
}

/// `x` with `places` decimals and thousands separators: `1,017.8`.
pub fn decimal(x: f64, places: usize) -> String {
    let text = format!("{:.*}", places, x.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let sign = if x < 0.0 && text.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        "-"
    } else {
        ""
    };
    let int = thousands(int.parse().unwrap_or(0));
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

pub(crate) fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("?")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(role: &str, step: &str, number: u32, best_s: f64, mb_per_s: f64) -> String {
        json!({"role": role, "result": {"step": step, "number": number, "idea": "i", "build": "release",
            "best_s": best_s, "mb_per_s": mb_per_s, "mrows_per_s": 1.0, "allocs_per_pass": 1234,
            "fingerprint": {"records": 3, "fields": 3, "bytes": 3}}})
        .to_string()
    }

    #[test]
    fn rows_keep_the_best_run_and_the_ladder_order() {
        let lines = [
            run("limit", "limit", 0, 0.01, 5000.0),
            run("step", "step2", 2, 0.2, 250.0),
            run("step", "step1", 1, 0.5, 100.0),
            run("baseline", "baseline", 0, 0.1, 500.0),
            run("step", "step1", 1, 0.4, 125.0),
        ]
        .join("\n");
        let rows = rows(&lines).unwrap();
        let labels: Vec<_> = rows.iter().map(Row::label).collect();
        assert_eq!(
            labels,
            [
                "1 step1",
                "2 step2",
                "baseline (csv crate)",
                "limit, 1 core"
            ]
        );
        assert_eq!(rows[0].runs.len(), 2);
        assert_eq!(rows[0].mb_per_s(), 125.0);
        let results = results(&Meta::default(), json!({}), &rows);
        assert_eq!(results["file"]["records"], 3);
        let table = table(&results);
        assert!(
            table.contains("| 1 step1 | i | 125 | – | 1.0 | 1,234 | 1.0 | 2.5% |"),
            "{table}"
        );
        assert!(
            table.contains("| 2 step2 | i | 250 | – | 1.0 | 1,234 | 2.0 | 5.0% |"),
            "{table}"
        );
        assert!(table.contains("| limit, 1 core | i | 5,000 | – | 1.0 | 1,234 | 40.0 | 100% |"));
    }

    #[test]
    fn the_first_run_is_the_median_of_each_process_s_first() {
        let with_times = |first: f64| {
            run("step", "step7", 6, 0.1, 1000.0).replace(
                "\"idea\"",
                &format!("\"bytes\":100000000,\"runs\":3,\"times_s\":[{first},0.1,0.1],\"idea\""),
            )
        };
        let lines = [with_times(0.4), with_times(0.2), with_times(0.25)].join("\n");
        let rows = rows(&lines).unwrap();
        assert_eq!(rows[0].first_run_mb_per_s(), Some(400.0)); // 100 MB in 0.25 s
        let table = table(&results(&Meta::default(), json!({}), &rows));
        assert!(
            table.contains("| 6 step7 | i | 1,000 | 400 | 1.0 |"),
            "{table}"
        );
        // One run a process has no first run apart from its best.
        let once = rows_of_one(with_times(0.4).replace("\"runs\":3", "\"runs\":1"));
        assert_eq!(once.first_run_mb_per_s(), None);
    }

    fn rows_of_one(line: String) -> Row {
        rows(&line).unwrap().remove(0)
    }

    #[test]
    fn a_query_step_brings_its_own_speedup() {
        let mut query = run("step", "step5", 5, 0.1, 500.0);
        query = query.replace("\"idea\"", "\"speedup_over_step1\":7.25,\"idea\"");
        let lines = [run("step", "step1", 1, 0.5, 100.0), query].join("\n");
        let results = results(&Meta::default(), json!({}), &rows(&lines).unwrap());
        assert!(table(&results).contains("| 5 step5 | i | 500 | – | 1.0 | 1,234 | 7.2* | – |"));
    }

    #[test]
    fn the_baseline_query_is_a_row_of_its_own_without_a_speedup() {
        let query = run("baseline", "baseline", 0, 0.2, 250.0)
            .replace("\"idea\"", "\"query\":true,\"idea\"");
        let lines = [
            query.clone(),
            run("baseline", "baseline", 0, 0.1, 500.0),
            run("step", "step1", 1, 0.5, 100.0),
            run("limit", "limit", 0, 0.01, 5000.0),
            query.replace("250.0", "200.0").replace("0.2,", "0.25,"),
        ]
        .join("\n");
        let rows = rows(&lines).unwrap();
        let labels: Vec<_> = rows.iter().map(Row::label).collect();
        assert_eq!(
            labels,
            [
                "1 step1",
                "baseline (csv crate)",
                "baseline query (csv crate)",
                "limit, 1 core"
            ]
        );
        assert_eq!(rows[2].runs.len(), 2);
        let results = results(&Meta::default(), json!({}), &rows);
        assert_eq!(results["rows"][2]["query"], true);
        assert!(results["rows"][2]["x_step1"].is_null());
        let table = table(&results);
        assert!(
            table.contains("| baseline (csv crate) | i | 500 | – | 1.0 | 1,234 | 5.0 | 10% |"),
            "{table}"
        );
        assert!(
            table.contains("| baseline query (csv crate) | i | 250 | – | 1.0 | 1,234 | – | 5.0% |"),
            "{table}"
        );
        assert!(table.contains("A query row without x step 1"), "{table}");
    }

    #[test]
    fn line_endings_say_which_and_how_many_differ() {
        assert_eq!(line_ending(10, 0), "LF");
        assert_eq!(line_ending(10, 10), "CRLF");
        assert_eq!(
            line_ending(3010, 3001),
            "CRLF (9 of 3,010 LFs without a CR)"
        );
        assert_eq!(line_ending(10, 1), "LF (1 of 10 LFs after a CR)");
    }

    fn peer(name: &str, best_s: f64, mb_per_s: f64) -> String {
        json!({"role": "peer", "result": {"step": name, "number": 0, "idea": "p", "query": true,
            "threads": 2, "version": "9.9", "best_s": best_s, "mb_per_s": mb_per_s,
            "mrows_per_s": 2.0, "allocs_per_pass": null, "answer_matches_reference": true}})
        .to_string()
    }

    #[test]
    fn peers_are_query_rows_of_their_own_and_a_wrong_answer_is_not_timed() {
        let wrong = json!({"role": "peer", "result": {"step": "pyarrow", "number": 0,
            "idea": "w", "query": true, "threads": 2, "version": "1.0",
            "failed": "wrong answer: group 'a': count 1, reference 2"}})
        .to_string();
        let lines = [
            run("step", "step1", 1, 0.5, 100.0),
            peer("polars", 0.1, 500.0),
            peer("duckdb", 0.2, 250.0),
            wrong,
            run("limit", "limit", 0, 0.01, 5000.0),
        ]
        .join("\n");
        let rows = rows(&lines).unwrap();
        let labels: Vec<_> = rows.iter().map(Row::label).collect();
        assert_eq!(
            labels,
            [
                "1 step1",
                "duckdb 9.9",
                "polars 9.9",
                "pyarrow 1.0",
                "limit, 1 core"
            ]
        );
        let kinds: Vec<_> = rows.iter().map(Row::kind).collect();
        assert_eq!(kinds, ["parse", "query", "query", "query", "limit"]);
        let results = results(&Meta::default(), json!({}), &rows);
        let table = table(&results);
        assert!(
            table.contains("| polars 9.9 | p | 500 | – | 2.0 | – | – | 10% |"),
            "{table}"
        );
        assert!(
            table.contains(
                "| pyarrow 1.0 | w | failed: wrong answer: group 'a': count 1, reference 2 | – |"
            ),
            "{table}"
        );
        assert_eq!(results["rows"][3]["mb_per_s"], Value::Null);
    }

    #[test]
    fn a_query_step_that_does_not_time_step_1_has_no_speedup_and_threads_are_noted() {
        let step9 =
            run("step", "step9", 8, 0.4, 125.0).replace("\"idea\"", "\"threads\":2,\"idea\"");
        let lines = [run("step", "step1", 1, 0.5, 100.0), step9].join("\n");
        let table = table(&results(
            &Meta::default(),
            json!({}),
            &rows(&lines).unwrap(),
        ));
        assert!(
            table.contains("| 8 step9 | i | 125 | – | 1.0 | 1,234 | – | – |"),
            "{table}"
        );
        assert!(
            table.contains("Rows on more than one thread (threads): 8 step9 (2)"),
            "{table}"
        );
    }

    #[test]
    fn a_step_on_every_core_and_on_one_thread_is_two_rows() {
        let on = |threads: u32, best_s: f64| {
            run("step", "step9", 9, best_s, 0.4 / best_s * 125.0)
                .replace("\"idea\"", &format!("\"threads\":{threads},\"idea\""))
        };
        // Rounds interleaved, as bench.sh runs them: every core, then one thread.
        let lines = [
            run("step", "step7", 7, 0.5, 100.0),
            on(2, 0.25),
            on(1, 0.4),
            on(2, 0.2),
            on(1, 0.35),
        ]
        .join("\n");
        let rows = rows(&lines).unwrap();
        let labels: Vec<_> = rows.iter().map(Row::label).collect();
        assert_eq!(labels, ["7 step7", "9 step9, 1 thread", "9 step9"]);
        assert_eq!(rows[1].runs.len(), 2);
        assert_eq!(rows[1].best()["best_s"], 0.35);
        assert_eq!(rows[2].best()["best_s"], 0.2);
        let results = results(&Meta::default(), json!({}), &rows);
        let ids: Vec<_> = results["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(crate::figures::row_id)
            .collect();
        assert_eq!(ids, ["step7", "step9_1thread", "step9"]);
        let table = table(&results);
        assert!(
            table.contains("Rows on more than one thread (threads): 9 step9 (2);"),
            "{table}"
        );
        // A step that does not say its threads (one-core steps) is never "1 thread".
        assert!(!one_thread_of_many(&rows[0].runs[0]));
    }

    #[test]
    fn a_load_step_is_a_load_row_and_a_table_query_row() {
        let load = |threads: u32, best_s: f64, query_s: f64| {
            let query = json!({"idea": "the table query", "best_s": query_s,
                "mb_per_s": 100.0 / query_s, "mrows_per_s": 2.0 / query_s,
                "allocs_per_pass": 300, "speedup_over_csv": 12.5,
                "versus": "step 10's query over the CSV, timed in the same process",
                "fingerprint": {"records": 3, "fields": 3, "bytes": 3}});
            run("step", "step11", 11, best_s, 100.0 / best_s).replace(
                "\"idea\"",
                &format!("\"threads\":{threads},\"table_query\":{query},\"idea\""),
            )
        };
        let lines = [
            run("step", "step10", 10, 0.05, 2000.0),
            load(2, 0.25, 0.005),
            load(1, 0.4, 0.01),
            load(2, 0.2, 0.004),
        ]
        .join("\n");
        let rows = rows(&lines).unwrap();
        let labels: Vec<_> = rows.iter().map(Row::label).collect();
        assert_eq!(
            labels,
            [
                "10 step10",
                "11 step11, 1 thread",
                "11 step11",
                "11 step11, table query, 1 thread",
                "11 step11, table query"
            ]
        );
        assert_eq!(rows[4].runs.len(), 2);
        assert_eq!(rows[4].best()["best_s"], 0.004);
        let results = results(&Meta::default(), json!({}), &rows);
        let ids: Vec<_> = results["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(crate::figures::row_id)
            .collect();
        assert_eq!(
            ids,
            [
                "step10",
                "step11_1thread",
                "step11",
                "step11_query_1thread",
                "step11_query"
            ]
        );
        assert_eq!(results["rows"][4]["kind"], "query");
        let table = table(&results);
        assert!(
            table.contains(
                "| 11 step11, table query | the table query; 12.5x step 10's query over the \
                 CSV, timed in the same process | 25,000 | – | 500.0 | 300 | – | – |"
            ),
            "{table}"
        );
        assert!(table.contains("| 11 step11 | i | 500 |"), "{table}");
        assert!(table.contains("A table query row:"), "{table}");
        let figures = crate::figures::figures(&results);
        assert!(
            figures.contains("ANCHOR: step11_query_x_csv\n12.5\n"),
            "{figures}"
        );
        assert!(
            figures.contains("ANCHOR: step11_query_vs_step10\n12.50\n"),
            "{figures}"
        );
    }

    #[test]
    fn a_step_on_its_cpu_twin_says_so_in_its_idea() {
        let twin = run("step", "step13", 13, 0.5, 200.0)
            .replace("\"idea\"", "\"device\":\"cpu (CPU twin)\",\"idea\"");
        let gpu = run("step", "step13", 13, 0.5, 200.0)
            .replace("\"idea\"", "\"device\":\"NVIDIA H100\",\"idea\"");
        assert_eq!(
            rows(&twin).unwrap()[0].idea(),
            "i (CPU twin: no GPU ran it)"
        );
        assert_eq!(rows(&gpu).unwrap()[0].idea(), "i");
    }

    #[test]
    fn the_two_yardsticks_queries_are_two_rows() {
        let csv = run("baseline", "baseline", 0, 0.2, 250.0)
            .replace("\"idea\"", "\"query\":true,\"idea\"");
        let simd = run("baseline", "baseline-simd-csv", 0, 0.1, 500.0)
            .replace("\"idea\"", "\"query\":true,\"idea\"");
        let rows = rows(&[csv, simd].join("\n")).unwrap();
        let labels: Vec<_> = rows.iter().map(Row::label).collect();
        assert_eq!(
            labels,
            ["baseline query (csv crate)", "baseline query (simd-csv)"]
        );
    }

    #[test]
    fn a_dev_build_is_refused() {
        let dev = run("step", "step5", 5, 0.1, 500.0).replace("\"release\"", "\"dev\"");
        let err = rows(&dev).unwrap_err().to_string();
        assert!(
            err.contains("step5 was not a release build") && err.contains("line 1"),
            "{err}"
        );
    }

    #[test]
    fn a_line_that_is_not_a_run_is_named() {
        let err = rows("\n{\"role\": \"step\", \"result\": {}}")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
    }
}
