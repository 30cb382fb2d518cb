//! Timing a pass: best of N runs, throughput in MB/s (10^6 bytes of input per
//! second) and Mrows/s (10^6 records per second), and heap allocations per pass.

use std::time::{Duration, Instant};

use crate::run::alloc::{AllocCount, count_allocations};
use crate::step::Fingerprint;

/// How this binary was built: `"release"`, or `"dev"` when debug assertions are on
/// (`cargo run` or `cargo test` without `--release`). The dev profile is optimised too
/// (see the workspace's `Cargo.toml`), but its debug assertions and overflow checks
/// slow some steps more than others, so its numbers are not the book's: every row
/// carries this, the table says so, and `bench.sh` refuses a dev row.
pub const BUILD: &str = if cfg!(debug_assertions) {
    "dev"
} else {
    "release"
};

/// The line printed under a table measured by a dev build; `None` for a release build.
pub fn build_warning() -> Option<&'static str> {
    (BUILD != "release").then_some(
        "note: a dev build (debug assertions and overflow checks on): these numbers are not \
         representative; run with --release for the book's (cargo run --release -p stepN)",
    )
}

/// The result of timing one step's pass over one file.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// `step1`, …
    pub step: String,
    /// The step's number on the ladder.
    pub number: u32,
    /// The idea the step adds.
    pub idea: String,
    /// Input size in bytes.
    pub bytes: u64,
    /// What every run computed (the same for every run: [`crate::run::cli::time_pass`] checks).
    pub fingerprint: Fingerprint,
    /// Wall time of every run, in run order.
    pub times: Vec<Duration>,
    /// Heap allocations of the last run (every run makes the same number).
    pub allocs: AllocCount,
}

impl Measurement {
    /// The fastest run: the one least disturbed by the rest of the machine.
    pub fn best(&self) -> Duration {
        self.times.iter().copied().min().unwrap_or_default()
    }

    /// The median run (the mean of the two middle runs for an even count).
    pub fn median(&self) -> Duration {
        let mut t = self.times.clone();
        t.sort();
        match t.len() {
            0 => Duration::ZERO,
            n if n % 2 == 1 => t[n / 2],
            n => (t[n / 2 - 1] + t[n / 2]) / 2,
        }
    }

    /// MB/s of the best run, MB = 10^6 bytes.
    pub fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.best().as_secs_f64()
    }

    /// Million records per second of the best run.
    pub fn mrows_per_s(&self) -> f64 {
        self.fingerprint.records as f64 / 1e6 / self.best().as_secs_f64()
    }

    /// The results table's header: `| step | idea added | MB/s | Mrows/s | heap allocs/pass |`.
    pub fn table_header() -> &'static str {
        "| step | idea added | MB/s | Mrows/s | heap allocs/pass |\n|---|---|---:|---:|---:|"
    }

    /// One row of the results table, e.g. `| 1 step1 | line reading + owned copies | 130 | 2.6 | 4,011,191 |`.
    pub fn table_row(&self) -> String {
        format!(
            "| {} {} | {} | {} | {:.1} | {} |",
            self.number,
            self.step,
            self.idea,
            thousands(self.mb_per_s().round() as u64),
            self.mrows_per_s(),
            thousands(self.allocs.allocations)
        )
    }

    /// The measurement as one JSON object, for tools such as `bench.sh`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "step": self.step,
            "number": self.number,
            "build": BUILD,
            "idea": self.idea,
            "bytes": self.bytes,
            "records": self.fingerprint.records,
            "fingerprint": {
                "records": self.fingerprint.records,
                "fields": self.fingerprint.fields,
                "bytes": self.fingerprint.bytes,
            },
            "runs": self.times.len(),
            "times_s": self.times.iter().map(Duration::as_secs_f64).collect::<Vec<_>>(),
            "best_s": self.best().as_secs_f64(),
            "median_s": self.median().as_secs_f64(),
            "mb_per_s": self.mb_per_s(),
            "mrows_per_s": self.mrows_per_s(),
            "allocs_per_pass": self.allocs.allocations,
            "alloc_bytes_per_pass": self.allocs.bytes,
            "peak_heap_bytes_per_pass": self.allocs.peak_bytes,
        })
    }
}

/// Runs `pass` `runs` times (at least once), timing each run and counting the last
/// run's allocations. Returns every run's output with the times.
///
/// # Errors
/// The first error a run returns; no later run is made.
pub fn time_runs<T, E>(
    runs: u32,
    mut pass: impl FnMut() -> Result<T, E>,
) -> Result<(Vec<T>, Vec<Duration>, AllocCount), E> {
    let mut outputs = Vec::new();
    let mut times = Vec::new();
    let mut allocs = AllocCount::default();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let (out, counted) = count_allocations(&mut pass);
        times.push(start.elapsed());
        outputs.push(out?);
        allocs = counted;
    }
    Ok((outputs, times, allocs))
}

/// `4011191` → `"4,011,191"`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_the_row_like_the_series() {
        let m = Measurement {
            step: "step1".into(),
            number: 1,
            idea: "line reading + owned copies".into(),
            bytes: 130_000_000,
            fingerprint: Fingerprint {
                records: 2_600_000,
                fields: 0,
                bytes: 0,
            },
            times: vec![
                Duration::from_secs(2),
                Duration::from_secs(1),
                Duration::from_secs(3),
            ],
            allocs: AllocCount {
                allocations: 4_011_191,
                bytes: 0,
                peak_bytes: 0,
            },
        };
        assert_eq!(
            m.table_row(),
            "| 1 step1 | line reading + owned copies | 130 | 2.6 | 4,011,191 |"
        );
        assert_eq!(m.median(), Duration::from_secs(2));
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn time_runs_stops_at_the_first_error() {
        let mut calls = 0;
        let r: Result<_, &str> = time_runs(5, || {
            calls += 1;
            if calls == 2 { Err("boom") } else { Ok(calls) }
        });
        assert_eq!(r.unwrap_err(), "boom");
        assert_eq!(calls, 2);
    }
}
