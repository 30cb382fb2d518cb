//! No allocation per row: the query's allocations do not grow with the file, at the
//! same number of chunks (a chunk costs a few: its result, its thread's table).
//! (Its own test binary: the counters are global to the process.)

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

use harness::alloc::count_allocations;
use step7::query::{self, Query, Split};

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
    // 16 chunks each, one thread (so that the count does not depend on scheduling).
    let split = |csv: &[u8]| Split {
        threads: 1,
        chunk: csv.len().div_ceil(16),
    };
    let (small_groups, small_allocs) =
        count_allocations(|| query::run_split(&small, Query::default(), split(&small)).unwrap());
    let (large_groups, large_allocs) =
        count_allocations(|| query::run_split(&large, Query::default(), split(&large)).unwrap());
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
