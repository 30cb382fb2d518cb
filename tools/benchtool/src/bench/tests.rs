use std::path::Path;

use serde_json::json;

use super::file::Input;
use super::machine::{from_cpuinfo, utc, utc_now};
use super::options::Options;
use super::options::tests::options;
use super::peers::pins;
use super::rows::{RowSpec, Step, rows, select, step};
use super::run::{Checks, Outcome, outcome, program};
use crate::error::{BenchError, Error};
use crate::report::Role;

fn ladder() -> Vec<Step> {
    let mut steps: Vec<Step> = [1, 2, 5, 9, 10, 12]
        .map(|n| {
            step(
                n,
                &format!("[package]\nname = \"step{n}\"\nversion = \"0.1.0\"\n"),
            )
        })
        .to_vec();
    steps[5] = step(
        12,
        "[package]\nname = \"step12\"\n\n[package.metadata.tutorial]\nbench = \"not by default\"\n",
    );
    steps
}

fn numbers(steps: &[Step]) -> Vec<u32> {
    steps.iter().map(|s| s.number).collect()
}

#[test]
fn the_steps_asked_for_in_ladder_order() {
    let all = ladder();
    assert_eq!(all[0].package, "step1");
    assert!(all[5].not_by_default && !all[4].not_by_default);
    assert_eq!(
        numbers(&select(&all, &options("")).unwrap()),
        [1, 2, 5, 9, 10]
    );
    assert_eq!(
        numbers(&select(&all, &options("--steps 12,5,1,5")).unwrap()),
        [1, 5, 12]
    );
    assert_eq!(
        numbers(&select(&all, &options("--1brc")).unwrap()),
        [5, 9, 10]
    );
    assert_eq!(
        numbers(&select(&all, &options("--keys 10")).unwrap()),
        [1, 5, 9, 10]
    );
    let named = |line: &str| select(&all, &options(line)).unwrap_err().to_string();
    assert_eq!(named("--steps 1,x"), "--steps: 'x' is not a step number");
    assert_eq!(named("--steps 1,,2"), "--steps: '' is not a step number");
    assert_eq!(
        named("--steps 3"),
        "--steps: there is no step 3 (steps: 1 2 5 9 10 12)"
    );
    assert_eq!(
        named("--1brc --steps 1,2"),
        "--1brc runs the query steps (5 and later); --steps named none"
    );
}

fn helps(names: &[&str]) -> Vec<(String, String)> {
    // Step 10 takes --threads and prints --row-json; step 1 has neither.
    names
        .iter()
        .map(|n| {
            let help = if *n == "step1" {
                "--json"
            } else {
                "--row-json --threads N"
            };
            (n.to_string(), help.to_string())
        })
        .collect()
}

fn tags(rows: &[RowSpec]) -> Vec<String> {
    rows.iter().map(RowSpec::tag).collect()
}

#[test]
fn the_rows_of_a_round() {
    let quick = rows(
        &options("--quick"),
        &helps(&["step1", "step10"]),
        None,
        false,
    );
    assert_eq!(
        tags(&quick),
        ["step1", "step10", "baseline", "baseline-query", "limit"]
    );
    assert_eq!((quick[0].flag, quick[1].flag), ("--json", "--row-json"));
    assert_eq!(quick[3].options, ["--query"]);
    let o = options("--threads 2 --peers");
    let all = rows(&o, &helps(&["step1", "step10"]), Some(2), true);
    assert_eq!(
        tags(&all),
        [
            "step1",
            "step10",
            "step10-1thread",
            "baseline",
            "baseline-query",
            "baseline-simd",
            "limit",
            "limit-2",
            "polars",
            "duckdb",
            "pyarrow"
        ]
    );
    assert_eq!(all[7].options, ["--threads", "2"]);
    // The peers asked for but not installed: the simd-csv query still runs.
    assert_eq!(rows(&o, &helps(&["step1"]), Some(2), false).len(), 6);
    let brc = rows(&options("--1brc 100"), &helps(&["step5"]), None, false);
    assert_eq!(tags(&brc), ["step5", "limit"]);
    assert_eq!(brc[0].options, ["--format", "1brc"]);
    let keys = rows(
        &options("--keys 10"),
        &helps(&["step1", "step5"]),
        None,
        false,
    );
    assert_eq!(tags(&keys), ["step1", "step5", "baseline-query", "limit"]);
}

#[test]
fn each_row_runs_its_own_program() {
    let (bin, root, file) = (
        Path::new("/t/release"),
        Path::new("/r"),
        Path::new("data/b.csv"),
    );
    let all = rows(
        &options("--threads 2 --peers"),
        &helps(&["step10"]),
        Some(2),
        true,
    );
    let line = |i: usize, passes| {
        let (program, args) = program(&all[i], bin, root, file, passes);
        format!("{} {}", program.display(), args.join(" "))
    };
    assert_eq!(
        line(1, 3),
        "/t/release/step10 --threads 1 data/b.csv --row-json --runs 3"
    );
    assert_eq!(
        line(4, 1),
        "/t/release/baseline --query --simd-csv data/b.csv --row-json --runs 1"
    );
    assert_eq!(
        line(6, 20),
        "/t/release/benchtool limit --threads 2 data/b.csv --json --runs 20"
    );
    assert_eq!(
        line(7, 1),
        "/r/target/peers/venv/bin/python /r/tools/peers/peers.py polars data/b.csv --json --runs 1"
    );
}

