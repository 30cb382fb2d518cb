//! The kernels' sources and their compilation: the `.cu` files of `kernels/`, embedded
//! with `include_str!` and the shared `layout.cuh` pasted in place of their
//! `#include`, compiled by NVRTC for the device's compute capability (or loaded as
//! PTX from `STEP13_PTX_DIR`), once a process.

use cudarc::nvrtc::{CompileOptions, Ptx};

use super::error::DeviceError;
use super::nvrtc_present;

// ANCHOR: sources
/// The header every kernel shares.
pub const LAYOUT: &str = include_str!("../../kernels/layout.cuh");

/// Each kernel file and the kernels it defines.
pub const SOURCES: [(&str, &str, &[&str]); 4] = [
    (
        "tiles.cu",
        include_str!("../../kernels/tiles.cu"),
        &["speculate_tiles", "repair_tiles"],
    ),
    (
        "scan.cu",
        include_str!("../../kernels/scan.cu"),
        &["scan_tile_states", "scan_tile_counts"],
    ),
    (
        "offsets.cu",
        include_str!("../../kernels/offsets.cu"),
        &["bitmaps_to_offsets"],
    ),
    (
        "groupby.cu",
        include_str!("../../kernels/groupby.cu"),
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
/// [`DeviceError::Compile`], with NVRTC's log, when the file does not compile.
pub fn compile(name: &str, text: &str, arch: &'static str) -> Result<Ptx, DeviceError> {
    let options = CompileOptions {
        arch: Some(arch),
        name: Some(name.to_string()),
        options: vec!["--std=c++17".into()],
        ..CompileOptions::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(source(text), options).map_err(|e| match e {
        cudarc::nvrtc::CompileError::CompileError { log, .. } => DeviceError::Compile {
            name: name.to_string(),
            arch,
            log: log.to_string_lossy().into_owned(),
        },
        source => DeviceError::Nvrtc {
            name: name.to_string(),
            source,
        },
    })
}
// ANCHOR_END: sources

/// Writes every kernel file's PTX for `compute_80` and `compute_90` into `dir`, as
/// `NAME.ARCH.ptx` (`tiles.compute_90.ptx`, …): to read what NVRTC made of a kernel,
/// or to carry the PTX to a machine without NVRTC (`STEP13_PTX_DIR`).
///
/// # Errors
/// NVRTC's log, or the I/O error; [`DeviceError::NoNvrtc`] when NVRTC is missing.
pub fn write_ptx(dir: &std::path::Path) -> Result<(), DeviceError> {
    let write = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |source| DeviceError::Write { path, source }
    };
    // cudarc panics when it cannot load the library: ask first.
    if !super::nvrtc_present() {
        return Err(DeviceError::NoNvrtc);
    }
    std::fs::create_dir_all(dir).map_err(write(dir))?;
    for arch in ["compute_80", "compute_90"] {
        for (name, text, _) in SOURCES {
            let ptx = compile(name, text, arch)?.to_src();
            let path = dir.join(format!("{}.{arch}.ptx", name.trim_end_matches(".cu")));
            std::fs::write(&path, ptx).map_err(write(&path))?;
        }
    }
    Ok(())
}

/// The PTX of kernel file `name` for `arch`: from `STEP13_PTX_DIR` when it holds
/// the file (written by [`write_ptx`]), else compiled by NVRTC.
///
/// # Errors
/// As [`compile`]; or when neither NVRTC nor the file is there.
pub(super) fn load_ptx(name: &str, text: &str, arch: &'static str) -> Result<Ptx, DeviceError> {
    if let Ok(dir) = std::env::var("STEP13_PTX_DIR") {
        let path =
            std::path::Path::new(&dir).join(format!("{}.{arch}.ptx", name.trim_end_matches(".cu")));
        if let Ok(ptx) = std::fs::read_to_string(&path) {
            return Ok(Ptx::from_src(ptx));
        }
    }
    if !nvrtc_present() {
        return Err(DeviceError::NoPtx {
            name: name.to_string(),
            arch,
        });
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
