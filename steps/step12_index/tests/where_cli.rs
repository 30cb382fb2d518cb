//! `--where` on the command line: the errors a bad one gets, what `--verbose` says
//! of how the rows were found, and the options a query over a table offers.

use step12::hash_index::IndexFiles;
use step12::hash_index::select::Where;
use step12::splayed::error::TableError;

use crate::common::step12;
use crate::r#where::{load_with, selected, table_dir};

#[test]
fn a_bad_where_says_what_is_wrong() {
    let csv = b"id,category,qty,day\n1,a,7,2024-01-31\n";
    let dir = table_dir("bad");
    let table = load_with(csv, &dir, Some("qty"));
    let index = IndexFiles::open(&table).unwrap();
    let message =
        |filter: Where<'_>, use_index| match selected(&table, &index, Some(filter), use_index) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{filter:?} selected rows"),
        };
    for use_index in [true, false] {
        let text = message(
            Where {
                column: "qty",
                value: b"NA",
            },
            use_index,
        );
        assert!(
            text.contains(r#""NA""#) && text.contains("qty") && text.contains("int64"),
            "{text}"
        );
        // An int64 column holds canonical integers: `07` is none.
        let text = message(
            Where {
                column: "qty",
                value: b"07",
            },
            use_index,
        );
        assert!(text.contains(r#""07""#) && text.contains("int64"), "{text}");
        let text = message(
            Where {
                column: "day",
                value: b"2024-02-30",
            },
            use_index,
        );
        assert!(
            text.contains("2024-02-30") && text.contains("date"),
            "{text}"
        );
        let text = message(
            Where {
                column: "nope",
                value: b"1",
            },
            use_index,
        );
        assert!(text.contains("nope"), "{text}");
    }
    assert!(
        matches!(Where::parse(b"qty"), Err(TableError::Where(m)) if m.contains("COLUMN=VALUE"))
    );
    assert_eq!(
        Where::parse(b"name=a=b").unwrap(),
        Where {
            column: "name",
            value: b"a=b"
        }
    );
    drop((table, index));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_command_line_says_how_it_found_the_rows() {
    let dir = table_dir("cli");
    let csv = dir.with_extension("csv");
    std::fs::write(&csv, b"id,category,qty\n1,a,7\n2,b,8\n3,a,9\n").unwrap();
    let (csv_arg, dir_arg) = (csv.to_str().unwrap(), dir.to_str().unwrap());
    let loaded = step12(&["load", csv_arg, dir_arg, "--index", "category"]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let query = |extra: &[&str]| {
        let mut args = vec!["query", dir_arg, "--sum", "qty", "--json", "--verbose"];
        args.extend(extra);
        step12(&args)
    };
    let indexed = query(&["--where", "category=a", "--runs", "2"]);
    assert_eq!(indexed.0, Some(0), "{indexed:?}");
    assert_eq!(indexed.1.trim(), r#"{"a":{"count":2,"sum":16.0}}"#);
    assert_eq!(
        indexed.2.matches("2 rows, through the hash index").count(),
        2,
        "{indexed:?}"
    );
    let scanned = query(&["--where", "category=a", "--scan"]);
    assert_eq!(scanned.1, indexed.1);
    assert!(scanned.2.contains("2 rows, by a scan"), "{scanned:?}");
    // An option that cannot be honoured exits 2, as clap's refusals and --agg's do;
    // a query that fails on the table exits 1.
    let bad = query(&["--where", "qty=x"]);
    assert_eq!(bad.0, Some(2), "{bad:?}");
    assert!(bad.1.contains(r#""error":"where""#), "{bad:?}");
    let not_a_pair = query(&["--where", "qty"]);
    assert_eq!(not_a_pair.0, Some(2), "{not_a_pair:?}");
    let bad_agg = query(&["--agg", "median"]);
    assert_eq!(bad_agg.0, Some(2), "{bad_agg:?}");
    let no_column = query(&["--group-by", "nosuch"]);
    assert_eq!(no_column.0, Some(1), "{no_column:?}");
    let other = dir.with_extension("other");
    for (schema, code) in [("qty=nosuchtype", 2), ("qty", 2), ("qty=int64,qty=text", 2)] {
        let load = step12(&["load", csv_arg, other.to_str().unwrap(), "--schema", schema]);
        assert_eq!(load.0, Some(code), "--schema {schema}: {load:?}");
        assert!(load.2.contains("--schema"), "--schema {schema}: {load:?}");
        assert!(!other.exists(), "--schema {schema}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}

#[test]
fn the_query_over_a_table_offers_only_what_means_something_for_a_table() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_step12"))
        .args(["query", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{help}");
    // The load read the file: how to read it is the load's business.
    for option in ["--delimiter", "--no-header", "--null", "--chunk"] {
        assert!(!help.contains(option), "{option} in:\n{help}");
    }
    for option in [
        "--where",
        "--scan",
        "--group-by",
        "--sum",
        "--agg",
        "--format",
    ] {
        assert!(help.contains(option), "{option} missing from:\n{help}");
    }
}
