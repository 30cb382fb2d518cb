//! The table: its answers against gen's exact reference and against the query over
//! the CSV, the same bytes on every thread count, every field read back as the CSV
//! had it, and the load's errors.

use std::path::{Path, PathBuf};

use gen_csv::{Config, generate_in_memory};
use harness::query::{Aggs, Groups, groups_to_json_with};

/// The answer with every aggregate (count, sum, min, max, mean), so that every
/// comparison of the table's answer with the CSV's covers them all.
fn groups_to_json(groups: &Groups) -> serde_json::Value {
    groups_to_json_with(groups, Aggs::ALL)
}
use step9::query::{self, Query, Split};
use step9::splayed::error::TableError;
use step9::splayed::load::{LoadOptions, load, parse_schema, temporary_dir};
use step9::splayed::scan::{Table, Value};
use step9::splayed::types::{ColumnType, parse_bool, parse_int};
use step9::splayed::{self, date};
use step9::value;

use crate::common::{files, step9, without_place};

/// A fresh directory path (not created) for a table.
fn table_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("step9-test-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn split(threads: usize, chunk: usize) -> LoadOptions {
    LoadOptions {
        split: Some(Split { threads, chunk }),
        ..LoadOptions::default()
    }
}

fn configs() -> Vec<Config> {
    let mut configs: Vec<Config> = (0..6)
        .map(|seed| Config {
            rows: 3_000,
            seed,
            quoted_pct: 10.0,
            crlf: seed % 2 == 1,
        })
        .collect();
    configs.push(Config {
        rows: 20_000,
        seed: 42,
        quoted_pct: 1.0,
        crlf: false,
    });
    configs
}

