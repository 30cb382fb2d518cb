//! Pins where the csv crate's dialect differs from ours, case by case, so that the
//! crate docs stay true: a new csv version (or a change to our dialect) that moves a
//! case from one list to another, or adds an unexplained difference, fails here.

use baseline::{Baseline, Difference, survey};
use harness::gate::cases::{CASE_NAMES, load_all};
use testkit::gate;

const LONE_CR: &[&str] = &[
    "delimiter_then_cr_at_eof",
    "cr_at_eof",
    "cr_cr_lf",
    "cr_mid_field",
    "cr_before_delimiter",
    "cr_only_input",
    "cr_only_last_line",
    "lf_then_cr_data",
    "line_of_two_crs",
    "lenient_cr_after_closing",
    "lenient_cr_at_eof_after_quote",
    "boundary_cr_data_split",
];

const OPEN_QUOTE: &[&str] = &[
    "error_single_quote",
    "error_three_quotes",
    "error_lone_quote_after_records",
    "error_unterminated_after_blank_lines",
    "error_unterminated_spans_lines",
    "error_after_bom_quote_only",
    "error_after_bom_later_record",
    "error_doubled_quote_then_eof",
    "error_quote_after_delimiter_at_eof",
    "error_second_field",
    "error_even_quote_count",
    "error_literal_quote_then_open",
    "error_open_after_closed_fields",
    "error_quoted_cr_at_eof",
    "boundary_error_open_quote_at_64",
];

#[test]
fn the_differences_are_the_documented_ones_and_no_other() {
    let cases = load_all().unwrap();
    let found = survey::survey(&cases);
    assert_eq!(found.cases_of(Difference::LoneCrEndsRecord), LONE_CR);
    assert_eq!(found.cases_of(Difference::OpenQuoteClosedAtEnd), OPEN_QUOTE);
    assert!(found.cases_of(Difference::Both).is_empty());
    assert!(
        found.unexplained.is_empty(),
        "unexplained differences:\n{}",
        found.unexplained.join("\n")
    );
}

#[test]
fn every_other_case_passes_the_gate_at_every_padding() {
    let agreeing = CASE_NAMES
        .iter()
        .filter(|name| !LONE_CR.contains(name) && !OPEN_QUOTE.contains(name));
    let mut checked = 0;
    for name in agreeing {
        gate::assert_case::<Baseline>(name);
        checked += 1;
    }
    assert_eq!(checked, CASE_NAMES.len() - LONE_CR.len() - OPEN_QUOTE.len());
}

#[test]
fn the_rewrite_follows_where_the_csv_crate_ends_records() {
    // The CR inside quotes stays; the lone CR after `a` ends a record, so the quote
    // after it opens a quoted field; the CR of CR LF stays.
    assert_eq!(
        survey::lone_crs_as_lf(b"\"x\ry\"\ra\r\"b\rc\",d\r\n"),
        b"\"x\ry\"\na\n\"b\rc\",d\r\n"
    );
    // After a BOM, a quote still opens a quoted field.
    assert_eq!(
        survey::lone_crs_as_lf(b"\xEF\xBB\xBF\"\r\""),
        b"\xEF\xBB\xBF\"\r\""
    );
}
