//! The query alone, for a profiler: no gate, no fingerprint, no step 1 run, so that
//! `perf` or callgrind sees only `parallel::run_split` (the step binary runs all of
//! those around its timed passes).
//!
//! `cargo run --release -p step10 --example query_alone -- FILE [RUNS] [THREADS] [--1brc]`
//! reads `FILE` into memory and runs the query `RUNS` times (default 1) on `THREADS`
//! threads (default 1): `category, value` of a file with a header, or with `--1brc`
//! the One Billion Row Challenge's `station;temperature` lines. It prints the best
//! time to stderr. The instruction counts in step 5's and step 10's chapters come from
//!
//! ```text
//! valgrind --tool=callgrind target/release/examples/query_alone FILE 1 1 --1brc
//! ```
//!
//! divided by the rows.

use std::process::ExitCode;
use std::time::Instant;

use harness::dialect::Dialect;
use harness::query::{Aggs, Query};
use step10::parallel::{Split, run_split};

fn main() -> ExitCode {
    harness::run::alloc::keep_freed_memory(); // as the step's binary does
    let args: Vec<String> = std::env::args().skip(1).collect();
    let brc = args.iter().any(|a| a == "--1brc");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--1brc").collect();
    let number = |i: usize| args.get(i).map_or(Ok(1), |s| s.parse::<usize>());
    let (Some(path), Ok(runs), Ok(threads)) = (args.first(), number(1), number(2)) else {
        eprintln!("usage: query_alone FILE [RUNS] [THREADS] [--1brc]");
        return ExitCode::from(2);
    };
    let input = match std::fs::read(path) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("query_alone: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let query = match brc {
        true => Query {
            group_by: "1",
            sum: "2",
            dialect: Dialect::new(b';').expect("';' is a delimiter"),
            header: false,
            aggs: Aggs::ALL,
            ..Query::default()
        },
        false => Query {
            aggs: Aggs::ALL,
            ..Query::default()
        },
    };
    let split = Split {
        threads: threads.max(1),
        chunk: 0,
    };
    let mut best = f64::INFINITY;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        match run_split(&input, query, split) {
            Ok(groups) => drop(std::hint::black_box(groups)),
            Err(e) => {
                eprintln!("query_alone: {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    let mb_per_s = input.len() as f64 / best / 1e6;
    eprintln!("best of {runs}: {best:.4} s, {mb_per_s:.0} MB/s");
    ExitCode::SUCCESS
}
