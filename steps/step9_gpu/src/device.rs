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

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::{CompileOptions, Ptx};
use harness::query::{Groups, QueryError};

use crate::groupby::{self, Decoded, Query, SLOTS, Table};
use crate::limbs::{LIMBS, Limbs};
use crate::machine::Packed;
use crate::query::{self, Plan, Summary};
use crate::tiles::{self, GPU};

// ANCHOR: sources
/// The header every kernel shares.
pub const LAYOUT: &str = include_str!("../kernels/layout.cuh");

/// Each kernel file and the kernels it defines.
pub const SOURCES: [(&str, &str, &[&str]); 4] = [
    (
        "tiles.cu",
        include_str!("../kernels/tiles.cu"),
        &["speculate_tiles", "repair_tiles"],
    ),
    (
        "scan.cu",
        include_str!("../kernels/scan.cu"),
        &["scan_tile_states", "scan_tile_counts"],
    ),
    (
        "offsets.cu",
        include_str!("../kernels/offsets.cu"),
        &["bitmaps_to_offsets"],
    ),
    (
        "groupby.cu",
        include_str!("../kernels/groupby.cu"),
        &["decode_aggregate"],
    ),
];

/// A kernel file as NVRTC gets it: `layout.cuh` pasted in place of its `#include`.
pub fn source(file: &str) -> String {
    file.replace("#include \"layout.cuh\"", LAYOUT)
}

