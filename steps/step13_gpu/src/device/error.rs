//! What the device layer can fail with: no device to open, a kernel that does not
//! compile, or a CUDA call that fails during a run. A query's own error is not here:
//! it is the run's answer ([`super::Outcome`]).

use cudarc::driver::DriverError;
use cudarc::nvrtc::CompileError;

/// Why the device cannot be opened or a run on it failed.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// `libcuda` cannot be loaded.
    #[error("the CUDA driver library (libcuda.so) is not installed")]
    NoDriver,
    /// The driver panicked while it started (a broken install).
    #[error("the CUDA driver panicked while starting")]
    DriverPanicked,
    /// The driver started but has no device it can use.
    #[error("the CUDA driver has no usable device: {0:?}")]
    NoDevice(#[source] DriverError),
    /// A CUDA call failed.
    #[error("{stage}: {source:?}")]
    Cuda {
        /// What was asked of the device: a stage, a kernel, `alloc`, `copy back`, …
        stage: &'static str,
        /// The driver's error, printed as its code (`CUDA_ERROR_OUT_OF_MEMORY`).
        source: DriverError,
    },
    /// NVRTC compiled a kernel file and refused it: its log.
    #[error("{name} does not compile for {arch}:\n{log}")]
    Compile {
        /// The kernel file.
        name: String,
        /// The architecture asked for (`compute_90`).
        arch: &'static str,
        /// NVRTC's log.
        log: String,
    },
    /// NVRTC failed otherwise.
    #[error("{name}: NVRTC failed: {source:?}")]
    Nvrtc {
        /// The kernel file.
        name: String,
        /// NVRTC's error.
        source: CompileError,
    },
    /// `libnvrtc` cannot be loaded, and the kernels were to be compiled.
    #[error(
        "NVRTC (libnvrtc.so.12) cannot be loaded: install it, or point \
         LD_LIBRARY_PATH at it (bash .ci/install-nvrtc.sh)"
    )]
    NoNvrtc,
    /// Neither NVRTC nor `STEP13_PTX_DIR`'s PTX for a kernel file.
    #[error(
        "NVRTC (libnvrtc.so) is not installed and STEP13_PTX_DIR holds no {name} for \
         {arch}, so the kernels cannot be loaded"
    )]
    NoPtx {
        /// The kernel file.
        name: String,
        /// The architecture it was wanted for.
        arch: &'static str,
    },
    /// A PTX file or its folder could not be written (`--write-ptx`).
    #[error("{}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: std::path::PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// `STEP13_ROW_STAGING` holds another value than `auto`, `always` or `never`.
    #[error("STEP13_ROW_STAGING={0}: auto, always or never")]
    Staging(String),
    /// A thread panicked while it held the device's input or pinned buffer.
    #[error("a poisoned lock")]
    Poisoned,
    /// 2^32 rows or more: the device's limb sums count rows in 32 bits.
    #[error("{0} rows: the device's 32-bit limb sums take fewer than 2^32")]
    TooManyRows(u64),
    /// An input with nothing after its BOM: no tile to launch.
    #[error("an input with no byte after its BOM launches nothing")]
    NoTile,
    /// `--device cuda` or `REQUIRE_GPU=1`, and no device could be opened.
    #[error("no CUDA device ({why}); {by} asks for one, so the CPU twin does not stand in")]
    Required {
        /// Why none could be opened.
        why: Box<DeviceError>,
        /// What asked for one: `--device cuda` or `REQUIRE_GPU=1`.
        by: &'static str,
    },
}

/// A run that failed on the device, as the command line reports it.
#[derive(Debug, thiserror::Error)]
#[error("the device failed: {0}")]
pub struct Failed(#[from] pub DeviceError);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_says_why_and_who_asked() {
        let e = DeviceError::Required {
            why: Box::new(DeviceError::NoDriver),
            by: "--device cuda",
        };
        assert_eq!(
            e.to_string(),
            "no CUDA device (the CUDA driver library (libcuda.so) is not installed); \
             --device cuda asks for one, so the CPU twin does not stand in"
        );
        let e = Failed(DeviceError::Staging("sometimes".into()));
        assert_eq!(
            e.to_string(),
            "the device failed: STEP13_ROW_STAGING=sometimes: auto, always or never"
        );
    }
}
