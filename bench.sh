#!/usr/bin/env bash
# bench.sh: every step's row of the results table on one file, on this machine, with the
# csv crate's baseline and the limit of the hardware beside them. Run `./bench.sh --help`.
# All of it is `benchtool bench` (tools/benchtool/src/bench/): this builds that binary alone
# (with the features every binary is built with), so that --help and a wrong option answer
# before the steps are built, and runs it; it builds the rest.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --bin benchtool
target_dir=$(cargo metadata --format-version 1 --no-deps |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
exec "${target_dir:-${CARGO_TARGET_DIR:-target}}/release/benchtool" bench "$@"
