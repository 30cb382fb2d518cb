"""Spark and DataFusion over the columnar step's Parquet export: the same GROUP BY,
checked against the parallel step's answer. Runs in the hand-off's virtual
environment (`handoff.py` makes it and calls this file); the imports of pyspark and
datafusion are inside the functions, so that `python3 engines.py --help` needs
neither.

    python engines.py query spark|datafusion PARQUET [--group-by KEY] [--sum VALUE]
    python engines.py check CASES.json [--no-spark REASON]
    python engines.py measure CSV PARQUET EXPECTED.json [--rounds N]

`query` prints one engine's answer, a group a line. `check` runs every case of CASES.json (written by `handoff.py check`) through Spark
SQL and DataFusion, compares each answer with the case's expected JSON
(`compare.difference`), prints one line per engine and case, and exits 1 if any
answer differs. `measure` is the chapter's run: Spark and DataFusion reading the CSV
itself, with and without the option that lets a quoted value hold a line break, and
reading the Parquet export; each timed, its partitions counted, its answer checked.
"""

import argparse
import json
import os
import sys
import time

from compare import difference, same_bits


def log(message):
    print(f"handoff: {message}", flush=True)


# ANCHOR: spark_session
def spark_session():
    """Spark in local mode on two worker threads: the driver and the executor are
    one JVM, and the partitions of a stage run two at a time."""
    from pyspark.sql import SparkSession

    # One machine: Spark binds to the loopback address, and says nothing about it.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("csv-engine-handoff")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # The default of 200 shuffle partitions is for clusters: a few dozen groups
        # need two, one per thread.
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark
# ANCHOR_END: spark_session


# ANCHOR: spark_parquet
def spark_group_by(spark, parquet, key, value):
    """SELECT key, COUNT(*), SUM(value) GROUP BY key over the Parquet file."""
    spark.read.parquet(parquet).createOrReplaceTempView("t")
    rows = spark.sql(
        f"SELECT `{key}` AS k, COUNT(*) AS n, SUM(`{value}`) AS s FROM t GROUP BY `{key}`"
    ).collect()
    return {row.k: (row.n, row.s) for row in rows}
# ANCHOR_END: spark_parquet


# ANCHOR: datafusion_parquet
def datafusion_group_by(parquet, key, value):
    """The same query in DataFusion, on as many partitions as the machine has cores."""
    from datafusion import SessionContext

    context = SessionContext()
    context.register_parquet("t", parquet)
    frame = context.sql(
        f'SELECT "{key}" AS k, COUNT(*) AS n, SUM("{value}") AS s FROM t GROUP BY "{key}"'
    )
    answer = {}
    for batch in frame.collect():
        for row in batch.to_pylist():
            answer[row["k"]] = (row["n"], row["s"])
    return answer
# ANCHOR_END: datafusion_parquet


def versions(spark):
    import datafusion

    java = spark.sparkContext._jvm.java.lang.System.getProperty("java.version") if spark else None
    return {
        "spark": spark.version if spark else None,
        "java": java,
        "datafusion": datafusion.__version__,
    }


def check(cases_path, no_spark):
    with open(cases_path) as f:
        cases = json.load(f)
    spark = None
    if no_spark:
        log(f"Spark SKIPPED: {no_spark}")
    else:
        spark = spark_session()
    v = versions(spark)
    engines = []
    if spark:
        engines.append((f"Spark {v['spark']} (local[2], Java {v['java']})",
                        lambda c: spark_group_by(spark, c["parquet"], c["key"], c["value"])))
    engines.append((f"DataFusion {v['datafusion']}",
                    lambda c: datafusion_group_by(c["parquet"], c["key"], c["value"])))
    failed = 0
    for name, run in engines:
        for case in cases:
            with open(case["expected"]) as f:
                expected = json.load(f)
            start = time.perf_counter()
            answer = run(case)
            seconds = time.perf_counter() - start
            problem = difference(answer, expected)
            what = f"{name}: {case['name']}: GROUP BY {case['key']} SUM {case['value']}"
            if problem:
                failed += 1
                log(f"{what}: DIFFERENT from {case['step']}: {problem}")
            else:
                rows = sum(count for count, _ in answer.values())
                log(
                    f"{what}: same answer as {case['step']} ({len(answer):,} groups, {rows:,} rows, "
                    f"{same_bits(answer, expected):,} sums bit for bit; {seconds:.2f} s)"
                )
    if spark:
        spark.stop()
    return 1 if failed else 0


# The bench file's columns as the engines should read them: the types the columnar
# step infers, so that SUM(value) is an exact decimal sum there too.
BENCH_SCHEMA = "id BIGINT, category STRING, value DECIMAL(18,6), name STRING, date DATE, qty INT, flag BOOLEAN"


