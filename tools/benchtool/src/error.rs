//! The one error type of `benchtool`: what went wrong, as the line that `main`
//! prints after `benchtool: `.

use std::io;
use std::path::PathBuf;

/// Why a command of `benchtool` failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or folder could not be read or written: `PATH: why`.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// A file is not the JSON it should be: `PATH: why`.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Where serde_json stopped, and why.
        source: serde_json::Error,
    },
    /// `benchtool bench` (bench.sh) stopped: its options, or a run it made.
    #[error(transparent)]
    Bench(Box<BenchError>),
    /// The measured file could not be opened, mapped or counted (a step's error).
    #[error(transparent)]
    Input(#[from] harness::Error),
    /// plotters could not draw or write an SVG: `PATH: why`.
    #[error("{}: {why}", path.display())]
    Draw {
        /// The SVG.
        path: PathBuf,
        /// plotters' message.
        why: String,
    },
    /// A line of bench.sh's runs file is not a run: `runs file, line N: why`.
    #[error("runs file, line {line}: {why}")]
    RunsFile {
        /// 1-based line of the runs file.
        line: usize,
        /// What is wrong with it.
        why: BadRun,
    },
    /// A run names a role that is not a step, baseline, peer or limit.
    #[error("unknown role `{0}`")]
    UnknownRole(String),
    /// `results.json` has no row with a measurement.
    #[error("results.json has no rows")]
    NoRows,
    /// A keys recording's folder has no `results.json`.
    #[error("{}: {source} (a recording of ./bench.sh --keys {keys} --record has one)", path.display())]
    NoKeysResults {
        /// The `results.json` looked for.
        path: PathBuf,
        /// The folder's distinct keys.
        keys: u64,
        /// What the operating system said.
        source: io::Error,
    },
    /// The recordings' folder has no `keys-N` folder.
    #[error("{}: no keys-N folder: record some with ./bench.sh --keys N --record", dir.display())]
    NoKeysFolder {
        /// The recordings' folder.
        dir: PathBuf,
    },
    /// No engine of the keys recordings has a time.
    #[error("{}: no step, yardstick or peer with a time in {}", dir.display(), folders.join(", "))]
    NoKeysTimes {
        /// The recordings' folder.
        dir: PathBuf,
        /// The `keys-N` folders read.
        folders: Vec<String>,
    },
}

/// Why a line of the runs file is not a run.
#[derive(Debug, thiserror::Error)]
pub enum BadRun {
    /// The line is not JSON.
    #[error("{0}")]
    Json(serde_json::Error),
    /// The run has no `role`.
    #[error("no role")]
    NoRole,
    /// The run has no `best_s` (and is not a failed peer).
    #[error("no measurement (best_s) in the result")]
    NoMeasurement,
    /// A step or baseline built without `--release`.
    #[error(
        "{step} was not a release build (build: {build}): its numbers are not \
         representative, and bench.sh measures release builds only (cargo build --release)"
    )]
    NotRelease {
        /// The step's name, as the table shows it.
        step: String,
        /// The build it names, as JSON.
        build: serde_json::Value,
    },
}

