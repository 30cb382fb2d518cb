//! The step on the command line: how `harness::query::cli` runs its query over a file
//! on `--threads` threads in chunks of `--chunk` bytes, the same query on step 1's
//! parser for the speedup it prints, and `--verbose`, which says which tier ran
//! (`CSV_TIER` forces one), what the chunks' plan found (chunks, how many met their
//! start states' machines, the bytes the transition functions read, bytes parsed past
//! a chunk's end), and the time of the plan, the parse and the query on 1..=N
//! threads, the query's timed as the row times it. The harness does the rest (gate,
//! timing, answer, row).

use std::path::Path;
use std::process::ExitCode;

use clap::{Arg, ArgMatches, Command};
use harness::query::cli::{QueryStep, RunError};
use harness::query::{Groups, Query};

use crate::parallel::{self, Split};
use crate::{Step10, Tier, chunks, fingerprint_chunked, fingerprint_in, map, pool, step1_query};

impl QueryStep for Step10 {
    type Config = Split;
    const VERBOSE: Option<&'static str> = Some(
        "say which tier ran, what the chunks' plan found, and the time of its parts per thread count",
    );
    const COMPARES_WITH_STEP1: bool = true;

    fn args(command: Command) -> Command {
        command
            .arg(
                Arg::new("threads")
                    .long("threads")
                    .value_name("N")
                    .value_parser(clap::value_parser!(u64).range(1..=pool::MAX_THREADS))
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
                .map_or_else(pool::available_threads, |&n| n as usize),
            chunk: matches.get_one::<u64>("chunk").map_or(0, |&n| n as usize),
        })
    }

    fn query_file(path: &Path, query: Query<'_>, split: &Split) -> Result<Groups, RunError> {
        Ok(parallel::run_split(&map(path)?, query, *split)?)
    }

    fn on_step1(path: &Path, query: Query<'_>) -> Result<Groups, RunError> {
        step1_query::run(path, query)
    }

    fn verbose(path: &Path, query: Query<'_>, split: &Split) {
        verbose(path, query, *split);
    }

    fn describe(split: &Split) -> Vec<(&'static str, serde_json::Value)> {
        vec![("threads", split.threads.into())]
    }
}

/// `--verbose`: the tiers, what the plan of `path` found, and the time of each part
/// of the query on 1..=N threads. The query's own line times what the row times: the
/// query over the file mapped afresh, to its unordered answer, best of 5.
fn verbose(path: &Path, query: Query<'_>, split: Split) {
    eprintln!(
        "tier: {} (CSV_TIER={}); {} threads available",
        Tier::chosen().name(),
        std::env::var("CSV_TIER").unwrap_or_else(|_| "unset".into()),
        pool::available_threads()
    );
    let Ok(input) = map(path) else { return };
    let dialect = query.dialect;
    let percent = |bytes: u64| 100.0 * bytes as f64 / input.len().max(1) as f64;
    let plan = split.plan(&input, dialect.delimiter);
    let s = plan.stats;
    eprintln!(
        "chunks: {} ({} with records); after the first, {} met their start states' machines and {} did not; the transition functions read {} bytes ({:.4}% of the input), {} end states found again for the scan; {} bytes parsed past a chunk's end ({:.4}%)",
        s.chunks,
        plan.parts.len(),
        s.met,
        s.chunks - 1 - s.met,
        s.read,
        percent(s.read),
        s.ends_found,
        s.past_end,
        percent(s.past_end)
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
        "the parse of every field, one chunk, no plan (step 7's parse): {:>6.0} MB/s",
        mb / one
    );
    eprintln!(
        "each best of 5, over the file mapped once, but the query's (mapped afresh, as the row times it):"
    );
    for threads in 1..=split.threads {
        let split = Split {
            threads,
            chunk: split.chunk,
        };
        let scan = best(&|| {
            std::hint::black_box(split.plan(&input, dialect.delimiter));
        });
        let size = match split.chunk {
            0 => chunks::default_size(input.len(), threads),
            size => size,
        };
        let parse = best(&|| {
            let _ = fingerprint_chunked(Tier::chosen(), &input, size, threads, dialect);
        });
        if let Ok(Err(e)) = map(path).map(|input| parallel::run_split(&input, query, split)) {
            eprintln!("{threads} thread(s): the query fails (the time below is a failure's): {e}");
        }
        let q = best(&|| {
            let answer = map(path).map(|input| parallel::run_split(&input, query, split));
            std::hint::black_box(answer.is_ok_and(|a| a.is_ok()));
        });
        eprintln!(
            "{threads} thread(s): the plan (transition functions and scan) {:.3} ms; the plan and the parse of every field {:>6.0} MB/s; the query {:>6.0} MB/s",
            scan * 1e3,
            mb / parse,
            mb / q
        );
    }
}
