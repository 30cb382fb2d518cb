//! Proof over promise: a second pass over the same input allocates nothing at all,
//! and a whole pass (map, parser, fingerprint) a constant that does not grow with the
//! number of records.
//!
//! The only test of its binary: the counters are global, so another test running at
//! the same time would be counted too.

#[global_allocator]
static A: harness::CountingAlloc = harness::CountingAlloc;

use std::path::PathBuf;

use harness::alloc::count_allocations;
use harness::{Fingerprint, Step};
use step4::{Parser, Step4};

/// A file of `rows` records of one fixed shape (a quoted field with `""` and a CR LF
/// included), so that only the number of records differs between two files.
fn file_of(rows: usize) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("step4_alloc_{rows}.csv"));
    let mut csv = Vec::new();
    for i in 0..rows {
        csv.extend_from_slice(format!("{i:07},\"say \"\"hi\"\", twice\",3.25\r\n").as_bytes());
    }
    std::fs::write(&path, csv).unwrap();
    path
}

#[test]
fn a_warm_pass_allocates_nothing_and_a_cold_one_a_constant() {
    let mut per_pass = Vec::new();
    for rows in [1_000, 100_000] {
        let path = file_of(rows);
        let (fp, counted) = count_allocations(|| Step4::pass(&path).unwrap());
        assert_eq!(fp.records, rows as u64);
        per_pass.push(counted.allocations);

        let input = step4::map(&path).unwrap();
        let mut parser = Parser::default();
        let mut passes = Vec::new();
        for _ in 0..2 {
            let (fp, counted) = count_allocations(|| {
                let mut fp = Fingerprint::default();
                parser
                    .for_each_record(&input, |r| {
                        fp.add_record(r.fields().map(|f| f.cooked_len()))
                    })
                    .unwrap();
                fp
            });
            assert_eq!(fp.records, rows as u64);
            passes.push(counted.allocations);
        }
        assert!(passes[0] > 0, "the first pass grows the parser's spans");
        assert_eq!(
            passes[1], 0,
            "the second pass over {rows} records allocated"
        );
    }
    assert_eq!(
        per_pass[0], per_pass[1],
        "allocations for 1,000 and 100,000 records"
    );
    assert!(per_pass[1] <= 8, "{} allocations in one pass", per_pass[1]);
}
