//! Heap allocations per pass: a small constant, whatever the number of records.
//!
//! The only test of its binary: the counters are global, so another test running at
//! the same time would be counted too.

#[global_allocator]
static A: harness::CountingAlloc = harness::CountingAlloc;

#[test]
fn allocations_per_pass_do_not_grow_with_the_records() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    testkit::alloc::assert_pass_allocations_constant::<step2::Step2>(dir, 16);
}
