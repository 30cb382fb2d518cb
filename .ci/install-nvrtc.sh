#!/usr/bin/env bash
# Installs NVRTC, NVIDIA's run-time CUDA compiler, without a GPU or a CUDA toolkit:
# PyPI's nvidia-cuda-nvrtc-cu12 wheel carries libnvrtc.so.12. Step 13's test
# `tests/nvrtc.rs` compiles every kernel with it for compute_80 and compute_90, so a
# kernel that does not compile fails CI on a machine with no GPU.
#
# Prints the folder that holds libnvrtc.so.12 (for LD_LIBRARY_PATH or NVRTC_LIB_DIR);
# the virtual environment is cached, so a second run installs nothing.
set -euo pipefail
VERSION=12.9.86
VENV=${NVRTC_VENV:-$HOME/.cache/csv-engine/nvrtc-$VERSION}

lib_dir() { compgen -G "$VENV/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib" | head -n 1; }

if [[ ! -e "$(lib_dir)/libnvrtc.so.12" ]]; then
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet "nvidia-cuda-nvrtc-cu12==$VERSION" >&2
fi
dir=$(lib_dir)
[[ -e "$dir/libnvrtc.so.12" ]] || { echo "install-nvrtc: no libnvrtc.so.12 under $VENV" >&2; exit 1; }
echo "$dir"
