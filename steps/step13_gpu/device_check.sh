#!/usr/bin/env bash
# steps/step13_gpu/device_check.sh: step 13 on a CUDA device, in one run of under five
# minutes, from the repository root:
#   1. builds (cargo --offline), or takes the binaries that `--prepare` left in
#      target/step13-prebuilt/ when the machine has no crates to build from;
#   2. runs step 13's tests with REQUIRE_GPU=1, so nothing passes by falling back to
#      the CPU twin (tests/device.rs compares the device's answer with the twin's);
#   3. generates 1 GB and 4 GB bench files (gen), checks on the first that step 13's --json on the
#      device is step 10's byte for byte, and times step 13 (--verbose: per-kernel CUDA
#      event times, the copy to the device, the wall time per run), from pinned host
#      memory and with --device-resident.
# Results: ${OUT:-target/step13-check}/results.txt (and the logs beside it); exit
# status 1 when a test fails or the device's answer is not step 10's.
#
#   bash steps/step13_gpu/device_check.sh --prepare   # on a machine with the crates:
#        builds and strips the binaries and test executables, and writes the kernels'
#        PTX (needs libnvrtc: LD_LIBRARY_PATH), into target/step13-prebuilt/ (carry it)
#   bash steps/step13_gpu/device_check.sh             # on the GPU machine
set -uo pipefail
cd "$(dirname "$0")/../.."
prebuilt=target/step13-prebuilt

# One release build without fat LTO serves the tests and the timing (the time that
# matters here is the device's; fat LTO on every test binary would take minutes).
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16

if [[ ${1:-} == --prepare ]]; then
  set -e
  rm -rf "$prebuilt" && mkdir -p "$prebuilt/tests" "$prebuilt/ptx"
  cargo build --release -p step13 -p step10 -p gen
  release=${CARGO_TARGET_DIR:-target}/release
  cp "$release/step13" "$release/step10" "$release/gen" "$prebuilt/"
  cargo test --release -p step13 --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] != ["bin"]:
        print(m["executable"], m["target"]["name"])' |
    while read -r exe name; do cp "$exe" "$prebuilt/tests/$name"; done
  strip "$prebuilt"/step13 "$prebuilt"/step10 "$prebuilt"/gen "$prebuilt"/tests/*
  "$prebuilt/step13" --write-ptx "$prebuilt/ptx"
  echo "$PWD" >"$prebuilt/built_at"
  du -sh "$prebuilt"
  exit 0
fi

out=${OUT:-target/step13-check}
mkdir -p "$out"
log=$out/results.txt
: >"$log"
say() { echo "$*" | tee -a "$log"; }
start=$(date +%s)
status=0 # 1 when a test fails or the answer differs: the check failed
export REQUIRE_GPU=1
[[ -d $prebuilt/ptx ]] && export STEP13_PTX_DIR=$PWD/$prebuilt/ptx

say "step 13 device check, $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee -a "$log"
say "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"

# --- 1. build ---------------------------------------------------------------------
if cargo build --release --offline -p step13 -p step10 -p gen >"$out/build.log" 2>&1 &&
  cargo test --release --offline -p step13 --no-run >>"$out/build.log" 2>&1; then
  bin=${CARGO_TARGET_DIR:-target}/release
  run_tests() { timeout 200 cargo test --release --offline --no-fail-fast -p step13 -- --test-threads 8; }
  say "build: cargo --offline (release, LTO off)"
elif [[ -x $prebuilt/step13 ]]; then
  bin=$prebuilt
  run_tests() {
    local failed=0
    for t in "$prebuilt"/tests/*; do
      echo "== $(basename "$t")"
      STEP13_BIN=$PWD/$prebuilt/step13 timeout 120 "$t" --test-threads 8 || failed=1
    done
    return $failed
  }
  say "build: cargo --offline failed (see build.log); using the binaries in $prebuilt"
  # The harness finds data/conformance through the path it was built at
  # (CARGO_MANIFEST_DIR, written down by --prepare): point that path here.
  built_at=$(cat "$prebuilt/built_at" 2>/dev/null || true)
  if [[ -n $built_at && $built_at != "$PWD" && ! -e $built_at ]]; then
    mkdir -p "$(dirname "$built_at")" && ln -s "$PWD" "$built_at" &&
      say "linked $built_at -> $PWD (where the prebuilt binaries look for data/conformance)"
  fi
else
  say "build: FAILED, and no $prebuilt (run this script with --prepare where the crates are, and carry it)"
  exit 1
fi

# --- 2. tests, with REQUIRE_GPU=1 -------------------------------------------------
if run_tests >"$out/tests.log" 2>&1; then
  say "tests (REQUIRE_GPU=1): passed ($(grep -c '^test .* ok$' "$out/tests.log") tests)"
else
  say "tests (REQUIRE_GPU=1): FAILED; the failures:"
  status=1
  grep -E "FAILED|panicked" "$out/tests.log" | head -20 | tee -a "$log"
fi

# --- 3. the same answer as step 10, and the numbers --------------------------------
data=${STEP13_DATA:-target/step13-data}
mkdir -p "$data"
# 49.3 bytes a row: about 1 GB and 4 GB (STEP13_CHECK_ROWS for a dry run elsewhere).
first=1
for rows in ${STEP13_CHECK_ROWS:-20280000 81120000}; do
  f=$data/bench-${rows}.csv
  [[ -s $f ]] || "$bin/gen" --rows "$rows" --out "$f" >>"$out/gen.log" 2>&1
  say ""
  say "== $f: $(stat -c %s "$f") bytes"
  if [[ $first == 1 ]]; then
    first=0
    "$bin/step10" "$f" --json --runs 1 >"$out/step10-${rows}.json" 2>>"$out/step10.log"
    "$bin/step13" "$f" --json --runs 1 --device cuda >"$out/step13-${rows}.json" 2>>"$out/step13.log"
    if cmp -s "$out/step10-${rows}.json" "$out/step13-${rows}.json"; then
      say "answer: step 13 on the device prints step 10's JSON byte for byte"
    else
      say "answer: DIFFERS from step 10's (see step10-${rows}.json and step13-${rows}.json)"
      status=1
    fi
  fi
  for mode in pinned resident; do
    extra=()
    [[ $mode == resident ]] && extra=(--device-resident)
    say "-- $mode (best of 5; per-stage CUDA event times of the last run)"
    timeout 120 "$bin/step13" "$f" --json --runs 5 --device cuda --verbose "${extra[@]}" \
      2>&1 >/dev/null | grep -v '^gate' | tee -a "$log"
  done
done
say ""
say "elapsed: $(($(date +%s) - start)) s; $([[ $status == 0 ]] && echo passed || echo FAILED)"
exit $status