/// Why `benchtool bench` stopped: the line bench.sh prints after `bench.sh: `, in the
/// words the bash script said it.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// An option bench.sh does not have.
    #[error("unknown option '{0}' (see ./bench.sh --help)")]
    UnknownOption(String),
    /// An option that takes a value came last.
    #[error("{option} needs {what}")]
    NeedsValue {
        /// The option, `--rows`.
        option: String,
        /// What it takes, `N`.
        what: &'static str,
    },
    /// A count that is not a positive integer.
    #[error("{option} must be a positive integer, got '{got}'")]
    NotPositive {
        /// The option, `--rows`.
        option: String,
        /// Its value, as typed.
        got: String,
    },
    /// `--keys` or `--quoted` with a file of another kind.
    #[error("{0} goes with --rows only: it makes its own file")]
    OwnFile(&'static str),
    /// Two of the options that name the file.
    #[error("--rows, --file, --quick and --1brc exclude each other")]
    FilesExclude,
    /// `--1brc` with `--peers`.
    #[error("--1brc and --peers exclude each other: the peers run the bench file's query")]
    BrcPeers,
    /// `--allow-dirty` without `--record`.
    #[error("--allow-dirty goes with --record")]
    AllowDirtyAlone,
    /// The file to measure is not there.
    #[error("no such file: {}", .0.display())]
    NoSuchFile(PathBuf),
    /// An item of `--steps` that is not a number.
    #[error("--steps: '{0}' is not a step number")]
    NotAStepNumber(String),
    /// A step `--steps` names that `steps/` does not hold.
    #[error("--steps: there is no step {n} (steps: {steps})")]
    NoSuchStep {
        /// The step asked for.
        n: String,
        /// The steps there are, `1 2 3 …`.
        steps: String,
    },
    /// No `steps/stepN_*` crate.
    #[error("no steps found under steps/ (crates steps/stepN_*)")]
    NoSteps,
    /// `--1brc` or `--keys` with `--steps` that names no query step.
    #[error("--1brc runs the query steps (5 and later); --steps named none")]
    NoQuerySteps,
    /// `--record` outside a git work tree.
    #[error("--record: not in a git work tree, so the recording could name no commit")]
    RecordOutsideGit,
    /// `--record` from a tree with changes, without `--allow-dirty`.
    #[error(
        "--record: the work tree has changes (above), so the recording would name a commit \
         that is not what it measured: commit them, or add --allow-dirty (the recording \
         then says so)"
    )]
    RecordDirty,
    /// `--peers` with `REQUIRE_PEERS=1`, and the peers could not be installed.
    #[error("--peers: {0} (REQUIRE_PEERS=1)")]
    PeersRequired(&'static str),
    /// A row's process failed or printed no JSON.
    #[error("{tag} failed ({status}) on {}: its gate or its pass failed; log: {}", file.display(), log.display())]
    RunFailed {
        /// The row, `step5` or `step10-1thread`.
        tag: String,
        /// `exit status N`, or the signal that ended it.
        status: String,
        /// The measured file.
        file: PathBuf,
        /// The run's stderr.
        log: PathBuf,
    },
    /// A row's JSON without a measurement.
    #[error("{tag} printed no measurement with {flag} (no best_s in its JSON): {start}")]
    NoMeasurement {
        /// The row.
        tag: String,
        /// `--json` or `--row-json`.
        flag: String,
        /// The first 200 characters it printed.
        start: String,
    },
    /// A step parsed the file into other records, fields or bytes than the first step.
    #[error("{step}'s fingerprint differs from {first}'s on {}: {got}, not {want}", file.display())]
    Fingerprint {
        /// The step.
        step: String,
        /// The first step, the reference.
        first: String,
        /// The measured file.
        file: PathBuf,
        /// The step's fingerprint, as JSON.
        got: String,
        /// The first step's.
        want: String,
    },
    /// A command bench.sh runs besides the rows (cargo, gen, python3) failed.
    #[error("{command} failed ({status})")]
    Command {
        /// The command, as typed.
        command: String,
        /// `exit status N`, or the signal that ended it.
        status: String,
    },
    /// A program could not be started.
    #[error("{program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// What the operating system said.
        source: io::Error,
    },
    /// clap refused the command line for a reason bench.sh had no words for.
    #[error("{0}")]
    Clap(#[from] clap::Error),
}

impl From<BenchError> for Error {
    fn from(e: BenchError) -> Error {
        Error::Bench(Box::new(e))
    }
}

impl Error {
    /// For `map_err`: an I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> Error {
        move |source| Error::Io {
            path: path.into(),
            source,
        }
    }

    /// For `map_err`: `path` is not JSON.
    pub fn json(path: impl Into<PathBuf>) -> impl FnOnce(serde_json::Error) -> Error {
        move |source| Error::Json {
            path: path.into(),
            source,
        }
    }

    /// For `map_err`: plotters failed on `path`.
    pub fn draw<E: std::fmt::Display>(path: impl Into<PathBuf>) -> impl FnOnce(E) -> Error {
        move |e| Error::Draw {
            path: path.into(),
            why: e.to_string(),
        }
    }
}

/// A result of `benchtool`.
pub type Result<T = (), E = Error> = std::result::Result<T, E>;
