//! The test families every step runs, each one macro in a step's test binary.
//!
//! A step's tests live in one binary, `tests/main.rs`, with a module per family
//! (`mod gate; mod bad_input_cli; …`), and each family's module is one line:
//!
//! ```text
//! // steps/step2_mmap/tests/gate.rs
//! testkit::gate_tests!(step2::Step2);
//! ```
//!
//! The families call the harness's checks ([`harness::gate`], the reference parser,
//! the query's answer) and run the step's binary as a learner would. They live here,
//! and not in the harness, so that a step's binary links none of them: this crate is
//! a dev-dependency only.
//!
//! - [`gate`]: one test per conformance case, per random family, and the other
//!   delimiters ([`gate_tests!`]).
//! - [`bad_input`] and [`file_kind`]: bad input through the binary
//!   ([`bad_input_tests!`]).
//! - [`files`]: `Step::pass` on real files ([`mapped_file_tests!`]); [`sigbus`]: a
//!   mapped file truncated during the pass ([`sigbus_test!`]).
//! - [`tiers`]: every SIMD tier against the reference ([`simd_tier_tests!`]).
//! - [`alloc`]: allocations that do not grow with the input (the only tests of their
//!   binary, `tests/alloc.rs`).
//! - [`query_checks`], [`query_bad_input`] and [`real_files`]: the query steps'
//!   answers, bad input and real files ([`query_tests!`], [`query_bad_input_tests!`]).

/// The harness, for the macros' paths (`$crate::harness::…`).
pub use harness;

pub mod alloc;
#[cfg(unix)]
pub mod bad_input;
pub mod file_kind;
pub mod files;
pub mod gate;
pub mod query_bad_input;
pub mod query_checks;
pub mod real_files;
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub mod sigbus;
pub mod tiers;

/// Every case of [`bad_input_tests!`] by name, wherever it is written: the cases of
/// the file's content and its path ([`bad_input`]) and those of its kind
/// ([`file_kind`]), which use `bad_input`'s helpers and so cannot be re-exported by it.
#[doc(hidden)]
pub mod cases {
    pub use crate::bad_input::*;
    pub use crate::file_kind::{another_delimiter, compressed_or_utf16_file};
}
