//! Bad input through the binary: one test per case of `harness::bad_input`.
harness::bad_input_tests!(env!("CARGO_BIN_EXE_step8"));
