#![no_main]
fuzz::parse_target!(
    step6::Step6,
    step6::With<step6::force::Scalar>,
    step6::With<step6::force::Portable>,
    step6::With<step6::force::Sse2>,
    step6::With<step6::force::Avx2>
);
