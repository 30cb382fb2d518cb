use serde_json::{Value, json};

use super::*;

fn run(role: &str, step: &str, number: u32, best_s: f64, mb_per_s: f64) -> String {
    json!({"role": role, "result": {"step": step, "number": number, "idea": "i", "build": "release",
        "best_s": best_s, "mb_per_s": mb_per_s, "mrows_per_s": 1.0, "allocs_per_pass": 1234,
        "fingerprint": {"records": 3, "fields": 3, "bytes": 3}}})
    .to_string()
}

/// The rows of `lines` (the runs file: a run's JSON a line) and their labels, in
/// table order.
fn labelled(lines: &str) -> (Vec<Row>, Vec<String>) {
    let rows = rows(lines).unwrap();
    let labels = rows.iter().map(Row::label).collect();
    (rows, labels)
}

/// The ids of the rows of `results`, in table order.
fn row_ids(results: &Value) -> Vec<String> {
    let rows = results["rows"].as_array().unwrap();
    rows.iter().map(crate::figures::row_id).collect()
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
    let (rows, labels) = labelled(&lines);
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
    let query =
        run("baseline", "baseline", 0, 0.2, 250.0).replace("\"idea\"", "\"query\":true,\"idea\"");
    let lines = [
        query.clone(),
        run("baseline", "baseline", 0, 0.1, 500.0),
        run("step", "step1", 1, 0.5, 100.0),
        run("limit", "limit", 0, 0.01, 5000.0),
        query.replace("250.0", "200.0").replace("0.2,", "0.25,"),
    ]
    .join("\n");
    let (rows, labels) = labelled(&lines);
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
    let (rows, labels) = labelled(&lines);
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
    let step9 = run("step", "step9", 8, 0.4, 125.0).replace("\"idea\"", "\"threads\":2,\"idea\"");
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
    let (rows, labels) = labelled(&lines);
    assert_eq!(labels, ["7 step7", "9 step9, 1 thread", "9 step9"]);
    assert_eq!(rows[1].runs.len(), 2);
    assert_eq!(rows[1].best()["best_s"], 0.35);
    assert_eq!(rows[2].best()["best_s"], 0.2);
    let results = results(&Meta::default(), json!({}), &rows);
    let ids = row_ids(&results);
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
    let (rows, labels) = labelled(&lines);
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
    let ids = row_ids(&results);
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
    // A slowdown keeps two decimals: 0.06, never 0.0.
    assert_eq!(crate::report::times(0.057), "0.06");
    assert_eq!(crate::report::times(12.46), "12.5");
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
    let csv =
        run("baseline", "baseline", 0, 0.2, 250.0).replace("\"idea\"", "\"query\":true,\"idea\"");
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
