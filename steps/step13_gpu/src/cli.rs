//! The step on the command line: how `harness::query::cli` runs its query on
//! `--device cpu|cuda|auto`. With `auto` (the default) a machine without a CUDA driver
//! or a device says so in one line and runs the CPU twin; `--device cuda`, or
//! `REQUIRE_GPU=1`, makes that an error (exit status 3). `--device-resident` keeps
//! the input on the device between runs; `--verbose` prints the last run's stages.
//! The harness does the rest (gate, timing, answer, row).

use std::cell::RefCell;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Arg, ArgAction, ArgMatches, Command};
use harness::query::cli::{QueryStep, RunError};
use harness::query::{Groups, Query};

use crate::device::{self, Choice, Device, Report};
use crate::{Step13, map, tiles};

/// What the options decide: the device, whether the input stays on it, and the last
/// run's report for `--verbose`.
pub struct Config {
    /// Where the pipeline runs.
    pub device: Device,
    /// `--device-resident`.
    pub resident: bool,
    /// `--verbose`.
    pub verbose: bool,
    /// The report of the last run that answered (with `--device-resident`, the runs
    /// after the first time the parse of data already on the device).
    last: RefCell<Option<Report>>,
}

impl QueryStep for Step13 {
    type Config = Config;
    const VERBOSE: Option<&'static str> = Some(
        "say where it ran, how many tiles were repaired and how many rows fell back to the host, and the time per stage on a device",
    );

    fn args(command: Command) -> Command {
        command
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
                Arg::new("write-ptx")
                    .long("write-ptx")
                    .value_name("DIR")
                    .hide(true)
                    .help("write every kernel's PTX for compute_80 and compute_90 into DIR and exit"),
            )
    }

    fn own_command(matches: &ArgMatches) -> Option<ExitCode> {
        let dir = matches.get_one::<String>("write-ptx")?;
        Some(match device::write_ptx(Path::new(dir)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("step13: {message}");
                ExitCode::FAILURE
            }
        })
    }

    fn config(matches: &ArgMatches) -> Result<Config, (String, ExitCode)> {
        let choice = match matches.get_one::<String>("device").map(String::as_str) {
            Some("cpu") => Choice::Cpu,
            Some("cuda") => Choice::Cuda,
            _ => Choice::Auto,
        };
        let device = device::open(choice, device::gpu_required())
            .map_err(|e| (e.to_string(), ExitCode::from(3)))?;
        Ok(Config {
            device,
            resident: matches.get_flag("device-resident"),
            verbose: matches.get_flag("verbose"),
            last: RefCell::new(None),
        })
    }

    fn query_file(path: &Path, query: Query<'_>, config: &Config) -> Result<Groups, RunError> {
        let input = map(path)?;
        let outcome = config
            .device
            .run(&input, query, config.resident)
            .map_err(|e| RunError::Step(Box::new(device::Failed(e))))?;
        Ok(outcome.map(|(groups, report)| {
            config.last.replace(Some(report));
            groups
        })?)
    }

    fn after_runs(path: &Path, config: &Config, times: &[Duration]) {
        let (Some(report), true) = (config.last.borrow().clone(), config.verbose) else {
            return;
        };
        eprintln!("{report}");
        let wall: Vec<String> = times
            .iter()
            .map(|t| format!("{:.4}", t.as_secs_f64()))
            .collect();
        let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
        eprintln!(
            "wall time per run (s, map to answer): {}; best {:.0} MB/s",
            wall.join(" "),
            bytes as f64 / 1e6 / times.iter().min().expect("a run").as_secs_f64()
        );
    }

    fn describe(config: &Config) -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("device", config.device.name().into()),
            (
                "tiles",
                format!(
                    "{} bytes, slices of {}",
                    tiles::GPU.tile(),
                    tiles::GPU.slice
                )
                .into(),
            ),
        ]
    }
}
