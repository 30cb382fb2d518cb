//! `--where COLUMN=VALUE`: the hash index and the scan select the same rows, and
//! their answer is the answer over a CSV that holds only the rows whose field is
//! VALUE, for every value of a string, int64, date, bool and decimal column, for
//! NULL, and for a value that is not there. The command line and the errors a bad
//! `--where` gets are `where_cli.rs`'s.

use std::path::{Path, PathBuf};

use harness::query::{Aggs, Groups, groups_to_json_with};
use step12::hash_index::IndexFiles;
use step12::hash_index::add::add;
use step12::hash_index::select::{Access, Where, select};
use step12::parallel::Split;
use step12::query::Query;
use step12::splayed::error::TableError;
use step12::splayed::load::{LoadOptions, load};
use step12::splayed::query::run_selected;
use step12::splayed::rows::Selection;
use step12::splayed::scan::SplayedTable;

use crate::common::step12;

pub(crate) fn table_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("step12-where-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The rows `filter` selects, through the table's index when `use_index`.
pub(crate) fn selected<'t>(
    table: &'t SplayedTable,
    index: &'t Option<IndexFiles>,
    filter: Option<Where<'_>>,
    use_index: bool,
) -> Result<(Selection<'t>, Access), TableError> {
    select(table, filter, index.as_ref().filter(|_| use_index))
}

/// GROUP BY category, SUM(qty): every aggregate, as JSON, to compare.
fn answer(
    table: &SplayedTable,
    filter: Option<Where<'_>>,
    use_index: bool,
    threads: usize,
) -> (String, Access) {
    let query = Query {
        group_by: "category",
        sum: "qty",
        ..Query::default()
    };
    let index = IndexFiles::open(table).unwrap();
    let (selection, access) = selected(table, &index, filter, use_index).unwrap();
    let groups: Groups = run_selected(table, query, &selection, threads).unwrap();
    (groups_to_json_with(&groups, Aggs::ALL).to_string(), access)
}

pub(crate) fn load_with(csv: &[u8], dir: &Path, index: Option<&str>) -> SplayedTable {
    let options = LoadOptions {
        split: Some(Split {
            threads: 2,
            chunk: 4096,
        }),
        ..LoadOptions::default()
    };
    load(csv, dir, &options).unwrap();
    if let Some(column) = index {
        add(dir, column, 2).unwrap();
    }
    SplayedTable::open(dir).unwrap()
}

/// One record as CSV: a field quoted (its quotes doubled) when it holds a
/// delimiter, a quote or a line break.
fn write_record(fields: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if f.iter().any(|b| b"\",\r\n".contains(b)) {
            out.push(b'"');
            for &b in f {
                out.extend(if b == b'"' {
                    &b"\"\""[..]
                } else {
                    std::slice::from_ref(&b)
                });
            }
            out.push(b'"');
        } else {
            out.extend(f);
        }
    }
    out.push(b'\n');
    out
}

/// gen's file with some fields emptied (NULLs in the typed columns).
fn csv_with_nulls() -> Vec<u8> {
    let (csv, _) = gen_csv::generate_in_memory(&gen_csv::Config {
        rows: 4_000,
        seed: 7,
        quoted_pct: 10.0,
        crlf: false,
    });
    let records = harness::reference::parse(&csv).unwrap();
    let mut out = Vec::new();
    for (i, mut r) in records.into_iter().enumerate() {
        if i > 0 && i % 13 == 0 {
            r[5].clear(); // qty
        }
        if i > 0 && i % 17 == 0 {
            r[4].clear(); // date
            r[6].clear(); // flag
            r[2].clear(); // value
        }
        out.extend(write_record(&r));
    }
    out
}

