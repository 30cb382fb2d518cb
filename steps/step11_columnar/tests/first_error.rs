//! The first error in record order wins, whatever pass of the load, chunk or thread
//! finds it: a width error in pass 1 does not hide an invalid number in an earlier
//! record (the query over the CSV, step 10's, says the same).

use step11::parallel::{self, Split};
use step11::query::Query;
use step11::splayed::load::LoadOptions;

#[test]
fn the_first_error_in_record_order_wins_whatever_pass_finds_it() {
    let base = std::env::temp_dir().join(format!("step11-first-error-{}", std::process::id()));
    std::fs::create_dir_all(&base).unwrap(); // a load makes its table's directory only
    for (first, expected) in [("value", "invalid_number"), ("width", "field_count")] {
        let csv = testkit::query_checks::two_errors(first);
        for threads in [1, 2, 3] {
            for chunk in [0, 64, 1000, 4096] {
                let dir = base.join(format!("{first}-{threads}-{chunk}"));
                let options = LoadOptions {
                    split: Some(Split { threads, chunk }),
                    ..LoadOptions::default()
                };
                let e = step11::cli::load_and_query(&csv, &dir, &options, Query::default())
                    .unwrap_err()
                    .to_json();
                let _ = std::fs::remove_dir_all(&dir);
                assert_eq!(e["error"], expected, "{first} {threads} {chunk}: {e}");
                assert_eq!(e["record"], 300, "{first} {threads} {chunk}: {e}");
                // The CSV query (step 10's) says the same.
                let csv_e = parallel::run_split(&csv, Query::default(), Split { threads, chunk });
                assert_eq!(csv_e.unwrap_err().to_json(), e);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&base);
}
