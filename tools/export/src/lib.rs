//! The exports: a table that step 11 loaded, as a file that other engines open, so
//! that what the ladder loaded is not locked in its own format. Not a step: the
//! table is read through step 11's library ([`step11::splayed::scan::SplayedTable`]), as a
//! query reads it, and each format is behind a feature of its own (the crates they
//! need take longer to build than the step).
//!
//! ```text
//! export TABLE_DIR --arrow FILE     Arrow IPC: DuckDB, Polars, DataFusion  (feature arrow)
//! export TABLE_DIR --parquet FILE   Parquet: DuckDB, Spark, DataFusion     (feature parquet)
//! ```
//!
//! The book's *Past one machine* hands the Parquet file to Spark and DataFusion
//! (`cargo x handoff`, `tools/handoff/`).

#[cfg(feature = "arrow")]
pub mod arrow;
#[cfg(feature = "parquet")]
pub mod parquet;
