//! From the runs `bench.sh` collected to `results.json` and the markdown table.
//!
//! `benchtool bench` (bench.sh) runs every binary once per round (`--json --runs 1`) and
//! appends one line per run to a JSON-lines file, `runs.jsonl`: `{"round": R, "role":
//! "step"|"baseline"|"limit", "result": {…the binary's JSON…}}`. This module groups the runs into rows, keeps each
//! row's best run, and adds the two ratios of the table: the speedup over step 1 (for a
//! query step, the one it measures itself: the same query on step 1's parser), and MB/s
//! over the one-core limit's.
//!
//! A run whose JSON says `"query": true` (the baseline's `--query`) is a row of its own
//! beside the same binary's pass. Its speedup over step 1 is left out (`–`) unless it
//! brings its own `speedup_over_step1`: its MB/s over step 1's would compare a query
//! with a parse.
//!
//! A step whose run brings a `table_query` (the load step and the steps after it,
//! which time a load and then the query over the loaded table) is two rows: the load
//! (the run itself) and the table query (`part`: `table query`), whose MB/s is the
//! CSV bytes the table stands for per second of the query, and whose `x_csv_query`
//! is its median time over the CSV query's, both timed in the step's process.
//!
//! A step that ran on the CPU twin of a device (`"device": "cpu …"`, the GPU step
//! without a GPU) says so in its idea.
//!
//! A peer (`bench.sh --peers`: Polars, DuckDB, pyarrow, through `tools/peers/peers.py`)
//! is a query row too. It has no allocation count, and a peer whose answer is not the
//! file's reference brings `"failed"` instead of a time: its row says so and shows no
//! number. Every other run must come from a release build (`"build": "release"`).

mod meta;
mod results;
mod rows;
mod table;
#[cfg(test)]
mod tests;

pub use meta::{Meta, RunInfo, file_info, line_ending};
pub use results::results;
pub use rows::{Role, Row, one_thread_of_many, rows};
pub(crate) use table::s;
pub use table::{
    TABLE_HEADER, commit_short, decimal, percent, preamble, table, table_notes, table_row, times,
    when,
};
