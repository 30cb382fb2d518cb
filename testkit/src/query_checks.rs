//! The query steps' answer, cross-checked the same way for every step:
//! [`crate::query_tests!`]. Through the step's own [`QueryStep`] (the code its binary
//! runs), on generated files of five shapes (default, every name quoted with CR LF,
//! no quotes, and every string quoted as pandas' `QUOTE_NONNUMERIC` writes them, with
//! the bench file's 32 keys and with 20,000):
//!
//! - the same answer as the same query on step 1's parser, JSON for JSON (for a step
//!   that compares itself with step 1);
//! - `gen`'s reference: every count, and every sum bit for bit, as the step adds:
//!   [`Sums::RowOrder`] (`f64`s in row order from `+0.0`, steps 5 and 7) is the
//!   reference's row-order sum; [`Sums::Exact`] (step 8 on) is its exact decimal sum,
//!   correctly rounded. And each within the error bound of the other kind of sum;
//! - other columns than the default ones.
//!
//! ```text
//! // steps/step5_typed/tests/query.rs
//! harness::query_tests!(step5::Step5, harness::query_checks::Sums::RowOrder);
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gen_csv::{Config, Keys, Reference, Shape, generate_in_memory_shaped};

use harness::query::cli::{QueryStep, RunError, command};
use harness::query::{Aggs, Groups, Query, groups_to_json};

/// How a step adds its sums, and so which of the reference's sums it must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sums {
    /// `f64`s in row order from `+0.0`: the reference's `sum_f64`, bit for bit.
    RowOrder,
    /// Exactly, rounded once: the reference's exact `sum_micros`, correctly rounded.
    Exact,
}

/// One `#[test]` per check for the query step `$step` (a [`QueryStep`]) adding its
/// sums as `$sums` (a [`Sums`]).
#[macro_export]
macro_rules! query_tests {
    ($step:ty, $sums:expr) => {
        fn __dir() -> &'static ::std::path::Path {
            ::std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        }
        #[test]
        fn same_answer_as_step_1s_parser() {
            $crate::query_checks::same_answer_as_step_1s_parser::<$step>(__dir());
        }
        #[test]
        fn same_answer_as_gens_reference() {
            $crate::query_checks::same_answer_as_gens_reference::<$step>(__dir(), $sums);
        }
        #[test]
        fn other_columns_can_be_grouped_and_summed() {
            $crate::query_checks::other_columns_can_be_grouped_and_summed::<$step>(__dir());
        }
        #[test]
        fn keys_of_every_count_and_shape_group_apart() {
            $crate::query_checks::keys_of_every_count_and_shape_group_apart::<$step>(__dir());
        }
        #[test]
        fn sums_past_f64s_range() {
            $crate::query_checks::sums_past_f64s_range::<$step>(__dir(), $sums);
        }
    };
}

