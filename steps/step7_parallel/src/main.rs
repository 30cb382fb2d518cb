//! `step7 [FILE] [--group-by COLUMN] [--sum COLUMN] [--runs N] [--json] [--row-json]
//! [--records FILE] [--threads N] [--chunk BYTES] [--verbose]`: the gate, then the
//! query on N threads (default: every core), its answer, its row, and its speedup
//! over the same query on step 1's parser. `--verbose` says which tier ran
//! (`CSV_TIER=scalar|portable|sse2|avx2|neon` forces one), what the chunks' scan
//! found (chunks, how many start inside quotes, wrong speculations, bytes parsed past
//! a chunk's end), and the query's time on 1..=N threads.

use std::path::Path;
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches};
use harness::cli::{self, Options};
use harness::measure::{Measurement, time_runs};
use harness::query::{Groups, QueryError, groups_to_json, groups_to_table};
use step7::query::{self, Query, Split};
use step7::{Step7, Tier, chunks, step1_query};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> ExitCode {
    let matches = cli::query_command::<Step7>()
        .arg(
            Arg::new("threads")
                .long("threads")
                .value_name("N")
                .value_parser(clap::value_parser!(usize))
                .help("threads to run the query on [default: every core]"),
        )
        .arg(
            Arg::new("chunk")
                .long("chunk")
                .value_name("BYTES")
                .value_parser(clap::value_parser!(usize))
                .help("bytes per chunk [default: eight chunks a thread, at least 256 KiB]"),
        )
        .arg(
            Arg::new("verbose")
                .long("verbose")
                .action(ArgAction::SetTrue)
                .help("say which tier ran, what the chunks' scan found, and the time per thread count"),
        )
        .get_matches();
    let options = Options::from_matches(&matches);
    if let Some(path) = &options.records {
        return cli::dump_records::<Step7>(path);
    }
    let path = match cli::bench_input(options.file.as_deref()) {
        Ok(path) => path,
        Err(e) => return cli::fail("step7", &e),
    };
    if !cli::gate_passes::<Step7>() {
        return ExitCode::FAILURE;
    }
    let split = Split {
        threads: matches
            .get_one::<usize>("threads")
            .copied()
            .unwrap_or_else(chunks::available_threads)
            .max(1),
        chunk: matches.get_one::<usize>("chunk").copied().unwrap_or(0),
    };
    if matches.get_flag("verbose") {
        verbose(&path, split);
    }
    match run(&path, &options, &matches, split) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run(path: &Path, options: &Options, matches: &ArgMatches, split: Split) -> Result<(), ExitCode> {
    let query = Query {
        group_by: matches
            .get_one::<String>("group-by")
            .expect("has a default"),
        sum: matches.get_one::<String>("sum").expect("has a default"),
    };
    let (answers, times, allocs) = time_runs(options.runs, || {
        let input = step7::map(path).map_err(|e| cli::fail("step7", &e))?;
        Ok::<_, ExitCode>(query::run_split(&input, query, split))
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
    let parsed = cli::time_pass::<Step7>(path, 1).map_err(|message| {
        eprintln!("step7: {message}");
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
        json["threads"] = split.threads.into();
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
    println!("on {} thread(s)", split.threads);
    cli::print_measurement(&m, false);
    println!(
        "\nthe same query on step 1's parser: best {:.3} s; step 7 is {:.1}x faster",
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
            eprintln!("step7: the same query on step 1's parser gives another answer: {answer:?}");
            return Err(ExitCode::FAILURE);
        }
    }
    Ok(times.iter().min().expect("at least one run").as_secs_f64())
}

/// `--verbose`: the tiers, and what one untimed pass over `path` did.
fn verbose(path: &Path, split: Split) {
    eprintln!(
        "tier: {} (CSV_TIER={}); {} threads available",
        Tier::chosen().name(),
        std::env::var("CSV_TIER").unwrap_or_else(|_| "unset".into()),
        chunks::available_threads()
    );
    let Ok(input) = step7::map(path) else { return };
    let plan = split.plan(&input);
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
        let _ = std::hint::black_box(step7::fingerprint_in(Tier::chosen(), &input));
    });
    eprintln!(
        "parse, one chunk, no scan (step 6's parse): {:>6.0} MB/s",
        mb / one
    );
    let size = |threads| chunks::default_size(input.len(), threads);
    for threads in 1..=split.threads {
        let scan = best(&|| {
            std::hint::black_box(chunks::plan(&input, size(threads), threads));
        });
        let parse = best(&|| {
            let _ = step7::fingerprint_chunked(Tier::chosen(), &input, size(threads), threads);
        });
        let q = best(&|| {
            let split = Split {
                threads,
                chunk: split.chunk,
            };
            let _ = std::hint::black_box(query::run_split(&input, Query::default(), split));
        });
        eprintln!(
            "{threads} thread(s): transition functions and scan {:>6.0} MB/s; scan and parse {:>6.0} MB/s; query {:>6.0} MB/s",
            mb / scan,
            mb / parse,
            mb / q
        );
    }
}

fn report(e: &QueryError, json: bool) -> ExitCode {
    if json {
        println!("{}", e.to_json());
    } else {
        eprintln!("step7: {e}");
    }
    ExitCode::FAILURE
}
