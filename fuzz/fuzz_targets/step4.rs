#![no_main]
// Every scan tier, the one the binary uses (`Step4` = the best) first.
fuzz::parse_target!(
    step4::Step4,
    step4::With<step4::scan::Scalar>,
    step4::With<step4::scan::Memchr>
);
