//! The gate's corpus at other chunk sizes and thread counts: every case crosses
//! chunk boundaries somewhere, in quotes, in CR LF, in `""`.

mod one_byte_chunks_two_threads {
    testkit::gate_tests!(step10::Chunked<1, 2>);
}
mod seven_byte_chunks_one_thread {
    testkit::gate_tests!(step10::Chunked<7, 1>);
}
mod seven_byte_chunks_three_threads {
    testkit::gate_tests!(step10::Chunked<7, 3>);
}
mod big_chunks_eight_threads {
    testkit::gate_tests!(step10::Chunked<4096, 8>);
}

/// Two errors in different chunks: the first in record order is reported, whichever
/// chunk's thread finds its error first.
#[test]
fn the_first_error_in_record_order_across_chunks() {
    for (first, expected) in [("value", "invalid_number"), ("width", "field_count")] {
        let csv = testkit::query_checks::two_errors(first);
        for threads in [1, 2, 3, 8] {
            for chunk in [64, 1000, 4096] {
                let split = step10::parallel::Split { threads, chunk };
                let e = step10::parallel::run_split(&csv, step10::query::Query::default(), split)
                    .unwrap_err()
                    .to_json();
                assert_eq!(
                    (e["error"].as_str(), e["record"].as_u64()),
                    (Some(expected), Some(300)),
                    "{split:?}"
                );
            }
        }
    }
}
