//! The fuzz targets' checks, written once: each file in `fuzz_targets/` is one macro
//! call naming a step.
//!
//! - [`parse_target!`]: arbitrary bytes in; the step's `records()` and `fingerprint()`
//!   must equal `harness::reference`'s, errors (record and byte) included.
//! - [`query_target!`]: arbitrary bytes in; the query step's `run` must not
//!   panic and must give the answer (or the error) of [`oracle`], a query written here
//!   from `harness::reference::parse`, `str::parse::<f64>` and a `BTreeMap`, sharing
//!   no code with the step; and its hand-written table must agree with its default one.

use std::collections::BTreeMap;

#[doc(hidden)]
pub use libfuzzer_sys;

use harness::Step;
use harness::dialect::{Dialect, GATE_DELIMITERS};
use harness::query::{Group, Groups, Place, QueryError, key_text};
use harness::reference;

/// A fuzz target that checks each listed step against the reference parser:
/// `fuzz::parse_target!(step4::Step4, step4::With<step4::scan::Scalar>);`
#[macro_export]
macro_rules! parse_target {
    ($($step:ty),+ $(,)?) => {
        $crate::libfuzzer_sys::fuzz_target!(|data: &[u8]| {
            $($crate::check_step::<$step>(data);)+
        });
    };
}

/// A fuzz target for a query step's crate (`run`, `serial::run_with` and
/// `table::GroupTable` are the names every query step has): `fuzz::query_target!(step5);`
#[macro_export]
macro_rules! query_target {
    ($step:ident) => {
        $crate::libfuzzer_sys::fuzz_target!(|data: &[u8]| {
            let dialect = $crate::dialect_of(data);
            let columns = $crate::columns(data, dialect);
            let query = $step::query::Query {
                group_by: &columns.0,
                sum: &columns.1,
                dialect,
                ..Default::default()
            };
            let answer = $step::run(data, query);
            let table = $step::serial::run_with::<$step::table::GroupTable>(data, query);
            $crate::check_query(data, dialect, &columns, answer, table);
        });
    };
}

/// The delimiter a target runs `data` with: one of the gate's, drawn from the
/// input's length, so that every delimiter meets every kind of document.
pub fn dialect_of(data: &[u8]) -> Dialect {
    Dialect {
        delimiter: GATE_DELIMITERS[data.len() % GATE_DELIMITERS.len()],
    }
}

/// Panics (a crash for libFuzzer) when `S` parses `data` otherwise than the reference.
pub fn check_step<S: Step>(data: &[u8]) {
    let dialect = dialect_of(data);
    let expected = reference::parse_in(data, dialect);
    let got = S::records_in(data, dialect);
    assert_eq!(
        got,
        expected,
        "{}::records differs from the reference",
        S::NAME
    );
    assert_eq!(
        S::fingerprint_in(data, dialect),
        reference::fingerprint_in(data, dialect),
        "{}::fingerprint differs from the reference",
        S::NAME
    );
}

/// The columns the query target asks for: the header's first and last names, so that
/// most inputs reach the aggregation; `category` and `value` when the header is not
/// UTF-8 (or there is none), which exercises the missing-column error.
pub fn columns(data: &[u8], dialect: Dialect) -> (String, String) {
    let header = reference::parse_in(data, dialect)
        .ok()
        .and_then(|records| records.into_iter().next());
    let name = |field: Option<&Vec<u8>>| field.and_then(|f| String::from_utf8(f.clone()).ok());
    match header {
        Some(h) => match (name(h.first()), name(h.last())) {
            (Some(key), Some(value)) => (key, value),
            _ => ("category".into(), "value".into()),
        },
        None => ("category".into(), "value".into()),
    }
}

