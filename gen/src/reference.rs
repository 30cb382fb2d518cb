//! The reference answer of a generated file: where it lives beside the CSV, and its
//! JSON (per group the count, the row-order `f64` sum and the exact decimal sum).

use std::path::{Path, PathBuf};

use crate::{Config, Keys, Reference, Shape};

/// Where the reference answer of `csv_path` lives: `bench.csv` → `bench.ref.json`.
pub fn reference_path(csv_path: &Path) -> PathBuf {
    csv_path.with_extension("ref.json")
}

/// The reference answer as JSON: the config, the file size, and per group the count,
/// the row-order `f64` sum (as a number and as its bits in hex, for bitwise checks)
/// and the exact decimal sum as a string.
pub fn reference_json(config: &Config, reference: &Reference) -> String {
    reference_json_keyed(config, None, reference)
}

/// [`reference_json`] for a file of [`generate_keyed`](crate::generate_keyed): the query names its keys.
pub fn reference_json_keyed(config: &Config, keys: Option<Keys>, reference: &Reference) -> String {
    let shape = Shape {
        keys,
        ..Shape::default()
    };
    reference_json_shaped(config, shape, reference)
}

/// [`reference_json`] for a file of [`generate_shaped`](crate::generate_shaped): the query names its keys,
/// and a file with its strings quoted says so (`"quote_strings": true`).
pub fn reference_json_shaped(config: &Config, shape: Shape, reference: &Reference) -> String {
    use serde_json::{Map, Value, json};
    let groups: Map<String, Value> = reference
        .groups
        .iter()
        .map(|(key, g)| {
            let group = json!({
                "count": g.count,
                "sum": g.sum_f64,
                "sum_bits": format!("{:#018x}", g.sum_f64.to_bits()),
                "sum_exact": decimal_from_micros(g.sum_micros),
            });
            (key.clone(), group)
        })
        .collect();
    let mut doc = json!({
        "query": "SELECT category, COUNT(*), SUM(value) GROUP BY category",
        "rows": reference.rows,
        "bytes": reference.bytes,
        "seed": config.seed,
        "quoted_pct": config.quoted_pct,
        "crlf": config.crlf,
        "groups": groups,
    });
    if let Some(k) = shape.keys {
        doc["keys"] = json!({"distinct": k.distinct, "zipf": k.zipf});
    }
    if shape.quote_strings {
        doc["quote_strings"] = json!(true);
    }
    serde_json::to_string_pretty(&doc).expect("JSON values always serialize") + "\n"
}

/// `-1234567` millionths → `"-1.234567"`.
pub fn decimal_from_micros(micros: i128) -> String {
    let sign = if micros < 0 { "-" } else { "" };
    let abs = micros.unsigned_abs();
    format!("{sign}{}.{:06}", abs / 1_000_000, abs % 1_000_000)
}
