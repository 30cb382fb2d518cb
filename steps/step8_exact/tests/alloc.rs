//! No allocation per row: the query's allocations do not grow with the file.
//! (Its own test binary: the counters are global to the process.)

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

#[test]
fn allocations_do_not_grow_with_the_number_of_rows() {
    testkit::alloc::assert_query_allocations_constant(|csv| {
        step8::run(csv, step8::query::Query::default())
    });
}
