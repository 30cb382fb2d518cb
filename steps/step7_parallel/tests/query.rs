//! Step 7's answer, cross-checked: against the same query on step 1's parser, against
//! `gen`'s reference (counts, and sums correctly rounded), and against itself on
//! every thread count and chunk size (the same JSON).

use std::path::PathBuf;

use gen_csv::{Config, Reference, generate_in_memory};
use harness::query::{Groups, groups_to_json};
use step7::query::{self, Query, Split};
use step7::{step1_query, value};

/// A generated file on disk (step 1 reads files) and its reference.
fn generated(test: &str, name: &str, config: &Config) -> (PathBuf, Vec<u8>, Reference) {
    let (csv, reference) = generate_in_memory(config);
    let path = std::env::temp_dir().join(format!("step7-{test}-{name}-{}.csv", std::process::id()));
    std::fs::write(&path, &csv).unwrap();
    (path, csv, reference)
}

fn configs() -> Vec<(&'static str, Config)> {
    vec![
        (
            "default",
            Config {
                rows: 30_000,
                ..Config::default()
            },
        ),
        (
            "all-quoted-crlf",
            Config {
                rows: 10_000,
                seed: 7,
                quoted_pct: 100.0,
                crlf: true,
            },
        ),
        (
            "no-quotes",
            Config {
                rows: 10_000,
                seed: 8,
                quoted_pct: 0.0,
                crlf: false,
            },
        ),
    ]
}

#[test]
fn same_answer_as_step_1s_parser_bit_for_bit() {
    for (name, config) in configs() {
        let (path, csv, _) = generated("step1", name, &config);
        let ours = query::run(&csv, Query::default()).unwrap();
        let step1 = step1_query::run(&path, Query::default()).unwrap();
        assert_eq!(ours.len(), step1.len(), "{name}");
        for (key, g) in &ours {
            let s1 = step1[key];
            assert_eq!(g.count, s1.count, "{name} {key:?}");
            assert_eq!(
                g.sum.map(f64::to_bits),
                s1.sum.map(f64::to_bits),
                "{name} {key:?}"
            );
        }
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn counts_equal_and_sums_correctly_rounded_against_gens_reference() {
    for (name, config) in configs() {
        let (path, csv, reference) = generated("gen", name, &config);
        let ours: Groups = query::run(&csv, Query::default()).unwrap();
        assert_eq!(ours.len(), reference.groups.len(), "{name}");
        let abs_sums = absolute_sums(&csv);
        for (key, r) in &reference.groups {
            let g = ours[key.as_bytes()];
            let sum = g.sum.unwrap();
            assert_eq!(g.count, r.count, "{name} {key}");
            // The exact sum, correctly rounded: Rust's decimal parse rounds correctly.
            let exact: f64 = gen_csv::decimal_from_micros(r.sum_micros).parse().unwrap();
            assert_eq!(
                sum.to_bits(),
                exact.to_bits(),
                "{name} {key}: {sum} vs {exact}"
            );
            // Step 6's sum (gen's row-order f64 sum) errs from the exact sum by at most
            // n u sum|x| (Higham 4.2, and each term's rounding when parsed); ours by
            // half an ulp. So they differ by at most 2 n u sum|x|.
            let bound = 2.0 * r.count as f64 * f64::EPSILON * abs_sums[key.as_bytes()];
            assert!(
                (sum - r.sum_f64).abs() <= bound,
                "{name} {key}: {sum} vs step 6's {}",
                r.sum_f64
            );
        }
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn the_same_json_for_every_thread_count_and_chunk_size() {
    for (name, config) in configs() {
        let (path, csv, _) = generated("threads", name, &config);
        let one = groups_to_json(
            &query::run_split(
                &csv,
                Query::default(),
                Split {
                    threads: 1,
                    chunk: 0,
                },
            )
            .unwrap(),
        );
        for threads in [1, 2, 3, 8] {
            for chunk in [0, 4096, 999, 100_003] {
                let split = Split { threads, chunk };
                let got = groups_to_json(&query::run_split(&csv, Query::default(), split).unwrap());
                assert_eq!(got, one, "{name} {split:?}");
            }
        }
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn many_more_chunks_than_cores() {
    // 64 threads over 3000 chunks of 100 bytes: the design for a 64-core machine,
    // run on whatever this one has.
    let (csv, _) = generate_in_memory(&Config {
        rows: 10_000,
        ..Config::default()
    });
    let one = query::run_split(
        &csv,
        Query::default(),
        Split {
            threads: 1,
            chunk: 0,
        },
    )
    .unwrap();
    let many = query::run_split(
        &csv,
        Query::default(),
        Split {
            threads: 64,
            chunk: 100,
        },
    )
    .unwrap();
    assert_eq!(groups_to_json(&many), groups_to_json(&one));
}

#[test]
fn other_columns_can_be_grouped_and_summed() {
    let csv = b"id,city,temp\n1,Oslo,-3.5\n2,Lima,20\n3,Oslo,1.5\n";
    let groups = query::run(
        csv,
        Query {
            group_by: "city",
            sum: "temp",
        },
    )
    .unwrap();
    assert_eq!(groups[&b"Oslo"[..]].sum, Some(-2.0));
    assert_eq!(groups[&b"Lima"[..]].count, 1);
}

/// sum |value| per category, for the error bound.
fn absolute_sums(csv: &[u8]) -> std::collections::HashMap<Vec<u8>, f64> {
    let mut sums = std::collections::HashMap::new();
    let mut header = true;
    step7::Parser::default()
        .for_each_record(csv, |r| {
            if !std::mem::take(&mut header) {
                let v = value::parse_value(&r.field(2).cooked()).unwrap().unwrap();
                *sums.entry(r.field(1).cooked().into_owned()).or_insert(0.0) += v.abs();
            }
        })
        .unwrap();
    sums
}