/// Panics when the step's answer differs from [`oracle`]'s (sums bit for bit; the
/// error's `line` only checked for plausibility, see [`oracle`]), or when the
/// hand-written table's answer differs from the default table's.
pub fn check_query(
    data: &[u8],
    dialect: Dialect,
    (key, value): &(String, String),
    answer: Result<Groups, QueryError>,
    table: Result<Groups, QueryError>,
) {
    assert_eq!(
        bits(&answer),
        bits(&table),
        "the two GROUP BY tables disagree"
    );
    let expected = oracle(data, dialect, key, value);
    match (&answer, &expected) {
        (Ok(got), Ok(want)) => assert_eq!(bits(&Ok(got.clone())), bits(&Ok(want.clone()))),
        (Err(got), Err(want)) => {
            let lfs = data.iter().filter(|&&b| b == b'\n').count() as u64;
            if let Some((record, place)) = record_and_place(got) {
                let Some(Place { line, .. }) = place else {
                    panic!("a step's error has no place in its input: {got:?}")
                };
                assert!(
                    line > record && line <= lfs + 1,
                    "line {line} of record {record} is not possible ({lfs} LFs): {got:?}"
                );
            }
            assert_eq!(without_line(got), without_line(want));
        }
        _ => panic!("query: {answer:?}\noracle: {expected:?}"),
    }
}

/// The answer with each sum as its bits, so that `-0.0` and `0.0` differ.
fn bits(
    answer: &Result<Groups, QueryError>,
) -> Result<Vec<(Vec<u8>, u64, Option<u64>)>, QueryError> {
    match answer {
        Ok(groups) => Ok(groups
            .iter()
            .map(|(k, g)| (k.to_vec(), g.count, g.sum.map(f64::to_bits)))
            .collect()),
        Err(e) => Err(without_line(e)),
    }
}

fn record_and_place(e: &QueryError) -> Option<(u64, Option<Place>)> {
    match e {
        QueryError::FieldCount { record, place, .. }
        | QueryError::InvalidNumber { record, place, .. } => Some((*record, *place)),
        _ => None,
    }
}

fn without_line(e: &QueryError) -> QueryError {
    let mut e = e.clone();
    match &mut e {
        QueryError::FieldCount { place, .. } | QueryError::InvalidNumber { place, .. } => {
            *place = None
        }
        _ => {}
    }
    e
}

/// `SELECT key, COUNT(*), SUM(value) GROUP BY key` as the step's docs define it, on
/// the reference parser's records. The reference gives records without their offsets,
/// so its errors have no [`Place`]; [`check_query`] checks the step's line is possible.
///
/// # Errors
/// The first error in record order; a parse error comes after every record before it.
pub fn oracle(data: &[u8], dialect: Dialect, key: &str, value: &str) -> Result<Groups, QueryError> {
    let mut records = Vec::new();
    let parsed = reference::for_each_record_in(data, dialect, |r| records.push(r.to_vec()));
    let mut rows = records.iter().enumerate();
    let Some((_, header)) = rows.next() else {
        parsed?;
        return Err(QueryError::NoHeader);
    };
    // A name the header has twice is an error, naming its 1-based positions.
    let find = |name: &str| {
        let at: Vec<usize> = (0..header.len())
            .filter(|&k| header[k] == name.as_bytes())
            .collect();
        match at[..] {
            [k] => Ok(k),
            [] => Err(QueryError::MissingColumn {
                column: name.into(),
                header: header.iter().map(|f| key_text(f)).collect(),
            }),
            _ => Err(QueryError::DuplicateColumn {
                column: name.into(),
                positions: at.iter().map(|k| k + 1).collect(),
            }),
        }
    };
    let (k, v) = (find(key)?, find(value)?);
    let mut sums: BTreeMap<Vec<u8>, (u64, Option<f64>)> = BTreeMap::new();
    for (index, row) in rows {
        let record = index as u64;
        if row.len() != header.len() {
            return Err(QueryError::FieldCount {
                record,
                place: None,
                expected: header.len(),
                found: row.len(),
            });
        }
        let number = match &row[v][..] {
            [] => None,
            text => match std::str::from_utf8(text).map(str::parse::<f64>) {
                Ok(Ok(x)) if x.is_finite() => Some(x),
                _ => {
                    return Err(QueryError::InvalidNumber {
                        record,
                        place: None,
                        column: value.into(),
                        text: text.to_vec(),
                    });
                }
            },
        };
        let group = sums.entry(row[k].clone()).or_insert((0, None));
        group.0 += 1;
        if let Some(x) = number {
            group.1 = Some(group.1.unwrap_or(0.0) + x);
        }
    }
    parsed?;
    Ok(sums
        .into_iter()
        .map(|(key, (count, sum))| {
            let group = Group {
                count,
                sum,
                ..Group::default()
            };
            (key, group)
        })
        .collect())
}
