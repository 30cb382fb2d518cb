//! Every kernel compiles with NVRTC for compute_80 (A100) and compute_90 (H100,
//! H200), on any machine with `libnvrtc.so.12`, GPU or not. Without NVRTC the test
//! says so and passes, unless `REQUIRE_NVRTC=1`, which CI sets, so that CI cannot
//! pass by skipping:
//!
//! ```text
//! python3 -m venv /tmp/nvrtc-venv && /tmp/nvrtc-venv/bin/pip install nvidia-cuda-nvrtc-cu12
//! LD_LIBRARY_PATH=$(echo /tmp/nvrtc-venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib) \
//!     REQUIRE_NVRTC=1 cargo test -p step13 --test main nvrtc::
//! ```

use step13::device::{SOURCES, compile, nvrtc_present};

#[test]
fn every_kernel_compiles_for_compute_80_and_compute_90() {
    if !nvrtc_present() {
        let required = std::env::var("REQUIRE_NVRTC").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "REQUIRE_NVRTC=1 but libnvrtc.so is not loadable: install the \
             nvidia-cuda-nvrtc-cu12 wheel and put its lib folder in LD_LIBRARY_PATH"
        );
        println!("skipped: libnvrtc.so is not loadable (REQUIRE_NVRTC=1 makes this a failure)");
        return;
    }
    for arch in ["compute_80", "compute_90"] {
        for (name, text, kernels) in SOURCES {
            let ptx = compile(name, text, arch).unwrap_or_else(|log| panic!("{log}"));
            let ptx = ptx.to_src();
            let lowered = step13::device::lower_ptx_version(&ptx);
            assert!(
                lowered.contains("\n.version 8.0\n"),
                "{name}: no .version line"
            );
            for kernel in kernels {
                assert!(
                    ptx.contains(&format!(".entry {kernel}(")),
                    "{name} for {arch}: no entry {kernel} in the PTX"
                );
            }
        }
    }
}

#[test]
fn the_shared_header_is_pasted_in() {
    for (name, text, _) in SOURCES {
        assert!(text.contains("#include \"layout.cuh\""), "{name}");
        let source = step13::device::source(text);
        assert!(!source.lines().any(|l| l.starts_with("#include")), "{name}");
        assert!(source.contains("#define TILE_SLICES 1024"), "{name}");
    }
}
