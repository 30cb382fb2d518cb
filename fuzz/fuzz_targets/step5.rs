#![no_main]
fuzz::parse_target!(
    step5::Step5,
    step5::With<step5::scan::Scalar>,
    step5::With<step5::scan::Memchr>
);
