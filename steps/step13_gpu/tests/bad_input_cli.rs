//! Bad input through the binary: one test per case of `testkit::bad_input`.
//! `STEP13_BIN` names another binary to test (the device check's prebuilt one).

fn bin() -> &'static str {
    match std::env::var("STEP13_BIN") {
        Ok(path) => path.leak(),
        Err(_) => env!("CARGO_BIN_EXE_step13"),
    }
}

testkit::bad_input_tests!(bin());
