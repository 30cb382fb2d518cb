//! The gate, one test per conformance case and per random family.
testkit::gate_tests!(step9::Step9);
