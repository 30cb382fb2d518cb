//! No allocation per row: the query's allocations do not grow with the file, at the
//! same number of chunks (a chunk costs a few: its result, its thread's table).
//! (Its own test binary: the counters are global to the process.)

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

use step10::parallel::{self, Split};
use step10::query::Query;

#[test]
fn allocations_do_not_grow_with_the_number_of_rows() {
    // 16 chunks each, one thread (so that the count does not depend on scheduling).
    testkit::alloc::assert_query_allocations_constant(|csv| {
        let split = Split {
            threads: 1,
            chunk: csv.len().div_ceil(16),
        };
        parallel::run_split(csv, Query::default(), split)
    });
}
