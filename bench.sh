#!/usr/bin/env bash
# bench.sh: every step's row of the results table on one file, on this machine, with the
# csv crate's baseline and the limit of the hardware beside them. Run `./bench.sh --help`.
set -euo pipefail
export LC_ALL=C # decimal points, not commas, in printf and awk

usage() {
  cat <<'EOF'
Usage: ./bench.sh [--rows N | --file PATH | --quick | --1brc [ROWS]] [--keys N | --quoted]
                  [--runs N] [--in-process N] [--steps LIST] [--threads [N]] [--peers]
                  [--record [--allow-dirty]]

Builds every step (cargo build --release --bins: the default members, not the exercises), then runs each step binary,
the csv crate's baseline (its pass, and its GROUP BY: `baseline --query`) and the limit on the
same file, --runs times, interleaved (round 1 of every row, then round 2, ...), each run a
process of its own (`--json --runs 1`, or `--row-json --runs 1` for a step that has it
and for the baseline's query; a limit run is its best of 20 passes, which take
milliseconds), and prints each row's best run as a table:

  | step | idea added | MB/s | Mrows/s | heap allocs/pass | x step 1 | % of limit |

A step that loads the file into a table (11 and 12) is two rows: the load (MB/s of CSV
loaded) and the query over the table it loaded (MB/s of the CSV the table stands for,
and its speedup over the CSV query, both timed in the step's process).

Every step binary passes the gate before it measures; bench.sh stops, naming the step,
when a gate fails, a run fails, or a step's fingerprint (records, fields, bytes) differs
from the first step's on the same file. The baseline (the csv crate) is measured even
though its dialect differs from ours on some conformance cases: it says which, and why.
Its query row checks its answer against gen's reference when the file has one (on a
generated file it is the same, bit for bit) and has no "x step 1": it does not time the
query on step 1's parser, and its MB/s over step 1's parse would not be a speedup.

Options:
  --rows N       measure data/bench-N.csv, generated (by gen) when missing
  --file PATH    measure PATH
  --quick        a small generated file (20,000 rows) and one run, written under
                 target/bench/quick/: what CI runs
  --1brc [ROWS]  the One Billion Row Challenge's file instead (station;temperature, 413
                 stations): data/1brc-ROWS.txt, generated (by gen, with its reference
                 answer) when missing [default ROWS: 10000000, about 146 MB]; the query
                 steps only (5 and later, each with --format 1brc), no baseline (the
                 csv crate's query is not the challenge's); results under target/bench/1brc/
  --keys N       the bench layout with N distinct keys in `category` (gen --keys N), every
                 key in turn: data/bench-keys-N.csv, or data/bench-keys-N-ROWS.csv with
                 --rows ROWS [default: 1,000,000 rows, or N rows when N is more, so
                 that every key is in the file], generated with its reference
                 when missing; step 1 and the query steps (5 and later), the baseline's
                 query and, with --peers, the peers; recorded as keys-N (keys-N-ROWS),
                 and book/src/results/keys.svg and keys.md (MB/s against keys, from
                 every keys-N recording) drawn again (benchtool keys)
  --quoted       the bench layout with every string quoted, as pandas' QUOTE_NONNUMERIC,
                 R's write.csv and many exporters write it (gen --quote-strings: the same
                 rows, `"sport"`, `"2022-08-25"`, `"false"`, the numbers bare):
                 data/bench-quoted.csv, or data/bench-quoted-ROWS.csv with --rows ROWS
                 (20,000,000 rows: 1.18 GB), generated with its reference when missing;
                 every row as on the bench file; results under target/bench/quoted/;
                 recorded as quoted (quoted-ROWS)
  --runs N       runs of each row; the best is reported [default: 3]
  --in-process N timed runs inside each step's process [default: 3; --quick: 1]: the
                 table shows the best of all runs (MB/s) and each process's first run
                 (first run MB/s, the median over the rounds), so that a first-touch cost
                 shows as a gap between the two instead of hiding in one figure
  --steps LIST   only these steps, e.g. 1,3,4 [default: every steps/stepN_* crate but
                 one whose Cargo.toml says `bench = "not by default"` (step 12, whose
                 row would be step 11's: its index is timed by `cargo bench -p step12`)]
  --threads [N]  add a limit row counted on N threads [default N: every core], and
                 for each step that runs on every core (one that takes --threads:
                 steps 10, 11 and 12) a second row on one thread (its --threads 1), so
                 that the table shows what the cores bring; those steps' own rows and
                 the peers use every core whatever N is (the table notes which rows
                 ran on more than one thread)
  --peers        add the tools a reader would use instead, running the same query:
                 Polars, DuckDB and pyarrow (Python, pinned in tools/peers/requirements.txt,
                 installed from PyPI into target/peers/venv on first use, about 450 MB
                 and a minute of downloads, Python 3 with venv; skipped with a
                 line saying why when they cannot be installed, an error with
                 REQUIRE_PEERS=1), and the simd-csv crate (baseline --query --simd-csv).
                 Each is timed inside its process (import and start-up apart) and its
                 answer checked against the file's reference first: a wrong answer is
                 shown as failed, not timed.
  --record       after the run, copy it into the book: book/src/results/KIND/ (results.json,
                 table.md, figures.md, rows.md and the chart), replacing that folder
                 wholly; KIND names the file: bench (data/bench.csv), bench-ROWS
                 (--rows), 1brc-ROWS (--1brc), file-NAME (--file), quick (--quick),
                 with -steps-4-5 added for --steps 4,5. The chapters include their
                 figures from there (book/src/results.md, "Recording a run"). Refused
                 when the work tree has changes outside book/src/results/, so that
                 the recording names the commit it measured
  --allow-dirty  record from a tree with changes anyway (the recording says so)
  -h, --help     this text

Default file: data/bench.csv (1,000,000 rows), generated when missing.
Writes target/bench/results.json (machine, toolchain, the command, date, commit, file,
every run of every row), target/bench/table.md (the table with the lines above it),
figures.md and rows.md (the same figures as mdBook anchors, for the book's includes)
and target/bench/mbps.svg (the chart of MB/s per row the book shows); the runs' logs go
to target/bench/logs/.
MB = 10^6 bytes.
EOF
}

die() {
  echo "bench.sh: $*" >&2
  exit 1
}

cd "$(dirname "$0")"
root=$PWD
started_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# The command as it would be typed again (without --record and --allow-dirty): it goes
# into results.json, so a recording says how to repeat it.
command_line="./bench.sh"
for arg in "$@"; do
  case $arg in
    --record | --allow-dirty) ;;
    *) command_line+=" $(printf '%q' "$arg")" ;;
  esac
