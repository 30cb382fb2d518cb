use super::*;
use serde_json::json;

/// The figure `name` of a generated file, as mdBook includes it: the lines between
/// the markers, joined by line breaks, marker lines dropped.
fn anchored(file: &str, name: &str) -> String {
    let start = format!("ANCHOR: {name}");
    let end = format!("ANCHOR_END: {name}");
    let is = |line: &str, tag: &str| {
        line.split_once(tag).is_some_and(|(_, rest)| {
            rest.chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'))
        })
    };
    let mut lines = Vec::new();
    let mut inside = false;
    for line in file.lines() {
        if is(line, &start) {
            inside = true;
        } else if is(line, &end) {
            return lines.join("\n");
        } else if inside && !line.contains("ANCHOR") {
            lines.push(line);
        }
    }
    panic!("no anchor {name} in\n{file}");
}

fn run(step: &str, number: u64, mb: f64, times: [f64; 2]) -> Value {
    json!({"step": step, "number": number, "mb_per_s": mb, "best_s": 100.0 / mb,
           "bytes": 100_000_000, "runs": 2, "times_s": times})
}

fn small_results() -> Value {
    json!({
        "machine": {"cpu": "Intel(R) Xeon(R) Processor (family 6, model 207)",
                    "cpu_name": "Intel(R) Xeon(R) Processor", "cpu_family": "6",
                    "cpu_model": "207", "cores": "2", "memory": "23.5 GiB",
                    "os": "Linux 6.1.0"},
        "toolchain": "rustc 1.95.0 (59807616e 2026-04-14)",
        "run": {"command": "./bench.sh --rows 20000000 --threads 2", "kind": "bench-20000000",
                "started_utc": "2026-12-03T09:28:11Z", "finished_utc": "2026-12-03T09:43:50Z",
                "commit": "abc1234def5678", "dirty": false, "in_process": 3},
        "file": {"path": "data/bench-20000000.csv", "bytes": 1_017_800_000u64, "mb": 1017.8,
                 "records": 20_000_001u64, "line_ending": "LF"},
        "runs_per_row": 2,
        "rows": [
            {"label": "1 step1", "role": "step", "step": "step1", "number": 1, "idea": "lines",
             "mb_per_s": 134.2, "best_s": 7.58, "first_run_mb_per_s": 127.0, "mrows_per_s": 2.64,
             "allocs_per_pass": 232_268_225u64, "x_step1": 1.0, "x_step1_of": "MB/s",
             "fraction_of_limit": 0.0145, "threads": 1,
             "runs": [run("step1", 1, 130.0, [0.8, 0.77]), run("step1", 1, 134.2, [0.78, 0.745])]},
            {"label": "5 step5", "role": "step", "step": "step5", "number": 5, "idea": "typed",
             "mb_per_s": 945.0, "best_s": 1.077, "first_run_mb_per_s": 879.0, "mrows_per_s": 18.6,
             "allocs_per_pass": 61, "peak_heap_bytes_per_pass": 2_034_567_890u64,
             "x_step1": 7.25, "x_step1_of": "query",
             "fraction_of_limit": 0.1018, "threads": 1,
             "runs": [run("step5", 5, 945.0, [0.12, 0.11]), run("step5", 5, 912.0, [0.12, 0.11])]},
            {"label": "6 step6", "role": "step", "step": "step6", "number": 6, "idea": "bitmaps",
             "mb_per_s": 1860.4, "best_s": 0.547, "first_run_mb_per_s": 1586.0, "mrows_per_s": 36.6,
             "allocs_per_pass": 61, "x_step1": 14.9, "x_step1_of": "query",
             "fraction_of_limit": 0.2004, "threads": 1,
             "runs": [run("step6", 6, 1860.4, [0.06, 0.054]), run("step6", 6, 1849.0, [0.06, 0.055])]},
            {"label": "polars 2.1.0", "role": "peer", "step": "polars", "number": 0,
             "version": "2.1.0", "idea": "p", "query": true, "mb_per_s": 935.0, "best_s": 1.09,
             "first_run_mb_per_s": null, "mrows_per_s": 18.4, "allocs_per_pass": null,
             "x_step1": null, "fraction_of_limit": 0.1007, "threads": 2,
             "runs": [{"mb_per_s": 917.0}, {"mb_per_s": 935.0}]},
            {"label": "limit, 1 core", "role": "limit", "step": "limit", "number": 0,
             "idea": "LF count", "mb_per_s": 9285.0, "best_s": 0.11, "first_run_mb_per_s": null,
             "mrows_per_s": 183.1, "allocs_per_pass": 0, "x_step1": 69.5,
             "fraction_of_limit": 1.0, "threads": 1,
             "runs": [{"mb_per_s": 9285.0}, {"mb_per_s": 8818.0}]},
            {"label": "limit, 2 threads", "role": "limit", "step": "limit", "number": 0,
             "idea": "LF count", "mb_per_s": 12756.0, "best_s": 0.08, "mrows_per_s": 251.5,
             "allocs_per_pass": 8, "fraction_of_limit": 1.374, "threads": 2,
             "runs": [{"mb_per_s": 12756.0}, {"mb_per_s": 12001.0}]},
        ],
    })
}

