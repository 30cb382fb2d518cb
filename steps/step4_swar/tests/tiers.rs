//! The gate on every scanning tier, not only on the one the parser uses.
mod scalar {
    testkit::gate_tests!(step4::With<step4::scan::Scalar>);
}
mod swar {
    testkit::gate_tests!(step4::With<step4::scan::Swar>);
}
mod memchr {
    testkit::gate_tests!(step4::With<step4::scan::Memchr>);
}
