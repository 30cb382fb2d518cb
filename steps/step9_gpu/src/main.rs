//! `step9 [FILE] [--group-by COLUMN] [--sum COLUMN] [--device cpu|cuda|auto]
//! [--device-resident] [--runs N] [--json] [--row-json] [--records FILE] [--verbose]`:
//! the gate (on the CPU twin), then the query on the device or its CPU twin, its
//! answer, and its row. With `--device auto` (the default) a machine without a CUDA
//! driver or a device says so in one line and runs the CPU twin; `--device cuda`, or
//! `REQUIRE_GPU=1`, makes that an error (exit status 3).

use std::path::Path;
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches};
use harness::cli::{self, Options};
use harness::measure::{Measurement, time_runs};
use harness::query::{QueryError, groups_to_json};
use step9::device::{self, Choice, Device};
use step9::groupby::Query;
use step9::{Step9, tiles};

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> ExitCode {
    let matches = cli::query_command::<Step9>()
        .arg(
            Arg::new("device")
                .long("device")
                .value_name("cpu|cuda|auto")
                .value_parser(["cpu", "cuda", "auto"])
                .default_value("auto")
                .help("where the pipeline runs: the CPU twin, a CUDA device, or a device when there is one (REQUIRE_GPU=1: auto never falls back to the twin; cpu still runs it)"),
        )
        .arg(
            Arg::new("device-resident")
                .long("device-resident")
                .action(ArgAction::SetTrue)
                .help("CUDA: time the parse and GROUP BY of data already on the device (the copy is timed apart)"),
        )
        .arg(
            Arg::new("verbose")
                .long("verbose")
                .action(ArgAction::SetTrue)
                .help("say where it ran, how many tiles were repaired and how many rows fell back to the host, and the time per stage on a device"),
        )
        .arg(
            Arg::new("write-ptx")
                .long("write-ptx")
                .value_name("DIR")
                .hide(true)
                .help("write every kernel's PTX for compute_80 and compute_90 into DIR and exit"),
        )
        .get_matches();
    if let Some(dir) = matches.get_one::<String>("write-ptx") {
        return match device::write_ptx(Path::new(dir)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("step9: {message}");
                ExitCode::FAILURE
            }
        };
    }
    let options = Options::from_matches(&matches);
    if let Some(path) = &options.records {
        return cli::dump_records::<Step9>(path);
    }
    let path = match cli::bench_input(options.file.as_deref()) {
        Ok(path) => path,
        Err(e) => return cli::fail("step9", &e),
    };
    let choice = match matches.get_one::<String>("device").map(String::as_str) {
        Some("cpu") => Choice::Cpu,
        Some("cuda") => Choice::Cuda,
        _ => Choice::Auto,
    };
    let device = match device::open(choice, device::gpu_required()) {
        Ok(device) => device,
        Err(message) => {
            eprintln!("step9: {message}");
            return ExitCode::from(3);
        }
    };
    if !cli::gate_passes::<Step9>() {
        return ExitCode::FAILURE;
    }
    match run(&path, &options, &matches, &device) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run(
    path: &Path,
    options: &Options,
    matches: &ArgMatches,
    device: &Device,
) -> Result<(), ExitCode> {
    let query = Query {
        group_by: matches
            .get_one::<String>("group-by")
            .expect("has a default"),
        sum: matches.get_one::<String>("sum").expect("has a default"),
    };
    let resident = matches.get_flag("device-resident");
    let verbose = matches.get_flag("verbose");
    let input = step9::map(path).map_err(|e| cli::fail("step9", &e))?;
    let (answers, times, allocs) = time_runs(options.runs, || {
        device.run(&input, query, resident).map_err(|message| {
            eprintln!("step9: the device failed: {message}");
            ExitCode::FAILURE
        })
    })?;
    let groups = match &answers[0] {
        Ok((groups, _)) => groups,
        Err(e) => return Err(report(e, options.json)),
    };
    // The last run's report: with --device-resident, the runs after the first.
    let report = answers
        .iter()
        .rev()
        .find_map(|a| a.as_ref().ok().map(|(_, r)| r))
        .expect("the first run answered");
    if verbose {
        eprintln!("{report}");
        let wall: Vec<String> = times
            .iter()
            .map(|t| format!("{:.4}", t.as_secs_f64()))
            .collect();
        eprintln!(
            "wall time per run (s, map to answer): {}; best {:.0} MB/s",
            wall.join(" "),
            input.len() as f64 / 1e6 / times.iter().min().expect("a run").as_secs_f64()
        );
    }
    if options.json {
        println!("{}", groups_to_json(groups));
        return Ok(());
    }
    // The parse's fingerprint must be the reference parser's, as for every step.
    let parsed = cli::time_pass::<Step9>(path, 1).map_err(|message| {
        eprintln!("step9: {message}");
        ExitCode::FAILURE
    })?;
    let m = Measurement {
        times,
        allocs,
        ..parsed
    };
    if options.row_json {
        let mut json = m.to_json();
        json["device"] = device.name().into();
        println!("{json}");
        return Ok(());
    }
    harness::query_cli::print_answer(path, query, groups);
    println!(
        "on {} (tiles of {} bytes, slices of {})",
        device.name(),
        tiles::GPU.tile(),
        tiles::GPU.slice
    );
    cli::print_measurement(&m, false);
    Ok(())
}

fn report(e: &QueryError, json: bool) -> ExitCode {
    if json {
        println!("{}", e.to_json());
    } else {
        eprintln!("step9: {e}");
    }
    ExitCode::FAILURE
}