/// Sums whose partial values pass `f64`'s range. A row-order sum overflows to `inf`
/// as `f64` additions do (`1e308 + 1e308 - 1e308` is `inf`); an exact sum is the
/// exact value rounded once (`1e308`), and an exact value past the range
/// (`1e308 + 1e308`) is the error `sum_out_of_range`, naming the group, when the
/// query shows SUM. A query that does not is answered: its COUNT, MIN and MAX, and
/// the mean, which an exact sum rounds once (the mean of three `1e308` is `1e308`;
/// a row-order sum's is `inf`).
pub fn sums_past_f64s_range<S: QueryStep>(dir: &Path, sums: Sums) {
    let run_with = |name: &str, csv: &str, aggs: &str| {
        let path = dir.join(format!("range-{name}-{}.csv", std::process::id()));
        std::fs::write(&path, csv).unwrap();
        let matches = command::<S>().get_matches_from([S::NAME]);
        let config = S::config(&matches).unwrap_or_else(|(message, _)| panic!("{message}"));
        let query = Query {
            aggs: Aggs::parse(aggs).unwrap(),
            ..Query::default()
        };
        let answer = S::query_file(&path, query, &config);
        std::fs::remove_file(path).unwrap();
        match answer {
            Ok(groups) => Ok(groups),
            Err(RunError::Query(e)) => Err(e),
            Err(e) => panic!("no answer at all: {e}"),
        }
    };
    let run = |name: &str, csv: &str| run_with(name, csv, "count,sum");
    let three = "category,value\na,1\nc,1e308\nc,1e308\nc,1e308\n";
    for aggs in ["mean", "count", "min,max", "count,min,max,mean"] {
        let answer = run_with("three", three, aggs)
            .unwrap_or_else(|e| panic!("--agg {aggs}: {e} (SUM was not asked for)"));
        let c = answer[&b"c"[..]];
        assert_eq!((c.count, c.min, c.max), (3, Some(1e308), Some(1e308)));
        let mean = match sums {
            Sums::RowOrder => f64::INFINITY,
            Sums::Exact => 1e308,
        };
        assert_eq!(c.mean, Some(mean), "--agg {aggs}");
    }
    let back = run("back", "category,value\nb,1e308\nb,1e308\nb,-1e308\n").unwrap();
    let expected = match sums {
        Sums::RowOrder => f64::INFINITY,
        Sums::Exact => 1e308,
    };
    assert_eq!(back[&b"b"[..]].sum, Some(expected));
    let past = run("past", "category,value\na,1\nc,1e308\nc,1e308\n");
    match sums {
        Sums::RowOrder => assert_eq!(past.unwrap()[&b"c"[..]].sum, Some(f64::INFINITY)),
        Sums::Exact => assert_eq!(
            past.unwrap_err().to_json(),
            serde_json::json!({"error": "sum_out_of_range", "column": "value", "key": "c"})
        ),
    }
    // SUM among other aggregates is still refused.
    let with_sum = run_with("three-sum", three, "mean,sum");
    match sums {
        Sums::RowOrder => assert_eq!(with_sum.unwrap()[&b"c"[..]].sum, Some(f64::INFINITY)),
        Sums::Exact => assert_eq!(with_sum.unwrap_err().name(), "sum_out_of_range"),
    }
}