/// Compiles the kernel file `name` (one of [`SOURCES`]) to PTX for `arch`
/// (`"compute_80"`, `"compute_90"`, …).
///
/// # Errors
/// NVRTC's log when the file does not compile.
pub fn compile(name: &str, text: &str, arch: &'static str) -> Result<Ptx, String> {
    let options = CompileOptions {
        arch: Some(arch),
        name: Some(name.to_string()),
        options: vec!["--std=c++17".into()],
        ..CompileOptions::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(source(text), options).map_err(|e| match e {
        cudarc::nvrtc::CompileError::CompileError { log, .. } => {
            format!(
                "{name} does not compile for {arch}:\n{}",
                log.to_string_lossy()
            )
        }
        other => format!("{name}: NVRTC failed: {other:?}"),
    })
}
// ANCHOR_END: sources

/// Writes every kernel file's PTX for `compute_80` and `compute_90` into `dir`, as
/// `NAME.ARCH.ptx` (`tiles.compute_90.ptx`, …): to read what NVRTC made of a kernel,
/// or to carry the PTX to a machine without NVRTC (`STEP9_PTX_DIR`).
///
/// # Errors
/// NVRTC's log, or the I/O error, in words.
pub fn write_ptx(dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for arch in ["compute_80", "compute_90"] {
        for (name, text, _) in SOURCES {
            let ptx = compile(name, text, arch)?.to_src();
            let path = dir.join(format!("{}.{arch}.ptx", name.trim_end_matches(".cu")));
            std::fs::write(&path, ptx).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The PTX of kernel file `name` for `arch`: from `STEP9_PTX_DIR` when it holds
/// the file (written by [`write_ptx`]), else compiled by NVRTC.
///
/// # Errors
/// As [`compile`]; or when neither NVRTC nor the file is there.
fn load_ptx(name: &str, text: &str, arch: &'static str) -> Result<Ptx, String> {
    if let Ok(dir) = std::env::var("STEP9_PTX_DIR") {
        let path =
            std::path::Path::new(&dir).join(format!("{}.{arch}.ptx", name.trim_end_matches(".cu")));
        if let Ok(ptx) = std::fs::read_to_string(&path) {
            return Ok(Ptx::from_src(ptx));
        }
    }
    if !nvrtc_present() {
        return Err(format!(
            "NVRTC (libnvrtc.so) is not installed and STEP9_PTX_DIR holds no {name} for {arch}, \
             so the kernels cannot be loaded"
        ));
    }
    compile(name, text, arch)
}

/// `ptx` with its `.version` line set to 8.0, the PTX ISA of CUDA 12.0.
pub fn lower_ptx_version(ptx: &str) -> String {
    ptx.lines()
        .map(|l| {
            if l.starts_with(".version ") {
                ".version 8.0"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

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
/// Why no device could be used, for [`Choice::Cuda`] or when `required`.
pub fn open(choice: Choice, required: bool) -> Result<Device, String> {
    if choice == Choice::Cpu {
        return Ok(Device::Cpu);
    }
    match Cuda::open() {
        Ok(cuda) => Ok(Device::Cuda(Box::new(cuda))),
        Err(why) if choice == Choice::Auto && !required => {
            eprintln!("{FALLBACK} ({why})");
            Ok(Device::Cpu)
        }
        Err(why) => Err(format!(
            "no CUDA device ({why}); {} asks for one, so the CPU twin does not stand in",
            if required {
                "REQUIRE_GPU=1"
            } else {
                "--device cuda"
            }
        )),
    }
}
// ANCHOR_END: open

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
    /// A CUDA error, in words (a query error is the `Outcome`'s).
    pub fn run(&self, input: &[u8], query: Query<'_>, resident: bool) -> Result<Outcome, String> {
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
    let mut tiles = tiles::speculate_tiles(input, origin, GPU);
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
    let mut decoded = groupby::decode_aggregate(input, &index.offsets, 1..plan.end, plan.columns);
    lap("decode_aggregate", &mut stages);
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
    match query::open_quote(input, summary) {
        Some(e) => Err(QueryError::Parse(e)),
        None => Ok((groups, report)),
    }
}

/// The kernels of one module, loaded.
struct Kernels {
    speculate_tiles: CudaFunction,
    repair_tiles: CudaFunction,
    scan_tile_states: CudaFunction,
    scan_tile_counts: CudaFunction,
    bitmaps_to_offsets: CudaFunction,
    decode_aggregate: CudaFunction,
}

/// A CUDA device, its stream and the compiled kernels.
pub struct Cuda {
    name: String,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernels: Kernels,
    /// `--device-resident`: the input's address and length, and its device copy.
    resident: Mutex<Option<(usize, usize, CudaSlice<u8>)>>,
    /// A [`Staging`] as a number.
    staging: AtomicU8,
    /// The pinned host buffer the input goes through, kept between runs.
    pinned: Mutex<Option<cudarc::driver::PinnedHostSlice<u8>>>,
}

/// Threads a block of `decode_aggregate`.
const ROWS_PER_BLOCK: u32 = 256;

fn err(stage: &str) -> impl Fn(cudarc::driver::DriverError) -> String + '_ {
    move |e| format!("{stage}: {e:?}")
}

impl Cuda {
    /// Device 0, with every kernel compiled for it.
    ///
    /// # Errors
    /// Why it cannot be used: no driver library, no device, no NVRTC, a kernel that
    /// does not compile.
    pub fn open() -> Result<Cuda, String> {
        if !driver_present() {
            return Err("the CUDA driver library (libcuda.so) is not installed".into());
        }
        // A driver without a device, or a broken one, is an error, not a panic.
        let ctx = std::panic::catch_unwind(|| CudaContext::new(0))
            .map_err(|_| "the CUDA driver panicked while starting".to_string())?
            .map_err(|e| format!("the CUDA driver has no usable device: {e:?}"))?;
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
    ) -> Result<&'k CudaSlice<u8>, String> {
        let key = (input.as_ptr() as usize, input.len());
        if !(resident && kept.as_ref().is_some_and(|k| (k.0, k.1) == key)) {
            // The pinned buffer is kept between runs: allocating gigabytes of pinned
            // memory costs more than copying them, and is not the parse's cost.
            let mut pinned = self
                .pinned
                .lock()
                .map_err(|_| "a poisoned lock".to_string())?;
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

    // ANCHOR: index
    /// Stages 2 to 5 on the device: the row index of the `n` bytes at `dev`.
    fn index(
        &self,
        dev: &CudaSlice<u8>,
        n: usize,
        origin: usize,
        marks: &mut Marks,
    ) -> Result<DeviceIndex, String> {
        let s = &self.stream;
        let tiles = GPU.tiles(origin, n);
        let t = tiles as u32;
        let n64 = n as u64;
        let mut bitmaps = s
            .alloc_zeros::<u32>(tiles * GPU.slices)
            .map_err(err("alloc"))?;
        let mut counts = s.alloc_zeros::<u32>(tiles).map_err(err("alloc"))?;
        let mut functions = s.alloc_zeros::<u16>(tiles).map_err(err("alloc"))?;
        let mut speculated = s.alloc_zeros::<u8>(tiles).map_err(err("alloc"))?;
        let mut exact = s.alloc_zeros::<u8>(tiles).map_err(err("alloc"))?;
        let mut final_state = s.alloc_zeros::<u8>(1).map_err(err("alloc"))?;
        let mut first_rows = s.alloc_zeros::<u64>(tiles).map_err(err("alloc"))?;
        let mut total = s.alloc_zeros::<u64>(1).map_err(err("alloc"))?;
        let per_tile = LaunchConfig {
            grid_dim: (t, 1, 1),
            block_dim: (GPU.slices as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let one_block = LaunchConfig {
            grid_dim: (1, 1, 1),
            ..per_tile
        };
        let origin64 = origin as u64;
        marks.mark(s, "index allocation")?;
        // 2. The speculative pass.
        let mut b = s.launch_builder(&self.kernels.speculate_tiles);
        b.arg(dev).arg(&n64).arg(&origin64).arg(&t);
        b.arg(&mut bitmaps)
            .arg(&mut counts)
            .arg(&mut functions)
            .arg(&mut speculated);
        // SAFETY: the arguments match `speculate_tiles` in kernels/tiles.cu in order and
        // type; `bitmaps` holds TILE_SLICES words a tile and the rest one entry a tile.
        unsafe { b.launch(per_tile) }.map_err(err("speculate_tiles"))?;
        marks.mark(s, "speculate_tiles")?;
        // 3. The scan over the tiles' functions.
        let mut b = s.launch_builder(&self.kernels.scan_tile_states);
        b.arg(&functions)
            .arg(&t)
            .arg(&mut exact)
            .arg(&mut final_state);
        // SAFETY: as `scan_tile_states` in kernels/scan.cu; one block of 1024 threads.
        unsafe { b.launch(one_block) }.map_err(err("scan_tile_states"))?;
        marks.mark(s, "scan_tile_states")?;
        // 4. The repair pass: a block per tile, most exit at once.
        let mut b = s.launch_builder(&self.kernels.repair_tiles);
        b.arg(dev)
            .arg(&n64)
            .arg(&origin64)
            .arg(&t)
            .arg(&exact)
            .arg(&speculated);
        b.arg(&mut bitmaps).arg(&mut counts).arg(&mut functions);
        // SAFETY: as `repair_tiles` in kernels/tiles.cu, over the buffers above.
        unsafe { b.launch(per_tile) }.map_err(err("repair_tiles"))?;
        marks.mark(s, "repair_tiles")?;
        // 5. The counts' scan, the one copy that sizes the offsets, and the offsets.
        let mut b = s.launch_builder(&self.kernels.scan_tile_counts);
        b.arg(&counts).arg(&t).arg(&mut first_rows).arg(&mut total);
        // SAFETY: as `scan_tile_counts` in kernels/scan.cu; one block.
        unsafe { b.launch(one_block) }.map_err(err("scan_tile_counts"))?;
        let rows = s.clone_dtoh(&total).map_err(err("copy back"))?[0];
        let final_state = s.clone_dtoh(&final_state).map_err(err("copy back"))?[0];
        marks.mark(s, "scan_tile_counts")?;
        if rows >= 1 << 32 {
            return Err(format!(
                "{rows} rows: the device's 32-bit limb sums take fewer than 2^32"
            ));
        }
        let mut offsets = s
            .alloc_zeros::<u64>(rows.max(1) as usize)
            .map_err(err("alloc"))?;
        let mut b = s.launch_builder(&self.kernels.bitmaps_to_offsets);
        b.arg(&bitmaps)
            .arg(&first_rows)
            .arg(&origin64)
            .arg(&t)
            .arg(&mut offsets);
        // SAFETY: as `bitmaps_to_offsets` in kernels/offsets.cu; `offsets` holds
        // `rows` entries, the bitmaps' set bits.
        unsafe { b.launch(per_tile) }.map_err(err("bitmaps_to_offsets"))?;
        marks.mark(s, "bitmaps_to_offsets")?;
        let at = |i: u64| -> Result<u64, String> {
            let i = i as usize;
            Ok(s.clone_dtoh(&offsets.slice(i..i + 1))
                .map_err(err("copy back"))?[0])
        };
        let summary = Summary {
            rows,
            final_state,
            first: if rows > 0 { at(0)? } else { 0 },
            last: if rows > 0 { at(rows - 1)? } else { 0 },
        };
        Ok(DeviceIndex {
            bitmaps,
            counts,
            functions,
            speculated,
            exact,
            first_rows,
            offsets,
            summary,
        })
    }
    // ANCHOR_END: index

    // ANCHOR: decode
    /// Stage 6 on the device: decode and aggregate the rows of `plan`, staged in
    /// shared memory or not ([`Staging`]); the table and the fallback rows, copied back.
    fn decode(
        &self,
        dev: &CudaSlice<u8>,
        index: &DeviceIndex,
        plan: Plan,
        marks: &mut Marks,
    ) -> Result<Decoded, String> {
        let s = &self.stream;
        let n = dev.len() as u64;
        let mut keys = s.alloc_zeros::<u64>(SLOTS).map_err(err("alloc"))?;
        let mut counts = s.alloc_zeros::<u64>(SLOTS).map_err(err("alloc"))?;
        let mut values = s.alloc_zeros::<u64>(SLOTS).map_err(err("alloc"))?;
        let mut limbs = s.alloc_zeros::<u64>(SLOTS * LIMBS).map_err(err("alloc"))?;
        let data_rows = plan.end.saturating_sub(1);
        let mut fallback = s
            .alloc_zeros::<u64>(2 * data_rows.max(1) as usize)
            .map_err(err("alloc"))?;
        let mut fallback_count = s.alloc_zeros::<u32>(1).map_err(err("alloc"))?;
        marks.mark(s, "table allocation")?;
        if data_rows > 0 {
            let stage_bytes = if self.stage_rows()? { STAGE_BYTES } else { 0 };
            let c = plan.columns;
            let (begin, end, rows) = (1u64, plan.end, index.summary.rows);
            let mut b = s.launch_builder(&self.kernels.decode_aggregate);
            b.arg(dev)
                .arg(&n)
                .arg(&index.offsets)
                .arg(&rows)
                .arg(&begin)
                .arg(&end);
            b.arg(&c.key).arg(&c.value).arg(&c.width).arg(&stage_bytes);
            b.arg(&mut keys)
                .arg(&mut counts)
                .arg(&mut values)
                .arg(&mut limbs);
            b.arg(&mut fallback).arg(&mut fallback_count);
            let cfg = LaunchConfig {
                grid_dim: (data_rows.div_ceil(u64::from(ROWS_PER_BLOCK)) as u32, 1, 1),
                block_dim: (ROWS_PER_BLOCK, 1, 1),
                shared_mem_bytes: stage_bytes,
            };
            // SAFETY: as `decode_aggregate` in kernels/groupby.cu: the table has SLOTS
            // slots (LIMBS words each for the limbs), `fallback` two words a row, and
            // the dynamic shared memory is the `stage_bytes` the kernel is told.
            unsafe { b.launch(cfg) }.map_err(err("decode_aggregate"))?;
        }
        marks.mark(s, "decode_aggregate")?;
        let fallen = s.clone_dtoh(&fallback_count).map_err(err("copy back"))?[0] as usize;
        let pairs = s
            .clone_dtoh(&fallback.slice(0..2 * fallen))
            .map_err(err("copy back"))?;
        let limbs = s.clone_dtoh(&limbs).map_err(err("copy back"))?;
        let decoded = Decoded {
            table: Table {
                keys: s.clone_dtoh(&keys).map_err(err("copy back"))?,
                counts: s.clone_dtoh(&counts).map_err(err("copy back"))?,
                values: s.clone_dtoh(&values).map_err(err("copy back"))?,
                limbs: limbs
                    .chunks_exact(LIMBS)
                    .map(|l| Limbs(l.try_into().expect("LIMBS words")))
                    .collect(),
            },
            fallback: pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect(),
        };
        marks.mark(s, "copy back")?;
        Ok(decoded)
    }
    // ANCHOR_END: decode

    // ANCHOR: staging
    /// Whether `decode_aggregate` stages its rows in shared memory: as [`Staging`]
    /// says; for [`Staging::Auto`], only when the occupancy API gives the staged
    /// launch at least as many blocks per multiprocessor as the plain one, so staging
    /// never lowers occupancy.
    ///
    /// # Errors
    /// A CUDA error from the occupancy API.
    pub fn stage_rows(&self) -> Result<bool, String> {
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
    fn run(&self, input: &[u8], query: Query<'_>, resident: bool) -> Result<Outcome, String> {
        let origin = harness::dialect::bom_len(input);
        let tiles = GPU.tiles(origin, input.len());
        if tiles == 0 || tiles > u32::MAX as usize {
            return Ok(cpu(input, query)); // nothing to launch (or too many tiles for u32 indexes)
        }
        let mut marks = Marks::start(&self.stream)?;
        let mut kept = self
            .resident
            .lock()
            .map_err(|_| "a poisoned lock".to_string())?;
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
        Ok(match query::open_quote(input, index.summary) {
            Some(e) => Err(QueryError::Parse(e)),
            None => Ok((groups, report)),
        })
    }
    // ANCHOR_END: run

    /// Every intermediate of the pipeline on `input`, copied back, for the tests that
    /// compare the kernels with their twins.
    ///
    /// # Errors
    /// A CUDA error, in words, or an input with no tile (nothing to launch).
    pub fn intermediates(&self, input: &[u8], query: Query<'_>) -> Result<Intermediates, String> {
        let origin = harness::dialect::bom_len(input);
        if GPU.tiles(origin, input.len()) == 0 {
            return Err("an input with no byte after its BOM launches nothing".into());
        }
        let s = &self.stream;
        let mut marks = Marks::start(s)?;
        let mut kept = None;
        let dev = self.upload(&mut kept, input, false, &mut marks)?;
        let index = self.index(dev, input.len(), origin, &mut marks)?;
        let back = |e| format!("copy back: {e:?}");
        let mut offsets = s.clone_dtoh(&index.offsets).map_err(back)?;
        offsets.truncate(index.summary.rows as usize);
        let decoded = match query::plan(input, index.summary, query) {
            Ok(plan) => Ok(self.decode(dev, &index, plan, &mut marks)?),
            Err(e) => Err(e),
        };
        Ok(Intermediates {
            tiles: tiles::Tiles {
                origin,
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

/// Bytes of shared memory a block of `decode_aggregate` stages its rows in: 256 rows
/// of up to 96 bytes on average; a block whose rows are longer reads them in place.
pub const STAGE_BYTES: u32 = 24 << 10;

/// `STEP9_ROW_STAGING=auto|always|never`: whether `decode_aggregate` copies its
/// block's rows into shared memory first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staging {
    /// When the occupancy API says it costs no occupancy (the default).
    Auto = 0,
    /// Always (a block whose rows do not fit reads them in place).
    Always = 1,
    /// Never.
    Never = 2,
}

impl Staging {
    /// From `STEP9_ROW_STAGING` (unset: `auto`).
    ///
    /// # Errors
    /// For another value.
    pub fn from_env() -> Result<Staging, String> {
        match std::env::var("STEP9_ROW_STAGING").as_deref() {
            Ok("always") => Ok(Staging::Always),
            Ok("never") => Ok(Staging::Never),
            Ok("auto") | Err(_) => Ok(Staging::Auto),
            Ok(other) => Err(format!("STEP9_ROW_STAGING={other}: auto, always or never")),
        }
    }
}

/// The row index on the device.
struct DeviceIndex {
    bitmaps: CudaSlice<u32>,
    counts: CudaSlice<u32>,
    functions: CudaSlice<u16>,
    speculated: CudaSlice<u8>,
    exact: CudaSlice<u8>,
    first_rows: CudaSlice<u64>,
    offsets: CudaSlice<u64>,
    summary: Summary,
}

/// What the device computed at every stage, on the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Intermediates {
    /// Bitmaps (after the repair), counts, functions and speculated states.
    pub tiles: tiles::Tiles,
    /// Every tile's exact start state.
    pub exact: Vec<u8>,
    /// Every tile's first row.
    pub first_rows: Vec<u64>,
    /// Every row's offset.
    pub offsets: Vec<u64>,
    /// The rows, the final state, the first and last offsets.
    pub summary: Summary,
    /// The table and the fallback rows, or the query's error before decoding.
    pub decoded: Result<Decoded, QueryError>,
}

/// CUDA events between the stages, for the report.
struct Marks(Vec<(&'static str, cudarc::driver::CudaEvent)>);

impl Marks {
    const TIMING: Option<cudarc::driver::sys::CUevent_flags> =
        Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);

    fn start(s: &Arc<CudaStream>) -> Result<Marks, String> {
        Ok(Marks(vec![(
            "start",
            s.record_event(Self::TIMING).map_err(err("event"))?,
        )]))
    }

    fn mark(&mut self, s: &Arc<CudaStream>, name: &'static str) -> Result<(), String> {
        self.0
            .push((name, s.record_event(Self::TIMING).map_err(err("event"))?));
        Ok(())
    }

    /// Milliseconds from each mark to the next, named by the later one.
    fn times(&self) -> Result<Vec<(&'static str, f32)>, String> {
        self.0
            .windows(2)
            .map(|w| Ok((w[1].0, w[0].1.elapsed_ms(&w[1].1).map_err(err("event"))?)))
            .collect()
    }
}
