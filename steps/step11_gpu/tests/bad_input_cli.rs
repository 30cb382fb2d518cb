//! Bad input through the binary: one test per case of `testkit::bad_input`.
//! `STEP11_BIN` names another binary to test (the device check's prebuilt one).

fn bin() -> &'static str {
    match std::env::var("STEP11_BIN") {
        Ok(path) => path.leak(),
        Err(_) => env!("CARGO_BIN_EXE_step11"),
    }
}

testkit::bad_input_tests!(bin());
