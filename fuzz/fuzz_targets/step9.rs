#![no_main]
fuzz::parse_target!(
    step9::Step9,
    step9::Chunked<1, 2>,
    step9::Chunked<7, 3>,
    step9::Chunked<64, 1>
);
