//! Bad input: a clear error that says where, never a panic, never a wrong sum. Each
//! row of the bad-input table (step 5's crate docs) is a test here, from the family
//! every query step runs (`testkit::query_bad_input`): step 12's query over the CSV
//! (step 10's, carried), and its binary.

testkit::query_bad_input_tests!(
    |csv| step12::run(csv, step12::query::Query::default()),
    env!("CARGO_BIN_EXE_step12")
);
