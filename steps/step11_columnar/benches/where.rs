//! `cargo bench -p step11 --bench where`: `--where category=VALUE` answered through the
//! hash index and by a scan of the same table, for a rare value (`fish`, about 1% of
//! the rows) and a common one (`books`, about 25%), grouped by `category`, summing
//! `qty`. The table is loaded once, from `gen`'s file of `STEP11_WHERE_ROWS` records
//! (default 2,000,000; the chapter's figures use 20,000,000, the 1 GB file), with an
//! index on `category`, and kept open, so that every timed query finds its columns
//! mapped: the first query's page faults are not what is compared.
//!
//! Every timed query checks its answer against the scan's, so a fast but wrong path
//! fails.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use harness::query::Groups;
use step11::hash_index::select::{Access, Where, select};
use step11::query::{Query, Split};
use step11::splayed::load::{LoadOptions, load};
use step11::splayed::query::run_selected;
use step11::splayed::scan::Table;

fn rows() -> u64 {
    std::env::var("STEP11_WHERE_ROWS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2_000_000)
}

fn query(table: &Table, value: &str, use_index: bool) -> (Groups, Access) {
    let filter = Where {
        column: "category",
        value,
    };
    let query = Query {
        group_by: "category",
        sum: "qty",
        ..Query::default()
    };
    let (selection, access) = select(table, Some(filter), use_index).expect("the column exists");
    let groups = run_selected(table, query, &selection, Split::all_cores().threads)
        .expect("qty holds numbers");
    (groups, access)
}

fn bench(c: &mut Criterion) {
    let rows = rows();
    let csv = gen_csv::generate_in_memory(&gen_csv::Config {
        rows,
        ..gen_csv::Config::default()
    })
    .0;
    let dir = std::env::temp_dir().join(format!("step11-where-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = LoadOptions {
        index: Some("category".into()),
        ..LoadOptions::default()
    };
    load(&csv, &dir, &options).expect("gen's file loads");
    drop(csv);
    let table = Table::open(&dir).expect("the table just loaded");
    let mut g = c.benchmark_group(format!("--where category=VALUE ({rows} rows)"));
    for value in ["fish", "books"] {
        let (expected, access) = query(&table, value, false);
        assert_eq!(access, Access::Scan);
        assert_eq!(expected.len(), 1, "{value} is in the file");
        for (how, use_index) in [("hash index", true), ("scan", false)] {
            g.bench_function(format!("{value}, {how}"), |b| {
                b.iter(|| {
                    let (groups, _) = query(&table, black_box(value), use_index);
                    assert_eq!(groups, expected);
                })
            });
        }
    }
    g.finish();
    drop(table);
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