done

rows="" file="" runs="" steps_list="" quick=0 threads="" peers=0 brc="" in_process="" keys="" quoted=0
record=0 allow_dirty=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --record) record=1; shift ;;
    --allow-dirty) allow_dirty=1; shift ;;
    --rows) rows=${2:?--rows needs N}; shift 2 ;;
    --keys) keys=${2:?--keys needs N}; shift 2 ;;
    --quoted) quoted=1; shift ;;
    --file) file=${2:?--file needs PATH}; shift 2 ;;
    --runs) runs=${2:?--runs needs N}; shift 2 ;;
    --steps) steps_list=${2:?--steps needs a LIST such as 1,3,4}; shift 2 ;;
    --quick) quick=1; shift ;;
    --in-process) in_process=${2:?--in-process needs N}; shift 2 ;;
    --1brc)
      if [[ ${2:-} =~ ^[0-9]+$ ]]; then brc=$2; shift 2; else brc=10000000; shift; fi ;;
    --peers) peers=1; shift ;;
    --threads)
      if [[ ${2:-} =~ ^[0-9]+$ ]]; then threads=$2; shift 2; else threads=all; shift; fi ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see ./bench.sh --help)" ;;
  esac
done

positive() { [[ $1 =~ ^[0-9]+$ && $1 -gt 0 ]] || die "$2 must be a positive integer, got '$1'"; }
[[ -z $rows ]] || positive "$rows" --rows
[[ -z $runs ]] || positive "$runs" --runs
[[ -z $threads || $threads == all ]] || positive "$threads" --threads
[[ -z $in_process ]] || positive "$in_process" --in-process
[[ -z $brc ]] || positive "$brc" --1brc
[[ -z $keys ]] || positive "$keys" --keys
[[ -z $keys ]] || (( ! quick && ${#file} == 0 && ${#brc} == 0 )) || die "--keys goes with --rows only: it makes its own file"
(( ! quoted )) || (( ! quick && ${#file} == 0 && ${#brc} == 0 && ${#keys} == 0 )) || die "--quoted goes with --rows only: it makes its own file"
(( (quick > 0) + (${#rows} > 0) + (${#file} > 0) + (${#brc} > 0) <= 1 )) || die "--rows, --file, --quick and --1brc exclude each other"
[[ -z $brc ]] || (( ! peers )) || die "--1brc and --peers exclude each other: the peers run the bench file's query"
[[ -z $file || -f $file ]] || die "no such file: $file"
(( record || ! allow_dirty )) || die "--allow-dirty goes with --record"

# --- the commit, and what a recording is called ----------------------------------------
commit=$(git rev-parse HEAD 2>/dev/null || echo "")
dirty="?"
if [[ -n $commit ]]; then
  # Changes outside the recordings: the code measured is not the commit's. The
  # recordings themselves are left out, so that several kinds can be recorded in turn
  # before they are committed together.
  changes=$(git status --porcelain --untracked-files=normal -- . ':(exclude)book/src/results' 2>/dev/null || true)
  if [[ -n $changes ]]; then dirty=yes; else dirty=no; fi
fi
# The recording's folder under book/src/results/, from the file the run measures (and
# its options that change what is measured): one recording of each kind, the latest.
record_kind() {
  local kind
  if (( quick )); then
    kind=quick
  elif [[ -n $brc ]]; then
    kind=1brc-$brc
  elif [[ -n $rows ]]; then
    kind=bench-$rows
  elif [[ -z $file || $file == data/bench.csv || $file == ./data/bench.csv ]]; then
    kind=bench
  elif [[ $file =~ ^(\./)?data/bench-([0-9]+)\.csv$ ]]; then
    kind=bench-${BASH_REMATCH[2]}
  else
    local name=${file##*/}
    name=${name%.*}
    kind=file-$(tr -c 'A-Za-z0-9_\n-' '-' <<<"$name")
  fi
  # A run over a file with N distinct keys: keys-N, keys-N-ROWS with --rows.
  [[ -z $keys ]] || kind=keys-$keys${rows:+-$rows}
  # A run over the bench layout with every string quoted: quoted, quoted-ROWS.
  (( ! quoted )) || kind=quoted${rows:+-$rows}
  [[ -z $steps_list ]] || kind=$kind-steps-${steps_list//,/-}
  echo "$kind"
}
kind=$(record_kind)
if (( record )); then
  [[ -n $commit ]] || die "--record: not in a git work tree, so the recording could name no commit"
  if [[ $dirty == yes ]] && (( ! allow_dirty )); then
    echo "$changes" | head -n 20 | sed 's/^/    /' >&2
    die "--record: the work tree has changes (above), so the recording would name a commit that is not what it measured: commit them, or add --allow-dirty (the recording then says so)"
  fi
fi

# --- the machine --------------------------------------------------------------------
cpu_name="" cpu_family="" cpu_model_number=""
if [[ -r /proc/cpuinfo ]]; then
  cpu_name=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
  cpu_family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ' || true)
  cpu_model_number=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ' || true)
fi
[[ -n $cpu_name ]] || cpu_name=$(sysctl -n machdep.cpu.brand_string 2>/dev/null || uname -m)
# The SIMD features that the steps choose their tiers by, of those this CPU has.
cpu_features=""
if [[ -r /proc/cpuinfo ]]; then
  flags=" $(grep -m1 -E '^(flags|Features)[[:space:]]*:' /proc/cpuinfo | cut -d: -f2-) "
  for feature in sse2 avx2 avx512f pclmulqdq bmi2 neon asimd; do
    [[ $flags != *" $feature "* ]] || cpu_features+="${cpu_features:+ }$feature"
  done
fi
os_release=$( (. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}") || true)
cpu_model() {
  if [[ -n $cpu_family ]]; then
    echo "$cpu_name (family $cpu_family, model $cpu_model_number)"
  else
    echo "$cpu_name"
  fi
}
cores() { nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo "?"; }
memory() {
  if [[ -r /proc/meminfo ]]; then
    awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo
  else
    local bytes
    bytes=$(sysctl -n hw.memsize 2>/dev/null || echo 0)
    awk -v b="$bytes" 'BEGIN { printf "%.1f GiB", b / 1073741824 }'
  fi
}
cpu=$(cpu_model)
ncores=$(cores)
mem=$(memory)
os=$(uname -sr)
rustc_version=$(rustc --version)
[[ $threads != all ]] || threads=$ncores

# --- build ---------------------------------------------------------------------------
echo "==> cargo build --release --bins" >&2
cargo build --release --bins
target_dir=$(cargo metadata --format-version 1 --no-deps |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
[[ -n $target_dir ]] || target_dir=${CARGO_TARGET_DIR:-target}
bin=$target_dir/release

# --- the steps -----------------------------------------------------------------------
# Every steps/stepN_* crate, in ladder order, as "N package"; the binary is the package.
all_steps=()
while read -r line; do all_steps+=("$line"); done < <(
  for dir in steps/step*_*/; do
    n=${dir#steps/step}
    n=${n%%_*}
    [[ $n =~ ^[0-9]+$ && -f $dir/Cargo.toml ]] || continue
    package=$(sed -n 's/^name *= *"\(.*\)"/\1/p' "$dir/Cargo.toml" | head -n 1)
    echo "$n $package"
  done | sort -n
)
# Steps that run only when --steps names them ([package.metadata.tutorial] in Cargo.toml).
not_by_default=" "
for dir in steps/step*_*/; do
  n=${dir#steps/step}
  n=${n%%_*}
  grep -qx 'bench = "not by default"' "$dir/Cargo.toml" 2>/dev/null && not_by_default+="$n "
done
[[ ${#all_steps[@]} -gt 0 ]] || die "no steps found under steps/ (crates steps/stepN_*)"
steps=()
if [[ -z $steps_list ]]; then
  for s in "${all_steps[@]}"; do
    [[ $not_by_default == *" ${s%% *} "* ]] || steps+=("$s")
  done
else
  IFS=, read -r -a wanted <<<"$steps_list"
  for n in "${wanted[@]}"; do
    [[ $n =~ ^[0-9]+$ ]] || die "--steps: '$n' is not a step number"
    found=""
    for s in "${all_steps[@]}"; do
      if [[ ${s%% *} == "$n" ]]; then found=$s; fi
    done
    [[ -n $found ]] || die "--steps: there is no step $n (steps: $(echo "${all_steps[@]%% *}"))"
    steps+=("$found")
  done
fi
if [[ -n $brc || -n $keys ]]; then # the query steps (and, for --keys, step 1's)
  query_steps=()
  for s in "${steps[@]}"; do
    (( ${s%% *} >= 5 )) && query_steps+=("$s")
    [[ -z $keys ]] || (( ${s%% *} != 1 )) || query_steps+=("$s")
  done
  [[ ${#query_steps[@]} -gt 0 ]] || die "--1brc runs the query steps (5 and later); --steps named none"
  steps=("${query_steps[@]}")
fi
# Ladder order, whatever the order of --steps: the first step is the fingerprint's reference.
sorted=()
while read -r line; do sorted+=("$line"); done < <(printf '%s\n' "${steps[@]}" | sort -n -u)
steps=("${sorted[@]}")

# --- the file ------------------------------------------------------------------------
out_dir=$root/target/bench
if (( quick )); then
  out_dir=$root/target/bench/quick
  mkdir -p "$out_dir"
  file=target/bench/quick/quick.csv
  "$bin/gen" --rows 20000 --out "$file" >/dev/null
  runs=${runs:-1}
  in_process=${in_process:-1}
elif [[ -n $brc ]]; then
  out_dir=$root/target/bench/1brc
  mkdir -p "$out_dir"
  file=data/1brc-$brc.txt
  [[ -f $file ]] || "$bin/gen" --format 1brc --rows "$brc" --stations 413 --out "$file"
elif [[ -n $keys ]]; then
  out_dir=$root/target/bench/keys
  mkdir -p "$out_dir"
  file=data/bench-keys-$keys${rows:+-$rows}.csv
  [[ -f $file ]] || "$bin/gen" --keys "$keys" --rows "${rows:-$(( keys > 1000000 ? keys : 1000000 ))}" --out "$file"
elif (( quoted )); then
  out_dir=$root/target/bench/quoted
  mkdir -p "$out_dir"
  file=data/bench-quoted${rows:+-$rows}.csv
  [[ -f $file ]] || "$bin/gen" --quote-strings --rows "${rows:-1000000}" --out "$file"
elif [[ -n $rows ]]; then
  file=data/bench-$rows.csv
  [[ -f $file ]] || "$bin/gen" --rows "$rows" --out "$file"
elif [[ -z $file ]]; then
  file=data/bench.csv
  [[ -f $file ]] || "$bin/gen" --out "$file"
fi
[[ -f $file ]] || die "no such file: $file"
runs=${runs:-3}
in_process=${in_process:-3}
mkdir -p "$out_dir/logs"
rm -f "$out_dir"/logs/*.log
runs_file=$out_dir/runs.jsonl
: >"$runs_file"

step_names=("${steps[@]#* }")
peer_rows=""
(( ! peers )) || peer_rows=yes
baseline_rows=", the baseline (csv crate: its pass and its query${peer_rows:+; the same query on simd-csv})"
[[ -z $brc ]] || baseline_rows=""
bytes=$(wc -c <"$file" | tr -d ' ')
crs=$(head -c 1000000 "$file" | tr -cd '\r' | wc -c | tr -d ' ')
if (( crs > 0 )); then ending=CRLF; else ending=LF; fi # a first look; the table counts
cat >&2 <<EOF

Machine:   $cpu, $ncores cores, $mem memory ($os)
Toolchain: $rustc_version
Commit:    ${commit:-none (not a git work tree)}$([[ $dirty != yes ]] || echo ', with uncommitted changes')$( (( ! record )) || echo "; recorded as book/src/results/$kind/")
File:      $file ($(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB, $ending line endings)
Runs:      best of $runs per row, interleaved (round 1 of every row, then round 2, ...); $in_process timed runs in each step's process
Rows:      ${step_names[*]}${brc:+ (--format 1brc)}${threads:+ (a step that runs on every core also on one thread)}$baseline_rows, the limit${threads:+ (1 core and $threads threads)}${peer_rows:+, the peers (Polars, DuckDB, pyarrow) if they install}
EOF

# --- the runs ------------------------------------------------------------------------
# Each row is "role name flag [options]", run once per round with `flag --runs 1`, where
# flag prints the measurement as JSON: --row-json where a step has it (a query step's
# --json prints its answer instead), else --json. A step's binary is its name; another
# row's is its name up to the first `-` (`baseline-query` runs `baseline --query`; a
# limit row runs `benchtool limit`), given the options after the flag.
rows_to_run=()
for name in "${step_names[@]}"; do
  flag=--json
  help=$("$bin/$name" --help 2>/dev/null || true)
  if [[ $help == *--row-json* ]]; then flag=--row-json; fi
  rows_to_run+=("step $name $flag${brc:+ --format 1brc}")
  # A step that runs on every core, beside itself on one: what the cores bring.
  if [[ -n $threads && $help == *--threads* ]]; then
    rows_to_run+=("step $name $flag${brc:+ --format 1brc} --threads 1")
  fi
done
# A limit pass takes milliseconds, and the first passes of a process are the slowest
# (here about 4 GB/s, rising to 11-12 GB/s by the eighth; a step's timed pass comes
# after its gate has run for a while), so a limit run is its best of 20 passes.
limit_passes=20
if [[ -n $keys ]]; then
  rows_to_run+=("baseline baseline-query --row-json --query")
elif [[ -z $brc ]]; then
  rows_to_run+=("baseline baseline --json" "baseline baseline-query --row-json --query")
fi
(( ! peers )) || rows_to_run+=("baseline baseline-simd --row-json --query --simd-csv")
rows_to_run+=("limit limit --json")
[[ -z $threads ]] || rows_to_run+=("limit limit-$threads --json --threads $threads")

# --- the peers (--peers) --------------------------------------------------------------
# A virtual environment under target/, made once and remade when the pinned versions
# change; nothing is installed outside it.
peers_venv=$root/target/peers/venv
install_peers() {
  local wanted=$root/tools/peers/requirements.txt stamp=$peers_venv/installed.txt
  if cmp -s "$wanted" "$stamp" 2>/dev/null; then return 0; fi
  echo "==> installing the peers into ${peers_venv#"$root"/} (once): $(grep -v '^#' "$wanted" | tr '\n' ' ')" >&2
  rm -rf "$peers_venv"
  python3 -m venv "$peers_venv" &&
    "$peers_venv/bin/pip" install --quiet --disable-pip-version-check -r "$wanted" >&2 &&
    cp "$wanted" "$stamp"
}
if (( peers )); then
  if ! command -v python3 >/dev/null; then
    peers_skipped="no python3 on this machine"
  elif ! install_peers; then
    peers_skipped="the pinned versions could not be installed from PyPI (pip's error above)"
  fi
  if [[ -n ${peers_skipped:-} ]]; then
    [[ ${REQUIRE_PEERS:-0} != 1 ]] || die "--peers: $peers_skipped (REQUIRE_PEERS=1)"
    echo "bench.sh: --peers: Polars, DuckDB and pyarrow skipped: $peers_skipped." >&2
  else
    for peer in polars duckdb pyarrow; do rows_to_run+=("peer $peer --json"); done
  fi
fi

first_fingerprint="" first_step="" baseline_note="" answer_note=""
json_field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" <<<"$2"; }

run_row() { # round, role, name, flag, options...
  local round=$1 role=$2 name=$3 flag=$4
  shift 4
  local command=("$bin/$name" "$@")
  if [[ $role == baseline ]]; then command=("$bin/${name%%-*}" "$@"); fi
  if [[ $role == limit ]]; then command=("$bin/benchtool" limit "$@"); fi
  if [[ $role == peer ]]; then command=("$peers_venv/bin/python" "$root/tools/peers/peers.py" "$name" "$@"); fi
  local tag=$name # the row's name in the logs and the progress lines
  if [[ $role == step && " $* " == *" --threads 1 "* ]]; then tag=$name-1thread; fi
  local log=$out_dir/logs/$tag.$round.log json status=0
  local passes=1
  if [[ $role == limit ]]; then passes=$limit_passes; fi
  if [[ $role == step ]]; then passes=$in_process; fi
  json=$("${command[@]}" "$file" "$flag" --runs "$passes" 2>"$log") || status=$?
  if [[ $role == peer && $json == \{*'"failed":'* ]]; then
    # A peer that gives a wrong answer is a row that says so, never a time.
    printf '{"round":%d,"role":"%s","result":%s}\n' "$round" "$role" "$json" >>"$runs_file"
    printf '  round %d/%d  %-14s FAILED: %s\n' "$round" "$runs" "$name" "$(sed -n 's/.*"failed": *"\([^"]*\)".*/\1/p' <<<"$json")" >&2
    return
  fi
  if (( status != 0 )) || [[ $json != \{* ]]; then
    sed 's/^/    /' "$log" | tail -n 40 >&2
    die "$tag failed (exit status $status) on $file: its gate or its pass failed; log: $log"
  fi
  if [[ $json != *'"best_s":'* ]]; then
    die "$tag printed no measurement with $flag (no best_s in its JSON): ${json:0:200}"
  fi
  if (( round == 1 )); then sed 's/^/    /' "$log" >&2; fi
  local fingerprint
  fingerprint=$(grep -o '"fingerprint":{[^}]*}' <<<"$json" | head -n 1 || true) # a peer has none
  if [[ $role == step ]]; then
    if [[ -z $first_fingerprint ]]; then
      first_fingerprint=$fingerprint first_step=$name
    elif [[ $fingerprint != "$first_fingerprint" ]]; then
      die "$name's fingerprint differs from $first_step's on $file: $fingerprint, not $first_fingerprint"
    fi
  elif [[ $role == baseline && -n $first_fingerprint && $fingerprint != "$first_fingerprint" ]]; then
    baseline_note="the baseline's fingerprint differs from $first_step's on $file ($fingerprint, not $first_fingerprint): the csv crate's dialect is not ours (see its log)"
  fi
  if [[ $json == *'"answer_matches_reference":false'* ]]; then
    answer_note="$name's answer is not gen's reference for $file (see $log)"
  fi
  printf '{"round":%d,"role":"%s","result":%s}\n' "$round" "$role" "$json" >>"$runs_file"
  printf '  round %d/%d  %-14s %8.0f MB/s\n' "$round" "$runs" "$tag" "$(json_field mb_per_s "$json")" >&2
}

echo >&2
for ((round = 1; round <= runs; round++)); do
  for row in "${rows_to_run[@]}"; do
    read -r -a words <<<"$row"
    run_row "$round" "${words[@]}"
  done
done

# --- the table, results.json and the chart -------------------------------------------
echo >&2
"$bin/benchtool" report --runs-file "$runs_file" --out-dir "$out_dir" --file "$file" --runs "$runs" \
  --cpu "$cpu" --cpu-name "$cpu_name" --cpu-family "${cpu_family:-?}" --cpu-model "${cpu_model_number:-?}" \
  --cpu-features "${cpu_features:-?}" --os-release "${os_release:-?}" \
  --cores "$ncores" --memory "$mem" --os "$os" --rustc "$rustc_version" \
  --command "$command_line" --kind "$kind" --started "$started_utc" \
  --finished "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --commit "${commit:-?}" --dirty "$dirty" \
  --in-process "$in_process"
"$bin/benchtool" chart "$out_dir/results.json" --out "$out_dir/mbps.svg"
if [[ -n $baseline_note ]]; then
  echo "Note: $baseline_note" >&2
elif [[ -n $brc ]]; then
  echo "The 1BRC file has no baseline rows; every step's answer is byte-compared with gen's reference in the steps' tests (${file%.txt}.ref.txt here)." >&2
else
  echo "The baseline's fingerprint equals $first_step's on this file." >&2
fi
[[ -z $answer_note ]] || echo "Note: $answer_note" >&2
if (( quick )); then
  echo "Note: --quick measures a 1 MB file once: start-up, first touches and caches weigh on every row (the peers' most, the limit's least), so its numbers say that the pipeline works, not how fast anything is." >&2
fi
echo "Wrote ${out_dir#"$root"/}/results.json, table.md, figures.md, rows.md and mbps.svg." >&2
if (( record )); then
  # The recording replaces the previous one of the same kind wholly: no file of an
  # older run stays beside the new ones.
  recording=book/src/results/$kind
  rm -rf "${root:?}/$recording"
  mkdir -p "$root/$recording"
  cp "$out_dir"/results.json "$out_dir"/table.md "$out_dir"/figures.md "$out_dir"/rows.md \
    "$out_dir"/*.svg "$root/$recording/"
  echo "Recorded the run as $recording/ (commit ${commit:0:7}$([[ $dirty != yes ]] || echo ', with uncommitted changes')): include its figures from there; commit it with the chapters that quote it." >&2
  # Every keys-N recording is a point of one chart: draw it again with this one.
  [[ -z $keys ]] || "$bin/benchtool" keys "$root/book/src/results"
  (( ! quick )) || echo "Note: a --quick recording measures start-up more than anything: no chapter should quote it." >&2
fi
