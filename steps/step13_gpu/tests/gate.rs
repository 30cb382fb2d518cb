//! The gate, one test per conformance case and per random family (4-byte slices, 4 a
//! tile, so every case crosses tile and slice edges).
testkit::gate_tests!(step13::Step13);
