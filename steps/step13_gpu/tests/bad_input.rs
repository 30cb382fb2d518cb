//! Bad input: a clear error that says where, never a panic, never a wrong sum. Each
//! row of the bad-input table (step 5's crate docs) is a test here, from the family
//! every query step runs (`testkit::query_bad_input`): step 13's CPU twins at the
//! device's geometry, and its binary.

testkit::query_bad_input_tests!(
    |csv| step13::query::run(csv, step13::groupby::Query::default(), step13::tiles::GPU),
    env!("CARGO_BIN_EXE_step13")
);
