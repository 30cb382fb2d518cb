//! The exports: a loaded table as a file that other engines open, so that what this
//! step loaded is not locked in its own format. Each is behind a feature of its own
//! (the crates they need take longer to build than the rest of the step).
//!
//! ```text
//! step11 export TABLE_DIR --arrow FILE     Arrow IPC: DuckDB, Polars, DataFusion
//! step11 export TABLE_DIR --parquet FILE   Parquet: DuckDB, Spark, DataFusion
//! ```

#[cfg(feature = "arrow")]
pub mod arrow;
#[cfg(feature = "parquet")]
pub mod parquet;
