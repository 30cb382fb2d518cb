//! The recorded run as snippets the book includes: `figures.md`, one figure per mdBook
//! anchor, for prose (`Step 6 runs at` + an include of `figures.md:step6_mbps` +
//! `MB/s`), and `rows.md`, the table's header, each row and the rounds, for tables
//! built from chosen rows. Both are generated from `results.json` (the JSON of
//! [`crate::report::results`]), never edited.
//!
//! A figure is the lines between `ANCHOR: name` and `ANCHOR_END: name`, each marker on
//! a line of its own; mdBook keeps the lines between and joins them with line breaks
//! and no line break after the last, so a figure of one line lands inline, in the
//! middle of a sentence.
//!
//! Names: a row's id is its binary (`step6`, `polars`, `duckdb`, `pyarrow`; `step9_1thread`
//! for a step that runs on every core, run on one; `step11_query` for a step's table
//! query, `step11_query_1thread` on one thread), or
//! `baseline` (the csv crate's pass), `baseline_query` (its query), `baseline_simd`
//! (the same query on simd-csv), `limit` (one core), `limit_threads` (the limit on
//! `--threads N`). Each row has `ID_mbps`, `ID_gbps`, `ID_mrows`, `ID_seconds`,
//! `ID_first_mbps`, `ID_first_below`, `ID_allocs`, `ID_peak_mb` (the heap live at a
//! pass's peak, in MB), `ID_x_step1`, `ID_of_limit`,
//! `ID_threads`, `ID_rounds` (and a peer `ID_version`, a table query `ID_x_csv`) where
//! the row has the value;
//! every step over every earlier step `A_vs_B` (and `A_vs_B_rounds`, round by round),
//! every step over each yardstick and peer `A_vs_ID`. The run: `machine`, `cpu`,
//! `cores`, `memory`, `os`, `os_release`, `cpu_features`, `rustc`, `toolchain`,
//! `date`, `time`, `commit`, `command`,
//! `kind`, `file`, `file_path`, `file_mb`, `records`, `line_ending`, `runs`,
//! `in_process`.

use harness::run::measure::thousands;
use serde_json::Value;

use crate::report::{self, decimal, percent, s, times};

/// The first line of each generated file (an HTML comment: invisible where a whole
/// file is included).
fn banner(what: &str, results: &Value) -> String {
    let kind = results["run"]["kind"].as_str().unwrap_or("?");
    format!(
        "<!-- {what} of the run recorded in this folder ({kind}), generated from results.json \
         by benchtool (bench.sh --record): do not edit. -->\n"
    )
}

/// What a row's id ends with when it is a step that runs on every core, run on one
/// thread: `step9_1thread`.
const ONE_THREAD: &str = "_1thread";

/// The id of the step whose run on one thread `id` is (`step9` for `step9_1thread`),
/// or `None` for any other row.
pub fn one_thread_of(id: &str) -> Option<&str> {
    id.strip_suffix(ONE_THREAD)
}

