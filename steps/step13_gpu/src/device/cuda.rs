//! A CUDA device: opened once with every kernel loaded, the input uploaded (through a
//! pinned buffer, or kept on the device with `--device-resident`), and one run of the
//! pipeline, stage by stage.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream};
use cudarc::nvrtc::Ptx;
use harness::dialect::DELIMITER;
use harness::query::QueryError;

use super::error::DeviceError;
use super::nvrtc::{SOURCES, load_ptx, lower_ptx_version};
use super::report::{Outcome, Report};
use super::staging::{Intermediates, Marks, STAGE_BYTES, Staging};
use super::{cpu, driver_present};
use crate::groupby::{self, Query};
use crate::machine::Packed;
use crate::query;
use crate::tiles::{self, GPU};

/// The kernels of one module, loaded.
pub(super) struct Kernels {
    pub(super) speculate_tiles: CudaFunction,
    pub(super) repair_tiles: CudaFunction,
    pub(super) scan_tile_states: CudaFunction,
    pub(super) scan_tile_counts: CudaFunction,
    pub(super) bitmaps_to_offsets: CudaFunction,
    pub(super) decode_aggregate: CudaFunction,
}

/// A CUDA device, its stream and the compiled kernels.
pub struct Cuda {
    pub(super) name: String,
    pub(super) ctx: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    pub(super) kernels: Kernels,
    /// `--device-resident`: the input's address and length, and its device copy.
    pub(super) resident: Mutex<Option<(usize, usize, CudaSlice<u8>)>>,
    /// A [`Staging`] as a number.
    pub(super) staging: AtomicU8,
    /// The pinned host buffer the input goes through, kept between runs.
    pub(super) pinned: Mutex<Option<cudarc::driver::PinnedHostSlice<u8>>>,
}

/// Threads a block of `decode_aggregate`.
pub(super) const ROWS_PER_BLOCK: u32 = 256;

/// For `map_err`: a failed CUDA call at `stage`.
pub(super) fn err(
    stage: &'static str,
) -> impl Fn(cudarc::driver::DriverError) -> DeviceError + Copy {
    move |source| DeviceError::Cuda { stage, source }
}

impl Cuda {
    /// Device 0, with every kernel compiled for it.
    ///
    /// # Errors
    /// [`DeviceError`]: why it cannot be used: no driver library, no device, no NVRTC,
    /// a kernel that does not compile.
    pub fn open() -> Result<Cuda, DeviceError> {
        if !driver_present() {
            return Err(DeviceError::NoDriver);
        }
        // A driver without a device, or a broken one, is an error, not a panic.
        let ctx = std::panic::catch_unwind(|| CudaContext::new(0))
            .map_err(|_| DeviceError::DriverPanicked)?
            .map_err(DeviceError::NoDevice)?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(err("compute capability"))?;
        let arch: &'static str = Box::leak(format!("compute_{major}{minor}").into_boxed_str());
        let mut functions = Vec::new();
        for (name, text, kernels) in SOURCES {
            let ptx = load_ptx(name, text, arch)?.to_src();
            let module = match ctx.load_module(Ptx::from_src(ptx.clone())) {
                // A driver older than the NVRTC that wrote the PTX refuses its
                // `.version`; these kernels use nothing past PTX ISA 8.0 (CUDA 12.0).
                Err(e)
                    if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION =>
                {
                    ctx.load_module(Ptx::from_src(lower_ptx_version(&ptx)))
                }
                other => other,
            }
            .map_err(err(name))?;
            for kernel in kernels {
                functions.push(module.load_function(kernel).map_err(err(kernel))?);
            }
        }
        let mut f = functions.into_iter();
        let mut next = || f.next().expect("six kernels");
        let kernels = Kernels {
            speculate_tiles: next(),
            repair_tiles: next(),
            scan_tile_states: next(),
            scan_tile_counts: next(),
            bitmaps_to_offsets: next(),
            decode_aggregate: next(),
        };
        let name = format!(
            "{} (compute capability {major}.{minor})",
            ctx.name().map_err(err("name"))?
        );
        Ok(Cuda {
            name,
            stream: ctx.default_stream(),
            ctx,
            kernels,
            resident: Mutex::new(None),
            staging: AtomicU8::new(Staging::from_env()? as u8),
            pinned: Mutex::new(None),
        })
    }

