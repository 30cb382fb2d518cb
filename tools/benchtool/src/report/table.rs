//! The markdown of a recording: the lines above the table, its rows and its notes,
//! from `results.json`.

use harness::run::measure::thousands;
use serde_json::Value;

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
        idea += &format!("; {}x {}", times(x), s(&row["x_csv_query_of"]));
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
    if rows.iter().any(|r| r["query"] == true) {
        out += "A query row's time ends when every group is complete, as a peer's does: \
                putting the groups in key order for printing is timed apart (a step's \
                --verbose shows that time) and is in no row.\n";
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

/// A speedup as the table shows it: one decimal (`12.5`), two under 1 (`0.06`),
/// so that a slowdown never reads as `0.0`.
pub fn times(x: f64) -> String {
    if x < 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.1}")
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
