use super::*;
use serde_json::json;

/// A row of `results.json` with its rounds' MB/s.
fn row(role: &str, step: &str, number: u64, label: &str, rounds: &[f64]) -> Value {
    let runs: Vec<Value> = rounds.iter().map(|m| json!({"mb_per_s": m})).collect();
    let best = rounds.iter().copied().fold(0.0, f64::max);
    json!({"role": role, "step": step, "number": number, "label": label,
        "query": role != "step", "threads": 1, "mb_per_s": best, "runs": runs})
}

/// A fresh folder under the system's temporary one, named after the test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("benchtool-keys-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn record(dir: &Path, folder: &str, commit: &str, rows: Vec<Value>) {
    let results = json!({
        "machine": {"cpu": "Test CPU", "cores": "4", "memory": "8.0 GiB"},
        "run": {"started_utc": "2026-12-03T09:28:11Z", "commit": commit, "dirty": false},
        "file": {"records": 1_000_000},
        "rows": rows,
    });
    std::fs::create_dir_all(dir.join(folder)).unwrap();
    std::fs::write(dir.join(folder).join("results.json"), results.to_string()).unwrap();
}

#[test]
fn a_line_and_a_table_row_per_engine_of_the_plain_recordings() {
    let dir = temp_dir("two");
    let failed = json!({"role": "peer", "step": "pyarrow", "number": 0,
        "label": "pyarrow 1.0", "mb_per_s": null, "failed": "wrong answer", "runs": [{}]});
    record(
        &dir,
        "keys-10",
        "aaaaaaaaaaaa",
        vec![
            row("step", "step1", 1, "1 step1", &[100.0, 120.0, 110.0]),
            row("step", "step5", 5, "5 step5", &[700.0, 900.0, 750.0]),
            row(
                "baseline",
                "baseline",
                0,
                "baseline query (csv crate)",
                &[300.0],
            ),
            row("peer", "polars", 0, "polars 1.0", &[1000.0, 2000.0]),
            failed,
            row("limit", "limit", 0, "limit, 1 core", &[9000.0]),
        ],
    );
    record(
        &dir,
        "keys-1000",
        "bbbbbbbbbbbb",
        vec![
            row("step", "step5", 5, "5 step5", &[500.0]),
            row("step", "step1", 1, "1 step1", &[90.0]),
            row("peer", "polars", 0, "polars 1.1", &[1200.0]),
            row("peer", "pyarrow", 0, "pyarrow 1.0", &[400.0]),
        ],
    );
    // Another length of file, and a folder of another kind: not drawn.
    record(
        &dir,
        "keys-100-20000",
        "cccccccccccc",
        vec![row("step", "step6", 6, "6 step6", &[1.0])],
    );
    std::fs::create_dir_all(dir.join("bench")).unwrap();

    write(&dir).unwrap();
    let md = std::fs::read_to_string(dir.join("keys.md")).unwrap();
    let svg = std::fs::read_to_string(dir.join("keys.svg")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();

    let table = md
        .split("<!-- ANCHOR: table -->\n")
        .nth(1)
        .and_then(|rest| rest.split("\n<!-- ANCHOR_END: table -->").next())
        .expect("the table between its anchors");
    assert_eq!(
        table,
        "| engine | 10 | 1,000 |\n\
         |---|---:|---:|\n\
         | 1 step1 | 110 | 90 |\n\
         | 5 step5 | 750 | 500 |\n\
         | baseline query (csv crate) | 300 | – |\n\
         | polars 1.1 | 1,500 | 1,200 |\n\
         | pyarrow 1.0 | – | 400 |"
    );
    for text in [
        "<!-- ANCHOR: notes -->",
        "Test CPU, 4 cores, 8.0 GiB",
        "commit aaaaaaa, 2026-12-03 (10 keys)",
        "commit bbbbbbb, 2026-12-03 (1,000 keys)",
        "1,000,000 records",
    ] {
        assert!(md.contains(text), "keys.md lacks {text:?}:\n{md}");
    }
    // A line per series, and its stretch in the legend: both 2 px wide.
    let lines = svg.matches("<polyline").count();
    let series_lines = svg
        .split("<polyline")
        .skip(1)
        .filter(|p| p.contains("stroke-width=\"2\""))
        .count();
    assert!(lines > series_lines, "the axes are polylines too");
    assert_eq!(series_lines, 2 * 5, "{svg}");
    for text in [
        "Test CPU",
        "polars 1.1",
        "MB/s, log scale",
        "distinct keys",
        "1k",
    ] {
        assert!(svg.contains(text), "keys.svg lacks {text:?}");
    }
    assert!(!svg.contains("limit") && !svg.contains("6 step6"));
}

#[test]
fn without_plain_recordings_the_most_common_length_is_drawn() {
    let dir = temp_dir("rows");
    let step1 = |mbps| vec![row("step", "step1", 1, "1 step1", &[mbps])];
    record(&dir, "keys-10-5000", "a", step1(1.0));
    record(&dir, "keys-10-20000", "a", step1(2.0));
    record(&dir, "keys-1000-20000", "a", step1(3.0));
    let runs = read_runs(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let drawn: Vec<_> = runs.iter().map(|r| (r.keys, r.rows)).collect();
    assert_eq!(drawn, [(10, Some(20000)), (1000, Some(20000))]);
    assert_eq!(series(&runs)[0].points, [(10, 2.0), (1000, 3.0)]);
}

#[test]
fn no_recording_is_a_clear_error() {
    let dir = temp_dir("empty");
    let empty = write(&dir).unwrap_err().to_string();
    assert!(empty.contains("no keys-N folder"), "{empty}");
    std::fs::create_dir_all(dir.join("keys-10")).unwrap();
    let missing = write(&dir).unwrap_err().to_string();
    assert!(missing.contains("keys-10/results.json"), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
    let gone = write(&dir).unwrap_err().to_string();
    assert!(gone.contains(&dir.display().to_string()), "{gone}");
}

#[test]
fn folder_names() {
    assert_eq!(parse_folder("keys-10"), Some((10, None)));
    assert_eq!(parse_folder("keys-10-20000"), Some((10, Some(20000))));
    assert_eq!(parse_folder("keys-x"), None);
    assert_eq!(parse_folder("keys-10-"), None);
    assert_eq!(parse_folder("bench-10"), None);
}

/// A load step's own row (its load) is no series: its table query is.
#[test]
fn a_load_step_is_drawn_by_its_table_query() {
    let mut query = row("step", "step11", 11, "11 step11, table query", &[900.0]);
    query["part"] = "table query".into();
    let rows = vec![
        row("step", "step9", 9, "9 step9", &[300.0]),
        row("step", "step11", 11, "11 step11", &[120.0]),
        query,
    ];
    let runs = [Run {
        dir: PathBuf::from("keys-1000"),
        keys: 1000,
        rows: None,
        results: json!({"rows": rows}),
    }];
    let labels: Vec<String> = series(&runs).into_iter().map(|s| s.label).collect();
    assert_eq!(labels, ["9 step9", "11 step11, table query"]);
}
