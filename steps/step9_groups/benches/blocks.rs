//! `cargo bench -p step9`: the bitmap kernel per tier (masks and prefix XOR of every
//! 64-byte block of 200,000 records of the bench file, in memory), and the whole
//! parse per tier on the same bytes. Every timed loop checks its answer against the
//! portable tier's (the parse: the state machine's), so a fast but wrong tier fails.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use step9::blocks::{self, BLOCK, Tier};
use step9::fingerprint_in;

fn bench(c: &mut Criterion) {
    let csv = gen_csv::generate_in_memory(&gen_csv::Config {
        rows: 200_000,
        ..gen_csv::Config::default()
    })
    .0;
    let blocks: Vec<[u8; BLOCK]> = csv
        .chunks_exact(BLOCK)
        .map(|b| b.try_into().unwrap())
        .collect();
    let checksum = |tier: Tier| {
        blocks.iter().fold(0u64, |acc, b| {
            let m = blocks::masks(tier, black_box(b), b',').unwrap();
            let inside = blocks::prefix_xor(tier, m.quote).unwrap();
            acc ^ (m.delimiter | m.lf) & !inside ^ m.cr.rotate_left(7)
        })
    };
    let expected = checksum(Tier::Portable);
    let tiers: Vec<Tier> = Tier::supported()
        .into_iter()
        .filter(|&t| t != Tier::Scalar)
        .collect();

    let mut g = c.benchmark_group("bitmap kernel (masks + prefix XOR)");
    g.throughput(Throughput::Bytes((blocks.len() * BLOCK) as u64));
    for &tier in &tiers {
        g.bench_function(tier.name(), |b| {
            b.iter(|| assert_eq!(checksum(tier), expected))
        });
    }
    g.finish();

    let expected_fp = fingerprint_in(Tier::Scalar, &csv, Default::default()).unwrap();
    let mut g = c.benchmark_group("parse (fingerprint)");
    g.throughput(Throughput::Bytes(csv.len() as u64));
    for tier in Tier::supported() {
        g.bench_function(tier.name(), |b| {
            b.iter(|| {
                assert_eq!(
                    fingerprint_in(tier, black_box(&csv), Default::default()).unwrap(),
                    expected_fp
                )
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
