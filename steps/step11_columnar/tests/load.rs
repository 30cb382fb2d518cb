//! The load's and the table query's errors: an error names the record, line, column
//! and text; an option that cannot be honoured exits 2, a failed query 1; the query
//! over a table offers only its own options; a table query's error names its record.
//! Where a load writes, and what it leaves behind, is `staging.rs`'s.

use step11::parallel::Split;
use step11::query::Query;
use step11::splayed::load::{LoadOptions, load, parse_schema, temporary_dir};
use step11::splayed::scan::SplayedTable;
use step11::splayed::types::ColumnType;

use crate::common::{split, step11, table_dir};

#[test]
fn load_errors_name_record_line_column_and_text() {
    let dir = table_dir("load-errors");
    let ragged = b"a,b\n1,2\n3\n";
    let e = load(ragged, &dir, &split(2, 3)).unwrap_err();
    assert_eq!(
        e.to_json(),
        step11::run(
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
    let types: Vec<_> = SplayedTable::open(&dir)
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
fn an_option_that_cannot_be_honoured_exits_2_and_a_failed_query_1() {
    let dir = table_dir("cli");
    let csv = dir.with_extension("csv");
    std::fs::write(&csv, b"id,category,qty\n1,a,7\n2,b,8\n3,a,9\n").unwrap();
    let (csv_arg, dir_arg) = (csv.to_str().unwrap(), dir.to_str().unwrap());
    let loaded = step11(&["load", csv_arg, dir_arg]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let query = |extra: &[&str]| {
        let mut args = vec!["query", dir_arg, "--sum", "qty", "--json", "--verbose"];
        args.extend(extra);
        step11(&args)
    };
    let answer = query(&["--runs", "2"]);
    assert_eq!(answer.0, Some(0), "{answer:?}");
    assert_eq!(
        answer.1.trim(),
        r#"{"a":{"count":2,"sum":16.0},"b":{"count":1,"sum":8.0}}"#
    );
    assert_eq!(
        answer.2.matches("every row (3) in").count(),
        2,
        "{answer:?}"
    );
    // As clap's refusals and --agg's do; a query that fails on the table exits 1.
    let bad_agg = query(&["--agg", "median"]);
    assert_eq!(bad_agg.0, Some(2), "{bad_agg:?}");
    let no_column = query(&["--group-by", "nosuch"]);
    assert_eq!(no_column.0, Some(1), "{no_column:?}");
    let other = dir.with_extension("other");
    for schema in ["qty=nosuchtype", "qty", "qty=int64,qty=text"] {
        let load = step11(&["load", csv_arg, other.to_str().unwrap(), "--schema", schema]);
        assert_eq!(load.0, Some(2), "--schema {schema}: {load:?}");
        assert!(load.2.contains("--schema"), "--schema {schema}: {load:?}");
        assert!(!other.exists(), "--schema {schema}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}

#[test]
fn the_query_over_a_table_offers_only_what_means_something_for_a_table() {
    let (code, help, _) = step11(&["query", "--help"]);
    assert_eq!(code, Some(0), "{help}");
    // The load read the file: how to read it is the load's business.
    for option in ["--delimiter", "--no-header", "--null", "--chunk"] {
        assert!(!help.contains(option), "{option} in:\n{help}");
    }
    for option in ["--group-by", "--sum", "--agg", "--format", "--threads"] {
        assert!(help.contains(option), "{option} missing from:\n{help}");
    }
}

#[test]
fn a_table_query_error_names_its_record_and_says_why_not_its_line() {
    // The CSV path names an error's line and byte; a table keeps neither, and its
    // error said only `record N`, as if the rest had been forgotten.
    let dir = table_dir("no-line");
    let csv = dir.with_extension("csv");
    std::fs::write(&csv, b"category,value\na,1\nb,NA\nc,x\n").unwrap();
    let d = dir.to_str().unwrap();
    assert_eq!(step11(&["load", csv.to_str().unwrap(), d]).0, Some(0));
    let out = step11(&["query", d]);
    assert_eq!(out.0, Some(1), "{out:?}");
    assert!(
        out.2
            .contains(r#"record 2, column "value": "NA" is not a finite decimal number"#)
            && out
                .2
                .contains("a table keeps no line or byte offset of its CSV")
            && out.2.contains("load the CSV again with --null 'NA'"),
        "{out:?}"
    );
    // The JSON names the record, and no line or byte it does not have.
    let json = step11(&["query", d, "--json"]);
    let error: serde_json::Value = serde_json::from_str(json.1.trim()).unwrap();
    assert_eq!(error["error"], "invalid_number", "{json:?}");
    assert_eq!(error["record"], 2, "{json:?}");
    assert!(
        error.get("line").is_none() && error.get("byte").is_none(),
        "{json:?}"
    );
    // The bench still has the CSV: its error names the line and the byte.
    let bench = step11(&[csv.to_str().unwrap(), "--runs", "1"]);
    assert_eq!(bench.0, Some(1), "{bench:?}");
    assert!(bench.2.contains("line 3 (record 2, byte"), "{bench:?}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}
