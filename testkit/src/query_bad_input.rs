//! The query steps' bad input, as one family of tests: a clear error that says what
//! and where, never a panic, never a wrong sum. Each function is one row of the
//! bad-input table in step 5's crate docs; [`crate::query_bad_input_tests!`] makes
//! them one test each for a step, so that every query step runs the same family
//! against the same expectations instead of a copy of its own.
//!
//! ```text
//! // steps/step5_typed/tests/bad_input.rs
//! harness::query_bad_input_tests!(
//!     |csv| step5::run(csv, step5::query::Query::default()),
//!     env!("CARGO_BIN_EXE_step5")
//! );
//! ```

use std::path::Path;
use std::process::Command;

use harness::query::{Group, Groups, Place, QueryError, groups_to_json};

pub use crate::real_files::{
    a_column_is_a_name_or_a_position_and_a_duplicate_name_is_an_error,
    a_null_marker_that_is_a_number_is_refused, aggregates_min_max_and_mean_skip_nulls,
    no_header_names_the_columns_by_position, null_markers_are_suggested_then_read_as_null,
    real_files_give_duckdbs_answer, semicolon_and_tab_files_with_delimiter,
    the_1brc_format_refuses_nulls_and_temperatures_out_of_range,
    the_one_billion_row_challenge_byte_for_byte,
};

/// A step's query with the default columns (`category`, `value`) over CSV bytes.
pub type Run = fn(&[u8]) -> Result<Groups, QueryError>;

