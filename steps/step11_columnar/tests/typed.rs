//! Typed columns as the CSV query answers over them: a GROUP BY on an int64, date or
//! bool column, sums past an i64 of an integer or decimal column's units, and a
//! decimal column summed from its texts.

use gen_csv::{Config, generate_in_memory};
use step11::query::Query;
use step11::splayed;
use step11::splayed::load::load;
use step11::splayed::scan::SplayedTable;
use step11::splayed::types::ColumnType;

use crate::common::{groups_to_json, split, table_dir};

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
    let table = SplayedTable::open(&dir).unwrap();
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
            groups_to_json(&step11::run(&csv, q).unwrap()),
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
    let table = SplayedTable::open(&dir).unwrap();
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
        let csv_answer = groups_to_json(&step11::run(&csv, q).unwrap());
        for threads in [1, 2, 3, 8] {
            let ours = groups_to_json(&splayed::query::run(&table, q, threads).unwrap());
            assert_eq!(ours, csv_answer, "{sum} on {threads} threads");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_decimal_column_sums_the_texts_not_their_f64s() {
    use step11::exact::{ExactSum, Number};
    // The exact sum of the two f64s rounds to another f64 than the exact sum of the
    // two decimals: a table of f64s could not give step 10's answer.
    let mut of_f64s = ExactSum::default();
    of_f64s.add(Number::Float(72.1));
    of_f64s.add(Number::Float(32.1));
    assert_eq!(of_f64s.to_f64(), 104.19999999999999);
    let csv = b"k,v\na,72.1\na,32.1\n";
    let dir = table_dir("texts");
    load(csv, &dir, &split(1, 0)).unwrap();
    let table = SplayedTable::open(&dir).unwrap();
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
        groups_to_json(&step11::run(csv, q).unwrap())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
