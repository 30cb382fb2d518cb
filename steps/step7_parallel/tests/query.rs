//! Step 7's answer: the same as the same query on step 1's parser, and `gen`'s
//! reference with every sum exact, correctly rounded (`harness::query_checks`); and
//! the same JSON on every number of threads and chunks.

use gen_csv::{Config, generate_in_memory};
use harness::query::{Query, groups_to_json};
use harness::query_checks::{Sums, configs, generated};
use step7::query::{self, Split};

harness::query_tests!(step7::Step7, Sums::Exact);

#[test]
fn the_same_json_for_every_thread_count_and_chunk_size() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (name, config) in configs() {
        let (path, csv, _) = generated(dir, "threads", name, &config);
        let one = groups_to_json(
            &query::run_split(
                &csv,
                Query::default(),
                Split {
                    threads: 1,
                    chunk: 0,
                },
            )
            .unwrap(),
        );
        for threads in [1, 2, 3, 8] {
            for chunk in [0, 4096, 999, 100_003] {
                let split = Split { threads, chunk };
                let got = groups_to_json(&query::run_split(&csv, Query::default(), split).unwrap());
                assert_eq!(got, one, "{name} {split:?}");
            }
        }
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn many_more_chunks_than_cores() {
    // 64 threads over 3000 chunks of 100 bytes: the design for a 64-core machine,
    // run on whatever this one has.
    let (csv, _) = generate_in_memory(&Config {
        rows: 10_000,
        ..Config::default()
    });
    let one = query::run_split(
        &csv,
        Query::default(),
        Split {
            threads: 1,
            chunk: 0,
        },
    )
    .unwrap();
    let many = query::run_split(
        &csv,
        Query::default(),
        Split {
            threads: 64,
            chunk: 100,
        },
    )
    .unwrap();
    assert_eq!(groups_to_json(&many), groups_to_json(&one));
}
