//! The load's allocations grow with the columns, the chunks and the distinct strings,
//! not with the rows. (Its own test binary: the counters are global to the process.)

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

use harness::run::alloc::count_allocations;
use step11::parallel::Split;
use step11::splayed::load::{LoadOptions, load};

fn allocations(rows: u64, test: &str) -> u64 {
    let (csv, _) = gen_csv::generate_in_memory(&gen_csv::Config {
        rows,
        ..Default::default()
    });
    let dir = std::env::temp_dir().join(format!("step11-alloc-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // 16 chunks, one thread (so that the count does not depend on scheduling).
    let options = LoadOptions {
        split: Some(Split {
            threads: 1,
            chunk: csv.len().div_ceil(16),
        }),
        ..LoadOptions::default()
    };
    let (loaded, counted) = count_allocations(|| load(&csv, &dir, &options));
    loaded.unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    counted.allocations
}

#[test]
fn allocations_grow_with_distinct_strings_not_rows() {
    let small = allocations(2_000, "small");
    let large = allocations(200_000, "large");
    // 100 times the rows (and about 100 times the distinct names): the buffers grow
    // by doubling, a few more times each, never once per row or per string.
    assert!(large < 2 * small, "{small} then {large} allocations");
    assert!(large < 200_000 / 20, "{large} allocations for 200,000 rows");
}
