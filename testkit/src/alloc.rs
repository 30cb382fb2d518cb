//! The allocation checks every step runs: a pass, a warm pass and a query allocate a
//! constant that does not grow with the input. They read the process-global counters
//! of [`harness::CountingAlloc`], so each is the only test of its binary
//! (`tests/alloc.rs`), which installs that allocator.

use harness::run::alloc::{count_allocations, fewest_allocations};

/// A file of `rows` records of one fixed shape (a quoted field with `""` and a CR LF
/// included) in `dir`, named after `step`, so that only the number of records
/// differs between two such files.
pub fn file_of(dir: &std::path::Path, step: &str, rows: usize) -> std::path::PathBuf {
    let path = dir.join(format!("{step}_alloc_{rows}.csv"));
    let mut csv = Vec::new();
    for i in 0..rows {
        csv.extend_from_slice(format!("{i:07},\"say \"\"hi\"\", twice\",3.25\r\n").as_bytes());
    }
    std::fs::write(&path, csv).unwrap();
    path
}

/// Test helper: `S::pass` allocates as often over 100,000 records as over 1,000, and
/// at most `most` times. Call it from the only test of a binary that counts with
/// [`harness::CountingAlloc`].
pub fn assert_pass_allocations_constant<S: harness::Step>(dir: &std::path::Path, most: u64) {
    let mut counts = Vec::new();
    for rows in [1_000, 100_000] {
        let path = file_of(dir, S::NAME, rows);
        let (fp, counted) = fewest_allocations(3, || {
            S::pass(&path, harness::dialect::Dialect::default()).unwrap()
        });
        assert_eq!(fp.records, rows as u64);
        counts.push(counted.allocations);
    }
    assert_eq!(
        counts[0], counts[1],
        "allocations for 1,000 and 100,000 records"
    );
    assert!(counts[1] <= most, "{} allocations in one pass", counts[1]);
}

/// Test helper: `pass` (one pass of a reused parser over a file of `rows` records,
/// its fingerprint returned) allocates on its first call, to grow the parser's
/// buffers, and never on a later one (the fewest of three, [`fewest_allocations`]).
/// Call it from the only test of a binary that counts with [`harness::CountingAlloc`].
pub fn assert_warm_pass_allocates_nothing(
    rows: usize,
    mut pass: impl FnMut() -> harness::Fingerprint,
) {
    let (fp, cold) = count_allocations(&mut pass);
    assert_eq!(fp.records, rows as u64);
    let (fp, warm) = fewest_allocations(3, &mut pass);
    assert_eq!(fp.records, rows as u64);
    assert!(
        cold.allocations > 0,
        "the first pass grows the parser's spans"
    );
    assert_eq!(
        warm.allocations, 0,
        "the second pass over {rows} records allocated"
    );
}

/// Test helper for a query step: `run` (its query over CSV bytes, with the default
/// columns) allocates as often over 200,000 generated rows as over 2,000, and fewer
/// than 200 times: no allocation per row. Call it from the only test of a binary
/// that counts with [`harness::CountingAlloc`].
pub fn assert_query_allocations_constant<E: std::fmt::Debug>(
    run: impl Fn(&[u8]) -> Result<harness::query::Groups, E>,
) {
    let file = |rows| {
        gen_csv::generate_in_memory(&gen_csv::Config {
            rows,
            ..Default::default()
        })
        .0
    };
    let (small, large) = (file(2_000), file(200_000));
    let (small_groups, small_allocs) = fewest_allocations(3, || run(&small).unwrap());
    let (large_groups, large_allocs) = fewest_allocations(3, || run(&large).unwrap());
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
