//! The gate, one test per conformance case and per random family.
harness::gate_tests!(step8::Step8);
