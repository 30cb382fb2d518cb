//! Step 6's answer, cross-checked three ways (the gate is the third, in `gate.rs`):
//! against the same query on step 1's parser, and against `gen`'s reference.

use std::path::PathBuf;

use gen_csv::{Config, Reference, generate_in_memory};
use harness::query::Groups;
use step6::query::{self, Query};
use step6::table::{GroupTable, Hashbrown};
use step6::{step1_query, value};

/// A generated file on disk (step 1 reads files) and its reference.
fn generated(test: &str, name: &str, config: &Config) -> (PathBuf, Vec<u8>, Reference) {
    let (csv, reference) = generate_in_memory(config);
    let path = std::env::temp_dir().join(format!("step6-{test}-{name}-{}.csv", std::process::id()));
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
fn same_answer_as_gens_reference() {
    for (name, config) in configs() {
        let (path, csv, reference) = generated("gen", name, &config);
        let ours: Groups = query::run(&csv, Query::default()).unwrap();
        assert_eq!(ours.len(), reference.groups.len(), "{name}");
        let abs_sums = absolute_sums(&csv);
        for (key, r) in &reference.groups {
            let g = ours[key.as_bytes()];
            let sum = g.sum.unwrap();
            assert_eq!(g.count, r.count, "{name} {key}");
            assert_eq!(
                sum.to_bits(),
                r.sum_f64.to_bits(),
                "{name} {key}: row-order f64 sum"
            );
            // Recursive summation of n terms errs by at most (n - 1) u sum|x| (Higham,
            // "Accuracy and Stability of Numerical Algorithms", 4.2), u = 2^-53, plus
            // the rounding of each term when it was parsed: n u sum|x| in all.
            let exact = r.sum_micros as f64 / 1e6; // itself within 1 ulp of the exact sum
            let bound = 2.0 * r.count as f64 * f64::EPSILON * abs_sums[key.as_bytes()];
            assert!(
                (sum - exact).abs() <= bound,
                "{name} {key}: {sum} vs exact {exact}"
            );
        }
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn both_tables_give_the_same_answer() {
    for (name, config) in configs() {
        let (path, csv, _) = generated("tables", name, &config);
        let hand = query::run_with::<GroupTable>(&csv, Query::default()).unwrap();
        let hashbrown = query::run_with::<Hashbrown>(&csv, Query::default()).unwrap();
        assert_eq!(hand, hashbrown, "{name}");
        std::fs::remove_file(path).unwrap();
    }
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
    step6::Parser::default()
        .for_each_record(csv, |r| {
            if !std::mem::take(&mut header) {
                let v = value::parse_value(&r.field(2).cooked()).unwrap().unwrap();
                *sums.entry(r.field(1).cooked().into_owned()).or_insert(0.0) += v.abs();
            }
        })
        .unwrap();
    sums
}
