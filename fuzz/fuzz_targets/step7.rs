#![no_main]
fuzz::parse_target!(
    step7::Step7,
    step7::With<step7::force::Scalar>,
    step7::With<step7::force::Portable>,
    step7::With<step7::force::Sse2>,
    step7::With<step7::force::Avx2>
);