    /// Copies `input` to the device through pinned host memory, unless `resident`
    /// and the same input (address and length) is there from the last run.
    fn upload<'k>(
        &self,
        kept: &'k mut Option<(usize, usize, CudaSlice<u8>)>,
        input: &[u8],
        resident: bool,
        marks: &mut Marks,
    ) -> Result<&'k CudaSlice<u8>, DeviceError> {
        let key = (input.as_ptr() as usize, input.len());
        if !(resident && kept.as_ref().is_some_and(|k| (k.0, k.1) == key)) {
            // The pinned buffer is kept between runs: allocating gigabytes of pinned
            // memory costs more than copying them, and is not the parse's cost.
            let mut pinned = self.pinned.lock().map_err(|_| DeviceError::Poisoned)?;
            if pinned.as_ref().is_none_or(|p| p.len() != input.len()) {
                *pinned = None; // free the old one first
                // SAFETY: the buffer is written in full (copy_from_slice below) before
                // anything reads it.
                let fresh = unsafe { self.ctx.alloc_pinned::<u8>(input.len()) }
                    .map_err(err("pinned allocation"))?;
                *pinned = Some(fresh);
                marks.mark(&self.stream, "pinned allocation")?;
            }
            let pinned = pinned.as_mut().expect("set above");
            pinned
                .as_mut_slice()
                .map_err(err("pinned"))?
                .copy_from_slice(input);
            marks.mark(&self.stream, "host to pinned")?;
            let mut dev = self
                .stream
                .alloc_zeros::<u8>(input.len())
                .map_err(err("alloc"))?;
            marks.mark(&self.stream, "device allocation")?;
            self.stream
                .memcpy_htod(&*pinned, &mut dev)
                .map_err(err("copy to device"))?;
            *kept = Some((key.0, key.1, dev));
            marks.mark(&self.stream, "copy to device")?;
        }
        Ok(&kept.as_ref().expect("set above").2)
    }
}

impl Cuda {
    // ANCHOR: staging
    /// Whether `decode_aggregate` stages its rows in shared memory: as [`Staging`]
    /// says; for [`Staging::Auto`], only when the occupancy API gives the staged
    /// launch at least as many blocks per multiprocessor as the plain one, so staging
    /// never lowers occupancy.
    ///
    /// # Errors
    /// A CUDA error from the occupancy API.
    pub fn stage_rows(&self) -> Result<bool, DeviceError> {
        match self.staging() {
            Staging::Always => return Ok(true),
            Staging::Never => return Ok(false),
            Staging::Auto => {}
        }
        let f = &self.kernels.decode_aggregate;
        let occupancy = |smem: u32| {
            f.occupancy_max_active_blocks_per_multiprocessor(ROWS_PER_BLOCK, smem as usize, None)
                .map_err(err("occupancy"))
        };
        Ok(occupancy(STAGE_BYTES)? >= occupancy(0)?)
    }

    /// The row staging policy in force.
    pub fn staging(&self) -> Staging {
        match self.staging.load(Ordering::Relaxed) {
            1 => Staging::Always,
            2 => Staging::Never,
            _ => Staging::Auto,
        }
    }

    /// Sets the row staging policy (the tests run both paths).
    pub fn set_staging(&self, staging: Staging) {
        self.staging.store(staging as u8, Ordering::Relaxed);
    }
    // ANCHOR_END: staging

