#![no_main]
fuzz::parse_target!(
    step7::Step7,
    step7::Chunked<1, 2>,
    step7::Chunked<7, 3>,
    step7::Chunked<64, 1>
);
