//! The gate's corpus at other chunk sizes and thread counts: every case crosses
//! chunk boundaries somewhere, in quotes, in CR LF, in `""`.

mod one_byte_chunks_two_threads {
    harness::gate_tests!(step7::Chunked<1, 2>);
}
mod seven_byte_chunks_one_thread {
    harness::gate_tests!(step7::Chunked<7, 1>);
}
mod seven_byte_chunks_three_threads {
    harness::gate_tests!(step7::Chunked<7, 3>);
}
mod big_chunks_eight_threads {
    harness::gate_tests!(step7::Chunked<4096, 8>);
}
