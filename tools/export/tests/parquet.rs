//! The Parquet export (`cargo test -p export --features parquet`): read back with the
//! parquet crate's own reader, every column holds the table's values (the Arrow
//! export's batch, value for value, NULLs included), and the decimal column sums to
//! gen's exact reference. `name` is loaded as text, `category` interned.
#![cfg(feature = "parquet")]

use export::arrow::arrow_array::cast::AsArray;
use export::arrow::arrow_array::types::{Decimal128Type, UInt32Type};
use export::arrow::arrow_array::{Array, StringArray};
use export::parquet::parquet_crate::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use step11::splayed::scan::Value;

mod common;

/// Row `row` of a string column, through its dictionary.
fn text(column: &dyn Array, row: usize) -> Option<String> {
    let dict = column.as_dictionary::<UInt32Type>();
    let words = dict
        .values()
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    dict.is_valid(row)
        .then(|| words.value(dict.keys().value(row) as usize).to_string())
}

#[test]
fn the_export_reads_back_value_for_value() {
    let (tmp, out, table, reference) = common::loaded("parquet", 11);
    export::parquet::export(&table, &out).unwrap();
    let expected = export::arrow::record_batch(&table).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&out).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<_> = reader.map(Result::unwrap).collect();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 3_001);
    let mut sums = std::collections::BTreeMap::<String, i128>::new();
    let mut row = 0;
    for batch in &batches {
        assert_eq!(batch.schema().fields().len(), 7);
        for i in 0..batch.num_rows() {
            for (k, field) in batch.schema().fields().iter().enumerate() {
                let (got, want) = (batch.column(k), expected.column(k));
                assert_eq!(field.name(), expected.schema().field(k).name());
                if k == 1 {
                    // Symbols: the same text (a reader may number a dictionary its way).
                    assert_eq!(text(got, i), text(want, row), "column {k}, row {row}");
                } else {
                    let (got, want) = (got.slice(i, 1), want.slice(row, 1));
                    assert_eq!(got.to_data(), want.to_data(), "column {k}, row {row}");
                }
            }
            let value = batch.column(2).as_primitive::<Decimal128Type>();
            if value.is_valid(i) {
                *sums.entry(text(batch.column(1), i).unwrap()).or_default() += value.value(i);
            }
            row += 1;
        }
    }
    // The last row: NULL in every typed column, as the table has it.
    assert_eq!(table.column(5).unwrap().value(&table, 3_000), Value::Null);
    assert!(expected.column(5).is_null(3_000));
    for (key, r) in &reference.groups {
        assert_eq!(sums[key], r.sum_micros, "{key}");
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
