//! Step 6's answer, cross-checked three ways (the gate is the third, in `gate.rs`):
//! against the same query on step 1's parser, and against `gen`'s reference, bit for
//! bit (`testkit::query_checks`); and its two tables against each other.

use harness::query::Query;
use step6::serial;
use step6::table::{GroupTable, Hashbrown};
use testkit::query_checks::{Sums, configs, generated};

testkit::query_tests!(step6::Step6, Sums::RowOrder);

#[test]
fn both_tables_give_the_same_answer() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (name, config) in configs() {
        let (path, csv, _) = generated(dir, "tables", name, &config);
        let hand = serial::run_with::<GroupTable>(&csv, Query::default()).unwrap();
        let hashbrown = serial::run_with::<Hashbrown>(&csv, Query::default()).unwrap();
        assert_eq!(hand, hashbrown, "{name}");
        std::fs::remove_file(path).unwrap();
    }
}

/// `--null` texts, as keys and as values. `7` is a `--null` text here, which the
/// CLI refuses (a value would be both) but the library takes: it must not be summed.
#[test]
fn null_texts_are_null_as_keys_and_as_values() {
    let nulls = ["NA".to_string(), "-".to_string(), "7".to_string()];
    let query = Query {
        nulls: &nulls,
        ..Query::default()
    };
    let input = b"category,value\nNA,1\na,NA\n,2\na,-\n-,3\na,4\na,7\n7,5\n";
    let groups = step6::run(input, query).unwrap();
    assert_eq!(groups, serial::run_with::<Hashbrown>(input, query).unwrap());
    assert_eq!(groups.len(), 2, "{groups:?}"); // the NULL key and `a`
    let (null, a) = (&groups[&b""[..]], &groups[&b"a"[..]]);
    assert_eq!((null.count, null.sum), (4, Some(11.0)), "{groups:?}");
    assert_eq!((a.count, a.sum), (4, Some(4.0)), "{groups:?}");
}
