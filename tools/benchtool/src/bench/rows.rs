//! What a run measures: the steps ([`discover`], [`select`]) and the rows, each a
//! process run once per round ([`RowSpec`], [`rows`]).
//!
//! A row is a role (step, baseline, limit, peer), a name, the flag that makes its
//! binary print the measurement as JSON, and the options after it. A step's binary
//! is its package; `baseline-query` runs `baseline --query`; a limit row runs
//! `benchtool limit`; a peer runs `tools/peers/peers.py NAME`.

use std::path::Path;

use crate::bench::options::Options;
use crate::error::{BenchError, Error, Result};
use crate::report::Role;

/// A step crate under `steps/`: `steps/stepN_*`, package `stepN`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Step {
    /// N.
    pub number: u32,
    /// The package, which is also the binary.
    pub package: String,
    /// Whether its Cargo.toml says `bench = "not by default"`: it runs only when
    /// `--steps` names it.
    pub not_by_default: bool,
}

/// Every `steps/stepN_*` crate under `root`, in ladder order.
///
/// # Errors
/// [`BenchError::NoSteps`] when there is none, [`Error::Io`] when `steps/` cannot be
/// read.
pub fn discover(root: &Path) -> Result<Vec<Step>> {
    let dir = root.join("steps");
    let mut steps = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(Error::io(&dir))? {
        let path = entry.map_err(Error::io(&dir))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let number = name
            .as_deref()
            .and_then(|n| n.strip_prefix("step"))
            .and_then(|n| n.split_once('_'))
            .and_then(|(n, _)| {
                n.parse::<u32>()
                    .ok()
                    .filter(|_| n.bytes().all(|b| b.is_ascii_digit()))
            });
        let toml = std::fs::read_to_string(path.join("Cargo.toml"));
        if let (Some(number), Ok(toml)) = (number, toml) {
            steps.push(step(number, &toml));
        }
    }
    if steps.is_empty() {
        return Err(BenchError::NoSteps.into());
    }
    steps.sort();
    Ok(steps)
}

/// Step `number` from its Cargo.toml: the first `name = "…"` line names the package.
pub fn step(number: u32, toml: &str) -> Step {
    let package = toml
        .lines()
        .filter_map(|line| line.strip_prefix("name"))
        .filter_map(|rest| rest.trim_start().strip_prefix('='))
        .filter_map(|value| value.trim().strip_prefix('"')?.strip_suffix('"'))
        .next()
        .unwrap_or_default()
        .to_string();
    Step {
        number,
        package,
        not_by_default: toml.lines().any(|l| l == r#"bench = "not by default""#),
    }
}

/// The steps the options ask for, in ladder order (the first is the fingerprint's
/// reference, whatever the order of `--steps`): every step but those not run by
/// default, or those `--steps` names; for `--1brc` and `--keys` the query steps
/// (5 and later) only, and for `--keys` step 1 too.
///
/// # Errors
/// [`BenchError::NotAStepNumber`], [`BenchError::NoSuchStep`],
/// [`BenchError::NoQuerySteps`].
pub fn select(all: &[Step], options: &Options) -> Result<Vec<Step>, BenchError> {
    let mut steps: Vec<Step> = match &options.steps {
        None => all.iter().filter(|s| !s.not_by_default).cloned().collect(),
        Some(list) => {
            let mut wanted: Vec<&str> = list.split(',').collect();
            // `1,3,` names two steps, as bash's `read -a` read it.
            if wanted.last() == Some(&"") {
                wanted.pop();
            }
            let mut steps = Vec::new();
            for n in wanted {
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(BenchError::NotAStepNumber(n.to_string()));
                }
                let found = all.iter().find(|s| s.number.to_string() == n);
                let found = found.ok_or_else(|| BenchError::NoSuchStep {
                    n: n.to_string(),
                    steps: all
                        .iter()
                        .map(|s| s.number.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                })?;
                steps.push(found.clone());
            }
            steps
        }
    };
    if options.brc.is_some() || options.keys.is_some() {
        let keys = options.keys.is_some();
        steps.retain(|s| s.number >= 5 || (keys && s.number == 1));
        if steps.is_empty() {
            return Err(BenchError::NoQuerySteps);
        }
    }
    steps.sort();
    steps.dedup();
    Ok(steps)
}

/// One row of the table, as a process to run each round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSpec {
    /// Step, baseline, limit or peer.
    pub role: Role,
    /// The step's package, `baseline`, `baseline-query`, `baseline-simd`, `limit`,
    /// `limit-N`, or the peer (`polars`).
    pub name: String,
    /// `--json`, or `--row-json` where the binary has it (a query step's `--json`
    /// prints its answer instead).
    pub flag: &'static str,
    /// The options after the flag.
    pub options: Vec<String>,
}

impl RowSpec {
    fn new(role: Role, name: &str, flag: &'static str, options: &[&str]) -> RowSpec {
        RowSpec {
            role,
            name: name.to_string(),
            flag,
            options: options.iter().map(|o| o.to_string()).collect(),
        }
    }

    /// The row's name in the logs and the progress lines: a step on one thread of
    /// many is `stepN-1thread`.
    pub fn tag(&self) -> String {
        if self.role == Role::Step && self.options.windows(2).any(|w| w == ["--threads", "1"]) {
            format!("{}-1thread", self.name)
        } else {
            self.name.clone()
        }
    }
}

/// The peers, in the order they run.
pub const PEERS: [&str; 3] = ["polars", "duckdb", "pyarrow"];

/// The rows, in the order each round runs them: each step (`steps`: its package and
/// its `--help` text, which says whether it has `--row-json` and `--threads`), a step
/// that takes `--threads` again on one thread when `threads` is given, the
/// baseline's rows, the simd-csv query with `--peers`, the limit on one core (and on
/// `threads`), and the peers when `peers` (installed).
pub fn rows(
    options: &Options,
    steps: &[(String, String)],
    threads: Option<u64>,
    peers: bool,
) -> Vec<RowSpec> {
    let mut rows = Vec::new();
    let brc: &[&str] = if options.brc.is_some() {
        &["--format", "1brc"]
    } else {
        &[]
    };
    for (name, help) in steps {
        let flag = if help.contains("--row-json") {
            "--row-json"
        } else {
            "--json"
        };
        rows.push(RowSpec::new(Role::Step, name, flag, brc));
        // A step that runs on every core, beside itself on one: what the cores bring.
        if threads.is_some() && help.contains("--threads") {
            rows.push(RowSpec::new(
                Role::Step,
                name,
                flag,
                &[brc, &["--threads", "1"]].concat(),
            ));
        }
    }
    let query = RowSpec::new(Role::Baseline, "baseline-query", "--row-json", &["--query"]);
    if options.keys.is_some() {
        rows.push(query);
    } else if options.brc.is_none() {
        rows.push(RowSpec::new(Role::Baseline, "baseline", "--json", &[]));
        rows.push(query);
    }
    if options.peers {
        let simd = ["--query", "--simd-csv"];
        rows.push(RowSpec::new(
            Role::Baseline,
            "baseline-simd",
            "--row-json",
            &simd,
        ));
    }
    rows.push(RowSpec::new(Role::Limit, "limit", "--json", &[]));
    if let Some(n) = threads {
        let n = n.to_string();
        let name = format!("limit-{n}");
        rows.push(RowSpec::new(
            Role::Limit,
            &name,
            "--json",
            &["--threads", &n],
        ));
    }
    if peers {
        for peer in PEERS {
            rows.push(RowSpec::new(Role::Peer, peer, "--json", &[]));
        }
    }
    rows
}
