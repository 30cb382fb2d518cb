//! `step6 [FILE] [--group-by COLUMN] [--sum COLUMN] [--runs N] [--json] [--row-json]
//! [--records FILE] [--verbose]`: the gate, then the query, its answer, its row, and
//! its speedup over the same query on step 1's parser. `--verbose` says which tier
//! ran (`CSV_TIER=scalar|portable|sse2|avx2|neon` forces one) and how often the
//! block walk fell back to the state machine.

use std::path::Path;
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches};
use harness::cli::{self, Options};
use harness::measure::{Measurement, time_runs};
use harness::query::{Groups, QueryError, groups_to_json, groups_to_table};
use step6::query::{self, Query};
use step6::{Parser, Step6, Tier, step1_query};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> ExitCode {
    let matches = cli::query_command::<Step6>()
        .arg(
            Arg::new("verbose")
                .long("verbose")
                .action(ArgAction::SetTrue)
                .help("say which tier ran (CSV_TIER forces one) and how often it fell back"),
        )
        .get_matches();
    let options = Options::from_matches(&matches);
    if let Some(path) = &options.records {
        return cli::dump_records::<Step6>(path);
    }
    let path = match cli::bench_input(options.file.as_deref()) {
        Ok(path) => path,
        Err(e) => return cli::fail("step6", &e),
    };
    if !cli::gate_passes::<Step6>() {
        return ExitCode::FAILURE;
    }
    if matches.get_flag("verbose") {
        verbose(&path);
    }
    match run(&path, &options, &matches) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run(path: &Path, options: &Options, matches: &ArgMatches) -> Result<(), ExitCode> {
    let query = Query {
        group_by: matches
            .get_one::<String>("group-by")
            .expect("has a default"),
        sum: matches.get_one::<String>("sum").expect("has a default"),
    };
    let (answers, times, allocs) = time_runs(options.runs, || {
        let input = step6::map(path).map_err(|e| cli::fail("step6", &e))?;
        Ok::<_, ExitCode>(query::run(&input, query))
    })?;
    let groups = match &answers[0] {
        Ok(groups) => groups,
        Err(e) => return Err(report(e, options.json)),
    };
    if options.json {
        println!("{}", groups_to_json(groups));
        return Ok(());
    }
    // The parse's fingerprint must be the reference parser's, as for every step.
    let parsed = cli::time_pass::<Step6>(path, 1).map_err(|message| {
        eprintln!("step6: {message}");
        ExitCode::FAILURE
    })?;
    let m = Measurement {
        times,
        allocs,
        ..parsed
    };
    let step1_best = step1_speed(path, query, groups, options.runs)?;
    if options.row_json {
        let mut json = m.to_json();
        json["step1_query_best_s"] = step1_best.into();
        json["speedup_over_step1"] = (step1_best / m.best().as_secs_f64()).into();
        println!("{json}");
        return Ok(());
    }
    println!(
        "\nSELECT {}, COUNT(*), SUM({}) FROM {} GROUP BY {}\n",
        query.group_by,
        query.sum,
        path.display(),
        query.group_by
    );
    println!("{}", groups_to_table(groups, query.group_by, query.sum));
    cli::print_measurement(&m, false);
    println!(
        "\nthe same query on step 1's parser: best {:.3} s; step 6 is {:.1}x faster",
        step1_best,
        step1_best / m.best().as_secs_f64()
    );
    Ok(())
}

/// Times the same query on step 1's parser and checks it gives the same answer, bit
/// for bit (the first cross-check, also a test). Returns its best time in seconds.
fn step1_speed(
    path: &Path,
    query: Query<'_>,
    expected: &Groups,
    runs: u32,
) -> Result<f64, ExitCode> {
    let (answers, times, _) = time_runs(runs, || Ok::<_, ExitCode>(step1_query::run(path, query)))?;
    for answer in &answers {
        let same =
            matches!(answer, Ok(groups) if groups_to_json(groups) == groups_to_json(expected));
        if !same {
            eprintln!("step6: the same query on step 1's parser gives another answer: {answer:?}");
            return Err(ExitCode::FAILURE);
        }
    }
    Ok(times.iter().min().expect("at least one run").as_secs_f64())
}

/// `--verbose`: the tiers, and what one untimed pass over `path` did.
fn verbose(path: &Path) {
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
    let Ok(input) = step6::map(path) else { return };
    let mut parser = Parser::default();
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

/// Prints a query error (as JSON with `--json`) and returns the exit status.
fn report(e: &QueryError, json: bool) -> ExitCode {
    if json {
        println!("{}", e.to_json());
    } else {
        eprintln!("step6: {e}");
    }
    ExitCode::FAILURE
}
