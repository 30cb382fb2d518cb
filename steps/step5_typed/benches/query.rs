//! `cargo bench -p step5`: the two choices of step 5, each against the well-kept
//! library, on the bench file's own keys and values (200,000 records from `gen`):
//! - parsing `value`: `fast-float2` vs `str::parse::<f64>`;
//! - grouping by `category`: the hand-written linear-probe table vs `hashbrown`'s
//!   `HashMap<&[u8], Acc>`
//!   (foldhash, its default hasher);
//! - and the whole query over the same bytes, with each table.
//!
//! Every timed loop checks its answer, so a fast but wrong variant fails.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use step5::acc::Acc;
use step5::query::Query;
use step5::serial;
use step5::table::{GroupTable, Hashbrown};
use step5::value::{parse_value, parse_value_fast_float, parse_value_std};

/// The bench file's first `rows` records, in memory.
fn generate(rows: u64) -> Vec<u8> {
    gen_csv::generate_in_memory(&gen_csv::Config {
        rows,
        ..gen_csv::Config::default()
    })
    .0
}

/// `(category, value)` of every data record, as views into `csv`.
fn columns(csv: &[u8]) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut header = true;
    step5::Parser::default()
        .for_each_record(csv, |record| {
            if !std::mem::take(&mut header) {
                out.push((record.field(1).raw(), record.field(2).raw()));
            }
        })
        .expect("the bench file parses");
    out
}

fn bench(c: &mut Criterion) {
    let csv = generate(200_000);
    let cols = columns(&csv);
    let expected_sum: f64 = cols
        .iter()
        .map(|(_, v)| parse_value_std(v).unwrap().unwrap())
        .sum();

    let mut g = c.benchmark_group("parse value (200k values)");
    g.bench_function("Clinger fast path by hand, fast-float2 for the rest", |b| {
        b.iter(|| {
            let sum: f64 = cols
                .iter()
                .map(|(_, v)| parse_value(black_box(v)).unwrap().unwrap())
                .sum();
            assert_eq!(sum.to_bits(), expected_sum.to_bits());
        })
    });
    g.bench_function("fast-float2", |b| {
        b.iter(|| {
            let sum: f64 = cols
                .iter()
                .map(|(_, v)| parse_value_fast_float(black_box(v)).unwrap().unwrap())
                .sum();
            assert_eq!(sum.to_bits(), expected_sum.to_bits());
        })
    });
    g.bench_function("str::parse::<f64>", |b| {
        b.iter(|| {
            let sum: f64 = cols
                .iter()
                .map(|(_, v)| parse_value_std(black_box(v)).unwrap().unwrap())
                .sum();
            assert_eq!(sum.to_bits(), expected_sum.to_bits());
        })
    });
    g.finish();

    let mut g = c.benchmark_group("group by key (200k keys)");
    g.bench_function("linear probe (hand-written)", |b| {
        b.iter(|| {
            let mut table = GroupTable::default();
            for (k, _) in &cols {
                table.entry(black_box(k)).count += 1;
            }
            assert_eq!(
                table.iter().map(|(_, a)| a.count).sum::<u64>(),
                cols.len() as u64
            );
        })
    });
    g.bench_function("hashbrown HashMap<&[u8], Acc>", |b| {
        b.iter(|| {
            let mut table: hashbrown::HashMap<&[u8], Acc> = hashbrown::HashMap::new();
            for (k, _) in &cols {
                table.entry(black_box(*k)).or_default().count += 1;
            }
            assert_eq!(
                table.values().map(|a| a.count).sum::<u64>(),
                cols.len() as u64
            );
        })
    });
    g.finish();

    let mut g = c.benchmark_group("whole query (200k records, in memory)");
    g.bench_function("with the hand-written table", |b| {
        b.iter(|| {
            let groups = serial::run_with::<GroupTable>(black_box(&csv), Query::default()).unwrap();
            assert_eq!(
                groups.values().map(|g| g.count).sum::<u64>(),
                cols.len() as u64
            );
        })
    });
    g.bench_function("with hashbrown", |b| {
        b.iter(|| {
            let groups = serial::run_with::<Hashbrown>(black_box(&csv), Query::default()).unwrap();
            assert_eq!(
                groups.values().map(|g| g.count).sum::<u64>(),
                cols.len() as u64
            );
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
