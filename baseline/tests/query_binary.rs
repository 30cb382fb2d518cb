//! `baseline --query`: the answer with `--json`, the measurement with `--row-json`,
//! and a clear error, like step 5's binary. Each run passes the gate and the survey
//! first (some seconds in a debug build), so each test makes one run.

use std::process::{Command, Output};

fn baseline(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baseline"))
        .args(args)
        .args(["--query", "--runs", "2"])
        .output()
        .unwrap()
}

/// Asserts that the run exited with status 0, else shows its standard error.
fn succeeded(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("baseline-bin-{name}-{}.csv", std::process::id()))
}

#[test]
fn json_prints_the_answer() {
    let path = temp_path("answer");
    std::fs::write(&path, "id,category,value\n1,a,1.5\n2,b,\n3,a,2\n").unwrap();
    let out = baseline(&[path.as_os_str(), "--json".as_ref()]);
    std::fs::remove_file(&path).unwrap();
    succeeded(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"{"a":{"count":2,"sum":3.5},"b":{"count":1,"sum":null}}"#
    );
}

#[test]
fn row_json_prints_the_measurement_and_checks_the_reference() {
    let path = temp_path("row");
    let config = gen_csv::Config {
        rows: 3_000,
        ..Default::default()
    };
    let reference = gen_csv::write_files(&config, &path).unwrap();
    let out = baseline(&[path.as_os_str(), "--row-json".as_ref()]);
    std::fs::remove_file(gen_csv::reference_path(&path)).unwrap();
    std::fs::remove_file(&path).unwrap();
    succeeded(&out);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["query"], true);
    // Built in the test's profile; bench.sh refuses any row that is not "release".
    let build = if cfg!(debug_assertions) {
        "dev"
    } else {
        "release"
    };
    assert_eq!(json["build"], build);
    assert_eq!(json["answer_matches_reference"], true);
    assert_eq!(json["groups"], reference.groups.len());
    assert_eq!(json["runs"], 2);
    assert_eq!(json["bytes"], reference.bytes);
    assert_eq!(json["fingerprint"]["records"], config.rows + 1);
    assert_eq!(json["fingerprint_matches_reference"], true);
    assert!(json["best_s"].as_f64().unwrap() > 0.0);
    assert!(json.get("speedup_over_step1").is_none(), "{json}");
}

#[test]
fn an_error_says_where_and_exits_non_zero() {
    let path = temp_path("bad");
    std::fs::write(&path, "category,value\na,1\nb,x1\n").unwrap();
    let out = baseline(&[path.as_os_str(), "--json".as_ref()]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"{"byte":19,"column":"value","error":"invalid_number","line":3,"record":2,"text":"x1"}"#
    );
    let out = baseline(&["/no/such/file.csv".as_ref()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /no/such/file.csv"));
}