# ANCHOR: spark_csv
def spark_csv(spark, path, multi_line):
    """The bench CSV as a Spark DataFrame. With multiLine false Spark splits the file
    into byte ranges and reads each one line by line; with multiLine true it parses
    each file as one stream, so one task reads the whole file."""
    return (
        spark.read.option("header", True)
        .option("multiLine", multi_line)
        .option("escape", '"')  # RFC 4180: a quote inside quotes is written twice
        .schema(BENCH_SCHEMA)
        .csv(path)
    )
# ANCHOR_END: spark_csv


# ANCHOR: datafusion_csv
def datafusion_csv(context, path, newlines_in_values):
    """The bench CSV as a DataFusion table `csv`. DataFusion splits a large file
    into one byte range per partition, unless newlines_in_values says that a quoted
    value may hold a line break: then one partition reads the file."""
    import pyarrow as pa
    from datafusion.context import CsvReadOptions

    schema = pa.schema([("id", pa.int64()), ("category", pa.string()),
                        ("value", pa.decimal128(18, 6)), ("name", pa.string()),
                        ("date", pa.date32()), ("qty", pa.int32()), ("flag", pa.bool_())])
    context.deregister_table("csv")
    context.register_csv("csv", path, options=CsvReadOptions(
        schema=schema, newlines_in_values=newlines_in_values))
# ANCHOR_END: datafusion_csv


QUERY = "SELECT category AS k, COUNT(*) AS n, SUM(value) AS s FROM {table} GROUP BY category"


def datafusion_run(context, table):
    """(answer, partitions of the scan) of QUERY over a registered table."""
    import re

    sql = QUERY.format(table=table)
    plan = "".join(str(v) for b in context.sql(f"EXPLAIN {sql}").collect()
                   for v in b.column(1).to_pylist())
    match = re.search(r"file_groups=\{(\d+) group", plan)
    answer = {}
    for batch in context.sql(sql).collect():
        for row in batch.to_pylist():
            answer[row["k"]] = (row["n"], row["s"])
    return answer, int(match.group(1)) if match else None


