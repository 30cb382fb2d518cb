#![no_main]
fuzz::parse_target!(
    step10::Step10,
    step10::Chunked<1, 2>,
    step10::Chunked<7, 3>,
    step10::Chunked<64, 1>
);
