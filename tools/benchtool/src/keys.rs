//! `keys.svg` and `keys.md`: how fast each engine answers the query as the number of
//! distinct keys grows, drawn from the recordings of `./bench.sh --keys N --record`
//! (`DIR/keys-N/results.json`, one per N, each the JSON of
//! [`crate::report::results`]).
//!
//! Which recordings: the plain `keys-N` folders (bench.sh's default: 1,000,000 rows
//! each, or N rows where N is more, so that every key is in the file), so that up to
//! a million keys every point measures a file of the same length and only the keys
//! change; past it, the file grows with the keys, and MB/s still compares them.
//! `keys-N-ROWS` folders (`--keys N --rows ROWS`) are ignored while there is a
//! plain one; where there is none, the `ROWS` with the most folders is drawn instead
//! (the largest on a tie), never two `--rows` settings on one line.
//!
//! Which rows: one series per engine, keyed by [`crate::figures::row_id`]: step 1 and
//! the query steps (a load step by its table query, not its load), the baseline's
//! query (and simd-csv's), the peers (Polars, DuckDB, pyarrow). The limit rows are
//! left out: an LF count has no keys, and its MB/s, ten
//! times the others', would squeeze them into the bottom of the chart. A series'
//! value at N is the median of its rounds' MB/s in `keys-N` (each round a process's
//! best timed run): the median, not the best, so that one lucky round does not bend a
//! line. A peer that failed its check has no value there.
//!
//! The chart itself is [`chart`]'s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use harness::run::measure::thousands;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::figures::row_id;
use crate::report::{commit_short, s};

pub mod chart;

/// One recording: its folder, its distinct keys, its rows per file (`keys-N-ROWS`
/// only) and its `results.json`.
pub struct Run {
    /// The folder (`DIR/keys-N`).
    pub dir: PathBuf,
    /// N: the file's distinct keys.
    pub keys: u64,
    /// ROWS of a `keys-N-ROWS` folder; `None` for a plain `keys-N`.
    pub rows: Option<u64>,
    /// The recording's `results.json`.
    pub results: Value,
}

/// One engine across the runs: a line of the chart, a row of the table.
#[derive(Debug, PartialEq)]
pub struct Series {
    /// [`row_id`] of its rows: `step5`, `baseline_query`, `polars`.
    pub id: String,
    /// Its label in the latest run it appears in: `5 step5`, `polars 2.1.0`.
    pub label: String,
    /// `step`, `baseline` or `peer`.
    pub role: String,
    /// (distinct keys, median MB/s) in keys order; MB = 10^6 bytes.
    pub points: Vec<(u64, f64)>,
}

/// `keys-N` → (N, None), `keys-N-ROWS` → (N, Some(ROWS)); anything else → `None`.
fn parse_folder(name: &str) -> Option<(u64, Option<u64>)> {
    let rest = name.strip_prefix("keys-")?;
    let number = |t: &str| {
        t.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    match rest.split_once('-') {
        None => Some((number(rest)?, None)),
        Some((n, rows)) => Some((number(n)?, Some(number(rows)?))),
    }
}

/// The recordings under `dir` that the chart draws (see the module's docs), in keys
/// order.
///
/// # Errors
/// [`Error::Io`] when `dir` cannot be read, [`Error::NoKeysFolder`] when it has no
/// `keys-N` folder, [`Error::NoKeysResults`] or [`Error::Json`] when a folder has no
/// readable `results.json`.
pub fn read_runs(dir: &Path) -> Result<Vec<Run>> {
    let entries = std::fs::read_dir(dir).map_err(Error::io(dir))?;
    let mut found: Vec<(PathBuf, u64, Option<u64>)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(Error::io(dir))?;
        let name = entry.file_name();
        if let Some((keys, rows)) = name.to_str().and_then(parse_folder) {
            if entry.path().is_dir() {
                found.push((entry.path(), keys, rows));
            }
        }
    }
    let mut by_rows: BTreeMap<Option<u64>, usize> = BTreeMap::new();
    for (_, _, rows) in &found {
        *by_rows.entry(*rows).or_default() += 1;
    }
    // `None` (plain keys-N) sorts first; else the most folders, then the largest ROWS.
    let chosen = if by_rows.contains_key(&None) {
        None
    } else {
        let most = by_rows.iter().max_by_key(|(rows, n)| (**n, **rows));
        let Some((rows, _)) = most else {
            return Err(Error::NoKeysFolder { dir: dir.into() });
        };
        *rows
    };
    let mut runs = Vec::new();
    for (path, keys, rows) in found.into_iter().filter(|f| f.2 == chosen) {
        let json = path.join("results.json");
        let text = std::fs::read_to_string(&json).map_err(|source| Error::NoKeysResults {
            path: json.clone(),
            keys,
            source,
        })?;
        let results = serde_json::from_str(&text).map_err(Error::json(&json))?;
        runs.push(Run {
            dir: path,
            keys,
            rows,
            results,
        });
    }
    runs.sort_by_key(|r| r.keys);
    Ok(runs)
}

