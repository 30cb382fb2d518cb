//! Bad input through the binary: one test per case of `testkit::bad_input`.
testkit::bad_input_tests!(env!("CARGO_BIN_EXE_step12"));
