//! Bad input: a clear error that says where, never a panic, never a wrong sum. Each
//! row of the table in the crate docs is a test here.

use std::process::Command;

use harness::query::{Group, QueryError, groups_to_json};
use step7::query::{self, Query};

fn run(csv: &[u8]) -> Result<harness::query::Groups, QueryError> {
    query::run(csv, Query::default())
}

fn one_group(csv: &[u8]) -> Group {
    let groups = run(csv).unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    *groups.values().next().unwrap()
}

#[test]
fn a_value_that_is_not_a_number_names_record_line_column_and_text() {
    let e = run(b"category,value\n\na,1\nb,abc\n").unwrap_err();
    assert_eq!(
        e,
        QueryError::InvalidNumber {
            record: 2,
            line: 4,
            column: "value".into(),
            text: b"abc".to_vec()
        }
    );
    assert_eq!(
        e.to_json().to_string(),
        r#"{"column":"value","error":"invalid_number","record":2,"text":"abc"}"#
    );
    assert_eq!(
        e.to_string(),
        r#"line 4 (record 2), column "value": "abc" is not a finite decimal number"#
    );
}

#[test]
fn a_record_with_another_width_is_an_error() {
    let e = run(b"category,value,x\na,1,x\nb,2\n").unwrap_err();
    assert_eq!(
        e,
        QueryError::FieldCount {
            record: 2,
            line: 3,
            expected: 3,
            found: 2
        }
    );
    let e = run(b"category,value\na,1,extra\n").unwrap_err();
    assert_eq!(
        e.to_json().to_string(),
        r#"{"error":"field_count","expected":2,"found":3,"record":1}"#
    );
}

#[test]
fn a_missing_column_lists_the_header() {
    let e = query::run(b"category,amount\na,1\n", Query::default()).unwrap_err();
    assert_eq!(
        e,
        QueryError::MissingColumn {
            column: "value".into(),
            header: vec!["category".into(), "amount".into()]
        }
    );
}

#[test]
fn header_only_is_an_empty_answer_and_empty_input_has_no_header() {
    assert_eq!(run(b"category,value\n").unwrap().len(), 0);
    assert_eq!(run(b"").unwrap_err(), QueryError::NoHeader);
    assert_eq!(run(b"\n\r\n").unwrap_err(), QueryError::NoHeader);
}

#[test]
fn a_key_that_is_not_utf8_is_kept_and_printed_escaped() {
    let groups = run(b"category,value\ncaf\xe9,1\n").unwrap();
    assert_eq!(groups[&b"caf\xe9"[..]].count, 1);
    assert_eq!(
        groups_to_json(&groups).to_string(),
        r#"{"caf\\xe9":{"count":1,"sum":1.0}}"#
    );
}

#[test]
fn values_outside_f64_or_not_finite_are_errors() {
    for bad in [
        "1e400", "-1e400", "NaN", "nan", "inf", "-inf", "infinity", " 3", "3 ", "1,5", "0x10",
    ] {
        let csv = format!("category,value\na,\"{bad}\"\n");
        let e = run(csv.as_bytes()).unwrap_err();
        assert!(
            matches!(e, QueryError::InvalidNumber { record: 1, .. }),
            "{bad}: {e:?}"
        );
    }
}

#[test]
fn accepted_spellings_of_numbers() {
    let sum = |v: &str| {
        one_group(format!("category,value\na,{v}\n").as_bytes())
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

#[test]
fn an_empty_value_is_null_counted_but_not_summed() {
    let g = one_group(b"category,value\na,\na,2\na,\"\"\n");
    assert_eq!(
        g,
        Group {
            count: 3,
            sum: Some(2.0)
        }
    );
    let g = one_group(b"category,value\na,\n");
    assert_eq!(
        g,
        Group {
            count: 1,
            sum: None
        }
    );
}

#[test]
fn an_unterminated_quote_names_its_record_and_byte() {
    let e = run(b"category,value\na,1\n\"b,2\n").unwrap_err();
    assert_eq!(
        e.to_json().to_string(),
        r#"{"byte":19,"error":"unterminated_quote","record":2}"#
    );
}

#[test]
fn the_binary_exits_non_zero_with_the_error_as_json() {
    let path = std::env::temp_dir().join(format!("step7-bad-{}.csv", std::process::id()));
    std::fs::write(&path, "category,value\na,1\nb,x1\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_step7"))
        .arg(&path)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"{"column":"value","error":"invalid_number","record":2,"text":"x1"}"#
    );
    let out = Command::new(env!("CARGO_BIN_EXE_step7"))
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(r#"line 3 (record 2), column "value": "x1""#)
    );
    std::fs::write(&path, "category,value\na,1.5\na,2\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_step7"))
        .arg(&path)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"{"a":{"count":2,"sum":3.5}}"#
    );
    std::fs::remove_file(&path).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_step7"))
        .arg("/no/such/file.csv")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /no/such/file.csv"));
}
