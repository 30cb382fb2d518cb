//! One command line for every step: `stepN [FILE] [--runs N] [--json] [--records FILE]`.
//!
//! [`run`] is the whole `main` of a parsing step: dump records, or make sure the bench
//! file exists, pass the gate, check the fingerprint, time the pass and print the row.
//! Steps with options of their own build on [`command`], [`Options`] and the functions
//! below instead.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};

use crate::dialect::Dialect;
use crate::error::Error;
use crate::run::measure::{Measurement, thousands, time_runs};
use crate::step::{Fingerprint, Step};

use crate::gate;
pub use crate::run::changed::{FileChanged, Stamp};
pub use crate::run::report::{
    PassError, error_json, error_object, fail, fail_as, gate_failed, matches_of,
};
pub use crate::run::sigbus::{explain_sigbus, explain_sigbus_with, sigbus_as_json};
use crate::run::stamp;
use crate::{json, reference};

/// The options every step binary takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The input; `None` means the bench file, generated when missing.
    pub file: Option<PathBuf>,
    /// Timed runs (best of N).
    pub runs: u32,
    /// Print the measurement as JSON instead of the table row (query steps: the answer).
    pub json: bool,
    /// Print the measurement as JSON, whatever `--json` means for the step: what
    /// `bench.sh` reads from every step.
    pub row_json: bool,
    /// Print the records parsed from this file as JSON, and nothing else.
    pub records: Option<PathBuf>,
    /// The delimiter (`--delimiter`, default `,`).
    pub dialect: Dialect,
}

/// The clap command with the common options, for `S`; add a step's own options to it.
pub fn command<S: Step>() -> Command {
    Command::new(S::NAME)
        .about(format!("Step {}: {} (a CSV engine, one idea at a time)", S::NUMBER, S::IDEA))
        .arg(Arg::new("file").value_name("FILE").value_parser(value_parser!(PathBuf))
            .help("CSV file to measure [default: data/bench.csv, generated when missing]"))
        .arg(Arg::new("runs").long("runs").value_name("N").value_parser(value_parser!(u32).range(1..))
            .default_value("3").help("timed runs; the best is reported"))
        .arg(Arg::new("json").long("json").action(ArgAction::SetTrue)
            .help("print the measurement (or the error) as JSON instead of a table row"))
        .arg(Arg::new("row-json").long("row-json").action(ArgAction::SetTrue)
            .help("print the measurement (the table row) as JSON"))
        .arg(Arg::new("records").long("records").value_name("FILE").value_parser(value_parser!(PathBuf))
            .help("print the records parsed from FILE as JSON (the data/conformance format) and exit"))
        .arg(delimiter_arg())
}

/// `--delimiter C` (`-d`): every step's, and step 11's `load` command's.
pub fn delimiter_arg() -> Arg {
    Arg::new("delimiter")
        .long("delimiter")
        .short('d')
        .value_name("C")
        .value_parser(Dialect::parse)
        .default_value(",")
        .help("the byte between fields: one ASCII character but the quote, CR, LF and NUL; \\t for a tab")
}

impl Options {
    /// Reads the common options out of `matches` of [`command`].
    pub fn from_matches(matches: &ArgMatches) -> Options {
        Options {
            file: matches.get_one::<PathBuf>("file").cloned(),
            runs: *matches.get_one::<u32>("runs").expect("has a default"),
            json: matches.get_flag("json"),
            row_json: matches.get_flag("row-json"),
            records: matches.get_one::<PathBuf>("records").cloned(),
            dialect: *matches
                .get_one::<Dialect>("delimiter")
                .expect("has a default"),
        }
    }
}

/// The `main` of a parsing step. Exit status: 0 on success; 1 when the gate fails, the
/// fingerprint differs or the input breaks the dialect; 2 when a file can't be read or
/// changed while it was read; 135 when it shrank while it was mapped. With `--json`,
/// every error is also one JSON object on stdout.
pub fn run<S: Step>() -> ExitCode {
    crate::run::alloc::keep_freed_memory();
    let options = Options::from_matches(&matches_of(command::<S>()));
    if options.json {
        sigbus_as_json();
    }
    if let Some(path) = &options.records {
        return dump_records_as::<S>(path, options.dialect, options.json);
    }
    let path = match bench_input(options.file.as_deref()) {
        Ok(path) => path,
        Err(e) => return fail_as(S::NAME, &e, options.json),
    };
    if !gate_passes::<S>() {
        return gate_failed(S::NAME, options.json);
    }
    let measurement = match time_pass::<S>(&path, options.runs, options.dialect) {
        Ok(m) => m,
        Err(e) => return e.report(S::NAME, options.json),
    };
    print_measurement(&measurement, options.json || options.row_json);
    ExitCode::SUCCESS
}

