//! Step 13's answer against step 10's, bit for bit: the same JSON on generated files
//! (counts, and sums through the exact accumulator), on the device's geometry and on
//! small tiles, and the same errors at the same records; and `gen`'s reference.

use gen_csv::{Config, generate_in_memory};
use harness::query::{Aggs, groups_to_json_with};
use step13::groupby::Query;
use step13::query;
use step13::tiles::{GPU, Geometry};

// The families every query step runs (`testkit::query_checks`), on `--device auto`:
// the device where there is one, else the CPU twin.
testkit::query_tests!(step13::Step13, testkit::query_checks::Sums::Exact);

fn step10_json(csv: &[u8], q: step10::query::Query<'_>) -> String {
    match step10::run(csv, q) {
        Ok(groups) => groups_to_json_with(&groups, q.aggs).to_string(),
        Err(e) => e.to_json().to_string(),
    }
}

fn step13_json(csv: &[u8], q: Query<'_>, g: Geometry) -> String {
    match query::run(csv, q, g) {
        Ok(groups) => groups_to_json_with(&groups, q.aggs).to_string(),
        Err(e) => e.to_json().to_string(),
    }
}

const SMALL: Geometry = Geometry {
    slice: 5,
    slices: 7,
};

#[test]
fn the_same_json_as_step_7_on_generated_files() {
    let configs = [
        Config {
            rows: 20_000,
            ..Config::default()
        },
        Config {
            rows: 5_000,
            seed: 7,
            quoted_pct: 100.0,
            crlf: true,
        },
        Config {
            rows: 5_000,
            seed: 8,
            quoted_pct: 0.0,
            crlf: false,
        },
    ];
    for config in configs {
        let (csv, _) = generate_in_memory(&config);
        let expected = step10_json(&csv, step10::query::Query::default());
        assert!(expected.starts_with("{\""), "{expected}");
        for g in [GPU, SMALL] {
            assert_eq!(
                step13_json(&csv, Query::default(), g),
                expected,
                "{config:?} {g:?}"
            );
        }
    }
}

#[test]
fn values_the_device_cannot_take_go_to_the_host_and_give_step_7s_sums() {
    // Floats, 20 digits, 19 fraction digits, escaped keys and values, NULLs, sums
    // past i128 in units of 10^-18: the host's share and the limbs' share must add up
    // to step 10's exact sums.
    let mut csv = b"category,value\n".to_vec();
    let values = [
        "1e3",
        "12345678901234567890",
        "0.1234567890123456789",
        "",
        "-0",
        "9999999999999999999",
        "9999999999999999999",
        "0.1",
        "0.2",
        "\"3.5\"",
        "\"1\"\"\"",
        "1e-400",
    ];
    for (i, v) in values.iter().cycle().take(600).enumerate() {
        let key = ["a", "\"b\"", "\"c\"\"\"", "\"d\"x", ""][i % 5];
        if *v == "\"1\"\"\"" {
            continue; // not a number: tested below as an error
        }
        csv.extend_from_slice(format!("{key},{v}\n").as_bytes());
    }
    let expected = step10_json(&csv, step10::query::Query::default());
    assert!(expected.contains("\"c\\\"\""), "{expected}");
    for g in [GPU, SMALL] {
        assert_eq!(step13_json(&csv, Query::default(), g), expected);
    }
}

#[test]
fn errors_name_the_same_record_as_step_7() {
    let cases: [&[u8]; 8] = [
        b"category,value\na,1\nb,abc\nc,2,3\n",
        b"category,value\na,1\nb,2,3\nc,x\n",
        b"category,value\na,1\n\"b,2\n",
        b"category,value\na,x\n\"b,2\n",
        b"",
        b"\n\r\n\n",
        b"\"category,value\n",
        b"category,amount\na,1\n",
    ];
    for csv in cases {
        let expected = step10_json(csv, step10::query::Query::default());
        assert!(expected.contains("error"), "{expected}");
        for g in [
            GPU,
            SMALL,
            Geometry {
                slice: 1,
                slices: 1,
            },
        ] {
            assert_eq!(step13_json(csv, Query::default(), g), expected, "{csv:?}");
        }
    }
}

#[test]
fn many_distinct_keys_overflow_the_device_table_and_lose_nothing() {
    // 10,000 keys for 4,096 slots: every row past the table's reach falls back.
    let mut csv = b"category,value\n".to_vec();
    for i in 0..20_000 {
        csv.extend_from_slice(format!("k{},{}.5\n", i % 10_000, i % 17).as_bytes());
    }
    let expected = step10_json(&csv, step10::query::Query::default());
    assert_eq!(step13_json(&csv, Query::default(), GPU), expected);
}

#[test]
fn every_aggregate_as_step_7_min_and_max_on_the_host() {
    let (csv, _) = generate_in_memory(&Config {
        rows: 20_000,
        ..Config::default()
    });
    let all = Query {
        aggs: Aggs::ALL,
        ..Query::default()
    };
    let expected = step10_json(&csv, all);
    assert!(
        expected.contains("\"min\":") && expected.contains("\"mean\":"),
        "{expected}"
    );
    for g in [GPU, SMALL] {
        assert_eq!(step13_json(&csv, all, g), expected, "{g:?}");
    }
}

/// Two errors in different tiles: the host takes the fallback rows in row order, so
/// the first in record order is reported.
#[test]
fn the_first_error_in_record_order_across_tiles() {
    for (first, expected) in [("value", "invalid_number"), ("width", "field_count")] {
        let csv = testkit::query_checks::two_errors(first);
        for g in [GPU, SMALL] {
            let e = step13_json(&csv, Query::default(), g);
            assert_eq!(
                e,
                step10_json(&csv, step10::query::Query::default()),
                "{g:?}"
            );
            assert!(
                e.contains(expected) && e.contains("\"record\":300"),
                "{g:?}: {e}"
            );
        }
    }
}