def parquet_layout(parquet):
    """What the Parquet file holds, as the chapter shows it: row groups, and for each
    column of the first one its types, encodings and sizes."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(parquet).metadata
    schema = meta.schema
    log(f"{parquet}: {meta.num_rows:,} rows in {meta.num_row_groups} row groups "
        f"({meta.row_group(0).num_rows:,} rows each), created by {meta.created_by}")
    group = meta.row_group(0)
    for i in range(group.num_columns):
        c = group.column(i)
        total = sum(meta.row_group(g).column(i).total_compressed_size for g in range(meta.num_row_groups))
        # The dictionary page comes first in a column chunk, the data pages after it.
        dictionary = c.data_page_offset - c.dictionary_page_offset if c.has_dictionary_page else 0
        log(f"  {c.path_in_schema:9} {c.physical_type:10} {str(schema.column(i).logical_type):31} "
            f"{'+'.join(c.encodings):24} dictionary page {dictionary:9,} B, chunk {c.total_compressed_size:11,} B; "
            f"all row groups {total / 1e6:7.2f} MB")


def measure(csv_path, parquet, expected_path, rounds):
    """The chapter's run. Each round: Spark on the CSV with multiLine false and true,
    Spark on the Parquet export, then DataFusion the same three ways; each timed from
    the query to its last row, each answer checked against the parallel step's."""
    from datafusion import SessionContext

    with open(expected_path) as f:
        expected = json.load(f)
    spark = spark_session()
    v = versions(spark)
    log(f"Spark {v['spark']} (local[2]), Java {v['java']}, DataFusion {v['datafusion']}, "
        f"{os.cpu_count()} cores; {csv_path} ({os.path.getsize(csv_path) / 1e6:,.1f} MB), "
        f"{parquet} ({os.path.getsize(parquet) / 1e6:,.1f} MB)")
    context = SessionContext()
    context.register_parquet("parquet", parquet)

    def spark_run(frame):
        frame.createOrReplaceTempView("t")
        rows = spark.sql(QUERY.format(table="t")).collect()
        return {row.k: (row.n, row.s) for row in rows}, frame.rdd.getNumPartitions()

    def one_partition(run):
        # One split for the whole file: the line-by-line reader on one thread, to
        # set against the same reader on every core and against multiLine's stream.
        spark.conf.set("spark.sql.files.maxPartitionBytes", str(2 * os.path.getsize(csv_path)))
        spark.conf.set("spark.sql.files.minPartitionNum", "1")
        try:
            return run()
        finally:
            spark.conf.unset("spark.sql.files.maxPartitionBytes")
            spark.conf.unset("spark.sql.files.minPartitionNum")

    runs = [
        ("Spark, CSV, multiLine=false", lambda: spark_run(spark_csv(spark, csv_path, False))),
        ("Spark, CSV, multiLine=false, one split",
         lambda: one_partition(lambda: spark_run(spark_csv(spark, csv_path, False)))),
        ("Spark, CSV, multiLine=true", lambda: spark_run(spark_csv(spark, csv_path, True))),
        ("Spark, Parquet", lambda: spark_run(spark.read.parquet(parquet))),
        ("DataFusion, CSV, newlines_in_values=false",
         lambda: (datafusion_csv(context, csv_path, False), datafusion_run(context, "csv"))[1]),
        ("DataFusion, CSV, newlines_in_values=true",
         lambda: (datafusion_csv(context, csv_path, True), datafusion_run(context, "csv"))[1]),
        ("DataFusion, Parquet", lambda: datafusion_run(context, "parquet")),
    ]
    jvm = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()

    def cpu_seconds():
        """CPU time of this process and of Spark's JVM: on a busy machine the wall
        time says how long we waited, the CPU time how much work the reader did."""
        with open(f"/proc/{jvm}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        return time.process_time() + ticks / os.sysconf("SC_CLK_TCK")

    times = {name: [] for name, _ in runs}
    for r in range(1, rounds + 1):
        for name, run in runs:
            start, cpu = time.perf_counter(), cpu_seconds()
            try:
                answer, partitions = run()
            except Exception as e:  # a reader that gives up is a result, not a crash
                log(f"round {r}: {name:44} ERROR: {str(e).splitlines()[0][:200]}")
                continue
            seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
            times[name].append((seconds, cpu))
            problem = difference(answer, expected)
            records = sum(n for n, _ in answer.values())
            log(f"round {r}: {name:44} {partitions:2} partitions {seconds:7.2f} s ({cpu:6.2f} s of CPU)  "
                f"{records:,} records  " + ("same answer" if problem is None else f"DIFFERENT: {problem}"))
    for name, runs_of in times.items():
        if runs_of:
            wall = sorted(w for w, _ in runs_of)
            cpu = sorted(c for _, c in runs_of)
            log(f"{name:44} wall best {wall[0]:.2f} s, median {wall[len(wall) // 2]:.2f} s; "
                f"CPU best {cpu[0]:.2f} s, median {cpu[len(cpu) // 2]:.2f} s")
    with open("/proc/loadavg") as f:
        log(f"load average at the end: {' '.join(f.read().split()[:3])}")

    # Where DataFusion cut the CSV into its partitions' byte ranges.
    import re

    datafusion_csv(context, csv_path, False)
    plan = "".join(str(v) for b in context.sql("EXPLAIN " + QUERY.format(table="csv")).collect()
                   for v in b.column(1).to_pylist())
    groups = re.search(r"file_groups=\{.*?\]\]\}", plan)
    log(f"DataFusion's CSV scan: {groups.group(0) if groups else plan[:300]}")

    # The exact sum: SUM over the decimal column against SUM over its doubles.
    for cast in ("value", "CAST(value AS DOUBLE)"):
        rows = spark.sql(f"SELECT category AS k, COUNT(*) AS n, SUM({cast}) AS s "
                         "FROM parquet.`" + parquet + "` GROUP BY category").collect()
        answer = {row.k: (row.n, row.s) for row in rows}
        log(f"Spark SUM({cast}): {same_bits(answer, expected)} of {len(answer)} sums are the "
            f"parallel step's bit for bit; type {spark.sql(f'SELECT SUM({cast}) FROM parquet.`{parquet}`').schema[0].dataType.simpleString()}")
    spark.stop()
    parquet_layout(parquet)
    return 0


def query(engine, parquet, key, value):
    """One GROUP BY over a Parquet file, printed a group a line in key order."""
    if engine == "spark":
        spark = spark_session()
        answer = spark_group_by(spark, parquet, key, value)
        spark.stop()
    else:
        answer = datafusion_group_by(parquet, key, value)
    for k in sorted(answer, key=lambda k: (k is None, str(k))):
        count, total = answer[k]
        print(f"{k}\t{count}\t{total}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    q = sub.add_parser("query", help="SELECT KEY, COUNT(*), SUM(VALUE) GROUP BY KEY over a Parquet file")
    q.add_argument("engine", choices=["spark", "datafusion"])
    q.add_argument("parquet")
    q.add_argument("--group-by", default="category")
    q.add_argument("--sum", default="value")
    c = sub.add_parser("check", help="every case through Spark and DataFusion")
    c.add_argument("cases")
    c.add_argument("--no-spark", metavar="REASON", help="skip Spark, saying why")
    m = sub.add_parser("measure", help="the chapter's run: the CSV and the Parquet file, timed")
    m.add_argument("csv")
    m.add_argument("parquet", help="the columnar step's export of the same file")
    m.add_argument("expected", help="the parallel step's --json for GROUP BY category SUM value")
    m.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.command == "query":
        return query(args.engine, args.parquet, args.group_by, args.sum)
    if args.command == "check":
        return check(args.cases, args.no_spark)
    return measure(args.csv, args.parquet, args.expected, args.rounds)


if __name__ == "__main__":
    sys.exit(main())
