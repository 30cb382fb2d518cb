//! Types guessed from the first MiB: a guess changes the load's speed, never its
//! table. Every file here is loaded with and without the guess, and the tables'
//! files must be byte-identical; a field past the sample that breaks a guessed type
//! makes the load run again with every field checked (`Phases::guessed_wrong`).

use std::path::PathBuf;

use step11::parallel::Split;
use step11::splayed::load::{LoadOptions, SAMPLE_BYTES, load_timed, parse_schema};
use step11::splayed::scan::SplayedTable;
use step11::splayed::types::ColumnType;

use crate::common::files;

fn table_dir(test: &str, n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("step11-guess-{test}-{n}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Loads `csv` with and without the guess on 2 threads; asserts the same files, and
/// returns the column types and whether the guess was wrong.
fn both_ways(test: &str, csv: &[u8], schema: &str) -> (Vec<ColumnType>, bool) {
    let mut tables = Vec::new();
    let mut wrong = false;
    for (n, no_guess) in [false, true].into_iter().enumerate() {
        let dir = table_dir(test, n);
        let options = LoadOptions {
            split: Some(Split {
                threads: 2,
                chunk: 1 << 18,
            }),
            schema: parse_schema(schema).unwrap(),
            no_guess,
            ..LoadOptions::default()
        };
        let (manifest, phases) = load_timed(csv, &dir, &options).unwrap();
        assert!(!(no_guess && phases.guessed_wrong));
        wrong |= phases.guessed_wrong;
        SplayedTable::open(&dir).unwrap();
        tables.push((
            manifest.columns.iter().map(|c| c.ty).collect::<Vec<_>>(),
            files(&dir),
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert_eq!(tables[0].0, tables[1].0, "{test}: types");
    assert!(
        tables[0].1 == tables[1].1,
        "{test}: the tables' files differ"
    );
    (tables.remove(0).0, wrong)
}

/// A CSV of `rows` records past the sample: `row(i)` gives record `i`'s fields.
fn csv(header: &str, rows: usize, row: impl Fn(usize) -> String) -> Vec<u8> {
    let mut csv = format!("{header}\n").into_bytes();
    for i in 0..rows {
        csv.extend_from_slice(row(i).as_bytes());
        csv.push(b'\n');
    }
    assert!(csv.len() > 2 * SAMPLE_BYTES);
    csv
}

const ROWS: usize = 300_000;

#[test]
fn the_bench_file_is_guessed_right() {
    let (csv, _) = gen_csv::generate_in_memory(&gen_csv::Config {
        rows: 60_000,
        seed: 9,
        quoted_pct: 5.0,
        crlf: true,
    });
    let (types, wrong) = both_ways("bench", &csv, "");
    assert!(!wrong);
    assert_eq!(types[0], ColumnType::Int64);
    assert_eq!(types[4], ColumnType::Date);
}

#[test]
fn a_late_field_of_a_wider_type_loads_again_with_its_type() {
    use ColumnType::*;
    let late = |i: usize| i == ROWS - 3;
    let file = csv("int,dec,date,flag,k", ROWS, |i| {
        let int = if late(i) {
            "2.5".to_string()
        } else {
            i.to_string()
        };
        let dec = if late(i) {
            format!("{i}.125")
        } else {
            format!("{i}.5")
        };
        let date = if late(i) { "soon" } else { "2024-03-01" };
        let flag = if late(i) { "maybe" } else { "true" };
        format!("{int},{dec},{date},{flag},k{}", i % 7)
    });
    let (types, wrong) = both_ways("late", &file, "");
    assert!(wrong, "a guess broke, so the load ran again");
    assert_eq!(
        types,
        [
            Decimal { scale: 1 },
            Decimal { scale: 3 },
            String,
            String,
            String
        ]
    );
}

#[test]
fn a_column_empty_in_the_sample_and_a_float_column_are_checked_in_pass_1() {
    use ColumnType::*;
    let file = csv("late,x,n", ROWS, |i| {
        let late = if i < ROWS / 2 {
            "".to_string()
        } else {
            (i % 100).to_string()
        };
        format!("{late},{}e-3,{}", i % 1000, i % 5)
    });
    let (types, wrong) = both_ways("unsure", &file, "");
    assert!(!wrong, "nothing was guessed for them");
    assert_eq!(types, [Int64, Float64, Int64]);
}

#[test]
fn a_bad_field_of_a_given_type_is_the_same_error_either_way() {
    let file = csv("a,b", ROWS, |i| {
        let b = if i == ROWS - 10 {
            "x".to_string()
        } else {
            i.to_string()
        };
        format!("{i},{b}")
    });
    let errors: Vec<String> = [false, true]
        .into_iter()
        .map(|no_guess| {
            let options = LoadOptions {
                schema: parse_schema("b=int64").unwrap(),
                no_guess,
                ..LoadOptions::default()
            };
            let dir = table_dir("bad", usize::from(no_guess));
            let e = load_timed(&file, &dir, &options).unwrap_err();
            assert!(!dir.exists(), "a failed load leaves nothing behind");
            e.to_string()
        })
        .collect();
    assert_eq!(errors[0], errors[1]);
    assert!(
        errors[0].contains(&format!("record {}", ROWS - 9)),
        "{}",
        errors[0]
    );
}
