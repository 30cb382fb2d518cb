//! The Arrow IPC export (`cargo test -p export --features arrow`): read back with
//! arrow's own reader, every value is the table's, and the decimal column sums to
//! gen's exact reference; a text column is Arrow strings.
#![cfg(feature = "arrow")]

use export::arrow::arrow_array::cast::AsArray;
use export::arrow::arrow_array::types::{Date32Type, Decimal128Type, Int64Type, UInt32Type};
use export::arrow::arrow_array::{Array, StringArray};
use export::arrow::arrow_ipc::reader::FileReader;
use step11::splayed::scan::Value;

mod common;

#[test]
fn the_export_reads_back_value_for_value() {
    let (tmp, out, table, reference) = common::loaded("arrow", 9);
    export::arrow::export(&table, &out).unwrap();
    let reader = FileReader::try_new(std::fs::File::open(&out).unwrap(), None).unwrap();
    let batches: Vec<_> = reader.map(Result::unwrap).collect();
    assert_eq!(batches.len(), 1);
    let batch = &batches[0];
    assert_eq!(batch.num_rows(), 3_001);
    let names: Vec<_> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(
        names,
        ["id", "category", "value", "name", "date", "qty", "flag"]
    );
    let id = batch.column(0).as_primitive::<Int64Type>();
    let category = batch.column(1).as_dictionary::<UInt32Type>();
    let words = category
        .values()
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let value = batch.column(2).as_primitive::<Decimal128Type>();
    let date = batch.column(4).as_primitive::<Date32Type>();
    let name = batch.column(3).as_string::<i32>();
    let (ids, dates) = (table.column(0).unwrap(), table.column(4).unwrap());
    let names = table.column(3).unwrap();
    let categories = table.column(1).unwrap();
    let mut sums = std::collections::BTreeMap::<String, i128>::new();
    for row in 0..batch.num_rows() {
        assert_eq!(Value::Int(id.value(row)), ids.value(&table, row));
        let word = words.value(category.keys().value(row) as usize);
        assert_eq!(Value::Str(word.as_bytes()), categories.value(&table, row));
        assert_eq!(
            Value::Str(name.value(row).as_bytes()),
            names.value(&table, row)
        );
        match dates.value(&table, row) {
            Value::Date(d) => assert_eq!(date.value(row), d),
            other => assert!(date.is_null(row), "{other:?}"),
        }
        if value.is_valid(row) {
            *sums.entry(word.to_string()).or_default() += value.value(row);
        }
    }
    assert!(value.is_null(3_000) && batch.column(5).is_null(3_000));
    for (key, r) in &reference.groups {
        assert_eq!(
            sums[key], r.sum_micros,
            "{key}: decimal(18, 6) units are millionths"
        );
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
