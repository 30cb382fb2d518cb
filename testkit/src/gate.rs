//! The gate as tests: one `#[test]` per conformance case, per random family and for
//! the other delimiters, so that a failing case is named by the test runner. The
//! checks themselves are the harness's ([`harness::gate`]), the same that a step's
//! binary runs before it measures.

use harness::gate::cases::load_all;
use harness::gate::random::Family;
use harness::gate::{check_case, check_delimiters, check_family};
use harness::{Step, StepFns};

/// Expands to one `#[test]` per conformance case and per random family for `$step`.
///
/// ```text
/// // steps/step1_naive/tests/gate.rs
/// testkit::gate_tests!(step1::Step1);
/// ```
#[macro_export]
macro_rules! gate_tests {
    ($step:ty) => {
        $crate::harness::__with_cases!(tests $crate; $step);

        #[test]
        fn random_mixed() {
            $crate::gate::assert_family::<$step>($crate::harness::gate::random::Family::Mixed);
        }
        #[test]
        fn random_long_fields() {
            $crate::gate::assert_family::<$step>(
                $crate::harness::gate::random::Family::LongFields,
            );
        }
        #[test]
        fn random_blank_runs() {
            $crate::gate::assert_family::<$step>(
                $crate::harness::gate::random::Family::BlankRuns,
            );
        }
        #[test]
        fn random_bom() {
            $crate::gate::assert_family::<$step>($crate::harness::gate::random::Family::Bom);
        }
        #[test]
        fn other_delimiters() {
            $crate::gate::assert_delimiters::<$step>();
        }
    };
}

/// Loads case `name` and panics with the readable report if `S` fails it.
pub fn assert_case<S: Step>(name: &str) {
    let case = harness::gate::cases::load(name).unwrap_or_else(|e| panic!("{e}"));
    if let Err(failure) = check_case(StepFns::of::<S>(), &case) {
        panic!("\n{failure}");
    }
}

/// Panics with the readable report if `S` fails a document of `family`.
pub fn assert_family<S: Step>(family: Family) {
    if let Err(failure) = check_family(StepFns::of::<S>(), family) {
        panic!("\n{failure}");
    }
}

/// Panics with the readable report if `S` fails the gate with another delimiter than
/// the comma.
pub fn assert_delimiters<S: Step>() {
    let cases = load_all().unwrap_or_else(|e| panic!("{e}"));
    if let Err(failure) = check_delimiters(StepFns::of::<S>(), &cases) {
        panic!("\n{failure}");
    }
}
