//! Step 5's answer, cross-checked three ways (the gate is the third, in `gate.rs`):
//! against the same query on step 1's parser, and against `gen`'s reference, bit for
//! bit (`harness::query_checks`); and its two tables against each other.

use harness::query::Query;
use harness::query_checks::{Sums, configs, generated};
use step5::query;
use step5::table::{GroupTable, Hashbrown};

harness::query_tests!(step5::Step5, Sums::RowOrder);

#[test]
fn both_tables_give_the_same_answer() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (name, config) in configs() {
        let (path, csv, _) = generated(dir, "tables", name, &config);
        let hand = query::run_with::<GroupTable>(&csv, Query::default()).unwrap();
        let hashbrown = query::run_with::<Hashbrown>(&csv, Query::default()).unwrap();
        assert_eq!(hand, hashbrown, "{name}");
        std::fs::remove_file(path).unwrap();
    }
}