fn row(role: Role, name: &str) -> RowSpec {
    RowSpec {
        role,
        name: name.to_string(),
        flag: "--json",
        options: Vec::new(),
    }
}

#[test]
fn what_a_run_printed() {
    let (file, log) = (Path::new("f.csv"), Path::new("l.log"));
    let failed = r#"{"peer": "polars", "failed": "wrong answer: sport"}"#;
    // A peer's wrong answer is a row that says so, whatever its exit status.
    let peer = row(Role::Peer, "polars");
    let got = outcome(&peer, Some("exit status 1".into()), failed, file, log).unwrap();
    assert!(matches!(got, Outcome::Failed(v) if v["failed"] == "wrong answer: sport"));
    let step = row(Role::Step, "step5");
    let e = outcome(&step, Some("exit status 1".into()), failed, file, log).unwrap_err();
    assert_eq!(
        e.to_string(),
        "step5 failed (exit status 1) on f.csv: its gate or its pass failed; log: l.log"
    );
    let e = outcome(&step, None, "gate failed\n", file, log).unwrap_err();
    assert!(matches!(e, BenchError::RunFailed { ref status, .. } if status == "exit status 0"));
    let e = outcome(&step, None, r#"{"mb_per_s": 3}"#, file, log).unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"step5 printed no measurement with --json (no best_s in its JSON): {"mb_per_s": 3}"#
    );
    let got = outcome(&step, None, "{\"best_s\": 0.5}\n", file, log).unwrap();
    assert_eq!(got, Outcome::Measured(json!({"best_s": 0.5})));
}

#[test]
fn every_step_parses_the_file_as_the_first_did() {
    let (file, log) = (Path::new("f.csv"), Path::new("l.log"));
    let fp = |records: u64| json!({"fingerprint": {"records": records, "fields": 7, "bytes": 9}});
    let mut checks = Checks::default();
    checks
        .check(&row(Role::Step, "step1"), &fp(10), file, log)
        .unwrap();
    checks
        .check(&row(Role::Step, "step2"), &fp(10), file, log)
        .unwrap();
    checks
        .check(&row(Role::Baseline, "baseline"), &fp(10), file, log)
        .unwrap();
    assert_eq!(checks.baseline_note, None);
    checks
        .check(&row(Role::Baseline, "baseline"), &fp(11), file, log)
        .unwrap();
    assert!(
        checks
            .baseline_note
            .as_deref()
            .unwrap()
            .starts_with("the baseline's fingerprint differs from step1's")
    );
    let e = checks
        .check(&row(Role::Step, "step5"), &fp(11), file, log)
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("step5's fingerprint differs from step1's on f.csv: ")
    );
    assert_eq!(checks.answer_note, None);
    let wrong = json!({"fingerprint": fp(10)["fingerprint"], "table_query": {"answer_matches_reference": false}});
    checks
        .check(&row(Role::Step, "step11"), &wrong, file, log)
        .unwrap();
    assert_eq!(
        checks.answer_note.as_deref(),
        Some("step11's answer is not gen's reference for f.csv (see l.log)")
    );
}

#[test]
fn the_file_each_option_measures() {
    let quick = Input::of(&options("--quick"));
    assert_eq!(quick.file, Path::new("target/bench/quick/quick.csv"));
    assert!(quick.always);
    let keys = Input::of(&options("--keys 2000000"));
    assert_eq!(keys.file, Path::new("data/bench-keys-2000000.csv"));
    assert_eq!(
        keys.generate.unwrap().join(" "),
        "--keys 2000000 --rows 2000000 --out data/bench-keys-2000000.csv"
    );
    let keys = Input::of(&options("--keys 10"));
    assert_eq!(keys.generate.unwrap()[3], "1000000");
    let quoted = Input::of(&options("--quoted --rows 5"));
    assert_eq!(quoted.file, Path::new("data/bench-quoted-5.csv"));
    assert_eq!(quoted.out_dir, Path::new("target/bench/quoted"));
    let bench = Input::of(&Options::default());
    assert_eq!(
        (bench.file, bench.out_dir),
        ("data/bench.csv".into(), "target/bench".into())
    );
}

#[test]
fn the_machine_from_proc_cpuinfo() {
    let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 167\n\
                   model name\t: Intel(R) Xeon(R) CPU\nflags\t\t: fpu sse2 avx2 bmi2 pclmulqdq\n";
    let m = from_cpuinfo(cpuinfo);
    assert_eq!(m.cpu(), "Intel(R) Xeon(R) CPU (family 6, model 167)");
    assert_eq!(m.cpu_features, "sse2 avx2 pclmulqdq bmi2");
    assert_eq!(from_cpuinfo("Features\t: fp asimd\n").cpu_features, "asimd");
    let now = utc_now();
    assert!(
        now.len() == 20 && now.ends_with('Z') && now.as_bytes()[10] == b'T',
        "{now}"
    );
    // `date -u -d @1764754091 +%Y-%m-%dT%H:%M:%SZ`, and the first second of a leap day.
    assert_eq!(utc(1_764_754_091), "2025-12-03T09:28:11Z");
    assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(
        pins("# pinned\npolars==1.0\nduckdb==1.1\n"),
        "polars==1.0 duckdb==1.1 "
    );
}

#[test]
fn bench_errors_are_the_crate_s() {
    let e: Error = BenchError::NoSteps.into();
    assert_eq!(
        e.to_string(),
        "no steps found under steps/ (crates steps/stepN_*)"
    );
}