/// Whether a field holds VALUE as its column stores it: gen writes every int64,
/// date and bool one way, but a decimal such as `0.1` also as `0.10`.
fn same(field: &[u8], value: &str) -> bool {
    let number = |t: &[u8]| std::str::from_utf8(t).ok()?.parse::<f64>().ok();
    match (number(field), number(value.as_bytes())) {
        (Some(a), Some(b)) => a == b && a.is_sign_negative() == b.is_sign_negative(),
        _ => field == value.as_bytes(),
    }
}

#[test]
fn index_and_scan_give_the_answer_over_the_matching_rows_only() {
    let csv = csv_with_nulls();
    let records = harness::reference::parse(&csv).unwrap();
    for (column, k) in [
        ("category", 1),
        ("qty", 5),
        ("date", 4),
        ("flag", 6),
        ("value", 2),
    ] {
        let indexed_dir = table_dir(&format!("indexed-{column}"));
        let plain_dir = table_dir(&format!("plain-{column}"));
        let indexed = load_with(&csv, &indexed_dir, Some(column));
        let plain = load_with(&csv, &plain_dir, None);
        let mut values: Vec<&[u8]> = records[1..].iter().map(|r| &r[k][..]).collect();
        values.sort();
        values.dedup();
        // A dozen of each column's values, the smallest (NULL, where there are
        // NULLs) among them: the test stays fast in a debug build.
        let step = values.len().div_ceil(12);
        let mut values: Vec<&[u8]> = values.into_iter().step_by(step).collect();
        values.push(b"not-there");
        if column == "qty" {
            values.push(b"123456789"); // a number no row holds
        }
        for value in values {
            let value = std::str::from_utf8(value).unwrap();
            if column != "category" && value == "not-there" {
                continue; // not a value of a typed column: tested below
            }
            // The rows whose field is VALUE, alone in a CSV of their own.
            let mut only = write_record(&records[0]);
            for r in records[1..].iter().filter(|r| same(&r[k], value)) {
                only.extend(write_record(r));
            }
            let only_dir = table_dir(&format!("only-{column}"));
            let expected = answer(&load_with(&only, &only_dir, None), None, true, 1).0;
            std::fs::remove_dir_all(&only_dir).unwrap();
            let filter = Some(Where {
                column,
                value: value.as_bytes(),
            });
            for threads in [1, 2, 3] {
                let via_index = answer(&indexed, filter, true, threads);
                assert_eq!(
                    via_index,
                    (expected.clone(), Access::Index),
                    "{column}={value:?} on {threads} threads"
                );
                let scan = answer(&plain, filter, true, threads);
                assert_eq!(
                    scan,
                    (expected.clone(), Access::Scan),
                    "{column}={value:?} on {threads} threads"
                );
                // --scan on the indexed table.
                let forced = answer(&indexed, filter, false, threads);
                assert_eq!(
                    forced,
                    (expected.clone(), Access::Scan),
                    "{column}={value:?} on {threads} threads"
                );
            }
        }
        drop((indexed, plain));
        std::fs::remove_dir_all(&indexed_dir).unwrap();
        std::fs::remove_dir_all(&plain_dir).unwrap();
    }
}

