//! `--arrow`: a loaded table as an Arrow IPC file (the `arrow` feature), so that
//! DuckDB, Polars and DataFusion can open what step 11 loaded.
//!
//! ```text
//! int64      -> Int64                      float64 -> Float64
//! decimal(S) -> Decimal128(18, S)          date    -> Date32 (days since 1970-01-01)
//! bool       -> Boolean                    NULL    -> the validity bitmap, as on disk
//! string     -> Dictionary(UInt32, Utf8), or Binary values when a symbol is not UTF-8:
//!               the column's own dictionary (its symbols in order of first use), as
//!               an Arrow dictionary belongs to one column and ours to the table
//! text       -> Utf8 (LargeUtf8 past 2 GiB of bytes), or Binary when a value is not
//!               UTF-8
//! ```

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::types::UInt32Type;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, DictionaryArray,
    Float64Array, Int64Array, LargeBinaryArray, LargeStringArray, RecordBatch, StringArray,
    UInt32Array,
};
use arrow_ipc::writer::FileWriter;
use arrow_schema::{ArrowError, Field, Schema};
use harness::query::key_text;

use step11::splayed::error::TableError;
use step11::splayed::scan::{ColumnFiles, SplayedTable, Value};
use step11::splayed::types::ColumnType;

/// The arrow crates this module writes with, for readers (`tests/arrow.rs`) that
/// should not depend on them when the feature is off.
pub use {arrow_array, arrow_ipc};

/// Writes `table` to `path` as an Arrow IPC file (one record batch).
///
/// # Errors
/// [`TableError::Io`] when writing fails (Arrow's errors are reported as I/O errors
/// of `path`), or a table error when a column's files are missing.
pub fn export(table: &SplayedTable, path: &Path) -> Result<(), TableError> {
    let io = |e: ArrowError| TableError::io_write_at(path)(std::io::Error::other(e));
    let batch = record_batch(table)?;
    let file = File::create(path).map_err(TableError::io_write_at(path))?;
    let mut writer = FileWriter::try_new(file, &batch.schema()).map_err(io)?;
    writer.write(&batch).map_err(io)?;
    writer.finish().map_err(io)
}

/// The whole table as one Arrow record batch, a column per column, named as in the
/// header (the types of the module's table).
///
/// # Errors
/// A table error when a column's files are missing; Arrow's, as
/// [`TableError::NotATable`], when an array cannot be built.
pub fn record_batch(table: &SplayedTable) -> Result<RecordBatch, TableError> {
    let not = |e: ArrowError| TableError::NotATable(Default::default(), e.to_string());
    let mut fields = Vec::new();
    let mut arrays = Vec::new();
    for (k, column) in table.manifest.columns.iter().enumerate() {
        let files = table.column(k)?;
        let array = to_array(table, files).map_err(not)?;
        let nullable = column.nulls > 0;
        fields.push(Field::new(
            key_text(&column.name),
            array.data_type().clone(),
            nullable,
        ));
        arrays.push(array);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(not)
}

/// One column as an Arrow array.
fn to_array(table: &SplayedTable, files: &ColumnFiles) -> Result<ArrayRef, ArrowError> {
    let rows = table.manifest.rows as usize;
    let values = (0..rows).map(|i| files.value_at(i));
    Ok(match files.ty {
        ColumnType::Int64 => Arc::new(Int64Array::from_iter(values.map(|v| match v {
            Value::Int(x) => Some(x),
            _ => None,
        }))),
        ColumnType::Decimal { scale } => {
            let units = (0..rows).map(|i| {
                let valid = matches!(files.value_at(i), Value::Float(_));
                let raw = i64::from_le_bytes(files.values[8 * i..8 * i + 8].try_into().expect("8"));
                valid.then_some(if raw == i64::MIN { 0 } else { i128::from(raw) })
            });
            Arc::new(Decimal128Array::from_iter(units).with_precision_and_scale(18, scale as i8)?)
        }
        ColumnType::Float64 => Arc::new(Float64Array::from_iter(values.map(|v| match v {
            Value::Float(x) => Some(x),
            _ => None,
        }))),
        ColumnType::Date => Arc::new(Date32Array::from_iter(values.map(|v| match v {
            Value::Date(x) => Some(x),
            _ => None,
        }))),
        ColumnType::Bool => Arc::new(BooleanArray::from_iter(values.map(|v| match v {
            Value::Bool(x) => Some(x),
            _ => None,
        }))),
        ColumnType::String => dictionary(table, files, rows)?,
        ColumnType::Text => text(files, rows),
    })
}

/// A `text` column as Arrow strings, or bytes when one is not UTF-8; the large
/// (64-bit offset) kinds when its bytes pass what 32-bit offsets reach.
fn text(files: &ColumnFiles, rows: usize) -> ArrayRef {
    let values: Vec<&[u8]> = (0..rows).map(|i| files.text_at(i)).collect();
    let large = files.text.as_ref().map_or(0, |t| t.len()) > i32::MAX as usize;
    match values
        .iter()
        .map(|v| std::str::from_utf8(v))
        .collect::<Result<Vec<&str>, _>>()
    {
        Ok(text) if large => Arc::new(LargeStringArray::from(text)),
        Ok(text) => Arc::new(StringArray::from(text)),
        Err(_) if large => Arc::new(LargeBinaryArray::from(values)),
        Err(_) => Arc::new(BinaryArray::from(values)),
    }
}

// ANCHOR: dictionary
/// A string column as an Arrow dictionary of its own symbols, numbered by first use.
fn dictionary(
    table: &SplayedTable,
    files: &ColumnFiles,
    rows: usize,
) -> Result<ArrayRef, ArrowError> {
    let mut local = vec![u32::MAX; table.manifest.symbols as usize];
    let mut used: Vec<u32> = Vec::new();
    let keys: UInt32Array = (0..rows)
        .map(|i| {
            let id = u32::from_le_bytes(files.values[4 * i..4 * i + 4].try_into().expect("4"));
            if local[id as usize] == u32::MAX {
                local[id as usize] = used.len() as u32;
                used.push(id);
            }
            local[id as usize]
        })
        .collect();
    let symbols: Vec<&[u8]> = used.iter().map(|&id| table.symbol(id)).collect();
    let values: ArrayRef = match symbols
        .iter()
        .map(|s| std::str::from_utf8(s))
        .collect::<Result<Vec<&str>, _>>()
    {
        Ok(text) => Arc::new(StringArray::from(text)),
        Err(_) => Arc::new(BinaryArray::from(symbols)),
    };
    Ok(Arc::new(DictionaryArray::<UInt32Type>::try_new(
        keys, values,
    )?))
}
// ANCHOR_END: dictionary