/// The median of a row's rounds' MB/s (its best MB/s where it kept no rounds); `None`
/// for a row without a time (a peer that failed its check).
pub fn median_mb_per_s(row: &Value) -> Option<f64> {
    let empty = Vec::new();
    let mut rounds: Vec<f64> = row["runs"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .filter_map(|r| r["mb_per_s"].as_f64())
        .collect();
    if rounds.is_empty() {
        return row["mb_per_s"].as_f64();
    }
    rounds.sort_by(f64::total_cmp);
    let n = rounds.len();
    Some(match n % 2 {
        1 => rounds[n / 2],
        _ => (rounds[n / 2 - 1] + rounds[n / 2]) / 2.0,
    })
}

/// Every engine of `runs` but the limits: steps by number, then the yardsticks, then
/// the peers, as the table of a run orders them.
pub fn series(runs: &[Run]) -> Vec<Series> {
    let mut all: Vec<(u8, u64, Series)> = Vec::new();
    for run in runs {
        let empty = Vec::new();
        let rows = run.results["rows"].as_array().unwrap_or(&empty);
        // A load step's own row is its load (CSV into a table): not the query whose
        // keys the chart counts, which its table-query row is.
        let loads = |row: &Value| {
            row["part"].as_str().unwrap_or("").is_empty()
                && rows
                    .iter()
                    .any(|other| other["step"] == row["step"] && other["part"] == "table query")
        };
        for row in rows {
            if loads(row) {
                continue;
            }
            let role = s(&row["role"]);
            let rank = match role {
                "step" => 0,
                "baseline" => 1,
                "peer" => 2,
                _ => continue,
            };
            let id = row_id(row);
            let at = match all.iter().position(|(_, _, x)| x.id == id) {
                Some(at) => at,
                None => {
                    let number = row["number"].as_u64().unwrap_or(0);
                    let series = Series {
                        id,
                        label: String::new(),
                        role: role.to_string(),
                        points: Vec::new(),
                    };
                    all.push((rank, number, series));
                    all.len() - 1
                }
            };
            // Runs are in keys order: the last label is the latest version's.
            let series = &mut all[at].2;
            series.label = s(&row["label"]).to_string();
            if let Some(mbps) = median_mb_per_s(row) {
                series.points.push((run.keys, mbps));
            }
        }
    }
    all.sort_by(|a, b| (a.0, a.1, &a.2.id).cmp(&(b.0, b.1, &b.2.id)));
    all.into_iter().map(|(_, _, series)| series).collect()
}

/// The machines of `runs`, in words, each once: `CPU, 8 cores, 31.2 GiB`.
fn machines(runs: &[Run]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for run in runs {
        let m = &run.results["machine"];
        let name = format!(
            "{}, {} cores, {}",
            s(&m["cpu"]),
            s(&m["cores"]),
            s(&m["memory"])
        );
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The records of each run's file, in thousands, each once where runs follow each
/// other on one file: the rows a file, for a title or a note.
fn records(runs: &[Run]) -> Vec<String> {
    let mut records: Vec<String> = runs
        .iter()
        .map(|r| {
            r.results["file"]["records"]
                .as_u64()
                .map_or("?".to_string(), thousands)
        })
        .collect();
    records.dedup();
    records
}

/// `keys.md`: the table (anchor `table`), then the machine, the rows per file, the
/// commits and dates of the runs (anchor `notes`).
pub fn markdown(runs: &[Run], series: &[Series]) -> String {
    let mut table = String::from("| engine |");
    for run in runs {
        table += &format!(" {} |", thousands(run.keys));
    }
    table += "\n|---|";
    table += &"---:|".repeat(runs.len());
    for x in series {
        table += &format!("\n| {} |", x.label);
        for run in runs {
            let cell = x.points.iter().find(|(keys, _)| *keys == run.keys);
            let cell = cell.map_or("–".to_string(), |(_, v)| thousands(v.round() as u64));
            table += &format!(" {cell} |");
        }
    }
    // Each commit and date once, with the keys it measured.
    let mut when: Vec<(String, Vec<String>)> = Vec::new();
    for run in runs {
        let started = s(&run.results["run"]["started_utc"]);
        let date = started.split_once('T').map_or(started, |(d, _)| d);
        let of_run = format!("commit {}, {date}", commit_short(&run.results));
        match when.iter_mut().find(|(w, _)| *w == of_run) {
            Some((_, keys)) => keys.push(thousands(run.keys)),
            None => when.push((of_run, vec![thousands(run.keys)])),
        }
    }
    let when: Vec<String> = when
        .iter()
        .map(|(w, keys)| format!("{w} ({} keys)", keys.join(", ")))
        .collect();
    let notes = format!(
        "Median MB/s of each run's rounds (MB = 10^6 bytes of input); a file of {} records \
         with N distinct keys in `category` (`gen --keys N`) per column, \
         `./bench.sh --keys N --record`. Machine: {}. Runs: {}.",
        records(runs).join(" or "),
        machines(runs).join("; "),
        when.join("; ")
    );
    format!(
        "<!-- MB/s against distinct keys, generated from {} by benchtool keys \
         (bench.sh --keys N --record): do not edit. -->\n\
         <!-- ANCHOR: table -->\n{table}\n<!-- ANCHOR_END: table -->\n\
         <!-- ANCHOR: notes -->\n{notes}\n<!-- ANCHOR_END: notes -->\n",
        runs.iter()
            .map(|r| format!("{}/results.json", folder_name(r)))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

fn folder_name(run: &Run) -> String {
    run.dir
        .file_name()
        .map_or("?".to_string(), |n| n.to_string_lossy().into_owned())
}

/// Writes `keys.svg` and `keys.md` of the recordings under `dir` into `dir`; returns
/// the paths written.
///
/// # Errors
/// [`read_runs`]'s when there is no recording to draw, [`Error::NoKeysTimes`] when
/// they have no engine with a time, [`Error::Draw`] or [`Error::Io`] when a file
/// cannot be written.
pub fn write(dir: &Path) -> Result<Vec<PathBuf>> {
    let runs = read_runs(dir)?;
    let series = series(&runs);
    if series.iter().all(|x| x.points.is_empty()) {
        let folders: Vec<String> = runs.iter().map(folder_name).collect();
        return Err(Error::NoKeysTimes {
            dir: dir.into(),
            folders,
        });
    }
    let svg = dir.join("keys.svg");
    chart::write_svg(&runs, &series, &svg)?;
    let md = dir.join("keys.md");
    std::fs::write(&md, markdown(&runs, &series)).map_err(Error::io(&md))?;
    Ok(vec![svg, md])
}

#[cfg(test)]
mod tests;
