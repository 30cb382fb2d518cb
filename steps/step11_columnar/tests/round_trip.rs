//! The table against gen's exact reference and against step 10's query over the CSV:
//! the same bytes on any thread count and chunk size, every field read back as the
//! CSV had it (every rectangular conformance case included), and the same answers
//! and query errors as the CSV query's.

use std::path::Path;

use gen_csv::{Config, generate_in_memory};
use step11::parallel::{self, Split};
use step11::query::Query;
use step11::splayed::error::TableError;
use step11::splayed::load::load;
use step11::splayed::scan::{SplayedTable, Value};
use step11::splayed::types::{ColumnType, parse_bool, parse_int};
use step11::splayed::{self, date};
use step11::value;

use crate::common::{files, groups_to_json, split, table_dir, without_place};

/// gen's files the round trips load: six small ones, LF and CRLF, and a larger one.
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
        let groups =
            splayed::query::run(&SplayedTable::open(&dir).unwrap(), Query::default(), 2).unwrap();
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
        let csv_groups = parallel::run_split(
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
    let records = harness::reference::parse(csv).unwrap();
    let table = SplayedTable::open(dir).unwrap();
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
    let table = SplayedTable::open(&dir).unwrap();
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
    let table = SplayedTable::open(&dir).unwrap();
    for sum in ["i", "d", "f", "s", "n"] {
        let q = Query {
            group_by: "k",
            sum,
            ..Query::default()
        };
        let ours = groups_to_json(&splayed::query::run(&table, q, 3).unwrap());
        assert_eq!(ours, groups_to_json(&step11::run(csv, q).unwrap()), "{sum}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn query_errors_are_step_7s() {
    let csv = b"k,v,day,flag\na,1,2024-01-01,true\nb,x,2024-01-02,false\na,y,,true\n";
    let dir = table_dir("query-errors");
    load(csv, &dir, &split(1, 0)).unwrap();
    let table = SplayedTable::open(&dir).unwrap();
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
        let theirs = step11::run(csv, q).unwrap_err();
        assert_eq!(
            ours.to_json(),
            without_place(theirs.to_json()),
            "{group_by} {sum}"
        );
    }
    // A bool key groups as step 10 does (by its text).
    let q = Query {
        group_by: "flag",
        sum: "k",
        ..Default::default()
    };
    let ours = splayed::query::run(&table, q, 1).unwrap_err().to_json();
    assert_eq!(
        ours,
        without_place(step11::run(csv, q).unwrap_err().to_json())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_rectangular_conformance_case_loads_and_reads_back() {
    let mut loaded = 0;
    for case in harness::gate::cases::load_all().unwrap() {
        let Ok(records) = harness::reference::parse(&case.input) else {
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
