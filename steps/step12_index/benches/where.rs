//! `cargo bench -p step12 --bench where`: `--where category=VALUE` answered through the
//! hash index and by a scan of the same table, for a rare value (`fish`, about 1% of
//! the rows) and a common one (`books`, about 25%), grouped by `category`, summing
//! `qty`. The table is loaded once, from `gen`'s file of `STEP12_WHERE_ROWS` records
//! (default 2,000,000; 20,000,000 is the 1 GB file of the results table), with an
//! index on `category`, and kept open, so that every timed query finds its columns
//! mapped: the first query's page faults are not what is compared.
//!
//! Every timed query checks its answer against the scan's, so a fast but wrong path
//! fails.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use harness::query::Groups;
use step12::hash_index::IndexFiles;
use step12::hash_index::add::add;
use step12::hash_index::select::{Access, Where, select};
use step12::parallel::Split;
use step12::query::Query;
use step12::splayed::load::{LoadOptions, load};
use step12::splayed::query::run_selected;
use step12::splayed::scan::SplayedTable;

fn rows() -> u64 {
    std::env::var("STEP12_WHERE_ROWS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2_000_000)
}

fn query(table: &SplayedTable, index: Option<&IndexFiles>, value: &str) -> (Groups, Access) {
    let filter = Where {
        column: "category",
        value: value.as_bytes(),
    };
    let query = Query {
        group_by: "category",
        sum: "qty",
        ..Query::default()
    };
    let (selection, access) = select(table, Some(filter), index).expect("the column exists");
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
    let dir = std::env::temp_dir().join(format!("step12-where-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    load(&csv, &dir, &LoadOptions::default()).expect("gen's file loads");
    drop(csv);
    let threads = Split::all_cores().threads;
    add(&dir, "category", threads).expect("category has an index");
    let table = SplayedTable::open(&dir).expect("the table just loaded");
    let index = IndexFiles::open(&table).expect("its index maps");
    let mut g = c.benchmark_group(format!("--where category=VALUE ({rows} rows)"));
    for value in ["fish", "books"] {
        let (expected, access) = query(&table, None, value);
        assert_eq!(access, Access::Scan);
        assert_eq!(expected.len(), 1, "{value} is in the file");
        for (how, index) in [("hash index", index.as_ref()), ("scan", None)] {
            g.bench_function(format!("{value}, {how}"), |b| {
                b.iter(|| {
                    let (groups, _) = query(&table, index, black_box(value));
                    assert_eq!(groups, expected);
                })
            });
        }
    }
    g.finish();
    drop((index, table));
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
