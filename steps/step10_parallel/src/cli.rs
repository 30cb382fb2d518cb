//! The step on the command line: how `harness::query::cli` runs its query over a file
//! on `--threads` threads in chunks of `--chunk` bytes, the same query on step 1's
//! parser for the speedup it prints, and `--verbose`, which says which tier ran
//! (`CSV_TIER` forces one), what the chunks' scan found (chunks, how many start inside
//! quotes, wrong speculations, bytes parsed past a chunk's end), and the query's time
//! on 1..=N threads. The harness does the rest (gate, timing, answer, row).

use std::path::Path;
use std::process::ExitCode;

use clap::{Arg, ArgMatches, Command};
use harness::dialect::Dialect;
use harness::query::cli::{QueryStep, RunError};
use harness::query::{Groups, Query};

use crate::query::{self, Split};
use crate::{Step10, Tier, chunks, fingerprint_chunked, fingerprint_in, map, step1_query};

impl QueryStep for Step10 {
    type Config = Split;
    const VERBOSE: Option<&'static str> =
        Some("say which tier ran, what the chunks' scan found, and the time per thread count");
    const COMPARES_WITH_STEP1: bool = true;

    fn args(command: Command) -> Command {
        command
            .arg(
                Arg::new("threads")
                    .long("threads")
                    .value_name("N")
                    .value_parser(clap::value_parser!(u64).range(1..=chunks::MAX_THREADS))
                    .help("threads to run the query on, 1 to 1024 [default: every core]"),
            )
            .arg(
                Arg::new("chunk")
                    .long("chunk")
                    .value_name("BYTES")
                    .value_parser(clap::value_parser!(u64).range(chunks::MIN_CHUNK..))
                    .help("bytes per chunk, at least 4096 [default: eight chunks a thread, 256 KiB to 8 MiB]"),
            )
    }

    fn config(matches: &ArgMatches) -> Result<Split, (String, ExitCode)> {
        Ok(Split {
            threads: matches
                .get_one::<u64>("threads")
                .map_or_else(chunks::available_threads, |&n| n as usize),
            chunk: matches.get_one::<u64>("chunk").map_or(0, |&n| n as usize),
        })
    }

    fn query_file(path: &Path, query: Query<'_>, split: &Split) -> Result<Groups, RunError> {
        Ok(query::run_split(&map(path)?, query, *split)?)
    }

    fn on_step1(path: &Path, query: Query<'_>) -> Result<Groups, RunError> {
        step1_query::run(path, query)
    }

    fn verbose(path: &Path, query: Query<'_>, split: &Split) {
        verbose(path, query.dialect, *split);
    }

    fn describe(split: &Split) -> Vec<(&'static str, serde_json::Value)> {
        vec![("threads", split.threads.into())]
    }
}

/// `--verbose`: the tiers, and what one untimed pass over `path` did.
fn verbose(path: &Path, dialect: Dialect, split: Split) {
    eprintln!(
        "tier: {} (CSV_TIER={}); {} threads available",
        Tier::chosen().name(),
        std::env::var("CSV_TIER").unwrap_or_else(|_| "unset".into()),
        chunks::available_threads()
    );
    let Ok(input) = map(path) else { return };
    let plan = split.plan(&input, dialect.delimiter);
    let s = plan.stats;
    eprintln!(
        "chunks: {} ({} with records), {} start inside quotes, {} speculations wrong, {} bytes parsed past a chunk's end ({:.4}% of the input)",
        s.chunks,
        plan.parts.len(),
        s.inside_quotes,
        s.wrong,
        s.past_end,
        100.0 * s.past_end as f64 / input.len().max(1) as f64
    );
    let mb = input.len() as f64 / 1e6;
    let best = |f: &dyn Fn()| {
        (0..5)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let one = best(&|| {
        let _ = std::hint::black_box(fingerprint_in(Tier::chosen(), &input, dialect));
    });
    eprintln!(
        "parse, one chunk, no scan (step 7's parse): {:>6.0} MB/s",
        mb / one
    );
    let size = |threads| chunks::default_size(input.len(), threads);
    for threads in 1..=split.threads {
        let scan = best(&|| {
            let d = dialect.delimiter;
            std::hint::black_box(chunks::plan(&input, size(threads), threads, d));
        });
        let parse = best(&|| {
            let _ = fingerprint_chunked(Tier::chosen(), &input, size(threads), threads, dialect);
        });
        let q = best(&|| {
            let split = Split {
                threads,
                chunk: split.chunk,
            };
            let query = Query {
                dialect,
                ..Query::default()
            };
            let _ = std::hint::black_box(query::run_split(&input, query, split));
        });
        eprintln!(
            "{threads} thread(s): transition functions and scan {:>6.0} MB/s; scan and parse {:>6.0} MB/s; query {:>6.0} MB/s",
            mb / scan,
            mb / parse,
            mb / q
        );
    }
}
