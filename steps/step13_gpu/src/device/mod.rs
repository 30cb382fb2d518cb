//! Where the pipeline runs: the CPU twins, or a CUDA device through `cudarc`.
//!
//! `cudarc` is built with `dynamic-loading`: nothing links against CUDA, so the crate
//! builds anywhere, and at run time [`open`] asks `cudarc::driver::sys::is_culib_present`
//! and `cudarc::nvrtc::sys::is_culib_present` whether `libcuda` and `libnvrtc` can be
//! loaded before touching either (loading a missing library through `cudarc`
//! panics). The kernels are the `.cu` files of `kernels/`, embedded with
//! `include_str!`, the shared `layout.cuh` pasted in place of their `#include`, and
//! compiled by NVRTC for the device's compute capability when the device is opened
//! (once a process).
//!
//! The host side is split along what it drives: `nvrtc` (the kernels' sources,
//! compiled or loaded once), `cuda` (the device, its buffers and a run), `launch`
//! (the launches of the index and of the GROUP BY), `staging` (shared-memory row
//! staging, the events that time the stages, what a run leaves on the device),
//! `report` (what `--verbose` prints) and `error` (what can fail). This file chooses
//! where a run goes.

mod cuda;
mod error;
mod launch;
mod nvrtc;
mod report;
mod staging;

pub use cuda::Cuda;
pub use error::{DeviceError, Failed};
pub use nvrtc::{LAYOUT, SOURCES, compile, lower_ptx_version, source, write_ptx};
pub use report::{Outcome, Report};
pub use staging::{Intermediates, STAGE_BYTES, Staging};

use crate::groupby::{self, Query};
use crate::query::{self, Summary};
use crate::tiles::{self, GPU};
use harness::query::QueryError;

/// True when `libnvrtc` can be loaded (NVRTC compiles the kernels).
pub fn nvrtc_present() -> bool {
    // SAFETY: `is_culib_present` only tries `dlopen` on NVRTC's library names and
    // drops what it opened; it runs no code of the library but its initialisers.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// True when the CUDA driver library `libcuda` can be loaded.
pub fn driver_present() -> bool {
    // SAFETY: as in `nvrtc_present`, for the driver's library names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// `REQUIRE_GPU=1`: a missing device is an error, never a fallback to the twin.
pub fn gpu_required() -> bool {
    std::env::var("REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// What `--device` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The CPU twins.
    Cpu,
    /// A CUDA device, or an error.
    Cuda,
    /// A CUDA device when there is one, else the CPU twins.
    Auto,
}

/// Where the pipeline runs.
pub enum Device {
    /// The CPU twins.
    Cpu,
    /// A CUDA device with the kernels compiled for it.
    Cuda(Box<Cuda>),
}

/// The line printed when `--device auto` finds no device.
pub const FALLBACK: &str = "no CUDA device: running the CPU twin";

// ANCHOR: open
/// Opens what `choice` asks for. With [`Choice::Auto`] and no usable device, prints
/// [`FALLBACK`] and the reason on one line and returns [`Device::Cpu`], unless
/// `required` ([`gpu_required`]).
///
/// # Errors
/// [`DeviceError::Required`]: why no device could be used, for [`Choice::Cuda`] or
/// when `required`.
pub fn open(choice: Choice, required: bool) -> Result<Device, DeviceError> {
    if choice == Choice::Cpu {
        return Ok(Device::Cpu);
    }
    match Cuda::open() {
        Ok(cuda) => Ok(Device::Cuda(Box::new(cuda))),
        Err(why) if choice == Choice::Auto && !required => {
            eprintln!("{FALLBACK} ({why})");
            Ok(Device::Cpu)
        }
        Err(why) => Err(DeviceError::Required {
            why: Box::new(why),
            by: if required {
                "REQUIRE_GPU=1"
            } else {
                "--device cuda"
            },
        }),
    }
}
// ANCHOR_END: open

impl Device {
    /// `cpu` or the device's name.
    pub fn name(&self) -> String {
        match self {
            Device::Cpu => "cpu (CPU twin)".into(),
            Device::Cuda(cuda) => cuda.name.clone(),
        }
    }

    /// Runs `query` over `input`. `resident`: keep the input on the device between
    /// runs, so that later runs time the parse of data already there.
    ///
    /// # Errors
    /// A CUDA error (a query error is the `Outcome`'s).
    pub fn run(
        &self,
        input: &[u8],
        query: Query<'_>,
        resident: bool,
    ) -> Result<Outcome, DeviceError> {
        match self {
            Device::Cpu => Ok(cpu(input, query)),
            Device::Cuda(cuda) => cuda.run(input, query, resident),
        }
    }
}

/// The pipeline on the CPU twins, with the device's geometry; the report's stages
/// are the twins' wall times.
fn cpu(input: &[u8], query: Query<'_>) -> Outcome {
    let mut stages = Vec::new();
    let mut clock = std::time::Instant::now();
    let mut lap = |name: &'static str, stages: &mut Vec<(&'static str, f32)>| {
        stages.push((name, clock.elapsed().as_secs_f32() * 1e3));
        clock = std::time::Instant::now();
    };
    let origin = harness::dialect::bom_len(input);
    let mut tiles = tiles::speculate_tiles(input, origin, GPU, query.dialect.delimiter);
    lap("speculate_tiles", &mut stages);
    let scan = tiles::scan_tile_states(&tiles);
    lap("scan_tile_states", &mut stages);
    tiles::repair_tiles(input, &mut tiles, &scan);
    lap("repair_tiles", &mut stages);
    let (first_rows, total) = tiles::scan_tile_counts(&tiles.counts);
    lap("scan_tile_counts", &mut stages);
    let offsets = tiles::bitmaps_to_offsets(&tiles, &first_rows, total);
    lap("bitmaps_to_offsets", &mut stages);
    let index = tiles::RowIndex {
        offsets,
        final_state: scan.final_state,
        stats: tiles::IndexStats {
            tiles: tiles.counts.len(),
            repaired: scan.repair.len(),
        },
    };
    let summary = Summary::of(&index);
    let plan = query::plan(input, summary, query)?;
    let mut decoded = if query.aggs.min_or_max() {
        groupby::all_to_host(&index.offsets, 1..plan.end)
    } else {
        groupby::decode_aggregate(input, &index.offsets, 1..plan.end, plan.columns)
    };
    lap("decode_aggregate", &mut stages);
    plan.keep_first_row(&mut decoded);
    let fallback_rows = decoded.fallback.len() as u64;
    let groups = groupby::finish(input, &mut decoded, plan.columns, query)?;
    lap("host: finish", &mut stages);
    let report = Report {
        device: "cpu (CPU twin)".into(),
        tiles: index.stats.tiles as u64,
        repaired: index.stats.repaired as u64,
        fallback_rows,
        stages,
        bytes: input.len() as u64,
    };
    match query::open_quote(input, summary, query.dialect.delimiter) {
        Some(e) => Err(QueryError::Parse(e)),
        None => Ok((groups, report)),
    }
}