/// `--records FILE`: prints the records (or the parse error) of `path` as JSON. Exit
/// status 0 for records, 1 for a parse error (its JSON is printed all the same: it is
/// the answer the conformance cases record), 2 when the file cannot be read.
pub fn dump_records<S: Step>(path: &Path, dialect: Dialect) -> ExitCode {
    dump_records_as::<S>(path, dialect, false)
}

/// [`dump_records`], with a file that cannot be read said on stdout too, as
/// `{"error":"io",…}`, when `json` (`--json`).
pub fn dump_records_as<S: Step>(path: &Path, dialect: Dialect, json: bool) -> ExitCode {
    let bytes =
        regular_file(path).and_then(|()| std::fs::read(path).map_err(|e| Error::io(path, e)));
    match bytes {
        Ok(bytes) => {
            let outcome = S::records_in(&bytes, dialect);
            print!("{}", json::to_json(&outcome));
            if outcome.is_ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => fail_as(S::NAME, &e, json),
    }
}

/// The file to measure: `file` when given, else the bench file, generated (with a
/// message and a progress bar) when it does not exist yet. Checked here, before the
/// gate, so that every step reports a path it cannot read the same way (exit status
/// 2). Steps 2 and later map this file: see [`explain_sigbus`], installed here.
///
/// # Errors
/// When `file` cannot be opened, is a directory, or looks compressed, UTF-16 or
/// binary ([`crate::run::sniff`]); or the bench file cannot be written.
pub fn bench_input(file: Option<&Path>) -> Result<PathBuf, Error> {
    if let Some(path) = file {
        regular_file(path)?;
        refuse_what_is_not_text(path)?;
        explain_sigbus(path);
        return Ok(path.to_path_buf());
    }
    let path = gen_csv::default_bench_path();
    if !path.exists() {
        let config = gen_csv::Config::default();
        eprintln!(
            "{} does not exist yet: generating it ({} rows, seed {}), once.",
            path.display(),
            thousands(config.rows),
            config.seed
        );
        gen_csv::write_files(&config, &path).map_err(|e| Error::io_write(&path, e))?;
    }
    regular_file(&path)?;
    explain_sigbus(&path);
    Ok(path)
}

/// Refuses `path` unless it is a regular file (or a symbolic link to one): the check
/// every path a step reads passes first, the file to measure ([`bench_input`], the
/// bench file too) and `--records` ([`dump_records`]). A directory, a FIFO or a device opens, and a step
/// that maps it would say "No such device", one that reads it would wait for a
/// FIFO's writer or read `/dev/zero` until memory runs out: say what it is instead.
/// Asked of the path, not of an open file: opening a FIFO waits for a writer, forever
/// if none comes.
///
/// # Errors
/// [`Error::Io`] naming `path`: it cannot be found or asked, it is a directory, or
/// it is not a regular file.
pub fn regular_file(path: &Path) -> Result<(), Error> {
    let kind = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .file_type();
    if kind.is_dir() {
        return Err(Error::io(path, std::io::ErrorKind::IsADirectory.into()));
    }
    if !kind.is_file() {
        let what = std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a pipe, a device or a socket); the steps map their \
             input, which needs a file: save it to one first",
        );
        return Err(Error::io(path, what));
    }
    Ok(())
}

/// A compressed, UTF-16 or binary file is refused with what it looks like
/// ([`crate::run::sniff`]) instead of parsed into garbage.
fn refuse_what_is_not_text(path: &Path) -> Result<(), Error> {
    use std::io::Read;
    let mut head = Vec::with_capacity(crate::run::sniff::HEAD);
    std::fs::File::open(path)
        .and_then(|f| {
            f.take(crate::run::sniff::HEAD as u64)
                .read_to_end(&mut head)
        })
        .map_err(|e| Error::io(path, e))?;
    match crate::run::sniff::sniff(&head) {
        Some(what) => Err(Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, what),
        )),
        None => Ok(()),
    }
}

