# DuckDB over the table step 11 loaded: `cargo run --release -p export --features arrow --
# TABLE --arrow bench.arrow`, then `python3 tools/export/duckdb_query.py bench.arrow`
# (duckdb and pyarrow from PyPI, in a venv).
import sys, duckdb, pyarrow.ipc as ipc
bench = ipc.open_file(sys.argv[1]).read_all()  # the Arrow IPC file the export wrote
print(bench.schema)
print(duckdb.sql("SELECT category, COUNT(*) AS count, SUM(value) AS sum "
                 "FROM bench GROUP BY category ORDER BY count DESC LIMIT 5"))