#[test]
fn figures_md_has_one_anchor_per_figure_from_a_small_results_json() {
    let results = small_results();
    let figures = figures(&results);
    let get = |name: &str| anchored(&figures, name);
    assert_eq!(get("step6_mbps"), "1,860");
    assert_eq!(get("step6_gbps"), "1.86");
    assert_eq!(get("step6_x_step1"), "14.9");
    assert_eq!(get("step5_x_step1"), "7.2"); // as the table rounds it
    assert_eq!(get("step6_vs_step5"), "1.97");
    assert_eq!(get("step6_vs_step5_rounds"), "1.97, 2.03");
    assert_eq!(get("step6_vs_step1"), "13.86");
    assert_eq!(get("step6_vs_polars"), "1.99");
    assert_eq!(get("step6_of_limit"), "20%");
    assert_eq!(get("step6_first_mbps"), "1,586");
    assert_eq!(get("step6_first_below"), "15%");
    assert_eq!(get("step6_rounds"), "1,860, 1,849");
    assert_eq!(get("step1_allocs"), "232,268,225");
    assert_eq!(get("step5_peak_mb"), "2,035");
    assert!(!figures.contains("ANCHOR: step1_peak_mb\n"));
    assert_eq!(get("polars_mbps"), "935");
    assert_eq!(get("polars_threads"), "2");
    assert_eq!(get("polars_version"), "2.1.0");
    assert_eq!(get("limit_mbps"), "9,285");
    assert_eq!(get("limit_threads_mbps"), "12,756");
    assert_eq!(get("limit_threads_threads"), "2");
    assert_eq!(
        get("machine"),
        "Intel(R) Xeon(R) Processor (family 6 model 207), 2 cores, 23.5 GiB, rustc 1.95.0, \
         2026-12-03, commit abc1234"
    );
    assert_eq!(
        get("file"),
        "data/bench-20000000.csv, 1,017.8 MB, 20,000,001 records"
    );
    assert_eq!(get("time"), "2026-12-03, 09:28–09:43 UTC");
    assert_eq!(get("command"), "./bench.sh --rows 20000000 --threads 2");
    assert_eq!(get("rustc"), "1.95.0");
    // A peer has no allocation count: no figure rather than a dash.
    assert!(!figures.contains("ANCHOR: polars_allocs\n"));
    // Every marker on a line of its own, every name once.
    let mut names = Vec::new();
    for line in figures.lines().filter(|l| l.contains("ANCHOR")) {
        let (tag, name) = line.split_once(": ").unwrap();
        assert!(tag == "ANCHOR" || tag == "ANCHOR_END", "{line}");
        if tag == "ANCHOR" {
            names.push(name);
        }
    }
    let count = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), count, "a figure name twice");
}

#[test]
fn the_table_s_preamble_names_the_run() {
    let mut results = small_results();
    results["machine"]["os_release"] = "Debian GNU/Linux 12 (bookworm)".into();
    results["machine"]["cpu_features"] = "sse2 avx2".into();
    let preamble = report::preamble(&results);
    assert!(
        preamble.starts_with(
            "- Machine: Intel(R) Xeon(R) Processor (family 6, model 207), 2 cores, 23.5 GiB \
             memory (Linux 6.1.0, Debian GNU/Linux 12 (bookworm)); SIMD: sse2 avx2\n"
        ),
        "{preamble}"
    );
    assert!(
        preamble.contains("- File: `data/bench-20000000.csv`: 20,000,001 records, 1,017.8 MB"),
        "{preamble}"
    );
    assert!(
        preamble.ends_with(
            "; 3 timed runs in each step's process\n- Run: 2026-12-03, 09:28–09:43 UTC, \
             commit abc1234, `./bench.sh --rows 20000000 --threads 2`\n"
        ),
        "{preamble}"
    );
}

#[test]
fn a_dirty_tree_is_named_in_the_machine_line() {
    let mut results = small_results();
    results["run"]["dirty"] = true.into();
    assert!(
        anchored(&figures(&results), "machine")
            .ends_with("commit abc1234 with uncommitted changes")
    );
}

#[test]
fn rows_md_builds_a_table_of_chosen_rows() {
    let rows = rows(&small_results());
    let table = [
        anchored(&rows, "header"),
        anchored(&rows, "step5"),
        anchored(&rows, "step6"),
    ]
    .join("\n");
    assert_eq!(
        table,
        "| step | idea added | MB/s | first run MB/s | Mrows/s | heap allocs/pass | x step 1 | % of limit |\n\
         |---|---|---:|---:|---:|---:|---:|---:|\n\
         | 5 step5 | typed | 945 | 879 | 18.6 | 61 | 7.2* | 10% |\n\
         | 6 step6 | bitmaps | 1,860 | 1,586 | 36.6 | 61 | 14.9* | 20% |"
    );
    let rounds = anchored(&rows, "rounds");
    assert!(
        rounds.starts_with(
            "| row | round 1 | round 2 | best | first run |\n|---|---:|---:|---:|---:|\n"
        ),
        "{rounds}"
    );
    assert!(
        rounds.contains("| 6 step6 | 1,860 | 1,849 | 1,860 | 1,586 |"),
        "{rounds}"
    );
    assert!(
        rounds.contains("| polars 2.1.0 | 917 | 935 | 935 | – |"),
        "{rounds}"
    );
}

#[test]
fn decimals_carry_thousands_separators() {
    assert_eq!(decimal(1017.84, 1), "1,017.8");
    assert_eq!(decimal(49.3, 1), "49.3");
    assert_eq!(decimal(12.0, 0), "12");
}