/// Runs the gate on `S`, prints one line (or the failures), and says whether it passed.
/// A binary that passed it over the same corpus finds its stamp and does not run it
/// again ([`crate::run::stamp`]).
pub fn gate_passes<S: Step>() -> bool {
    let stamp = stamp::current(S::NAME, &crate::gate::cases::conformance_dir());
    if let Some((path, key)) = &stamp
        && stamp::holds(path, key)
    {
        eprintln!(
            "gate: passed (this build passed it over the same corpus; delete {} to run it again)",
            path.display()
        );
        return true;
    }
    let start = std::time::Instant::now();
    match gate::run(crate::StepFns::of::<S>()) {
        Ok(report) if report.passed() => {
            if let Some((path, key)) = &stamp {
                stamp::write(path, key);
            }
            eprintln!(
                "gate: passed ({} conformance cases at {} paddings, {} random documents: {} checks in {:.2} s)",
                report.cases,
                2 * crate::gate::padding::MAX_PADDING + 3,
                thousands(report.documents as u64),
                thousands(report.checks as u64),
                start.elapsed().as_secs_f64()
            );
            true
        }
        Ok(report) => {
            for failure in report.failures.iter().take(5) {
                eprintln!("{failure}");
            }
            eprintln!(
                "gate: FAILED ({} of {} cases and families); no numbers are printed for a step that fails.",
                report.failures.len(),
                report.cases + crate::gate::random::Family::ALL.len()
            );
            false
        }
        Err(e) => {
            eprintln!("gate: cannot load the conformance corpus: {e}");
            false
        }
    }
}

/// The fingerprint every step must reproduce on `path`, from the reference parser.
///
/// # Errors
/// When the file cannot be read or breaks the dialect.
pub fn expected_fingerprint(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(reference::fingerprint_in(&bytes, dialect)?)
}

/// Times `S::pass` over `path` `runs` times and checks every run's fingerprint
/// against the reference parser's, on a file that did not change meanwhile.
///
/// # Errors
/// [`PassError`]: the file cannot be read or breaks the dialect, it changed while it
/// was read ([`Stamp`]: said so rather than blamed on the step), or a run's
/// fingerprint differs from the reference parser's.
pub fn time_pass<S: Step>(
    path: &Path,
    runs: u32,
    dialect: Dialect,
) -> Result<Measurement, PassError> {
    let stamp = Stamp::of(path).map_err(|e| PassError::File(Error::io(path, e)))?;
    // Any failure, and any disagreement, is first a question of the file.
    let judged = |e: Error| {
        stamp
            .changed(path)
            .map_or(PassError::File(e), PassError::Changed)
    };
    let expected = expected_fingerprint(path, dialect).map_err(judged)?;
    let (fingerprints, times, allocs) =
        time_runs(runs, || S::pass(path, dialect)).map_err(judged)?;
    if let Some(changed) = stamp.changed(path) {
        return Err(PassError::Changed(changed));
    }
    if let Some(fp) = fingerprints.iter().find(|&&fp| fp != expected) {
        return Err(PassError::Fingerprint(format!(
            "the pass over {} gave the fingerprint {} but the reference parser gives {}",
            path.display(),
            fp.to_json(),
            expected.to_json()
        )));
    }
    eprintln!(
        "fingerprint: {} records, {} fields, {} bytes, the same as the reference parser's",
        thousands(expected.records),
        thousands(expected.fields),
        thousands(expected.bytes)
    );
    let bytes = stamp.bytes();
    Ok(Measurement {
        step: S::NAME.to_string(),
        number: S::NUMBER,
        idea: S::IDEA.to_string(),
        bytes,
        fingerprint: expected,
        times,
        allocs,
    })
}

/// Prints the table row (with a line on the file and the runs before it) or the JSON.
pub fn print_measurement(m: &Measurement, json: bool) {
    if json {
        println!("{}", m.to_json());
        return;
    }
    eprintln!(
        "runs: {} over {:.1} MB; best {:.3} s, median {:.3} s",
        m.times.len(),
        m.bytes as f64 / 1e6,
        m.best().as_secs_f64(),
        m.median().as_secs_f64()
    );
    println!("{}\n{}", Measurement::table_header(), m.table_row());
    if let Some(warning) = crate::run::measure::build_warning() {
        println!("{warning}");
    }
}
