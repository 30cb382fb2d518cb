//! `benchtool`: what `bench.sh` needs besides the step binaries, kept out of the
//! harness so that steps stay light to build (plotters is a dependency of this crate
//! only).
//!
//! - [`mod@bench`]: all that `./bench.sh` does: the options, the machine, the build, the
//!   rows run round by round, the report, the chart and the recording.
//! - [`error`]: why a command failed, the line `main` prints.
//! - [`limit`]: the `limit` row, an LF count with `memchr` over a memory map, on one
//!   core or on N threads; it prints the same JSON as a step.
//! - [`report`]: groups the runs `bench.sh` collected into rows (best of N each),
//!   writes `results.json` and the markdown table.
//! - [`svg`]: what both charts share: the SVG page, its title strip, the text styles.
//! - [`chart`]: the SVG bar chart of MB/s per row, from `results.json`.
//! - [`keys`]: `keys.svg` and `keys.md`, MB/s against distinct keys, from the
//!   recordings of `bench.sh --keys N --record`.
//! - [`outputs`]: a run's `results.json` and the markdown made from it.
//! - [`figures`]: `figures.md` and `rows.md`, the run's figures and table rows as
//!   mdBook anchors, which the book includes from a recording (`bench.sh --record`).
//!
//! Units as everywhere in this repository: MB = 10^6 bytes, MB/s is input bytes per
//! second.

pub mod bench;
pub mod chart;
pub mod error;
pub mod figures;
pub mod keys;
pub mod limit;
pub mod outputs;
pub mod report;
pub mod svg;

pub use error::{Error, Result};