#[test]
fn a_value_of_the_columns_type_is_read_as_the_load_reads_it() {
    let csv = b"id,category,qty\n1,a,7.5\n2,b,7.50\n3,a,8\n4,b,\n";
    let dir = table_dir("typed");
    let table = load_with(csv, &dir, Some("qty"));
    assert_eq!(table.manifest.columns[2].ty.name(), "decimal(2)");
    let filter = |value: &'static str| {
        Some(Where {
            column: "qty",
            value: value.as_bytes(),
        })
    };
    // 7.5 and 7.50 are one decimal: both rows, whichever text asks.
    let (seven, _) = answer(&table, filter("7.5"), true, 2);
    assert_eq!(seven, answer(&table, filter("+7.50"), false, 2).0);
    assert!(
        seven.contains(r#""a""#) && seven.contains(r#""b""#),
        "{seven}"
    );
    // Empty: NULL, row 4 only.
    let (null, _) = answer(&table, filter(""), true, 2);
    assert!(
        null.contains(r#""b""#) && !null.contains(r#""a""#),
        "{null}"
    );
    drop(table);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn zero_is_zero_whatever_its_sign() {
    // A decimal column stores -0 apart from 0 (so that it gives back the field's
    // f64, -0.0), and a float64 column the bits of -0.0: `--where qty=0` selected
    // only the rows written 0, and `qty=-0` only those written -0, through the index
    // and by the scan alike. MIN and MAX take them as one number, and so does
    // --where now.
    let rows = "1,a,1\n2,b,-0\n3,c,0.0\n4,d,-0.0\n5,e,0\n6,f,\n7,g,-1\n";
    for (ty, extra) in [("decimal(1)", ""), ("float64", "8,h,1e0\n")] {
        let csv = format!("id,category,qty\n{rows}{extra}");
        let dir = table_dir(&format!("zero-{}", &ty[..5]));
        let table = load_with(csv.as_bytes(), &dir, Some("qty"));
        assert_eq!(table.manifest.columns[2].ty.name(), ty);
        // The index holds the zeros as one group, and is the index a build makes.
        assert_eq!(step12::hash_index::verify::verify(&table).ok(), Some(true));
        for value in ["0", "-0", "0.0", "-0.0", "+0"] {
            for use_index in [true, false] {
                let filter = Some(Where {
                    column: "qty",
                    value: value.as_bytes(),
                });
                let (json, access) = answer(&table, filter, use_index, 2);
                let groups: serde_json::Value = serde_json::from_str(&json).unwrap();
                let mut keys: Vec<&String> = groups.as_object().unwrap().keys().collect();
                keys.sort();
                assert_eq!(keys, ["b", "c", "d", "e"], "{ty} qty={value} {access:?}");
            }
        }
        drop(table);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_key_that_is_not_utf8_is_selected_byte_for_byte() {
    // The argument was refused as not UTF-8, so a key of Latin-1 bytes could not be
    // selected at all. VALUE is now the argument's bytes: the byte E9 selects the
    // key with that byte, and the four characters `\xe9` the key written so.
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = table_dir("bytes");
    let csv = dir.with_extension("csv");
    std::fs::write(
        &csv,
        b"category,qty\ncaf\xe9,1\ncaf\\xe9,2\ncafe,4\ncaf\xe9,8\n",
    )
    .unwrap();
    let d = dir.as_os_str();
    let loaded = step12(&[
        OsStr::new("load"),
        csv.as_os_str(),
        d,
        OsStr::new("--index"),
        OsStr::new("category"),
    ]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let query = |filter: &[u8], scan: bool| {
        let mut args = vec![
            OsStr::new("query"),
            d,
            OsStr::new("--sum"),
            OsStr::new("qty"),
            OsStr::new("--json"),
            OsStr::new("--where"),
            OsStr::from_bytes(filter),
        ];
        if scan {
            args.push(OsStr::new("--scan"));
        }
        step12(&args)
    };
    for scan in [false, true] {
        let byte = query(b"category=caf\xe9", scan);
        assert_eq!(byte.0, Some(0), "{byte:?}");
        assert_eq!(
            byte.1.trim(),
            r#"{"caf\\xe9":{"count":2,"sum":9.0}}"#,
            "scan {scan}"
        );
        let text = query(br"category=caf\xe9", scan);
        assert_eq!(text.0, Some(0), "{text:?}");
        assert_eq!(
            text.1.trim(),
            r#"{"caf\\\\xe9":{"count":1,"sum":2.0}}"#,
            "scan {scan}"
        );
    }
    // A column's name must be text: one that is not is named, and exit 2.
    let bad = query(b"\xff=1", false);
    assert_eq!(bad.0, Some(2), "{bad:?}");
    assert!(
        bad.1.contains("not UTF-8") && bad.1.contains(r"\\xff"),
        "{bad:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}