/// One `#[test]` per row of the family for a query step: `$run` is its query over
/// bytes (a [`Run`]), `$bin` the path of its binary (`env!("CARGO_BIN_EXE_stepN")`).
#[macro_export]
macro_rules! query_bad_input_tests {
    ($run:expr, $bin:expr) => {
        $crate::__query_bad_input_tests!($run;
            a_value_that_is_not_a_number_names_record_line_column_and_text,
            a_record_with_another_width_is_an_error,
            a_missing_column_lists_the_header,
            header_only_is_an_empty_answer_and_empty_input_has_no_header,
            a_key_that_is_not_utf8_is_kept_and_printed_escaped,
            values_outside_f64_or_not_finite_are_errors,
            accepted_spellings_of_numbers,
            an_empty_value_is_null_counted_but_not_summed,
            an_unterminated_quote_names_its_record_and_byte);
        $crate::__query_binary_tests!($bin;
            the_binary_exits_non_zero_with_the_error_as_json,
            null_markers_are_suggested_then_read_as_null,
            a_column_is_a_name_or_a_position_and_a_duplicate_name_is_an_error,
            no_header_names_the_columns_by_position,
            aggregates_min_max_and_mean_skip_nulls,
            real_files_give_duckdbs_answer,
            semicolon_and_tab_files_with_delimiter,
            the_one_billion_row_challenge_byte_for_byte,
            the_1brc_format_refuses_nulls_and_temperatures_out_of_range,
            a_null_marker_that_is_a_number_is_refused);
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_binary_tests {
    ($bin:expr; $($case:ident),*) => {
        $(
            #[test]
            fn $case() {
                $crate::query_bad_input::$case(::std::path::Path::new($bin));
            }
        )*
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_bad_input_tests {
    ($run:expr; $($case:ident),*) => {
        $(
            #[test]
            fn $case() {
                $crate::query_bad_input::$case($run);
            }
        )*
    };
}

fn one_group(run: Run, csv: &[u8]) -> Group {
    let groups = run(csv).unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    *groups.values().next().unwrap()
}

/// A value that is not a number names record line column and text.
pub fn a_value_that_is_not_a_number_names_record_line_column_and_text(run: Run) {
    let e = run(b"category,value\n\na,1\nb,abc\n").unwrap_err();
    assert_eq!(
        e,
        QueryError::InvalidNumber {
            record: 2,
            place: Some(Place { line: 4, byte: 22 }),
            column: "value".into(),
            text: b"abc".to_vec()
        }
    );
    assert_eq!(
        e.to_json().to_string(),
        r#"{"byte":22,"column":"value","error":"invalid_number","line":4,"record":2,"text":"abc"}"#
    );
    assert_eq!(
        e.to_string(),
        r#"line 4 (record 2, byte 22), column "value": "abc" is not a finite decimal number"#
    );
}

/// A record with another width is an error.
pub fn a_record_with_another_width_is_an_error(run: Run) {
    let e = run(b"category,value,x\na,1,x\nb,2\n").unwrap_err();
    assert_eq!(
        e,
        QueryError::FieldCount {
            record: 2,
            place: Some(Place { line: 3, byte: 23 }),
            expected: 3,
            found: 2
        }
    );
    let e = run(b"category,value\na,1,extra\n").unwrap_err();
    assert_eq!(
        e.to_json().to_string(),
        r#"{"byte":15,"error":"field_count","expected":2,"found":3,"line":2,"record":1}"#
    );
}

/// A missing column lists the header.
pub fn a_missing_column_lists_the_header(run: Run) {
    let e = run(b"category,amount\na,1\n").unwrap_err();
    assert_eq!(
        e,
        QueryError::MissingColumn {
            column: "value".into(),
            header: vec!["category".into(), "amount".into()]
        }
    );
}

/// Header only is an empty answer and empty input has no header.
pub fn header_only_is_an_empty_answer_and_empty_input_has_no_header(run: Run) {
    assert_eq!(run(b"category,value\n").unwrap().len(), 0);
    assert_eq!(run(b"").unwrap_err(), QueryError::NoHeader);
    assert_eq!(run(b"\n\r\n").unwrap_err(), QueryError::NoHeader);
}

/// A key that is not utf8 is kept and printed escaped.
pub fn a_key_that_is_not_utf8_is_kept_and_printed_escaped(run: Run) {
    let groups = run(b"category,value\ncaf\xe9,1\n").unwrap();
    assert_eq!(groups[&b"caf\xe9"[..]].count, 1);
    assert_eq!(
        groups_to_json(&groups).to_string(),
        r#"{"caf\\xe9":{"count":1,"sum":1.0}}"#
    );
}

/// Values outside f64 or not finite are errors.
pub fn values_outside_f64_or_not_finite_are_errors(run: Run) {
    for bad in [
        "1e400", "-1e400", "NaN", "nan", "inf", "-inf", "infinity", " 3", "3 ", "1,5", "0x10",
    ] {
        let csv = format!("category,value\na,\"{bad}\"\n");
        let e = run(csv.as_bytes()).unwrap_err();
        assert!(
            // The field is quoted: the error names its opening quote, byte 17.
            matches!(
                e,
                QueryError::InvalidNumber {
                    record: 1,
                    place: Some(Place { line: 2, byte: 17 }),
                    ..
                }
            ),
            "{bad}: {e:?}"
        );
    }
}

/// Accepted spellings of numbers.
pub fn accepted_spellings_of_numbers(run: Run) {
    let sum = |v: &str| {
        one_group(run, format!("category,value\na,{v}\n").as_bytes())
            .sum
            .unwrap()
    };
    assert_eq!(sum("+3"), 3.0);
    assert_eq!(sum(".5"), 0.5);
    assert_eq!(sum("5."), 5.0);
    assert_eq!(sum("12345678901234567890"), 12345678901234567890.0);
    assert_eq!(sum("1e-400"), 0.0);
    // The sum starts at +0.0 (as gen's reference does), and 0.0 + -0.0 is +0.0.
    assert_eq!(sum("-0").to_bits(), 0.0f64.to_bits());
    assert_eq!(sum("\"2.5\""), 2.5); // a quoted number is a number
}

/// An empty value is null counted but not summed.
pub fn an_empty_value_is_null_counted_but_not_summed(run: Run) {
    let g = one_group(run, b"category,value\na,\na,2\na,\"\"\n");
    assert_eq!((g.count, g.sum), (3, Some(2.0)));
    let g = one_group(run, b"category,value\na,\n");
    assert_eq!((g.count, g.sum), (1, None));
}

/// An unterminated quote names its record and byte.
pub fn an_unterminated_quote_names_its_record_and_byte(run: Run) {
    let e = run(b"category,value\na,1\n\"b,2\n").unwrap_err();
    assert_eq!(
        e.to_json().to_string(),
        r#"{"byte":19,"error":"unterminated_quote","line":3,"record":2}"#
    );
}

/// The binary: `--json` prints the error and exits 1, the table's error names its line,
/// a good file's answer, and exit 2 for a file that cannot be read.
pub fn the_binary_exits_non_zero_with_the_error_as_json(bin: &Path) {
    let name = bin.file_name().and_then(|n| n.to_str()).unwrap_or("step");
    let path = std::env::temp_dir().join(format!("{name}-bad-{}.csv", std::process::id()));
    std::fs::write(&path, "category,value\na,1\nb,x1\n").unwrap();
    let out = Command::new(bin).arg(&path).arg("--json").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"{"byte":21,"column":"value","error":"invalid_number","line":3,"record":2,"text":"x1"}"#
    );
    let out = Command::new(bin).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains(r#"line 3 (record 2, byte 21), column "value": "x1""#)
    );
    std::fs::write(&path, "category,value\na,1.5\na,2\n").unwrap();
    let out = Command::new(bin).arg(&path).arg("--json").output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"{"a":{"count":2,"sum":3.5}}"#
    );
    std::fs::remove_file(&path).unwrap();
    let out = Command::new(bin).arg("/no/such/file.csv").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /no/such/file.csv"));
    // A file that cannot be read is an error too, in JSON on stdout with `--json`.
    let out = Command::new(bin)
        .args(["/no/such/file.csv", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["error"], "io", "{json}");
    assert!(
        json["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("cannot read /no/such/file.csv")),
        "{json}"
    );
    // An option that cannot be honoured: its exit status and message, and in JSON.
    std::fs::write(&path, "category,value\na,1\n").unwrap();
    let out = Command::new(bin)
        .arg(&path)
        .args(["--agg", "median", "--json"])
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(r#"--agg: "median""#));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["error"], "options", "{json}");
}
