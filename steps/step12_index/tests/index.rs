//! The hash index, built from a loaded table: each value's rows in order of first
//! occurrence, the same files on any thread count; added to a table as an optional
//! part that its manifest names, replacing one on another column; refused on a text
//! column, whose `--where` is a scan.

use std::path::PathBuf;

use gen_csv::{Config, generate_in_memory};
use harness::query::{Aggs, groups_to_json_with};
use step12::hash_index::IndexFiles;
use step12::hash_index::add::add;
use step12::hash_index::select::{Access, Where, select};
use step12::parallel::Split;
use step12::query::Query;
use step12::splayed::error::TableError;
use step12::splayed::load::{LoadOptions, load, parse_schema};
use step12::splayed::query::run_selected;
use step12::splayed::scan::SplayedTable;

use crate::common::{files, split, step12, table_dir};

#[test]
fn the_hash_index_groups_rows_by_first_occurrence_on_any_thread_count() {
    let (csv, _) = generate_in_memory(&Config {
        rows: 3_000,
        seed: 4,
        quoted_pct: 10.0,
        crlf: false,
    });
    let records = harness::reference::parse(&csv).unwrap();
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
            load(&csv, &dir, &split(threads, 4096)).unwrap();
            assert_eq!(add(&dir, column, threads).unwrap().0, k);
            let table = SplayedTable::open(&dir).unwrap();
            assert_eq!(table.manifest.index, Some(k));
            let index = IndexFiles::open(&table).unwrap().expect("an index");
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
            drop((index, table));
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

#[test]
fn an_index_is_the_tables_once_its_manifest_names_it_and_replaces_another() {
    let dir = table_dir("replace");
    let csv = dir.with_extension("csv");
    crate::common::write_generated(&csv, 2_000, 6);
    let d = dir.to_str().unwrap();
    assert_eq!(step12(&["load", csv.to_str().unwrap(), d]).0, Some(0));
    let loaded = files(&dir);
    let query = |args: &[&str]| step12(&[&["query", d, "--json"], args].concat());
    let all = query(&[]);
    // Files an interrupted `index` left (no manifest names them): no query reads
    // them, `verify` refuses them, and the next `index` writes them again.
    std::fs::write(dir.join("col1.index.rows"), b"junk").unwrap();
    assert_eq!(query(&[]).1, all.1);
    let verified = step12(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(
        verified
            .2
            .contains("col1.index.rows is not one of the manifest's files")
    );
    let indexed = step12(&["index", d, "category"]);
    assert_eq!(indexed.0, Some(0), "{indexed:?}");
    assert!(
        indexed.1.contains("hash index on column 2 (category)"),
        "{indexed:?}"
    );
    assert_eq!(step12(&["verify", d]).0, Some(0));
    // Every file of the load is as it was; the manifest names three more.
    let now = files(&dir);
    for (name, bytes) in loaded.iter().filter(|(name, _)| name != "manifest.json") {
        assert!(now.contains(&(name.clone(), bytes.clone())), "{name}");
    }
    let names = |files: &[(String, Vec<u8>)]| files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&now).len(), names(&loaded).len() + 3);
    let fish = query(&["--where", "category=fish", "--verbose"]);
    assert!(fish.2.contains("through the hash index"), "{fish:?}");
    // An index on another column replaces it, and its files go.
    assert_eq!(step12(&["index", d, "flag"]).0, Some(0));
    let table = SplayedTable::open(&dir).unwrap();
    assert_eq!(table.manifest.index, Some(6));
    assert!(!dir.join("col1.index.rows").exists());
    assert!(dir.join("col6.index.rows").exists());
    assert_eq!(step12(&["verify", d]).0, Some(0));
    let scanned = query(&["--where", "category=fish", "--verbose"]);
    assert!(scanned.2.contains("by a scan"), "{scanned:?}");
    assert_eq!(scanned.1, fish.1);
    drop(table);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}

/// Keys with delimiters, quotes, line breaks, a non-UTF-8 byte and empty fields;
/// `k` loaded as text by `--schema`.
const CSV: &[u8] = b"k,n,v\n\
    a,1.5,1\n\
    \"b,\"\"c\"\"\",-2,2\n\
    ,,3\n\
    a,x,4\n\
    \xff,1e3,5\n\
    \"line\nbreak\",0.25,6\n\
    a,,7\n";

fn text_table(test: &str) -> PathBuf {
    let dir = table_dir(test);
    let options = LoadOptions {
        split: Some(Split {
            threads: 2,
            chunk: 7,
        }),
        schema: parse_schema("k=text,n=text").unwrap(),
        ..LoadOptions::default()
    };
    load(CSV, &dir, &options).unwrap();
    dir
}

