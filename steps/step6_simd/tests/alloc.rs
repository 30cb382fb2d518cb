//! No allocation per row: the query's allocations do not grow with the file.
//! (Its own test binary: the counters are global to the process.)

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

use harness::alloc::count_allocations;
use step6::query::{self, Query};

#[test]
fn allocations_do_not_grow_with_the_number_of_rows() {
    let small = gen_csv::generate_in_memory(&gen_csv::Config {
        rows: 2_000,
        ..Default::default()
    })
    .0;
    let large = gen_csv::generate_in_memory(&gen_csv::Config {
        rows: 200_000,
        ..Default::default()
    })
    .0;
    let (small_groups, small_allocs) =
        count_allocations(|| query::run(&small, Query::default()).unwrap());
    let (large_groups, large_allocs) =
        count_allocations(|| query::run(&large, Query::default()).unwrap());
    assert_eq!(
        small_groups.len(),
        large_groups.len(),
        "both files have every category"
    );
    assert_eq!(
        small_allocs.allocations, large_allocs.allocations,
        "100 times the rows, the same allocations"
    );
    assert!(large_allocs.allocations < 200, "{large_allocs:?}");
}
