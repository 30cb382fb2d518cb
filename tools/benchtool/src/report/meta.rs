//! What a recording says about where it ran: the machine, the toolchain and the run
//! ([`Meta`]), and the measured file ([`file_info`]).

use std::path::{Path, PathBuf};

use harness::run::measure::thousands;
use serde_json::{Value, json};

use crate::error::{Error, Result};

/// What `benchtool bench` knows about the machine and the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// CPU model, in words, with its family and model numbers where the OS gives them.
    pub cpu: String,
    /// CPU model name alone (`model name` of `/proc/cpuinfo`).
    pub cpu_name: String,
    /// CPU family number (`cpu family`), empty where the OS does not say.
    pub cpu_family: String,
    /// CPU model number (`model`), empty where the OS does not say.
    pub cpu_model: String,
    /// Cores the OS shows.
    pub cores: String,
    /// Memory, in words (`23.4 GiB`).
    pub memory: String,
    /// `uname -sr`: the kernel.
    pub os: String,
    /// The distribution (`PRETTY_NAME` of `/etc/os-release`), empty where there is none.
    pub os_release: String,
    /// The SIMD features the steps choose their tiers by, of those the CPU has
    /// (`sse2 avx2 avx512f pclmulqdq bmi2`, or `neon`), empty where the OS does not say.
    pub cpu_features: String,
    /// `rustc --version`.
    pub rustc: String,
    /// The measured file.
    pub file: PathBuf,
    /// Rounds: each row's runs (best of this many).
    pub runs: u32,
    /// How bench.sh was run, and when, on which commit.
    pub run: RunInfo,
}

/// The run itself: what a recording names so that its numbers can be traced and
/// repeated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInfo {
    /// The command, as it would be typed again (`./bench.sh --rows 20000000 …`,
    /// without `--record`).
    pub command: String,
    /// The kind of run, the name of its recording: `bench`, `bench-ROWS`,
    /// `1brc-ROWS`, `keys-N`, `quoted-ROWS`, `file-NAME`, `quick`
    /// ([`crate::bench::options::Options::kind`]).
    pub kind: String,
    /// Start and end, UTC, ISO 8601 (`2026-12-03T09:28:11Z`).
    pub started_utc: String,
    /// See `started_utc`.
    pub finished_utc: String,
    /// `git rev-parse HEAD`.
    pub commit: String,
    /// Whether the work tree had changes the commit does not hold (outside the
    /// recordings); `None` where git could not say.
    pub dirty: Option<bool>,
    /// Timed runs inside each step's process.
    pub in_process: Option<u32>,
}

/// The measured file's size and line endings, counted once.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read.
pub fn file_info(path: &Path) -> Result<Value> {
    let bytes = std::fs::read(path).map_err(Error::io(path))?;
    let lfs = memchr::memchr_iter(b'\n', &bytes).count();
    let crlfs = memchr::memmem::find_iter(&bytes, b"\r\n").count();
    let line_ending = line_ending(lfs as u64, crlfs as u64);
    Ok(json!({
        "path": path.display().to_string(),
        "bytes": bytes.len(),
        "mb": bytes.len() as f64 / 1e6,
        "lfs": lfs,
        "line_ending": line_ending,
    }))
}

/// `LF`, `CRLF`, or which most LFs follow, with the count of the others (an LF inside
/// a quoted field of a CRLF file counts among them: only a parse can tell).
pub fn line_ending(lfs: u64, crlfs: u64) -> String {
    match (lfs, crlfs) {
        (_, 0) => "LF".to_string(),
        (l, c) if l == c => "CRLF".to_string(),
        (l, c) if 2 * c >= l => format!(
            "CRLF ({} of {} LFs without a CR)",
            thousands(l - c),
            thousands(l)
        ),
        (l, c) => format!("LF ({} of {} LFs after a CR)", thousands(c), thousands(l)),
    }
}
