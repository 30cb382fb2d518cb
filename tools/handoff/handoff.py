"""The hand-off to the engines past one machine: the columnar step's table, exported
as Parquet (tools/export), read by Apache Spark (PySpark, local mode) and Apache
DataFusion, must give the parallel step's answer.

    python3 tools/handoff/handoff.py check [--rows N]
    python3 tools/handoff/handoff.py measure [--rows N] [--rounds N]

`check` (the CI stage, `cargo x handoff`): makes the bench file (gen, N rows) and a
copy of it with `NA` and empty values and `NA` names; for each case, runs the
parallel step's `--json` (the expected answer), loads the CSV with the columnar step
and exports the table as Parquet (tools/export); then runs the same GROUP BY in Spark
SQL and in DataFusion over each Parquet file (`engines.py`) and requires the same
groups, the same counts and the same sums to 1e-9, relatively (`compare.py`).

`measure` is the chapter's run, on the bench file of N rows (default 20,000,000,
about 1 GB; data/bench-N.csv, made if missing): Spark and DataFusion on the CSV, with
and without the option that lets a quoted value hold a line break, and on the
Parquet export, timed and checked; then the decimal sum against the double one, and
the Parquet file's layout.

What it needs, it installs: Python's packages (tools/handoff/requirements.txt, pinned)
into target/handoff/venv, made once and again when that file changes; a Java runtime
for Spark, from Debian's packages (`apt-get install default-jre-headless`) when no
`java` of version 17 or later is found. Where Java cannot be had, Spark is skipped with
one line saying why (DataFusion still runs); where the packages cannot be installed,
both are. REQUIRE_HANDOFF=1 makes either an error (`cargo x ci` sets it).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

# The two steps of the ladder this hand-off runs, by cargo package name: the columnar
# step (its `load`) and the parallel step (its `--json` is the expected answer). A
# renumbering of the ladder changes these two lines and nothing else. The export tool
# (tools/export, feature `parquet`) writes the columnar step's table as Parquet.
COLUMNAR_STEP = "step11"
PARALLEL_STEP = "step10"
EXPORT_TOOL = "export"

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tools", "handoff")
WORK = os.path.join(ROOT, "target", "handoff")
VENV = os.path.join(WORK, "venv")
REQUIREMENTS = os.path.join(HERE, "requirements.txt")

# Rows of the bench file in `check`: a few seconds of every tool, and still 8 chunks a
# thread for the parallel step and several Parquet pages a column.
CHECK_ROWS = 300_000
# Rows of the bench file for the chapter's measurement (1,017.8 MB).
CSV_ROWS = 20_000_000

# The binaries, built in the dev profile (optimised, no LTO): CI has built the same
# crates in that profile for their tests just before, and the release profile's
# fat LTO would add minutes to CI for no difference in the answers.
BIN = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "debug")


def log(message):
    print(f"handoff: {message}", flush=True)


class Skip(Exception):
    """Something this machine lacks: skipped with one line, or an error when
    REQUIRE_HANDOFF=1."""


def required():
    return os.environ.get("REQUIRE_HANDOFF") == "1"


def run(*command, **kwargs):
    """Runs a command from the repository's root; its failure is an error."""
    return subprocess.run(command, cwd=ROOT, check=True, **kwargs)


# --- what the engines need ---------------------------------------------------------------

