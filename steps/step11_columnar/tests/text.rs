//! `text` columns: strings stored as they are, chosen by the load for a large column
//! whose values hardly repeat (or asked for with `--schema`). The choice and the
//! files are the same on any number of threads and chunk sizes; every value reads
//! back as the CSV had it; a GROUP BY and a SUM over a text column answer as step
//! 10's query over the CSV does.

use std::path::PathBuf;

use harness::query::{Aggs, groups_to_json_with};
use step11::parallel::Split;
use step11::query::Query;
use step11::splayed::infer::TEXT_MIN_VALUES;
use step11::splayed::load::{LoadOptions, load, parse_schema};
use step11::splayed::query::run;
use step11::splayed::scan::{SplayedTable, Value};
use step11::splayed::types::ColumnType;

use crate::common::{files, without_place};

fn table_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("step11-text-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn options(threads: usize, chunk: usize, schema: &str) -> LoadOptions {
    LoadOptions {
        split: Some(Split { threads, chunk }),
        schema: parse_schema(schema).unwrap(),
        ..LoadOptions::default()
    }
}

#[test]
fn distinct_names_are_text_on_any_threads_and_chunks_and_read_back() {
    let (csv, _) = gen_csv::generate_in_memory(&gen_csv::Config {
        rows: TEXT_MIN_VALUES + 4_000,
        seed: 5,
        quoted_pct: 5.0,
        crlf: false,
    });
    let dir = table_dir("inferred");
    load(&csv, &dir, &options(1, 0, "")).unwrap();
    let expected = files(&dir);
    assert!(expected.iter().any(|(name, _)| name == "col3.text"));
    let table = SplayedTable::open(&dir).unwrap();
    let types: Vec<ColumnType> = table.manifest.columns.iter().map(|c| c.ty).collect();
    assert_eq!(types[1], ColumnType::String, "category repeats: interned");
    assert_eq!(types[3], ColumnType::Text, "name hardly repeats: text");
    let records = harness::reference::parse(&csv).unwrap();
    let names = table.column(3).unwrap();
    for (row, record) in records[1..].iter().enumerate() {
        assert_eq!(
            names.value(&table, row),
            Value::Str(&record[3]),
            "row {row}"
        );
    }
    drop(table);
    std::fs::remove_dir_all(&dir).unwrap();
    for (threads, chunk) in [(2, 0), (3, 997), (2, 65_536)] {
        load(&csv, &dir, &options(threads, chunk, "")).unwrap();
        assert!(
            files(&dir) == expected,
            "{threads} threads, chunks of {chunk}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A column of distinct numbers up to a name in its last record is a string column
/// of distinct values, `text`, however the chunks fall: pass 1 sketched none of the
/// numbers while they were numbers, and sketches them again once the name comes.
#[test]
fn a_column_that_stops_being_numbers_at_its_last_record_is_text() {
    let rows = TEXT_MIN_VALUES + 1_000;
    let mut csv = b"n,k\n".to_vec();
    for i in 0..rows {
        csv.extend_from_slice(format!("{},{}\n", i * 7, i % 3).as_bytes());
    }
    csv.extend_from_slice(b"unknown,0\n");
    let dir = table_dir("late");
    let mut expected = None;
    for (threads, chunk) in [(1, 0), (2, 0), (3, 4_099), (2, 65_536)] {
        load(&csv, &dir, &options(threads, chunk, "")).unwrap();
        let table = SplayedTable::open(&dir).unwrap();
        let types: Vec<ColumnType> = table.manifest.columns.iter().map(|c| c.ty).collect();
        assert_eq!(
            types,
            [ColumnType::Text, ColumnType::Int64],
            "{threads} threads"
        );
        assert_eq!(table.column(0).unwrap().value(&table, 5), Value::Str(b"35"));
        drop(table);
        let files = files(&dir);
        assert!(expected.get_or_insert_with(|| files.clone()) == &files);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Keys with delimiters, quotes, line breaks, a non-UTF-8 byte and empty fields;
/// numbers as text; `k` and `n` loaded as text by `--schema`.
const CSV: &[u8] = b"k,n,v\n\
    a,1.5,1\n\
    \"b,\"\"c\"\"\",-2,2\n\
    ,,3\n\
    a,x,4\n\
    \xff,1e3,5\n\
    \"line\nbreak\",0.25,6\n\
    a,,7\n";

#[test]
fn group_by_and_sum_over_text_answer_as_the_csv_query() {
    let dir = table_dir("queries");
    load(CSV, &dir, &options(2, 7, "k=text,n=text")).unwrap();
    let table = SplayedTable::open(&dir).unwrap();
    assert!(
        table
            .manifest
            .columns
            .iter()
            .take(2)
            .all(|c| c.ty == ColumnType::Text && c.nulls == 0)
    );
    let json = |groups| groups_to_json_with(&groups, Aggs::ALL).to_string();
    for (group_by, sum) in [("k", "v"), ("v", "k"), ("k", "n"), ("n", "v")] {
        let q = Query {
            group_by,
            sum,
            ..Query::default()
        };
        let csv = step11::run(CSV, q)
            .map(json)
            .map_err(|e| without_place(e.to_json()));
        for threads in [1, 3] {
            let ours = run(&table, q, threads).map(json).map_err(|e| e.to_json());
            assert_eq!(
                ours, csv,
                "GROUP BY {group_by}, SUM({sum}), {threads} threads"
            );
        }
    }
    drop(table);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_null_text_in_a_text_column_is_the_empty_key_as_in_the_csv_query() {
    let csv = b"k,v\nNA,1\na,2\n,3\nNA,4\na,NA\n";
    let nulls = vec!["NA".to_string()];
    let dir = table_dir("nulls");
    let mut opts = options(2, 5, "k=text");
    opts.nulls = nulls.clone();
    load(csv, &dir, &opts).unwrap();
    let table = SplayedTable::open(&dir).unwrap();
    let q = Query {
        group_by: "k",
        sum: "v",
        nulls: &nulls,
        ..Query::default()
    };
    let json = |groups| groups_to_json_with(&groups, Aggs::ALL).to_string();
    let ours = json(run(&table, q, 2).unwrap());
    assert_eq!(ours, json(step11::run(csv, q).unwrap()));
    assert!(
        ours.contains(r#""":{"count":3"#),
        "NA and the empty key: {ours}"
    );
    drop(table);
    std::fs::remove_dir_all(&dir).unwrap();
}