    // ANCHOR: run
    /// The pipeline on the device: copy, speculate, scan, repair, count, offsets,
    /// decode and aggregate, then the host's fallback rows.
    pub(super) fn run(
        &self,
        input: &[u8],
        query: Query<'_>,
        resident: bool,
    ) -> Result<Outcome, DeviceError> {
        let origin = harness::dialect::bom_len(input);
        let tiles = GPU.tiles(origin, input.len());
        if tiles == 0 || tiles > u32::MAX as usize {
            return Ok(cpu(input, query)); // nothing to launch (or too many tiles for u32 indexes)
        }
        if query.aggs.min_or_max() || query.dialect.delimiter != DELIMITER {
            // MIN and MAX are not in the device's table, and the kernels are compiled
            // for the comma: the twin runs, and its report says where.
            return Ok(cpu(input, query));
        }
        let mut marks = Marks::start(&self.stream)?;
        let mut kept = self.resident.lock().map_err(|_| DeviceError::Poisoned)?;
        let dev = self.upload(&mut kept, input, resident, &mut marks)?;
        let index = self.index(dev, input.len(), origin, &mut marks)?;
        let plan = match query::plan(input, index.summary, query) {
            Ok(plan) => plan,
            Err(e) => return Ok(Err(e)),
        };
        let mut decoded = self.decode(dev, &index, plan, &mut marks)?;
        let exact = self
            .stream
            .clone_dtoh(&index.exact)
            .map_err(err("copy back"))?;
        let spec = self
            .stream
            .clone_dtoh(&index.speculated)
            .map_err(err("copy back"))?;
        plan.keep_first_row(&mut decoded);
        let report = Report {
            device: self.name.clone(),
            tiles: tiles as u64,
            repaired: exact.iter().zip(&spec).filter(|(a, b)| a != b).count() as u64,
            fallback_rows: decoded.fallback.len() as u64,
            stages: marks.times()?,
            bytes: input.len() as u64,
        };
        let groups = match groupby::finish(input, &mut decoded, plan.columns, query) {
            Ok(groups) => groups,
            Err(e) => return Ok(Err(e)),
        };
        Ok(match query::open_quote(input, index.summary, DELIMITER) {
            Some(e) => Err(QueryError::Parse(e)),
            None => Ok((groups, report)),
        })
    }
    // ANCHOR_END: run

    /// Every intermediate of the pipeline on `input`, copied back, for the tests that
    /// compare the kernels with their twins.
    ///
    /// # Errors
    /// A CUDA error, or [`DeviceError::NoTile`] for an input with no tile (nothing to
    /// launch).
    pub fn intermediates(
        &self,
        input: &[u8],
        query: Query<'_>,
    ) -> Result<Intermediates, DeviceError> {
        let origin = harness::dialect::bom_len(input);
        if GPU.tiles(origin, input.len()) == 0 {
            return Err(DeviceError::NoTile);
        }
        let s = &self.stream;
        let mut marks = Marks::start(s)?;
        let mut kept = None;
        let dev = self.upload(&mut kept, input, false, &mut marks)?;
        let index = self.index(dev, input.len(), origin, &mut marks)?;
        let back = err("copy back");
        let mut offsets = s.clone_dtoh(&index.offsets).map_err(back)?;
        offsets.truncate(index.summary.rows as usize);
        let decoded = match query::plan(input, index.summary, query) {
            Ok(plan) => Ok(self.decode(dev, &index, plan, &mut marks)?),
            Err(e) => Err(e),
        };
        Ok(Intermediates {
            tiles: tiles::Tiles {
                origin,
                delimiter: DELIMITER,
                geometry: GPU,
                bitmaps: s.clone_dtoh(&index.bitmaps).map_err(back)?,
                counts: s.clone_dtoh(&index.counts).map_err(back)?,
                functions: s
                    .clone_dtoh(&index.functions)
                    .map_err(back)?
                    .into_iter()
                    .map(Packed)
                    .collect(),
                speculated: s.clone_dtoh(&index.speculated).map_err(back)?,
            },
            exact: s.clone_dtoh(&index.exact).map_err(back)?,
            first_rows: s.clone_dtoh(&index.first_rows).map_err(back)?,
            offsets,
            summary: index.summary,
            decoded,
        })
    }
}
