//! What one run did, for `--verbose`: where it ran, the tiles repaired, the rows that
//! fell back to the host, and the time of each stage (CUDA events on a device, wall
//! times on the twins).

use std::fmt;

use harness::query::{Groups, QueryError};

/// What one run did, for `--verbose`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Where it ran.
    pub device: String,
    /// Tiles, and tiles repaired.
    pub tiles: u64,
    /// Tiles processed twice.
    pub repaired: u64,
    /// Rows the device left to the host.
    pub fallback_rows: u64,
    /// Time per stage in milliseconds: CUDA events on a device, wall time on the CPU.
    pub stages: Vec<(&'static str, f32)>,
    /// Bytes of input.
    pub bytes: u64,
}

/// The stages that bring the input to the device; the rest is the parse and GROUP BY.
const TRANSFER: [&str; 4] = [
    "pinned allocation",
    "host to pinned",
    "device allocation",
    "copy to device",
];

impl Report {
    /// Milliseconds of the parse and GROUP BY: every stage but the input's transfer.
    pub fn parse_ms(&self) -> f64 {
        let parse = self.stages.iter().filter(|(s, _)| !TRANSFER.contains(s));
        parse.map(|&(_, ms)| f64::from(ms)).sum()
    }

    /// Milliseconds of the bare copy to the device, when this run made one.
    pub fn copy_ms(&self) -> Option<f64> {
        let copy = self.stages.iter().find(|(s, _)| *s == "copy to device");
        copy.map(|&(_, ms)| f64::from(ms))
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} tiles, {} repaired, {} rows left to the host",
            self.device, self.tiles, self.repaired, self.fallback_rows
        )?;
        for (stage, ms) in &self.stages {
            write!(f, "\n  {stage:<20} {ms:>9.3} ms")?;
        }
        let mb = self.bytes as f64 / 1e6;
        let parse = self.parse_ms();
        write!(
            f,
            "\n  parse and GROUP BY   {parse:>9.3} ms: {:.0} MB/s",
            mb / parse * 1e3
        )?;
        if let Some(copy) = self.copy_ms() {
            write!(
                f,
                "\n  bare copy            {copy:>9.3} ms: {:.0} MB/s; copy + parse = {:.2} x the copy",
                mb / copy * 1e3,
                (copy + parse) / copy
            )?;
        }
        Ok(())
    }
}

/// A query's outcome: the groups and the report, or the query's error.
pub type Outcome = Result<(Groups, Report), QueryError>;