#[test]
fn exact_sums_of_gens_reference_and_the_csv_querys_json() {
    for config in configs() {
        let (csv, reference) = generate_in_memory(&config);
        let dir = table_dir(&format!("ref-{}", config.seed));
        load(&csv, &dir, &split(2, 8192)).unwrap();
        let groups = splayed::query::run(&Table::open(&dir).unwrap(), Query::default(), 2).unwrap();
        assert_eq!(groups.len(), reference.groups.len());
        for (key, r) in &reference.groups {
            let g = groups[key.as_bytes()];
            let exact: f64 = gen_csv::decimal_from_micros(r.sum_micros).parse().unwrap();
            assert_eq!(g.count, r.count, "seed {} {key}", config.seed);
            assert_eq!(
                g.sum.map(f64::to_bits),
                Some(exact.to_bits()),
                "seed {} {key}",
                config.seed
            );
        }
        let csv_groups = query::run_split(
            &csv,
            Query::default(),
            Split {
                threads: 2,
                chunk: 0,
            },
        )
        .unwrap();
        assert_eq!(groups_to_json(&groups), groups_to_json(&csv_groups));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn the_same_bytes_on_1_2_3_and_8_threads_and_any_chunks() {
    let (csv, _) = generate_in_memory(&Config {
        rows: 5_000,
        seed: 11,
        quoted_pct: 20.0,
        crlf: false,
    });
    let dir = table_dir("determinism");
    load(&csv, &dir, &split(1, 0)).unwrap();
    let expected = files(&dir);
    assert_eq!(
        expected.len(),
        15,
        "7 columns, 5 bitmaps, 2 symbol files, the manifest"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    for threads in [1, 2, 3, 8] {
        for chunk in [0, 997, 4096, 65_536] {
            load(&csv, &dir, &split(threads, chunk)).unwrap();
            let got = files(&dir);
            for ((name, bytes), (_, want)) in got.iter().zip(&expected) {
                assert!(
                    bytes == want,
                    "{name} differs on {threads} threads, chunks of {chunk}"
                );
            }
            assert_eq!(got.len(), expected.len());
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

/// Checks that every field of `csv` reads back from the table at `dir` as it was:
/// strings byte for byte, numbers bit for bit, empty fields of typed columns NULL.
fn assert_round_trip(csv: &[u8], dir: &Path) {
    let records = harness::spec::reference::parse(csv).unwrap();
    let table = Table::open(dir).unwrap();
    assert_eq!(table.manifest.rows as usize, records.len() - 1);
    for (k, column) in table.manifest.columns.iter().enumerate() {
        assert_eq!(column.name, records[0][k]);
        let files = table.column(k).unwrap();
        for (row, record) in records[1..].iter().enumerate() {
            let field = &record[k][..];
            let got = files.value(&table, row);
            let want = match column.ty {
                _ if field.is_empty() && column.ty.has_validity() => Value::Null,
                ColumnType::Int64 => Value::Int(parse_int(field).unwrap()),
                ColumnType::Decimal { .. } | ColumnType::Float64 => {
                    Value::Float(value::parse_value(field).unwrap().unwrap())
                }
                ColumnType::Date => Value::Date(date::parse(field).unwrap()),
                ColumnType::Bool => Value::Bool(parse_bool(field).unwrap()),
                ColumnType::String | ColumnType::Text => Value::Str(field),
            };
            let same = match (got, want) {
                (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
                (a, b) => a == b,
            };
            assert!(
                same,
                "row {row}, column {k} ({}): {got:?} vs {want:?}",
                column.ty
            );
        }
    }
}

#[test]
fn every_field_reads_back_as_the_csv_had_it() {
    for config in &configs()[..3] {
        let (csv, _) = generate_in_memory(config);
        let dir = table_dir(&format!("roundtrip-{}", config.seed));
        load(&csv, &dir, &split(3, 4096)).unwrap();
        assert_round_trip(&csv, &dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn every_type_nulls_and_edge_values_read_back() {
    let csv = b"i,d,f,day,b,s,e\n\
        1,-0.000,1e3,2024-02-29,true,x,\n\
        ,0.5,,,,,\n\
        -9223372036854775808,12.25,0.1,1970-01-01,false,\"a,\"\"b\"\"\",\n\
        7,-3,-0,,true,\xff,\n";
    let dir = table_dir("types");
    load(csv, &dir, &split(2, 7)).unwrap();
    let table = Table::open(&dir).unwrap();
    let types: Vec<String> = table.manifest.columns.iter().map(|c| c.ty.name()).collect();
    assert_eq!(
        types,
        [
            "int64",
            "decimal(3)",
            "float64",
            "date",
            "bool",
            "string",
            "string"
        ]
    );
    let nulls: Vec<u64> = table.manifest.columns.iter().map(|c| c.nulls).collect();
    assert_eq!(nulls, [1, 0, 1, 2, 1, 0, 0]);
    assert_round_trip(csv, &dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_sum_column_type_answers_as_the_csv_query() {
    let csv = b"k,i,d,f,s,n\na,1,-0.000,1e3,2.5,\nb,,0.5,,,\na,-4,12.25,0.1,1e-2,\n";
    let dir = table_dir("sums");
    load(csv, &dir, &split(2, 0)).unwrap();
    let table = Table::open(&dir).unwrap();
    for sum in ["i", "d", "f", "s", "n"] {
        let q = Query {
            group_by: "k",
            sum,
            ..Query::default()
        };
        let ours = groups_to_json(&splayed::query::run(&table, q, 3).unwrap());
        assert_eq!(ours, groups_to_json(&query::run(csv, q).unwrap()), "{sum}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn query_errors_are_step_7s() {
    let csv = b"k,v,day,flag\na,1,2024-01-01,true\nb,x,2024-01-02,false\na,y,,true\n";
    let dir = table_dir("query-errors");
    load(csv, &dir, &split(1, 0)).unwrap();
    let table = Table::open(&dir).unwrap();
    for (group_by, sum) in [
        ("k", "v"),
        ("k", "day"),
        ("k", "flag"),
        ("k", "nope"),
        ("nope", "v"),
    ] {
        let q = Query {
            group_by,
            sum,
            ..Query::default()
        };
        let TableError::Query(ours) = splayed::query::run(&table, q, 2).unwrap_err() else {
            panic!("{sum}: not a query error")
        };
        let theirs = query::run(csv, q).unwrap_err();
        assert_eq!(
            ours.to_json(),
            without_place(theirs.to_json()),
            "{group_by} {sum}"
        );
    }
    // A bool key groups as step 8 does (by its text).
    let q = Query {
        group_by: "flag",
        sum: "k",
        ..Default::default()
    };
    let ours = splayed::query::run(&table, q, 1).unwrap_err().to_json();
    assert_eq!(
        ours,
        without_place(query::run(csv, q).unwrap_err().to_json())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn load_errors_name_record_line_column_and_text() {
    let dir = table_dir("load-errors");
    let ragged = b"a,b\n1,2\n3\n";
    let e = load(ragged, &dir, &split(2, 3)).unwrap_err();
    assert_eq!(
        e.to_json(),
        query::run(
            ragged,
            Query {
                group_by: "a",
                sum: "b",
                ..Default::default()
            }
        )
        .unwrap_err()
        .to_json()
    );
    let csv = b"a,b\n1,2\n3,\"x\ny\"\n";
    let options = LoadOptions {
        split: Some(Split {
            threads: 2,
            chunk: 4,
        }),
        schema: parse_schema("b=int64").unwrap(),
        ..LoadOptions::default()
    };
    let e = load(csv, &dir, &options).unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"line 3 (record 2, byte 10), column "b": "x\ny" is not of type int64"#
    );
    assert!(
        !dir.exists() && !temporary_dir(&dir).exists(),
        "nothing left behind"
    );
    assert!(parse_schema("b=varchar").is_err());
    assert_eq!(
        parse_schema("b=int64,b=string").unwrap_err().to_string(),
        parse_schema("b=int64,a=bool,b=int64")
            .unwrap_err()
            .to_string()
    );
    assert!(
        parse_schema("b=int64,b=string")
            .unwrap_err()
            .to_string()
            .contains(r#"the column "b" is given a type twice"#)
    );
    assert!(parse_schema("b").is_err());
    let e = load(
        csv,
        &dir,
        &LoadOptions {
            schema: parse_schema("c=int64").unwrap(),
            ..split(1, 0)
        },
    );
    assert!(e.unwrap_err().to_string().contains("no column named \"c\""));
    let e = load(b"", &dir, &split(1, 0)).unwrap_err();
    assert!(e.to_string().contains("no header"), "{e}");
    // A schema can make a column a string, or any number a float64.
    let options = LoadOptions {
        schema: parse_schema("a=string,b=float64").unwrap(),
        ..split(1, 0)
    };
    load(b"a,b\n1,2\n", &dir, &options).unwrap();
    let types: Vec<_> = Table::open(&dir)
        .unwrap()
        .manifest
        .columns
        .iter()
        .map(|c| c.ty)
        .collect();
    assert_eq!(
        types,
        [ColumnType::String, ColumnType::Decimal { scale: 0 }]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_load_never_overwrites_and_an_unfinished_one_is_no_table() {
    let dir = table_dir("crash");
    std::fs::create_dir_all(&dir).unwrap();
    assert!(matches!(
        load(b"a\n1\n", &dir, &split(1, 0)),
        Err(TableError::Exists(_))
    ));
    // A directory with column files but no manifest: what a crash would leave.
    std::fs::write(dir.join("col0.values"), [0u8; 8]).unwrap();
    let e = Table::open(&dir).err().expect("no manifest, no table");
    assert!(e.to_string().contains("manifest.json"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
    // A column file of the wrong size is noticed.
    load(b"a,b\nx,1\n", &dir, &split(1, 0)).unwrap();
    std::fs::write(dir.join("col1.values"), [0u8; 4]).unwrap();
    let table = Table::open(&dir).unwrap();
    assert!(
        table
            .column(1)
            .err()
            .unwrap()
            .to_string()
            .contains("the manifest says 8")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_rectangular_conformance_case_loads_and_reads_back() {
    let mut loaded = 0;
    for case in harness::gate::cases::load_all().unwrap() {
        let Ok(records) = harness::spec::reference::parse(&case.input) else {
            continue;
        };
        let Some(width) = records.first().map(Vec::len) else {
            continue;
        };
        if records.iter().any(|r| r.len() != width) {
            continue;
        }
        let dir = table_dir(&format!("case-{loaded}"));
        for threads in [1, 3] {
            load(&case.input, &dir, &split(threads, 5)).unwrap();
            assert_round_trip(&case.input, &dir);
            std::fs::remove_dir_all(&dir).unwrap();
        }
        loaded += 1;
    }
    assert!(loaded > 30, "only {loaded} cases");
}

#[test]
fn group_by_int_date_and_bool_columns_as_the_csv_query() {
    let (mut csv, _) = generate_in_memory(&Config {
        rows: 4_000,
        seed: 5,
        quoted_pct: 5.0,
        crlf: false,
    });
    csv.extend_from_slice(b"4000,books,1.5,x,,,\n"); // NULL keys: the key ""
    let dir = table_dir("group-by-types");
    load(&csv, &dir, &split(2, 3000)).unwrap();
    let table = Table::open(&dir).unwrap();
    for (group_by, sum) in [
        ("flag", "value"),
        ("date", "qty"),
        ("qty", "value"),
        ("id", "qty"),
    ] {
        let q = Query {
            group_by,
            sum,
            ..Query::default()
        };
        let ours = groups_to_json(&splayed::query::run(&table, q, 3).unwrap());
        assert_eq!(
            ours,
            groups_to_json(&query::run(&csv, q).unwrap()),
            "{group_by}"
        );
    }
    let q = Query {
        group_by: "value",
        sum: "qty",
        ..Default::default()
    };
    let e = splayed::query::run(&table, q, 1).unwrap_err();
    assert!(e.to_string().contains("--schema value=string"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_hash_index_groups_rows_by_first_occurrence_on_any_thread_count() {
    let (csv, _) = generate_in_memory(&Config {
        rows: 3_000,
        seed: 4,
        quoted_pct: 10.0,
        crlf: false,
    });
    let records = harness::spec::reference::parse(&csv).unwrap();
    let dir = table_dir("index");
    for (column, k) in [("category", 1), ("flag", 6), ("date", 4)] {
        // The obvious grouping of the CSV's fields, in order of first occurrence.
        let mut order: Vec<&[u8]> = Vec::new();
        let mut rows: std::collections::HashMap<&[u8], Vec<u64>> = Default::default();
        for (row, r) in records[1..].iter().enumerate() {
            let key = &r[k][..];
            if !rows.contains_key(key) {
                order.push(key);
            }
            rows.entry(key).or_default().push(row as u64);
        }
        let expected_rows: Vec<u64> = order.iter().flat_map(|key| rows[key].clone()).collect();
        let mut first_files = None;
        for threads in [1, 2, 3, 8] {
            let options = LoadOptions {
                index: Some(column.to_string()),
                ..split(threads, 4096)
            };
            load(&csv, &dir, &options).unwrap();
            let table = Table::open(&dir).unwrap();
            let index = table.index(k).unwrap().expect("an index");
            assert_eq!(index.groups(), order.len(), "{column}");
            let got_rows: Vec<u64> = (0..index.groups())
                .flat_map(|g| index.rows_of(g).chunks_exact(8))
                .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
                .collect();
            assert_eq!(got_rows, expected_rows, "{column} on {threads} threads");
            let files = files(&dir);
            assert_eq!(
                *first_files.get_or_insert_with(|| files.clone()),
                files,
                "{column}"
            );
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

#[test]
fn sums_past_an_i64_of_units_are_exact_on_any_thread_count() {
    // The scan adds a decimal or integer column in its own units, in an i64 per
    // group (splayed/units.rs), and folds that into the exact sum when it would
    // overflow: these values overflow it every few rows, on either side, with NULLs
    // and a -0 between them, and must still give the CSV query's answer.
    let mut csv = b"k,i,d\n".to_vec();
    for j in 0..3_000u64 {
        let key = ["a", "b", "c"][(j % 3) as usize];
        let big = 9_223_372_036_854_775_807 - j * 7919;
        let (i, d) = match j % 5 {
            0 => (
                format!("{big}"),
                format!("{}.{:04}", big / 10_000, big % 10_000),
            ),
            1 => (
                format!("-{big}"),
                format!("-{}.{:04}", big / 10_000, big % 10_000),
            ),
            2 => (String::new(), "-0.0000".to_string()),
            _ => (
                format!("{}", big / 3),
                format!("{}.{:04}", big / 30_000, j % 10_000),
            ),
        };
        csv.extend_from_slice(format!("{key},{i},{d}\n").as_bytes());
    }
    let dir = table_dir("units");
    load(&csv, &dir, &split(2, 0)).unwrap();
    let table = Table::open(&dir).unwrap();
    assert_eq!(table.manifest.columns[1].ty, ColumnType::Int64);
    assert_eq!(
        table.manifest.columns[2].ty,
        ColumnType::Decimal { scale: 4 }
    );
    for sum in ["i", "d"] {
        let q = Query {
            group_by: "k",
            sum,
            ..Query::default()
        };
        let csv_answer = groups_to_json(&query::run(&csv, q).unwrap());
        for threads in [1, 2, 3, 8] {
            let ours = groups_to_json(&splayed::query::run(&table, q, threads).unwrap());
            assert_eq!(ours, csv_answer, "{sum} on {threads} threads");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_decimal_column_sums_the_texts_not_their_f64s() {
    use step9::exact::{ExactSum, Number};
    // The exact sum of the two f64s rounds to another f64 than the exact sum of the
    // two decimals: a table of f64s could not give step 8's answer.
    let mut of_f64s = ExactSum::default();
    of_f64s.add(Number::Float(72.1));
    of_f64s.add(Number::Float(32.1));
    assert_eq!(of_f64s.to_f64(), 104.19999999999999);
    let csv = b"k,v\na,72.1\na,32.1\n";
    let dir = table_dir("texts");
    load(csv, &dir, &split(1, 0)).unwrap();
    let table = Table::open(&dir).unwrap();
    assert_eq!(
        table.manifest.columns[1].ty,
        ColumnType::Decimal { scale: 1 }
    );
    let q = Query {
        group_by: "k",
        sum: "v",
        ..Default::default()
    };
    let groups = splayed::query::run(&table, q, 1).unwrap();
    assert_eq!(groups[&b"a"[..]].sum, Some(104.2));
    assert_eq!(
        groups_to_json(&groups),
        groups_to_json(&query::run(csv, q).unwrap())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Writes `gen`'s bench layout of `rows` rows (seed `seed`) to `path`.
fn write_generated(path: &Path, rows: u64, seed: u64) {
    let (bytes, _) = generate_in_memory(&Config {
        rows,
        seed,
        quoted_pct: 2.0,
        crlf: false,
    });
    std::fs::write(path, bytes).unwrap();
}

/// The staging directories beside `dir` (`.NAME.loading-PID`).
fn stagings(dir: &Path) -> Vec<String> {
    let prefix = format!(".{}.loading-", dir.file_name().unwrap().to_str().unwrap());
    let mut found: Vec<String> = std::fs::read_dir(dir.parent().unwrap())
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.starts_with(&prefix))
        .collect();
    found.sort();
    found
}

#[test]
fn an_interrupted_load_removes_its_staging_and_the_next_load_a_killed_ones() {
    let dir = table_dir("killed");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 300_000, 7);
    let load = |dir: &Path| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_step9"));
        command
            .args(["load", "--threads", "1", "--no-guess"])
            .arg(&csv)
            .arg(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        command
    };

    // A load started, once it has made its staging directory.
    let started = || {
        let child = load(&dir).spawn().unwrap();
        let start = std::time::Instant::now();
        while stagings(&dir).is_empty() && start.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        child
    };
    // Ctrl-C (SIGINT) and SIGTERM: the load removes its staging directory and says so.
    for signal in ["-INT", "-TERM"] {
        let child = started();
        let staging = dir.with_file_name(&stagings(&dir)[0]);
        let sent = std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{signal}: {stderr}");
        assert!(
            stderr.contains(&format!("interrupted: removed {}", staging.display())),
            "{signal}: {stderr}"
        );
        assert!(stagings(&dir).is_empty() && !dir.exists(), "{signal}");
    }
    // kill -9: no handler runs, and the staging directory stays.
    let mut child = started();
    child.kill().unwrap();
    child.wait().unwrap();
    let left = stagings(&dir);
    assert_eq!(left.len(), 1, "a killed load leaves its staging: {left:?}");
    assert!(!dir.exists(), "and no table under the table's name");
    // A staging directory of a load still running (process 1 always runs) is kept.
    let running = dir.with_file_name(format!(
        ".{}.loading-1",
        dir.file_name().unwrap().to_str().unwrap()
    ));
    std::fs::create_dir(&running).unwrap();
    let out = load(&dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "removed {}",
            dir.with_file_name(&left[0]).display()
        )) && stderr.contains("a load that no longer runs"),
        "the load says what it removed: {stderr}"
    );
    assert_eq!(
        stagings(&dir),
        [running.file_name().unwrap().to_str().unwrap()]
    );
    assert!(Table::open(&dir).is_ok(), "the second load's table");
    std::fs::remove_dir_all(&running).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}

#[test]
fn the_bench_refuses_a_missing_tmpdir_and_does_not_create_it() {
    let csv = table_dir("tmpdir").with_extension("csv");
    std::fs::write(&csv, b"category,value\na,1\nb,2\n").unwrap();
    let missing = std::env::temp_dir().join(format!("step9-no-such-tmp-{}", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_step9"))
        .arg(&csv)
        .args(["--runs", "1"])
        .env("TMPDIR", &missing)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the scratch directory {} (TMPDIR) does not exist",
            missing.display()
        )),
        "{stderr}"
    );
    assert!(!missing.exists(), "TMPDIR was created");
    std::fs::remove_file(&csv).unwrap();
}

#[test]
fn a_load_where_it_cannot_write_says_so_and_leaves_nothing() {
    let base = table_dir("unwritable");
    std::fs::create_dir(&base).unwrap();
    let csv = base.join("in.csv");
    std::fs::write(&csv, b"category,value\na,1\nb,2\n").unwrap();
    // A folder that is a file: refused on any account, root's included.
    let file = base.join("a-file");
    std::fs::write(&file, b"").unwrap();
    let mut targets = vec![file.join("table")];
    // A folder without write permission: only a user other than root is refused.
    // SAFETY: `geteuid` reads the process's user id and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let read_only = base.join("read-only");
    std::fs::create_dir(&read_only).unwrap();
    if !root {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o555)).unwrap();
        targets.push(read_only.join("table"));
    }
    for target in &targets {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_step9"))
            .arg("load")
            .arg(&csv)
            .arg(target)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", target.display());
        assert!(
            stderr.contains("cannot write"),
            "{}: {stderr}",
            target.display()
        );
        assert!(!target.exists(), "{}", target.display());
    }
    let left: Vec<_> = std::fs::read_dir(&read_only).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    if !root {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_damaged_table_is_refused_never_read() {
    let dir = table_dir("damaged");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 400, 3);
    let os = |s: &str| std::ffi::OsString::from(s);
    let loaded = step9(&[
        &os("load"),
        csv.as_os_str(),
        dir.as_os_str(),
        &os("--index"),
        &os("category"),
    ]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let query = |d: &Path| {
        step9(&[
            &os("query"),
            d.as_os_str(),
            &os("--json"),
            &os("--agg"),
            &os("count,sum,min,max,mean"),
        ])
    };
    let intact = query(&dir);
    assert_eq!(intact.0, Some(0), "{intact:?}");
    let verified = step9(&[&os("verify"), dir.as_os_str()]);
    assert_eq!(verified.0, Some(0), "{verified:?}");
    assert!(
        verified
            .1
            .contains("every size and checksum matches, and every value"),
        "{verified:?}"
    );
    // Each damage in a copy: `verify` refuses it, and the query refuses it or, when
    // the damage is in a file it does not read, gives the intact answer.
    let copy = dir.with_file_name(format!(
        "{}-copy",
        dir.file_name().unwrap().to_str().unwrap()
    ));
    let check = |what: &str, damage: &dyn Fn(&Path)| {
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir(&copy).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
        }
        damage(&copy);
        let verified = step9(&[&os("verify"), copy.as_os_str()]);
        assert_eq!(verified.0, Some(1), "{what}: {verified:?}");
        assert!(
            verified.2.contains("is not a complete table"),
            "{what}: {verified:?}"
        );
        let queried = query(&copy);
        match queried.0 {
            Some(0) => assert_eq!(queried.1, intact.1, "{what}: a different answer"),
            _ => {
                assert_eq!(queried.0, Some(1), "{what}: {queried:?}");
                assert!(queried.1.contains("not_a_table"), "{what}: {queried:?}");
            }
        }
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    names.sort();
    for name in &names {
        let len = std::fs::metadata(dir.join(name)).unwrap().len() as usize;
        for at in [0, len / 3, len / 2, len.saturating_sub(1)] {
            for bit in [0, 7] {
                check(&format!("{name}: bit {bit} of byte {at}"), &|d: &Path| {
                    let mut b = std::fs::read(d.join(name)).unwrap();
                    b[at] ^= 1 << bit;
                    std::fs::write(d.join(name), b).unwrap();
                });
            }
        }
        if name != "manifest.json" {
            check(&format!("{name} shortened"), &|d: &Path| {
                let b = std::fs::read(d.join(name)).unwrap();
                std::fs::write(d.join(name), &b[..b.len() - 1]).unwrap();
            });
            check(&format!("{name} removed"), &|d: &Path| {
                std::fs::remove_file(d.join(name)).unwrap();
            });
        }
    }
    // Every number of the manifest, one more or one less.
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let numbers: Vec<(usize, usize)> = manifest
        .char_indices()
        .filter(|&(i, c)| {
            c.is_ascii_digit() && !manifest[..i].ends_with(|p: char| p.is_ascii_digit())
        })
        .map(|(i, _)| {
            (
                i,
                manifest[i..].find(|c: char| !c.is_ascii_digit()).unwrap() + i,
            )
        })
        .collect();
    assert!(numbers.len() > 20, "{manifest}");
    for &(start, end) in &numbers {
        for delta in [1i64, -1] {
            let n: i64 = manifest[start..end].parse().unwrap_or(0);
            let edited = format!(
                "{}{}{}",
                &manifest[..start],
                (n + delta).max(0),
                &manifest[end..]
            );
            if edited == manifest {
                continue;
            }
            check(
                &format!("manifest {start}..{end} {delta:+}"),
                &|d: &Path| {
                    std::fs::write(d.join("manifest.json"), &edited).unwrap();
                },
            );
        }
    }
    // A column file from another table of as many rows.
    let other = dir.with_file_name(format!(
        "{}-other",
        dir.file_name().unwrap().to_str().unwrap()
    ));
    let other_csv = other.with_extension("csv");
    write_generated(&other_csv, 400, 4);
    let loaded = step9(&[
        &os("load"),
        other_csv.as_os_str(),
        other.as_os_str(),
        &os("--index"),
        &os("category"),
    ]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    for name in ["col2.values", "col1.values", "symbols.bytes"] {
        check(&format!("{name} of another table"), &|d: &Path| {
            std::fs::copy(other.join(name), d.join(name)).unwrap();
        });
    }
    for d in [&dir, &copy, &other] {
        std::fs::remove_dir_all(d).unwrap();
    }
    std::fs::remove_file(&csv).unwrap();
    std::fs::remove_file(&other_csv).unwrap();
}

/// Writes the CRC-32 of every file of the table at `dir` into its manifest, and the
/// manifest's own, as a program that writes tables of its own would: so that a test
/// can damage a table and leave its checksums matching.
fn reseal(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    use step9::splayed::manifest::checksum;
    let path = dir.join("manifest.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut json);
    let names: Vec<String> = json["files"].as_object().unwrap().keys().cloned().collect();
    for name in names {
        json["files"][&name] = checksum(&std::fs::read(dir.join(&name)).unwrap()).into();
    }
    json.as_object_mut().unwrap().remove("checksum");
    let crc = checksum(json.to_string().as_bytes());
    json["checksum"] = crc.into();
    std::fs::write(&path, json.to_string()).unwrap();
}

#[test]
fn a_table_whose_checksums_match_is_still_checked_for_its_bounds() {
    // Damage that a checksum cannot see, since the checksums were written after it:
    // every bound a query relies on is checked before it is used, so each is a
    // not_a_table error naming what is wrong, never a panic, an abort or a signal.
    let dir = table_dir("sealed");
    let csv = dir.with_extension("csv");
    let rows = "a,1,x,p,true,2024-01-01\nb,2,y,q,false,2024-01-02\na,3,y,r,,\nc,,x,s,true,\n";
    std::fs::write(&csv, format!("k,v,w,t,b,d\n{rows}")).unwrap();
    let d = dir.to_str().unwrap();
    let fresh = || {
        let _ = std::fs::remove_dir_all(&dir);
        let loaded = step9(&["load", csv.to_str().unwrap(), d, "--schema", "t=text"]);
        assert_eq!(loaded.0, Some(0), "{loaded:?}");
    };
    let poke = |name: &str, at: usize, bytes: &[u8]| {
        let mut b = std::fs::read(dir.join(name)).unwrap();
        b[at..at + bytes.len()].copy_from_slice(bytes);
        std::fs::write(dir.join(name), b).unwrap();
    };
    let refused = |what: &str, why: &str| {
        let verified = step9(&["verify", d]);
        assert_eq!(verified.0, Some(1), "{what}: verify {verified:?}");
        assert!(verified.2.contains(why), "{what}: verify {verified:?}");
        for extra in [&[][..], &["--where", "w=y"], &["--where", "w=y", "--scan"]] {
            let mut args = vec!["query", d, "--group-by", "k", "--sum", "v", "--json"];
            args.extend(extra);
            let queried = step9(&args);
            assert_eq!(queried.0, Some(1), "{what} {extra:?}: {queried:?}");
            assert!(
                queried.1.contains("not_a_table"),
                "{what} {extra:?}: {queried:?}"
            );
            assert!(queried.1.contains(why), "{what} {extra:?}: {queried:?}");
        }
    };
    // The query's array has id_bound entries a thread: a bound past the symbols
    // would allocate without limit, or index past the symbol file.
    fresh();
    let symbols = std::fs::metadata(dir.join("symbols.offsets"))
        .unwrap()
        .len()
        / 8
        - 1;
    for bound in [u64::from(u32::MAX), symbols + 1] {
        fresh();
        reseal(&dir, |m| m["columns"][0]["id_bound"] = bound.into());
        refused(
            &format!("id_bound {bound}"),
            &format!("past the table's {symbols} symbols"),
        );
    }
    // A symbol id past the bound, in the key column: on the fast path and on the
    // --where path alike.
    fresh();
    poke("col0.values", 8, &7u32.to_le_bytes());
    reseal(&dir, |_| {});
    refused(
        "a symbol id past the bound",
        "holds a symbol id past the bound",
    );
    // Symbol offsets that go back.
    fresh();
    poke("symbols.offsets", 8, &1000u64.to_le_bytes());
    reseal(&dir, |_| {});
    refused("symbol offsets out of order", "ends before it starts");
    // So many rows that rows x width wraps around to the files' real sizes.
    fresh();
    reseal(&dir, |m| m["rows"] = ((1u64 << 62) + 1).into());
    refused("2^62 + 1 rows", "more than a file can hold");
    // A NULL count that the validity bits do not have: only `verify` reads them all.
    fresh();
    reseal(&dir, |m| m["columns"][1]["nulls"] = 0.into());
    let verified = step9(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(verified.2.contains("col1.valid"), "{verified:?}");
    // A text whose offsets go back: `verify` refuses it.
    fresh();
    poke("col3.values", 0, &9u32.to_le_bytes());
    reseal(&dir, |_| {});
    let verified = step9(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(verified.2.contains("ends before it starts"), "{verified:?}");
    // Symbols that no string field could hold: the query's arrays would be as long.
    fresh();
    reseal(&dir, |m| m["symbols"] = 1000.into());
    refused("1000 symbols", "more than the table's string fields");
    // A file of the manifest's that is not in the table's directory.
    fresh();
    let outside = format!("../{}", csv.file_name().unwrap().to_str().unwrap());
    reseal(&dir, |m| m["files"][&outside] = 0.into());
    refused(
        "a file outside",
        "is not a file name of the table's directory",
    );
    // A manifest too large to be one is not read.
    fresh();
    let mut big = std::fs::read(dir.join("manifest.json")).unwrap();
    big.resize(65 << 20, b' ');
    std::fs::write(dir.join("manifest.json"), big).unwrap();
    refused("a 65 MiB manifest", "is too large for one");
    // A validity bit past the last row could stand in for a cleared one.
    fresh();
    poke("col1.valid", 1, &[0x04]);
    reseal(&dir, |_| {});
    let verified = step9(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(
        verified.2.contains("a bit is set past the last row"),
        "{verified:?}"
    );
    // Values no load writes, which a query would group by as they are: `verify`
    // refuses them.
    let odd = |what: &str, file: &str, at: usize, bytes: &[u8]| {
        fresh();
        poke(file, at, bytes);
        reseal(&dir, |_| {});
        let verified = step9(&["verify", d]);
        assert_eq!(verified.0, Some(1), "{what}: {verified:?}");
        assert!(
            verified.2.contains("holds a value no load writes"),
            "{what}: {verified:?}"
        );
    };
    odd("a bool of 7", "col4.values", 0, &[7]);
    odd(
        "a date of i32::MIN",
        "col5.values",
        0,
        &i32::MIN.to_le_bytes(),
    );
    odd("bytes under a NULL", "col4.values", 2, &[1]);
    // A float's exact value that is another number than its f64.
    let floats = dir.with_extension("floats.csv");
    std::fs::write(&floats, b"k,f\na,0.1\nb,2.5e3\na,-7.25\n").unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let loaded = step9(&["load", floats.to_str().unwrap(), d, "--schema", "f=float64"]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    assert_eq!(step9(&["verify", d]).0, Some(0));
    poke("col1.exact", 32, &1i128.to_le_bytes());
    reseal(&dir, |_| {});
    let verified = step9(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(
        verified.2.contains("col1.exact: row 3 is not the number"),
        "{verified:?}"
    );
    std::fs::remove_file(&floats).unwrap();
    // The hash index: its row numbers index the columns, its offsets its row list.
    let indexed = |what: &str, damage: &dyn Fn(), why: &str| {
        let _ = std::fs::remove_dir_all(&dir);
        let loaded = step9(&[
            "load",
            csv.to_str().unwrap(),
            d,
            "--index",
            "w",
            "--schema",
            "t=text",
        ]);
        assert_eq!(loaded.0, Some(0), "{loaded:?}");
        damage();
        let verified = step9(&["verify", d]);
        assert_eq!(verified.0, Some(1), "{what}: verify {verified:?}");
        assert!(verified.2.contains(why), "{what}: verify {verified:?}");
        for value in ["x", "y"] {
            let filter = format!("w={value}");
            let args = [
                "query",
                d,
                "--group-by",
                "k",
                "--sum",
                "v",
                "--json",
                "--where",
            ];
            let queried = step9(&[&args[..], &[filter.as_str()]].concat());
            assert_eq!(queried.0, Some(1), "{what} {filter}: {queried:?}");
            assert!(queried.1.contains(why), "{what} {filter}: {queried:?}");
        }
    };
    indexed(
        "an index row past the table",
        &|| {
            poke("col2.index.rows", 24, &1000u64.to_le_bytes());
            reseal(&dir, |_| {});
        },
        "a row number past the bound",
    );
    indexed(
        "index offsets that go back",
        &|| {
            poke("col2.index.offsets", 8, &(1u64 << 63).to_le_bytes());
            reseal(&dir, |_| {});
        },
        "the index's offsets go back",
    );
    indexed(
        "an index on a text column",
        &|| {
            for part in ["offsets", "rows", "slots"] {
                let (from, to) = (format!("col2.index.{part}"), format!("col3.index.{part}"));
                std::fs::rename(dir.join(&from), dir.join(&to)).unwrap();
            }
            reseal(&dir, |m| {
                m["index"] = 3.into();
                let files = m["files"].as_object_mut().unwrap();
                for part in ["offsets", "rows", "slots"] {
                    let crc = files.remove(&format!("col2.index.{part}")).unwrap();
                    files.insert(format!("col3.index.{part}"), crc);
                }
            });
        },
        "an index on a text column",
    );
    // An index whose groups traded rows (x's rows are 1 and 4, y's 2 and 3; now
    // the first group holds rows 1 and 2): `verify` finds a row not of its group.
    let _ = std::fs::remove_dir_all(&dir);
    let loaded = step9(&["load", csv.to_str().unwrap(), d, "--index", "w"]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let list: Vec<u8> = [0u64, 1, 2, 3]
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .collect();
    std::fs::write(dir.join("col2.index.rows"), list).unwrap();
    reseal(&dir, |_| {});
    let verified = step9(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(
        verified.2.contains("is not of group 0's value"),
        "{verified:?}"
    );
    // And the intact table, sealed again, is read as before.
    fresh();
    let before = step9(&["query", d, "--group-by", "k", "--sum", "v", "--json"]);
    reseal(&dir, |_| {});
    assert_eq!(step9(&["verify", d]).0, Some(0));
    let after = step9(&["query", d, "--group-by", "k", "--sum", "v", "--json"]);
    assert_eq!((before.0, &before.1), (Some(0), &after.1), "{after:?}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}

#[test]
fn a_first_query_checks_each_block_of_what_it_reads_before_adding_it() {
    // Enough rows for several blocks a range on every thread count: the first query
    // of an open table takes the checks of the two files it reads (`units.rs`) as it
    // reads them; the next reads the files it checked.
    let dir = table_dir("first-query");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 100_000, 5);
    let loaded = step9(&["load", csv.to_str().unwrap(), dir.to_str().unwrap()]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let input = std::fs::read(&csv).unwrap();
    let expected = groups_to_json(&query::run(&input, Query::default()).unwrap());
    for threads in [1, 2, 3, 8] {
        let table = Table::open(&dir).unwrap();
        for run in ["first", "second"] {
            let groups = splayed::query::run(&table, Query::default(), threads).unwrap();
            assert_eq!(
                groups_to_json(&groups),
                expected,
                "{threads} threads, {run}"
            );
        }
    }
    let refused = |what: &str, name: &str, why: &str| {
        for threads in [1, 2, 3] {
            let table = Table::open(&dir).unwrap();
            // A refused file is not kept as checked: the next query refuses it too.
            for run in ["first", "second"] {
                let e = splayed::query::run(&table, Query::default(), threads).unwrap_err();
                let TableError::NotATable(_, message) = &e else {
                    panic!("{what}, {threads} threads, {run}: {e:?}");
                };
                assert!(
                    message.contains(name) && message.contains(why),
                    "{what}, {threads} threads, {run}: {message}"
                );
            }
        }
    };
    // One bit of the last block of each file (the values' `i64`s, the keys' ids).
    for name in ["col2.values", "col1.values"] {
        let intact = std::fs::read(dir.join(name)).unwrap();
        let mut damaged = intact.clone();
        let at = damaged.len() - 3;
        damaged[at] ^= 0x10;
        std::fs::write(dir.join(name), &damaged).unwrap();
        refused(
            &format!("a bit of {name}"),
            name,
            "does not match its checksum",
        );
        std::fs::write(dir.join(name), &intact).unwrap();
    }
    // A symbol id past the bound in the last block, its checksum written again: the
    // block is not added (its id would index past the groups) and the query fails.
    let mut ids = std::fs::read(dir.join("col1.values")).unwrap();
    let at = ids.len() - 4;
    ids[at..].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(dir.join("col1.values"), &ids).unwrap();
    reseal(&dir, |_| {});
    refused(
        "an id past the bound",
        "col1.values",
        "a symbol id past the bound",
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}
