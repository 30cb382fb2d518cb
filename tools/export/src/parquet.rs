//! `--parquet`: a loaded table as a Parquet file (the `parquet` feature), so that
//! DuckDB, Spark or DataFusion can read what step 11 loaded, on this machine or
//! past it. The columns are the Arrow export's ([`crate::arrow`]), written by the
//! `parquet` crate's Arrow writer with its defaults and no compression codec (the
//! feature builds none): one row group per million rows, dictionary pages for the
//! strings, plain or RLE pages for the rest.

use std::fs::File;
use std::path::Path;

use ::parquet::arrow::ArrowWriter;
use ::parquet::errors::ParquetError;

use step11::splayed::error::TableError;
use step11::splayed::scan::SplayedTable;

use crate::arrow::record_batch;

/// The parquet crate this module writes with, for readers (`tests/parquet.rs`)
/// that should not depend on it when the feature is off.
pub use ::parquet as parquet_crate;

/// Writes `table` to `path` as a Parquet file.
///
/// # Errors
/// [`TableError::Io`] when writing fails (Parquet's errors are reported as I/O
/// errors of `path`), or a table error when a column's files are missing.
pub fn export(table: &SplayedTable, path: &Path) -> Result<(), TableError> {
    let io = |e: ParquetError| TableError::io_write_at(path)(std::io::Error::other(e));
    let batch = record_batch(table)?;
    let file = File::create(path).map_err(TableError::io_write_at(path))?;
    let mut writer = ArrowWriter::try_new(file, batch.schema(), None).map_err(io)?;
    writer.write(&batch).map_err(io)?;
    writer.close().map_err(io)?;
    Ok(())
}