#[test]
fn where_over_a_text_column_is_a_scan_that_answers_as_the_csv_query() {
    let dir = text_table("text-where");
    let table = SplayedTable::open(&dir).unwrap();
    let json = |groups| groups_to_json_with(&groups, Aggs::ALL).to_string();
    // --where k=VALUE: the records whose k is VALUE, and only them.
    for value in ["a", "b,\"c\"", "", "line\nbreak", "missing"] {
        let filter = Where {
            column: "k",
            value: value.as_bytes(),
        };
        let (selection, access) = select(&table, Some(filter), None).unwrap();
        assert_eq!(access, Access::Scan, "a text column has no index");
        let q = Query {
            group_by: "v",
            sum: "v",
            ..Query::default()
        };
        let ours = json(run_selected(&table, q, &selection, 2).unwrap());
        let records = harness::reference::parse(CSV).unwrap();
        let mut csv = b"v\n".to_vec();
        for r in records[1..].iter().filter(|r| r[0] == value.as_bytes()) {
            csv.extend_from_slice(&r[2]);
            csv.push(b'\n');
        }
        assert_eq!(ours, json(step12::run(&csv, q).unwrap()), "k={value:?}");
    }
    drop(table);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_index_on_a_text_column_is_refused_with_the_way_out() {
    let dir = text_table("text-index");
    let before = files(&dir);
    let err = add(&dir, "k", 2).unwrap_err();
    assert!(matches!(err, TableError::Schema(_)), "{err:?}");
    assert!(err.to_string().contains("--schema k=string"), "{err}");
    assert!(files(&dir) == before, "the table is as it was");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_table_of_a_long_name_takes_an_index_and_nothing_is_left_beside_it() {
    // A name of up to 255 bytes is a name: the load's staging directory and the
    // index's manifest beside the table are cut to fit ("File name too long").
    let base = table_dir("long-name");
    std::fs::create_dir(&base).unwrap();
    let csv = base.join("s.csv");
    std::fs::write(&csv, b"category,value\na,1\nb,2\na,3\n").unwrap();
    for len in [247, 255] {
        let table = base.join("é".repeat(len / 2) + &"t".repeat(len % 2));
        let t = table.to_str().unwrap();
        let loaded = step12(&["load", csv.to_str().unwrap(), t, "--index", "category"]);
        assert_eq!(loaded.0, Some(0), "{len} bytes: {loaded:?}");
        let indexed = step12(&["index", t, "value"]);
        assert_eq!(indexed.0, Some(0), "{len} bytes: {indexed:?}");
        let verified = step12(&["verify", t]);
        assert_eq!(verified.0, Some(0), "{len} bytes: {verified:?}");
        std::fs::remove_dir_all(&table).unwrap();
    }
    let left: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["s.csv"], "nothing else left behind");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn an_interrupted_index_leaves_the_table_as_it_was() {
    // Ctrl-C during `index` left the new files, which no manifest names (verify
    // then refused the table), and perhaps the temporary manifest beside it.
    let base = table_dir("interrupted");
    std::fs::create_dir(&base).unwrap();
    let csv = base.join("s.csv");
    let mut text = b"id,category,value\n".to_vec();
    for i in 0..300_000u32 {
        text.extend(format!("{i},c{},{}\n", i % 51, i % 1000).as_bytes());
    }
    std::fs::write(&csv, text).unwrap();
    let table = base.join("t");
    let t = table.to_str().unwrap();
    assert_eq!(step12(&["load", csv.to_str().unwrap(), t]).0, Some(0));
    let offsets = table.join("col0.index.offsets");
    let mut interrupted = 0;
    for _ in 0..5 {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_step12"))
            .args(["index", t, "id"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The first file of the index is there: interrupt the rest.
        while !offsets.exists() && child.try_wait().unwrap().is_none() {}
        let sent = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let verified = step12(&["verify", t]);
        assert_eq!(verified.0, Some(0), "{stderr} {verified:?}");
        let indexed = SplayedTable::open(&table).unwrap().manifest.index.is_some();
        if out.status.code() == Some(130) && !indexed {
            interrupted += 1;
            let left: Vec<_> = std::fs::read_dir(&table)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().into_string().unwrap())
                .filter(|n| n.contains("index"))
                .collect();
            assert!(left.is_empty(), "{left:?} {stderr}");
            assert!(stderr.contains("interrupted: removed"), "{stderr}");
        }
        // Done before the signal came: the index is the table's; start again.
        if indexed {
            std::fs::remove_dir_all(&table).unwrap();
            assert_eq!(step12(&["load", csv.to_str().unwrap(), t]).0, Some(0));
        }
    }
    assert!(interrupted > 0, "no index was interrupted in 5 tries");
    let beside: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(beside.len(), 2, "no temporary manifest beside: {beside:?}");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn an_index_file_s_place_taken_by_a_fifo_does_not_block_the_index() {
    // The index's files were opened for writing as they were, and opening a FIFO
    // for writing waits for a reader: forever. Each file is now made new.
    let dir = table_dir("fifo-place");
    let csv = dir.with_extension("csv");
    std::fs::write(&csv, b"category,value\na,1\nb,2\na,3\n").unwrap();
    let d = dir.to_str().unwrap();
    assert_eq!(step12(&["load", csv.to_str().unwrap(), d]).0, Some(0));
    for part in ["index.offsets", "index.rows", "index.slots"] {
        let c = std::ffi::CString::new(dir.join(format!("col0.{part}")).to_str().unwrap()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_step12"))
        .args(["index", d, "category"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed().as_secs() > 60 {
            child.kill().unwrap();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "blocked, killed after a minute"
    );
    assert_eq!(step12(&["verify", d]).0, Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}