/// A row's id in anchor names.
pub fn row_id(row: &Value) -> String {
    let step = s(&row["step"]);
    let id = match s(&row["role"]) {
        "baseline" if step == "baseline-simd-csv" => "baseline_simd".to_string(),
        "baseline" if row["query"] == true => "baseline_query".to_string(),
        "baseline" => "baseline".to_string(),
        "limit" if row["threads"].as_u64().unwrap_or(1) > 1 => "limit_threads".to_string(),
        "limit" => "limit".to_string(),
        "step" => {
            let part = match row["part"].as_str() {
                Some("table query") => "_query",
                _ => "",
            };
            let one = row["runs"].get(0).is_some_and(report::one_thread_of_many);
            format!("{step}{part}{}", if one { ONE_THREAD } else { "" })
        }
        _ => step.to_string(),
    };
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// `figures.md`: every figure of `results`, one anchor each.
pub fn figures(results: &Value) -> String {
    let mut out = banner("Figures", results);
    let mut add = |name: &str, value: String| {
        out += &format!("ANCHOR: {name}\n{value}\nANCHOR_END: {name}\n");
    };
    for (name, value) in run_figures(results) {
        add(&name, value);
    }
    let empty = Vec::new();
    let rows = results["rows"].as_array().unwrap_or(&empty);
    for row in rows {
        for (name, value) in row_figures(row) {
            add(&format!("{}_{name}", row_id(row)), value);
        }
    }
    // Ratios: every step over every earlier one, and over each yardstick and peer.
    let steps: Vec<&Value> = rows
        .iter()
        .filter(|r| r["role"] == "step" && mb(r).is_some())
        .collect();
    for (i, a) in steps.iter().enumerate() {
        for b in &steps[..i] {
            let name = format!("{}_vs_{}", row_id(a), row_id(b));
            add(&name, ratio(mb(a), mb(b)));
            let rounds: Vec<String> = round_mbps(a)
                .iter()
                .zip(round_mbps(b))
                .map(|(x, y)| ratio(*x, y))
                .collect();
            add(&format!("{name}_rounds"), rounds.join(", "));
        }
        for other in rows
            .iter()
            .filter(|r| (r["role"] == "baseline" || r["role"] == "peer") && mb(r).is_some())
        {
            add(
                &format!("{}_vs_{}", row_id(a), row_id(other)),
                ratio(mb(a), mb(other)),
            );
        }
    }
    out
}

/// `rows.md`: the table's header, each row, the notes and the rounds, one anchor each,
/// so that a chapter builds a table of the rows it discusses.
pub fn rows(results: &Value) -> String {
    let mut out = banner("Table rows", results);
    let mut add = |name: &str, value: &str| {
        out += &format!("<!-- ANCHOR: {name} -->\n{value}\n<!-- ANCHOR_END: {name} -->\n");
    };
    add("header", report::TABLE_HEADER);
    let empty = Vec::new();
    let rows = results["rows"].as_array().unwrap_or(&empty);
    for row in rows {
        add(&row_id(row), &report::table_row(row));
    }
    add("notes", report::table_notes(results).trim_end());
    add("rounds", &rounds_table(results));
    out
}

/// Every round of every row, MB/s, in round order, with the best and the first run.
pub fn rounds_table(results: &Value) -> String {
    let empty = Vec::new();
    let rows = results["rows"].as_array().unwrap_or(&empty);
    let n = rows.iter().map(|r| round_cells(r).len()).max().unwrap_or(0);
    let mut out = String::from("| row |");
    for i in 1..=n {
        out += &format!(" round {i} |");
    }
    out += " best | first run |\n|---|";
    out += &"---:|".repeat(n + 2);
    for row in rows {
        let mut cells = round_cells(row);
        cells.resize(n, "–".to_string());
        out += &format!(
            "\n| {} | {} | {} | {} |",
            s(&row["label"]),
            cells.join(" | "),
            mb(row).map_or("–".to_string(), mbps),
            row["first_run_mb_per_s"]
                .as_f64()
                .map_or("–".to_string(), mbps)
        );
    }
    out
}

fn run_figures(results: &Value) -> Vec<(String, String)> {
    let m = &results["machine"];
    let f = &results["file"];
    let r = &results["run"];
    let text = |v: &Value| v.as_str().filter(|t| !t.is_empty()).map(str::to_string);
    let rustc = text(&results["toolchain"]).map(|t| {
        // `rustc 1.95.0 (59807616e 2026-04-14)` → `1.95.0`
        t.split_whitespace().nth(1).unwrap_or(&t).to_string()
    });
    let cpu = match (text(&m["cpu_name"]), text(&m["cpu_family"])) {
        (Some(name), Some(family)) => Some(format!(
            "{name} (family {family} model {})",
            s(&m["cpu_model"])
        )),
        (Some(name), None) => Some(name),
        (None, _) => text(&m["cpu"]),
    };
    let date = text(&r["started_utc"]).and_then(|t| t.split_once('T').map(|(d, _)| d.to_string()));
    let commit = text(&r["commit"]).map(|_| report::commit_short(results));
    let mb_text = f["mb"].as_f64().map(|x| decimal(x, 1));
    let records = f["records"].as_u64().map(thousands);
    let mut machine = vec![
        cpu.clone().unwrap_or_else(|| "?".to_string()),
        format!("{} cores", s(&m["cores"])),
        s(&m["memory"]).to_string(),
    ];
    machine.extend(rustc.iter().map(|v| format!("rustc {v}")));
    machine.extend(date.clone());
    machine.extend(commit.iter().map(|c| format!("commit {c}")));
    let mut file = vec![s(&f["path"]).to_string()];
    file.extend(mb_text.iter().map(|m| format!("{m} MB")));
    file.extend(records.iter().map(|r| format!("{r} records")));
    let figures = [
        ("machine", Some(machine.join(", "))),
        ("cpu", cpu),
        ("cores", text(&m["cores"])),
        ("memory", text(&m["memory"])),
        ("os", text(&m["os"])),
        ("os_release", text(&m["os_release"])),
        ("cpu_features", text(&m["cpu_features"])),
        ("rustc", rustc),
        ("toolchain", text(&results["toolchain"])),
        ("date", date),
        ("time", report::when(results)),
        ("commit", commit),
        ("command", text(&r["command"])),
        ("kind", text(&r["kind"])),
        ("file", Some(file.join(", "))),
        ("file_path", text(&f["path"])),
        ("file_mb", mb_text),
        ("records", records),
        ("line_ending", text(&f["line_ending"])),
        (
            "runs",
            results["runs_per_row"].as_u64().map(|n| n.to_string()),
        ),
        (
            "in_process",
            r["in_process"].as_u64().map(|n| n.to_string()),
        ),
    ];
    figures
        .into_iter()
        .filter_map(|(name, value)| Some((name.to_string(), value?)))
        .collect()
}

fn row_figures(row: &Value) -> Vec<(&'static str, String)> {
    let f = |key: &str| row[key].as_f64();
    let best = mb(row);
    let first = f("first_run_mb_per_s");
    let figures = [
        ("mbps", best.map(mbps)),
        ("gbps", best.map(|x| format!("{:.2}", x / 1000.0))),
        ("mrows", f("mrows_per_s").map(|x| format!("{x:.1}"))),
        ("seconds", f("best_s").map(|x| format!("{x:.3}"))),
        ("first_mbps", first.map(mbps)),
        (
            "first_below",
            first
                .zip(best)
                .map(|(first, best)| percent(1.0 - first / best)),
        ),
        ("allocs", row["allocs_per_pass"].as_u64().map(thousands)),
        (
            "peak_mb",
            row["peak_heap_bytes_per_pass"]
                .as_u64()
                .map(|bytes| thousands((bytes as f64 / 1e6).round() as u64)),
        ),
        ("x_step1", f("x_step1").map(|x| format!("{x:.1}"))),
        ("x_csv", f("x_csv_query").map(times)),
        ("of_limit", f("fraction_of_limit").map(percent)),
        ("threads", row["threads"].as_u64().map(|t| t.to_string())),
        (
            "rounds",
            Some(round_cells(row).join(", ")).filter(|r| !r.is_empty()),
        ),
        ("version", row["version"].as_str().map(str::to_string)),
        ("failed", row["failed"].as_str().map(str::to_string)),
    ];
    figures
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect()
}

fn mb(row: &Value) -> Option<f64> {
    row["mb_per_s"].as_f64().filter(|x| *x > 0.0)
}

/// MB/s as the table shows it: whole, with thousands separators.
fn mbps(x: f64) -> String {
    thousands(x.round() as u64)
}

/// Each round's best MB/s, in round order (`None` for a failed run).
fn round_mbps(row: &Value) -> Vec<Option<f64>> {
    let empty = Vec::new();
    row["runs"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(|run| run["mb_per_s"].as_f64())
        .collect()
}

fn round_cells(row: &Value) -> Vec<String> {
    round_mbps(row)
        .into_iter()
        .map(|x| x.map_or("failed".to_string(), mbps))
        .collect()
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "–".to_string(),
    }
}

#[cfg(test)]
mod tests;
