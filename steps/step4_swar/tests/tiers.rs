//! The gate on every scanning tier, not only on the one the parser uses.
mod scalar {
    harness::gate_tests!(step4::With<step4::scan::Scalar>);
}
mod swar {
    harness::gate_tests!(step4::With<step4::scan::Swar>);
}
mod memchr {
    harness::gate_tests!(step4::With<step4::scan::Memchr>);
}
