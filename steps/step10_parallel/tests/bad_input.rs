//! Bad input: a clear error that says where, never a panic, never a wrong sum. Each
//! row of the bad-input table (step 5's crate docs) is a test here, from the family
//! every query step runs (`testkit::query_bad_input`).

testkit::query_bad_input_tests!(
    |csv| step10::run(csv, step10::query::Query::default()),
    env!("CARGO_BIN_EXE_step10")
);
