"""DuckDB's answers for the real-file excerpts in data/real/ (see its README).

Each case of data/real/cases.json is a step's command line over one file; this
script runs the same query in DuckDB (read_csv with the same NULL texts, the
value column as DOUBLE) and writes the answer as the steps print it with --json
into data/real/expected.json (--write), or checks that file (--check, in CI).
Every query step's binary is then tested against it
(harness::query_bad_input::real_files_give_duckdbs_answer), with no DuckDB and no
download in the tests.

Usage: target/peers/venv/bin/python tools/peers/real_files.py --check|--write
"""

import json
import pathlib
import sys

import duckdb

ROOT = pathlib.Path(__file__).resolve().parents[2]
REAL = ROOT / "data" / "real"


def option(args, name, default=None, many=False):
    values = [args[i + 1] for i, a in enumerate(args) if a == name]
    if many:
        return values
    return values[-1] if values else default


def column(header, spec):
    """A column by name, else by 1-based position, as the steps resolve it."""
    if spec in header:
        return spec
    return header[int(spec) - 1]


def answer(case):
    args = case["args"]
    path = str(REAL / case["file"])
    nulls = [""] + option(args, "--null", many=True)
    aggs = option(args, "--agg", "count,sum").split(",")
    con = duckdb.connect()
    header = [c[0] for c in con.execute(
        "SELECT * FROM read_csv(?, header = true, all_varchar = true) LIMIT 0", [path]
    ).description]
    key = column(header, option(args, "--group-by", "category"))
    value = column(header, option(args, "--sum", "value"))
    rows = con.execute(
        f"""SELECT k, count(*), sum(v), min(v), max(v), avg(v) FROM (
              SELECT "{key}" AS k, CAST("{value}" AS DOUBLE) AS v
              FROM read_csv(?, header = true, all_varchar = true, nullstr = ?))
            GROUP BY k""",
        [path, nulls],
    ).fetchall()
    out = {}
    for k, count, total, low, high, mean in rows:
        values = {"count": count, "sum": total, "min": low, "max": high, "mean": mean}
        out["" if k is None else k] = {a: values[a] for a in aggs}
    return out


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    cases = json.loads((REAL / "cases.json").read_text())
    expected = [answer(c) for c in cases]
    target = REAL / "expected.json"
    text = json.dumps(expected, indent=1, sort_keys=True) + "\n"
    if mode == "--write":
        target.write_text(text)
        print(f"wrote {target.relative_to(ROOT)}: {len(cases)} answers")
        return 0
    if json.loads(target.read_text()) != expected:
        print(f"{target.relative_to(ROOT)} is not DuckDB's answer; run with --write", file=sys.stderr)
        return 1
    print(f"{target.relative_to(ROOT)}: DuckDB {duckdb.__version__} gives the same {len(cases)} answers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
