//! Heap allocations per pass: a small constant, whatever the number of records.
//!
//! The only test of its binary: the counters are global, so another test running at
//! the same time would be counted too.

#[global_allocator]
static A: harness::CountingAlloc = harness::CountingAlloc;

use std::path::PathBuf;

use harness::Step;
use harness::alloc::count_allocations;
use step2::Step2;

/// A file of `rows` records of one fixed shape (a quoted field with `""` and a CR LF
/// included), so that only the number of records differs between two files.
fn file_of(rows: usize) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("step2_alloc_{rows}.csv"));
    let mut csv = Vec::new();
    for i in 0..rows {
        csv.extend_from_slice(format!("{i:07},\"say \"\"hi\"\", twice\",3.25\r\n").as_bytes());
    }
    std::fs::write(&path, csv).unwrap();
    path
}

#[test]
fn allocations_per_pass_do_not_grow_with_the_records() {
    let mut counts = Vec::new();
    for rows in [1_000, 100_000] {
        let path = file_of(rows);
        let (fp, counted) = count_allocations(|| Step2::pass(&path).unwrap());
        assert_eq!(fp.records, rows as u64);
        counts.push(counted.allocations);
    }
    assert_eq!(
        counts[0], counts[1],
        "allocations for 1,000 and 100,000 records"
    );
    assert!(counts[1] <= 16, "{} allocations in one pass", counts[1]);
}
