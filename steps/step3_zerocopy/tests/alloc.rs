//! Proof over promise: a second pass over the same input allocates nothing at all,
//! and a whole pass (map, parser, fingerprint) a constant that does not grow with the
//! number of records.
//!
//! The only test of its binary: the counters are global, so another test running at
//! the same time would be counted too.

#[global_allocator]
static A: harness::CountingAlloc = harness::CountingAlloc;

use std::path::Path;

use harness::Fingerprint;
use step3::{Parser, Step3};
use testkit::alloc::{
    assert_pass_allocations_constant, assert_warm_pass_allocates_nothing, file_of,
};

#[test]
fn a_warm_pass_allocates_nothing_and_a_cold_one_a_constant() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    assert_pass_allocations_constant::<Step3>(dir, 8);
    for rows in [1_000, 100_000] {
        let input = step3::map(&file_of(dir, "step3", rows)).unwrap();
        let mut parser = Parser::default();
        assert_warm_pass_allocates_nothing(rows, || {
            let mut fp = Fingerprint::default();
            parser
                .for_each_record(&input, |r| {
                    fp.add_record(r.fields().map(|f| f.cooked_len()))
                })
                .unwrap();
            fp
        });
    }
}
