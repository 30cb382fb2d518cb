//! `cargo bench -p step4`: the scanning kernel alone, then the whole parse, for each
//! tier (byte loop, SWAR, memchr). Every timed iteration checks its answer, so a
//! fast but wrong tier fails instead of winning.
//!
//! Inputs, about 1 MB each: the bench file's first MB (short fields, mean about 7
//! bytes with the delimiter), and fields of 64 B and of 1 KB (63 or 1023 letters and
//! a delimiter). The parse group runs [`step4::fingerprint_with`] over the whole bench
//! file, already in memory.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use harness::Fingerprint;
use step4::scan::{Memchr, Scalar, Scanner, Swar};

const MB: usize = 1 << 20;

/// Scans `input` as the parser does in unquoted fields: from just after each field
/// end to the next. Returns the number of field ends found.
fn field_ends<S: Scanner>(input: &[u8]) -> usize {
    let (mut ends, mut i) = (0, 0);
    while let Some(j) = S::find_field_end(&input[i..], harness::dialect::DELIMITER) {
        ends += 1;
        i += j + 1;
    }
    ends
}

/// About 1 MB of fields of `len` bytes: `len - 1` letters and a delimiter.
fn fields_of(len: usize) -> Vec<u8> {
    let field: Vec<u8> = (0..len - 1)
        .map(|i| b'a' + (i % 26) as u8)
        .chain([b','])
        .collect();
    field.repeat(MB / len)
}

fn kernel<S: Scanner>(group: &mut BenchmarkGroup<'_, WallTime>, input: &[u8], expected: usize) {
    group.bench_function(S::NAME, |b| {
        b.iter(|| assert_eq!(field_ends::<S>(black_box(input)), expected));
    });
}

fn parse<S: Scanner>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    input: &[u8],
    expected: Fingerprint,
) {
    group.bench_function(S::NAME, |b| {
        b.iter(|| {
            assert_eq!(
                step4::fingerprint_with::<S>(
                    black_box(input),
                    harness::dialect::Dialect::default()
                ),
                Ok(expected)
            )
        });
    });
}

fn benches(c: &mut Criterion) {
    let path = harness::run::cli::bench_input(None).expect("the bench file");
    let bench = std::fs::read(&path).expect("the bench file");
    let inputs = [
        ("short fields (bench file)", bench[..MB].to_vec()),
        ("64 B fields", fields_of(64)),
        ("1 KB fields", fields_of(1024)),
    ];
    for (name, input) in &inputs {
        let expected = field_ends::<Scalar>(input);
        let mut group = c.benchmark_group(format!("field_end/{name}"));
        group.throughput(Throughput::Bytes(input.len() as u64));
        kernel::<Scalar>(&mut group, input, expected);
        kernel::<Swar>(&mut group, input, expected);
        kernel::<Memchr>(&mut group, input, expected);
        group.finish();
    }
    let expected = harness::reference::fingerprint(&bench).expect("the bench file parses");
    let mut group = c.benchmark_group("parse/bench file");
    group.throughput(Throughput::Bytes(bench.len() as u64));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4));
    parse::<Scalar>(&mut group, &bench, expected);
    parse::<Swar>(&mut group, &bench, expected);
    parse::<Memchr>(&mut group, &bench, expected);
    group.finish();
}

criterion_group!(scan, benches);
criterion_main!(scan);
