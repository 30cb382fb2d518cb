//! The step on the command line: how `harness::query::cli` runs its query over a file,
//! the same query on step 1's parser for the speedup it prints, and `--verbose`, which
//! says which SIMD tier ran (`CSV_TIER` forces one) and how often the block walk fell
//! back to the state machine. The harness does the rest (gate, timing, answer, row).

use std::path::Path;
use std::process::ExitCode;

use clap::ArgMatches;
use harness::query::cli::{QueryStep, RunError};
use harness::query::{Groups, Query};

use crate::{Parser, Step7, Tier, map, run, step1_query};

impl QueryStep for Step7 {
    type Config = ();
    const VERBOSE: Option<&'static str> =
        Some("say which tier ran (CSV_TIER forces one) and how often it fell back");
    const COMPARES_WITH_STEP1: bool = true;

    fn config(_matches: &ArgMatches) -> Result<(), (String, ExitCode)> {
        Ok(())
    }

    fn query_file(path: &Path, query: Query<'_>, _config: &()) -> Result<Groups, RunError> {
        Ok(run(&map(path)?, query)?)
    }

    fn on_step1(path: &Path, query: Query<'_>) -> Result<Groups, RunError> {
        step1_query::run(path, query)
    }

    fn verbose(path: &Path, query: Query<'_>, _config: &()) {
        verbose(path, query.dialect.delimiter);
    }
}

/// `--verbose`: the tiers, and what one untimed pass over `path` did.
fn verbose(path: &Path, delimiter: u8) {
    let names = |tiers: Vec<Tier>| {
        tiers
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    eprintln!(
        "tiers: this CPU has {}; chosen: {} (CSV_TIER={})",
        names(Tier::supported()),
        Tier::chosen().name(),
        std::env::var("CSV_TIER").unwrap_or_else(|_| "unset".into())
    );
    let Ok(input) = map(path) else { return };
    let mut parser = Parser::new(delimiter);
    let mut records = 0u64;
    let parsed = parser.for_each_record(&input, |_| records += 1);
    let s = parser.stats();
    eprintln!(
        "pass: tier {}, {records} records, {} blocks by bitmaps, {} fallbacks to the state machine ({} bytes, {:.4}% of the input){}",
        s.tier.map_or("none", Tier::name),
        s.blocks,
        s.fallbacks,
        s.fallback_bytes,
        100.0 * s.fallback_bytes as f64 / input.len().max(1) as f64,
        if parsed.is_err() {
            "; the input ends inside a quote"
        } else {
            ""
        }
    );
    // The parse alone (the fields counted, nothing else), per tier: best of 5.
    for tier in Tier::supported() {
        let best = (0..5)
            .map(|_| {
                let t = std::time::Instant::now();
                let mut fields = 0usize;
                let _ = parser.for_each_record_in(tier, &input, |r| fields += r.len());
                std::hint::black_box(fields);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        eprintln!(
            "scan only (every field's span, no query), {:>8}: {:>6.0} MB/s",
            tier.name(),
            input.len() as f64 / best / 1e6
        );
    }
}
