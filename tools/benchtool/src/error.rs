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