def java_version(java):
    """The major version of the `java` at that path, or None."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 else major  # "1.8" is Java 8


def find_java():
    """A `java` of version 17 or later (Spark 4's least): JAVA_HOME's, then PATH's."""
    candidates = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(os.path.join(os.environ["JAVA_HOME"], "bin", "java"))
    if shutil.which("java"):
        candidates.append(shutil.which("java"))
    for java in candidates:
        version = java_version(java)
        if version and version >= 17:
            return java, version
    return None, None


def ensure_java():
    """A Java runtime for Spark: the one installed, else Debian's headless JRE."""
    java, version = find_java()
    if java:
        return java, version
    apt = shutil.which("apt-get")
    if not apt:
        raise Skip("no Java 17 or later, and no apt-get to install one")
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    if sudo and not shutil.which("sudo"):
        raise Skip("no Java 17 or later, and not root to install one")
    log("no Java 17 or later: installing Debian's default-jre-headless (once)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["update", "-qq"], ["install", "-y", "-qq", "--no-install-recommends", "default-jre-headless"]):
        done = subprocess.run(sudo + [apt, *command], env=env, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise Skip(f"no Java 17 or later, and `apt-get {' '.join(command)}` failed")
    os.environ.pop("JAVA_HOME", None)  # an old one would shadow the new runtime
    java, version = find_java()
    if not java:
        raise Skip("default-jre-headless installed no Java 17 or later")
    return java, version


def use_java(java, version):
    """Spark starts the JVM of JAVA_HOME, else the `java` on PATH: point it at the one
    found, whichever of the two that was."""
    os.environ["JAVA_HOME"] = os.path.dirname(os.path.dirname(os.path.realpath(java)))
    log(f"Java {version}: {os.environ['JAVA_HOME']}")


def ensure_venv():
    """target/handoff/venv with the pinned packages, made once and remade when
    requirements.txt changes (its copy in the venv says what was installed)."""
    stamp = os.path.join(VENV, "installed.txt")
    python = os.path.join(VENV, "bin", "python")
    with open(REQUIREMENTS) as f:
        wanted = f.read()
    try:
        with open(stamp) as f:
            if f.read() == wanted:
                return python
    except OSError:
        pass
    pinned = " ".join(line for line in wanted.splitlines() if line and not line.startswith("#"))
    log(f"installing {pinned} into {os.path.relpath(VENV, ROOT)} (once)")
    shutil.rmtree(VENV, ignore_errors=True)
    for command in ([sys.executable, "-m", "venv", VENV],
                    [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", REQUIREMENTS]):
        if subprocess.run(command, stdin=subprocess.DEVNULL).returncode != 0:
            raise Skip("the pinned packages could not be installed (pip's error above)")
    with open(stamp, "w") as f:
        f.write(wanted)
    return python


# --- the files and the expected answers ---------------------------------------------------

def build():
    """The generator, the parallel step, the columnar step and the export tool with its
    Parquet writer (one cargo command: one resolution of the features, no crate built
    twice)."""
    run("cargo", "build", "-p", "gen", "-p", PARALLEL_STEP, "-p", COLUMNAR_STEP,
        "-p", EXPORT_TOOL, "--features", f"{EXPORT_TOOL}/parquet")


def generate(path, rows):
    """The bench file of `rows` rows at `path` (gen's layout, seed and quoting) and its
    reference answer beside it."""
    run(os.path.join(BIN, "gen"), "--rows", str(rows), "--out", path)
    return path


# ANCHOR: nulls_file
def with_nulls(bench, path):
    """A copy of the bench file with NULLs in it: in every ten rows one `value` is
    `NA` and one is empty, and one `name` in fifty is `NA`. `name` stays a text column
    (most names occur once), so the GROUP BY name has a text key, NULL sums for the
    names whose every value is NULL, and the `NA` names in the group ""."""
    import csv

    with open(bench, newline="") as src, open(path, "w", newline="") as out:
        reader, writer = csv.reader(src), csv.writer(out, lineterminator="\n")
        writer.writerow(next(reader))  # id,category,value,name,date,qty,flag
        for i, row in enumerate(reader):
            if i % 10 == 3:
                row[2] = "NA"
            elif i % 10 == 7:
                row[2] = ""
            if i % 50 == 11:
                row[3] = "NA"
            writer.writerow(row)
# ANCHOR_END: nulls_file


def column_type(table, name):
    with open(os.path.join(table, "manifest.json")) as f:
        manifest = json.load(f)
    return next(c["type"] for c in manifest["columns"] if c["name"] == name)


# ANCHOR: case
def prepare(name, csv_path, key, value, nulls=(), key_type=None):
    """One case: the parallel step's answer (the expected one), and the columnar
    step's table of the same CSV, exported as Parquet."""
    null_args = [a for n in nulls for a in ("--null", n)]
    expected = os.path.join(WORK, f"{name}.{key}.{value}.expected.json")
    with open(expected, "wb") as f:
        run(os.path.join(BIN, PARALLEL_STEP), csv_path, "--json", "--runs", "1",
            "--group-by", key, "--sum", value, *null_args, stdout=f)
    table = os.path.join(WORK, f"{name}.table")
    parquet = os.path.join(WORK, f"{name}.parquet")
    shutil.rmtree(table, ignore_errors=True)  # a load never overwrites a table
    step = os.path.join(BIN, COLUMNAR_STEP)
    run(step, "load", csv_path, table, *null_args, stdout=subprocess.DEVNULL)
    run(os.path.join(BIN, EXPORT_TOOL), table, "--parquet", parquet, stdout=subprocess.DEVNULL)
    if key_type and column_type(table, key) != key_type:
        raise SystemExit(f"handoff: {name}: {key} is {column_type(table, key)}, not {key_type}")
    return {"name": name, "parquet": parquet, "key": key, "value": value,
            "expected": expected, "step": PARALLEL_STEP}
# ANCHOR_END: case


def engines(python, *args):
    """engines.py in the virtual environment; the JVM's and the engines' own chatter
    goes to target/handoff/engines.log, shown when something fails."""
    log_path = os.path.join(WORK, "engines.log")
    with open(log_path, "w") as log_file:
        done = subprocess.run([python, os.path.join(HERE, "engines.py"), *args],
                              cwd=ROOT, stderr=log_file, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        with open(log_path) as f:
            sys.stderr.write("".join(f.readlines()[-40:]))
    return done.returncode


def check(rows):
    start = time.monotonic()
    os.makedirs(WORK, exist_ok=True)
    try:
        python = ensure_venv()
    except Skip as e:
        return skipped("Spark and DataFusion", e)
    no_spark = None
    try:
        java, version = ensure_java()
        use_java(java, version)
    except Skip as e:
        if required():
            return skipped("Spark", e)
        no_spark = str(e)
    build()
    # Made anew each time (a second or two): the files follow gen and the steps.
    bench = generate(os.path.join(WORK, "bench.csv"), rows)
    nulls = os.path.join(WORK, "nulls.csv")
    with_nulls(bench, nulls)
    cases = [
        prepare("bench", bench, "category", "value", key_type="string"),
        prepare("bench", bench, "date", "qty", key_type="date"),
        prepare("nulls", nulls, "name", "value", nulls=["NA"], key_type="text"),
    ]
    cases_path = os.path.join(WORK, "cases.json")
    with open(cases_path, "w") as f:
        json.dump(cases, f, indent=1)
    status = engines(python, "check", cases_path, *(["--no-spark", no_spark] if no_spark else []))
    log(("passed" if status == 0 else "FAILED") + f" in {time.monotonic() - start:.0f} s")
    return status


def skipped(what, reason):
    if required():
        log(f"{what}: {reason} (REQUIRE_HANDOFF=1)")
        return 1
    log(f"{what} SKIPPED: {reason}")
    return 0


def measure(rows, rounds):
    os.makedirs(WORK, exist_ok=True)
    python = ensure_venv()
    use_java(*ensure_java())
    build()
    # bench.sh's file of that size, made once and shared with it.
    bench = os.path.join(ROOT, "data", f"bench-{rows}.csv")
    if not os.path.exists(bench):
        generate(bench, rows)
    case = prepare(f"bench-{rows}", bench, "category", "value")
    return engines(python, "measure", bench, case["parquet"], case["expected"], "--rounds", str(rounds))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="Spark and DataFusion over the Parquet export (CI)")
    c.add_argument("--rows", type=int, default=CHECK_ROWS)
    m = sub.add_parser("measure", help="the chapter's run: Spark and DataFusion on the CSV and on the Parquet export, timed")
    m.add_argument("--rows", type=int, default=CSV_ROWS)
    m.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    try:
        if args.command == "check":
            return check(args.rows)
        return measure(args.rows, args.rounds)
    except subprocess.CalledProcessError as e:
        log(f"`{' '.join(map(str, e.cmd))}` failed ({e.returncode})")
        return 1
    except Skip as e:  # `measure` needs both engines
        log(f"cannot run: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
