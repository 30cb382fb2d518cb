"""The peers of `./bench.sh --peers`: the same query run by the tools a reader would
use instead of this engine, timed inside their own process and checked like a step.

    python peers.py PEER FILE [--runs N] [--json]

PEER is polars, duckdb or pyarrow. The query is the steps' own:

    SELECT category, COUNT(*), SUM(value) FROM FILE GROUP BY category

with SQL's NULL rule (an empty value is NULL: counted, not summed; a group of NULLs
only has a NULL sum). Each run reads the file and answers the query; the import of
the library and the start of Python are timed apart ("import_s"), so the row is
fair to both sides: a step's row does not count its process start either.

The answer is checked against gen's reference next to the file (FILE with the
extension .ref.json) by the hand-off's `compare.difference`: every group's count
exactly, every sum within 1e-9 of the exact decimal sum, relatively (a peer adds in
its own order, on several threads, so not bit for bit). A peer whose answer differs, or that cannot read the file, prints
{"failed": "..."} and no timing: a wrong answer is not a speed.

Prints one JSON object, the shape of a step's --row-json: step, idea, query, threads,
bytes, records, runs, times_s, best_s, median_s, mb_per_s, mrows_per_s, plus
version, import_s and answer_matches_reference. MB = 10^6 bytes.
"""

import argparse
import json
import os
import statistics
import sys
import time
from decimal import Decimal

GROUP_BY = "category"
SUM = "value"

# An answer is judged once for every tool, by the hand-off's comparison (standard
# library only, so either tool's virtual environment imports it).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "handoff"))
import compare  # noqa: E402


def polars_peer():
    import polars as pl

    def query(path):
        frame = (
            pl.scan_csv(path, schema_overrides={GROUP_BY: pl.String, SUM: pl.Float64})
            .group_by(GROUP_BY)
            .agg(
                pl.len().alias("count"),
                pl.col(SUM).sum().alias("sum"),
                pl.col(SUM).count().alias("values"),
            )
            .collect()
        )
        return frame

    def answer(frame):
        # Polars sums a group of NULLs to 0; SQL (and the steps) say NULL.
        return {
            key: (count, total if values > 0 else None)
            for key, count, total, values in frame.iter_rows()
        }

    threads = pl.thread_pool_size()
    idea = f"Polars {pl.__version__}: scan_csv, group_by, {threads} threads"
    return pl.__version__, threads, idea, query, answer


def duckdb_peer():
    import duckdb

    connection = duckdb.connect()
    threads = int(connection.execute("SELECT current_setting('threads')").fetchall()[0][0])

    def query(path):
        # An Arrow table: the engine's own result, not a Python object per group.
        # (`sql`, not `execute`: a relation hands its Arrow table over without the
        # copy a DB-API result makes; so the path is a quoted SQL literal.)
        literal = "'" + path.replace("'", "''") + "'"
        return connection.sql(
            f"SELECT {GROUP_BY} AS k, COUNT(*) AS c, SUM({SUM}) AS s FROM read_csv({literal}, "
            f"header = true, types = {{'{GROUP_BY}': 'VARCHAR', '{SUM}': 'DOUBLE'}}) "
            f"GROUP BY {GROUP_BY}"
        ).to_arrow_table()

    def answer(table):
        keys, counts, sums = (table[c].to_pylist() for c in ("k", "c", "s"))
        return {key: (count, total) for key, count, total in zip(keys, counts, sums)}

    idea = f"DuckDB {duckdb.__version__}: read_csv, GROUP BY, {threads} threads"
    return duckdb.__version__, threads, idea, query, answer


def pyarrow_peer():
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as csv

    def query(path):
        table = csv.read_csv(
            path,
            # Off by default (it forbids splitting the file at any LF); the bench file
            # has LFs inside quoted names, which the default reader rejects.
            parse_options=csv.ParseOptions(newlines_in_values=True),
            convert_options=csv.ConvertOptions(
                column_types={GROUP_BY: pa.string(), SUM: pa.float64()},
                include_columns=[GROUP_BY, SUM],
            ),
        )
        grouped = table.group_by(GROUP_BY).aggregate(
            [(SUM, "count", pc.CountOptions(mode="all")), (SUM, "sum")]
        )
        return grouped

    def answer(grouped):
        # The sum's default min_count of 1 gives NULL for a group of NULLs.
        keys = grouped[GROUP_BY].to_pylist()
        counts = grouped[f"{SUM}_count"].to_pylist()
        sums = grouped[f"{SUM}_sum"].to_pylist()
        return {k: (c, s) for k, c, s in zip(keys, counts, sums)}

    threads = pa.cpu_count()
    idea = f"pyarrow {pa.__version__}: read_csv (newlines_in_values), group_by, {threads} threads"
    return pa.__version__, threads, idea, query, answer


PEERS = {"polars": polars_peer, "duckdb": duckdb_peer, "pyarrow": pyarrow_peer}


def reference_of(path):
    """gen's reference answer next to `path`, or None (another file, or none)."""
    ref_path = os.path.splitext(path)[0] + ".ref.json"
    try:
        with open(ref_path) as f:
            reference = json.load(f)
    except OSError:
        return None
    if reference.get("bytes") != os.path.getsize(path):
        return None  # it belongs to another version of the file
    return reference


def difference(answer, reference):
    """None when `answer` ({key: (count, sum)}) is gen's `reference` (its .ref.json,
    parsed); else the first difference, in words. The judgement is the hand-off's
    (`compare.difference`), on the reference's exact decimal sums (`sum_exact`)."""
    expected = {
        key: {"count": group["count"], "sum": None if group.get("sum_exact") is None else Decimal(group["sum_exact"])}
        for key, group in reference["groups"].items()
    }
    return compare.difference(answer, expected)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("peer", choices=sorted(PEERS))
    parser.add_argument("file")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="accepted for bench.sh; the output is always JSON")
    args = parser.parse_args()
    path = args.file

    start = time.perf_counter()
    version, threads, idea, query, to_answer = PEERS[args.peer]()
    import_s = time.perf_counter() - start

    result = {"step": args.peer, "number": 0, "idea": idea, "query": True, "threads": threads,
              "version": version, "import_s": import_s}
    # Timed: the engine's query, up to its own result (a data frame, an Arrow table),
    # as a step's time ends at its groups. The answer as Python objects, for the
    # check, is built after the clock stops: with a million groups it would take
    # longer than the query.
    times, engines = [], None
    for _ in range(max(1, args.runs)):
        start = time.perf_counter()
        try:
            engines = query(path)
        except Exception as e:  # the peer cannot read the file: a row that says so
            result["failed"] = f"error: {type(e).__name__}: {e}".splitlines()[0][:200]
            print(json.dumps(result))
            return 1
        times.append(time.perf_counter() - start)
    answer = to_answer(engines)
    result["groups"] = len(answer)
    reference = reference_of(path)
    wrong = difference(answer, reference) if reference else None
    result["answer_matches_reference"] = None if reference is None else wrong is None
    if wrong:
        result["failed"] = f"wrong answer: {wrong}"
        print(json.dumps(result))
        return 1
    size = os.path.getsize(path)
    # Records as the steps count them: the header is one.
    records = (reference["rows"] if reference else sum(c for c, _ in answer.values())) + 1
    best = min(times)
    result.update({
        "bytes": size, "records": records, "runs": len(times), "times_s": times,
        "best_s": best, "median_s": statistics.median(times),
        "mb_per_s": size / 1e6 / best, "mrows_per_s": records / 1e6 / best,
        "allocs_per_pass": None,
    })
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
