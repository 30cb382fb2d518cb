//! The file a run measures, where its outputs go, and how `gen` makes the file when
//! it is missing ([`Input`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::bench::options::Options;
use crate::bench::run::status_text;
use crate::error::{BenchError, Result};

/// `--quick`'s file: 20,000 rows, about 1 MB.
const QUICK_ROWS: &str = "20000";

/// The rows of data/bench.csv and of `--keys`' and `--quoted`'s files without `--rows`.
const BENCH_ROWS: u64 = 1_000_000;

/// The 1BRC file's stations: the challenge's own count.
const STATIONS: &str = "413";

/// The measured file and the run's folder, from the options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The file, from the repository's root (`data/bench.csv`), or `--file` as typed.
    pub file: PathBuf,
    /// The run's folder under the root: `target/bench`, or `target/bench/KIND` for
    /// `--quick`, `--1brc`, `--keys` and `--quoted`, so that they leave a full run's
    /// results in place.
    pub out_dir: PathBuf,
    /// `gen`'s arguments that write the file (`--out FILE` last).
    pub generate: Option<Vec<String>>,
    /// Whether `gen` writes it even when it exists (`--quick`'s file is remade each
    /// run, quietly).
    pub always: bool,
}

impl Input {
    /// The file the options name, and how to make it.
    pub fn of(options: &Options) -> Input {
        let bench = PathBuf::from("target/bench");
        let out = |kind: &str| bench.join(kind);
        let rows = |default: u64| options.rows.unwrap_or(default).to_string();
        let suffix = options.rows.map_or(String::new(), |r| format!("-{r}"));
        let made = |file: String, out_dir: PathBuf, generate: Vec<String>| {
            let mut generate = generate;
            generate.extend(["--out".to_string(), file.clone()]);
            Input {
                file: file.into(),
                out_dir,
                generate: Some(generate),
                always: false,
            }
        };
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        if options.quick {
            let file = "target/bench/quick/quick.csv".to_string();
            let mut input = made(file, out("quick"), words(&["--rows", QUICK_ROWS]));
            input.always = true;
            input
        } else if let Some(brc) = options.brc {
            let generate = words(&[
                "--format",
                "1brc",
                "--rows",
                &brc.to_string(),
                "--stations",
                STATIONS,
            ]);
            made(format!("data/1brc-{brc}.txt"), out("1brc"), generate)
        } else if let Some(keys) = options.keys {
            let generate = words(&[
                "--keys",
                &keys.to_string(),
                "--rows",
                &rows(keys.max(BENCH_ROWS)),
            ]);
            made(
                format!("data/bench-keys-{keys}{suffix}.csv"),
                out("keys"),
                generate,
            )
        } else if options.quoted {
            let generate = words(&["--quote-strings", "--rows", &rows(BENCH_ROWS)]);
            made(
                format!("data/bench-quoted{suffix}.csv"),
                out("quoted"),
                generate,
            )
        } else if let Some(r) = options.rows {
            let generate = words(&["--rows", &r.to_string()]);
            made(format!("data/bench-{r}.csv"), bench.clone(), generate)
        } else if let Some(file) = &options.file {
            Input {
                file: file.clone(),
                out_dir: bench.clone(),
                generate: None,
                always: false,
            }
        } else {
            made("data/bench.csv".to_string(), bench.clone(), Vec::new())
        }
    }

    /// Writes the file with `bin/gen` when it is missing (or always, for `--quick`).
    ///
    /// # Errors
    /// [`BenchError::Spawn`] or [`BenchError::Command`] when `gen` fails,
    /// [`BenchError::NoSuchFile`] when there is still no file.
    pub fn make(&self, bin: &Path) -> Result<(), BenchError> {
        if let Some(args) = self
            .generate
            .as_ref()
            .filter(|_| self.always || !self.file.is_file())
        {
            let program = bin.join("gen");
            let mut generate = Command::new(&program);
            generate.args(args);
            if self.always {
                generate.stdout(Stdio::null());
            }
            let status = generate.status().map_err(|source| BenchError::Spawn {
                program: program.display().to_string(),
                source,
            })?;
            if !status.success() {
                return Err(BenchError::Command {
                    command: format!("gen {}", args.join(" ")),
                    status: status_text(status),
                });
            }
        }
        if !self.file.is_file() {
            return Err(BenchError::NoSuchFile(self.file.clone()));
        }
        Ok(())
    }
}
