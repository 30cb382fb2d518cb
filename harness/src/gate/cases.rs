//! The conformance corpus, `data/conformance/NAME.csv` + `NAME.json`.
//!
//! The list of case names below is the one place a case is registered: the gate
//! tests of every step are generated from it (`testkit::gate_tests!`), and a test
//! fails when a file in `data/conformance/` is missing from it or the other way round.
//! To add a case: write `NAME.csv` (the bytes) and `NAME.json` (the answer, in the
//! records format of [`crate::json`]), then add `NAME` to the list.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::json::{FormatError, Outcome, from_json};

/// Calls back with the names of all conformance cases; the single list of them.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_cases {
    ($($what:tt)*) => {
        $crate::__cases_apply! { [$($what)*]
            empty_input,
            only_terminators,
            bom_only,
            bom_then_unquoted,
            bom_then_quoted_field,
            bom_then_lf,
            bom_then_crlf,
            bom_not_at_start,
            bom_twice,
            bom_partial,
            simple_lf,
            simple_crlf,
            mixed_lf_crlf,
            last_record_no_terminator,
            single_byte_input,
            delimiter_last_byte,
            delimiter_only_input,
            delimiter_before_terminator,
            delimiter_then_cr_at_eof,
            cr_at_eof,
            cr_cr_lf,
            cr_mid_field,
            cr_before_delimiter,
            cr_only_input,
            cr_only_last_line,
            lf_then_cr_data,
            blank_line_cr_lf,
            line_of_two_crs,
            blank_lines_start,
            blank_lines_middle,
            blank_lines_end,
            blank_lines_crlf,
            blank_lines_mixed,
            line_only_empty_quotes,
            only_empty_quotes_input,
            line_only_delimiters,
            runs_of_empty_fields,
            empty_quoted_among_unquoted,
            empty_quoted_at_eof,
            quoted_delimiter,
            quoted_lf,
            quoted_crlf,
            quoted_cr,
            quoted_many_newlines,
            quoted_only_lf,
            quoted_at_eof,
            quoted_fields_crlf,
            quoted_then_blank_lines,
            doubled_quote_middle,
            doubled_quote_start,
            doubled_quote_end,
            field_one_quote_char,
            quoted_only_doubled_quotes,
            lenient_text_after_quote,
            lenient_text_at_eof,
            lenient_quote_after_closing,
            lenient_doubled_quote_after_closing,
            lenient_doubled_then_text,
            lenient_doubled_inside_then_text,
            lenient_cr_after_closing,
            lenient_cr_at_eof_after_quote,
            lenient_space_after_closing,
            quote_mid_unquoted,
            unquoted_ends_in_quote,
            unquoted_doubled_quote_literal,
            literal_quote_then_more_lines,
            space_before_quote,
            backslash_not_escape,
            whitespace_kept,
            ragged_rows,
            nul_unquoted,
            nul_quoted,
            control_bytes,
            json_escapes,
            non_utf8_bytes,
            non_utf8_quoted,
            invalid_utf8_lookalikes,
            utf8_multibyte,
            utf8_split_across_fields,
            error_single_quote,
            error_three_quotes,
            error_lone_quote_after_records,
            error_unterminated_after_blank_lines,
            error_unterminated_spans_lines,
            error_after_bom_quote_only,
            error_after_bom_later_record,
            error_doubled_quote_then_eof,
            error_quote_after_delimiter_at_eof,
            error_second_field,
            error_even_quote_count,
            error_literal_quote_then_open,
            error_open_after_closed_fields,
            error_quoted_cr_at_eof,
            boundary_crlf_split,
            boundary_cr_data_split,
            boundary_doubled_quote_split,
            boundary_open_quote_at_chunk_start,
            boundary_closing_quote_at_chunk_end,
            boundary_quoted_crlf_split,
            boundary_quote_run_across_64,
            boundary_literal_quote_at_63,
            boundary_lenient_quote_at_64,
            boundary_blank_crlf_split,
            boundary_bom_crlf_split,
            boundary_error_open_quote_at_64,
            big_unquoted_field,
            big_quoted_field,
        }
    };
}

/// Expands the case list into names (`[names]`) or one test per case (`[tests STEP]`).
#[doc(hidden)]
#[macro_export]
macro_rules! __cases_apply {
    ([names] $($case:ident),* $(,)?) => {
        &[$(stringify!($case)),*]
    };
    ([tests $kit:tt; $step:ty] $($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                $kit::gate::assert_case::<$step>(stringify!($case));
            }
        )*
    };
}

/// The names of all conformance cases, in the order of the list.
pub const CASE_NAMES: &[&str] = crate::__with_cases!(names);

/// `data/conformance/` of this workspace.
pub fn conformance_dir() -> PathBuf {
    let harness_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    harness_dir
        .parent()
        .unwrap_or(harness_dir)
        .join("data")
        .join("conformance")
}

/// One case: the input bytes and the answer the dialect gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The file stem, e.g. `quoted_lf`.
    pub name: String,
    /// The bytes of `NAME.csv`.
    pub input: Vec<u8>,
    /// The records or the error of `NAME.json`.
    pub expected: Outcome,
}

/// Loads the case `name` from [`conformance_dir`].
///
/// # Errors
/// [`CaseError`], naming the file that cannot be read or is not in the records
/// format.
pub fn load(name: &str) -> Result<Case, CaseError> {
    let dir = conformance_dir();
    let csv = dir.join(format!("{name}.csv"));
    let json = dir.join(format!("{name}.json"));
    let input = std::fs::read(&csv).map_err(|e| Error::io(&csv, e))?;
    let text = std::fs::read_to_string(&json).map_err(|e| Error::io(&json, e))?;
    let expected =
        from_json(&text, &input).map_err(|source| CaseError::Format { path: json, source })?;
    Ok(Case {
        name: name.to_string(),
        input,
        expected,
    })
}

/// Loads every case of [`CASE_NAMES`].
///
/// # Errors
/// As [`load`], for the first case that fails to load.
pub fn load_all() -> Result<Vec<Case>, CaseError> {
    CASE_NAMES.iter().map(|name| load(name)).collect()
}

/// Why a conformance case cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// Its CSV or its JSON cannot be read.
    #[error(transparent)]
    Io(#[from] Error),
    /// Its JSON is not in the records format.
    #[error("{}: {source}", path.display())]
    Format {
        /// The JSON file.
        path: PathBuf,
        /// What in it is not the format.
        source: FormatError,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_list_names_exactly_the_files() {
        let mut on_disk = BTreeSet::new();
        for entry in std::fs::read_dir(conformance_dir()).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext == "csv" || ext == "json" {
                on_disk.insert((
                    path.file_stem().unwrap().to_string_lossy().into_owned(),
                    ext.to_string(),
                ));
            }
        }
        let listed: BTreeSet<_> = CASE_NAMES
            .iter()
            .flat_map(|n| {
                [
                    (n.to_string(), "csv".to_string()),
                    (n.to_string(), "json".to_string()),
                ]
            })
            .collect();
        let unlisted: Vec<_> = on_disk.difference(&listed).collect();
        let missing: Vec<_> = listed.difference(&on_disk).collect();
        assert!(
            unlisted.is_empty(),
            "in data/conformance/ but not in harness/src/cases.rs: {unlisted:?}"
        );
        assert!(
            missing.is_empty(),
            "listed in harness/src/cases.rs but missing: {missing:?}"
        );
    }

    #[test]
    fn every_case_loads() {
        let cases = load_all().unwrap();
        assert!(cases.len() >= 40, "the corpus has {} cases", cases.len());
    }
}
