//! The gate, one test per conformance case and per random family.
testkit::gate_tests!(step12::Step12);
