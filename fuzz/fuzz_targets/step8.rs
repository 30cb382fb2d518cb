#![no_main]
fuzz::parse_target!(
    step8::Step8,
    step8::Chunked<1, 2>,
    step8::Chunked<7, 3>,
    step8::Chunked<64, 1>
);