/// The generated files the checks run on: `(name, config)`.
pub fn configs() -> Vec<(&'static str, Config)> {
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

/// [`configs`] and the files users have that the bench file is not: every string
/// quoted (`gen --quote-strings`), with the bench file's 32 keys, and with 20,000
/// keys (more than a query step's table takes before it sets rows aside), each with
/// its [`Shape`]: `(name, config, shape)`.
pub fn shaped_configs() -> Vec<(&'static str, Config, Shape)> {
    let mut all: Vec<_> = configs()
        .into_iter()
        .map(|(name, config)| (name, config, Shape::default()))
        .collect();
    let quoted = |keys| Shape {
        keys,
        quote_strings: true,
    };
    let config = |rows, seed| Config {
        rows,
        seed,
        ..Config::default()
    };
    all.push(("quote-strings", config(10_000, 9), quoted(None)));
    let keys = Keys {
        distinct: 20_000,
        zipf: false,
    };
    all.push(("quote-strings-keys", config(40_000, 10), quoted(Some(keys))));
    all
}

/// A generated file written to `dir` (step 1 and the binaries read files) with its
/// bytes and its reference.
pub fn generated(
    dir: &Path,
    test: &str,
    name: &str,
    config: &Config,
) -> (PathBuf, Vec<u8>, Reference) {
    generated_shaped(dir, test, name, config, Shape::default())
}

/// [`generated`] in the [`Shape`] `shape`.
pub fn generated_shaped(
    dir: &Path,
    test: &str,
    name: &str,
    config: &Config,
    shape: Shape,
) -> (PathBuf, Vec<u8>, Reference) {
    let (csv, reference) = generate_in_memory_shaped(config, shape);
    let path = dir.join(format!("{test}-{name}-{}.csv", std::process::id()));
    std::fs::write(&path, &csv).unwrap();
    (path, csv, reference)
}

/// `S`'s answer over the file at `path`, with the options its binary has by default.
fn answer<S: QueryStep>(path: &Path, query: Query<'_>) -> Groups {
    let matches = command::<S>().get_matches_from([S::NAME]);
    let config = S::config(&matches).unwrap_or_else(|(message, _)| panic!("{message}"));
    S::query_file(path, query, &config).unwrap()
}

/// The step's answer equals the same query's on step 1's parser, JSON for JSON (what
/// its binary checks before it prints its speedup). Nothing to check for a step that
/// does not compare itself with step 1.
pub fn same_answer_as_step_1s_parser<S: QueryStep>(dir: &Path) {
    if !S::COMPARES_WITH_STEP1 {
        return;
    }
    for (name, config, shape) in shaped_configs() {
        let (path, _, _) = generated_shaped(dir, "step1", name, &config, shape);
        let ours = answer::<S>(&path, Query::default());
        let step1 = S::on_step1(&path, Query::default()).unwrap();
        assert_eq!(groups_to_json(&ours), groups_to_json(&step1), "{name}");
        std::fs::remove_file(path).unwrap();
    }
}

/// Every count of `gen`'s reference, and every sum bit for bit as `sums` says; and
/// the sum within 2 n u Σ|x| of the other kind of sum (Higham, "Accuracy and Stability
/// of Numerical Algorithms", 4.2: recursive summation of n terms errs by at most
/// (n − 1) u Σ|x|, u = 2^-53, plus each term's rounding when parsed).
pub fn same_answer_as_gens_reference<S: QueryStep>(dir: &Path, sums: Sums) {
    for (name, config, shape) in shaped_configs() {
        let (path, csv, reference) = generated_shaped(dir, "gen", name, &config, shape);
        let ours = answer::<S>(&path, Query::default());
        assert_eq!(ours.len(), reference.groups.len(), "{name}");
        let abs_sums = absolute_sums(&csv);
        for (key, r) in &reference.groups {
            let g = ours[key.as_bytes()];
            let sum = g.sum.unwrap();
            assert_eq!(g.count, r.count, "{name} {key}");
            // Rust's decimal parse rounds correctly: this is the exact sum, rounded once.
            let exact: f64 = gen_csv::decimal_from_micros(r.sum_micros).parse().unwrap();
            let (expected, other) = match sums {
                Sums::RowOrder => (r.sum_f64, exact),
                Sums::Exact => (exact, r.sum_f64),
            };
            assert_eq!(
                sum.to_bits(),
                expected.to_bits(),
                "{name} {key}: {sum} vs {expected} ({sums:?})"
            );
            let bound = 2.0 * r.count as f64 * f64::EPSILON * abs_sums[key.as_bytes()];
            assert!(
                (sum - other).abs() <= bound,
                "{name} {key}: {sum} vs {other}"
            );
        }
        std::fs::remove_file(path).unwrap();
    }
}

/// `--group-by city --sum temp` on a file with other columns.
pub fn other_columns_can_be_grouped_and_summed<S: QueryStep>(dir: &Path) {
    let path = dir.join(format!("{}-other-columns.csv", S::NAME));
    std::fs::write(&path, b"id,city,temp\n1,Oslo,-3.5\n2,Lima,20\n3,Oslo,1.5\n").unwrap();
    let groups = answer::<S>(
        &path,
        Query {
            group_by: "city",
            sum: "temp",
            ..Default::default()
        },
    );
    std::fs::remove_file(path).unwrap();
    assert_eq!(groups[&b"Oslo"[..]].sum, Some(-2.0));
    assert_eq!(groups[&b"Lima"[..]].count, 1);
}

/// The `i`-th key of a file of `n` distinct keys, in one of the shapes a GROUP BY
/// table must keep apart: short ones, long ones that share their first 36 bytes,
/// and long ones that share their first and last 20 bytes and differ in between.
/// Past 40 keys a few lengths around the table's 8- and 16-byte words join in.
pub fn key_of(i: usize, n: usize) -> String {
    match (n > 40).then_some(i % 4) {
        None | Some(0) => format!("k{i}"),
        Some(1) => format!("a-long-prefix-that-every-key-shares-{i:07}"),
        Some(2) => format!("same-twenty-bytes-..{i:07}..same-twenty-bytes"),
        _ => format!("{:0width$}", i, width = 7 + i % 11), // 7 to 17 bytes
    }
}

/// The environment variable that asks the slow checks for their full size: CI's
/// `cargo x ci` sets it; a learner's `cargo test` runs them smaller, in seconds.
pub const FULL_TESTS: &str = "CSV_FULL_TESTS";

/// Whether [`FULL_TESTS`] is set (to anything but `0`).
pub fn full_tests() -> bool {
    std::env::var(FULL_TESTS).is_ok_and(|v| v != "0")
}

/// `--group-by key --sum value` over files of 1, 2, 40, 1,000, 10,000 and 1,000,000
/// distinct keys (100,000 unless [`full_tests`]) ([`key_of`]), key `i` seen `i % 3 + 1` times,
/// far apart: every group's count and sum equal a model kept in a `HashMap`. The
/// values are integers, so that a row-order `f64` sum and an exact one are the same
/// number.
pub fn keys_of_every_count_and_shape_group_apart<S: QueryStep>(dir: &Path) {
    let most = if full_tests() { 1_000_000 } else { 100_000 };
    for n in [1, 2, 40, 1_000, 10_000, most] {
        let path = dir.join(format!("{}-keys-{n}-{}.csv", S::NAME, std::process::id()));
        let mut csv = b"key,value\n".to_vec();
        let mut model: HashMap<String, (u64, i64)> = HashMap::with_capacity(n);
        for round in 0..3 {
            for i in (0..n).filter(|i| i % 3 >= round) {
                let (key, value) = (key_of(i, n), (i % 1000) as i64 - 500 + round as i64);
                csv.extend_from_slice(format!("{key},{value}\n").as_bytes());
                let group = model.entry(key).or_default();
                *group = (group.0 + 1, group.1 + value);
            }
        }
        std::fs::write(&path, &csv).unwrap();
        let query = Query {
            group_by: "key",
            sum: "value",
            ..Query::default()
        };
        let groups = answer::<S>(&path, query);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(groups.len(), n, "{n} keys");
        for (key, (count, sum)) in &model {
            let group = &groups[key.as_bytes()];
            assert_eq!(group.count, *count, "{n} keys: {key}");
            assert_eq!(group.sum, Some(*sum as f64), "{n} keys: {key}");
        }
    }
}

/// Σ|value| per category of a generated file (the reference parser's records), for
/// the error bound.
fn absolute_sums(csv: &[u8]) -> HashMap<Vec<u8>, f64> {
    let mut sums = HashMap::new();
    for record in harness::reference::parse(csv).unwrap().iter().skip(1) {
        let value: f64 = std::str::from_utf8(&record[2]).unwrap().parse().unwrap();
        *sums.entry(record[1].clone()).or_insert(0.0) += value.abs();
    }
    sums
}

/// A file of 1,000 records after its header whose two errors lie far apart, for the
/// rule that the first in record order wins: at record 300 the kind `first`, at 700
/// the other (`"value"`: a value that is not a number; `"width"`: a record of two
/// fields). Chunks, tiles and passes find them in any order; the answer names 300.
pub fn two_errors(first: &str) -> Vec<u8> {
    let second = if first == "value" { "width" } else { "value" };
    let mut csv = b"id,category,value\n".to_vec();
    for i in 1..=1000 {
        let kind = match i {
            300 => first,
            700 => second,
            _ => "",
        };
        let row = match kind {
            "value" => format!("{i},a,x\n"),
            "width" => format!("{i},a\n"),
            _ => format!("{i},a,1\n"),
        };
        csv.extend_from_slice(row.as_bytes());
    }
    csv
}
