//! The interface every step implements, so that the gate, the record dump, the
//! measurement, the tests and the book treat all steps alike.

use std::path::Path;

use crate::dialect::Dialect;
use crate::error::{Error, ParseError};

/// One record: its fields' cooked bytes (quotes removed, `""` turned into `"`).
pub type Record = Vec<Vec<u8>>;

/// What a pass over a file computes: enough to tell two parses apart cheaply, without
/// hashing every byte (that would cost more than the fastest steps' parse).
///
/// Every step must reproduce [`crate::reference::fingerprint`] on the same input; the
/// gate checks field contents separately, through [`Step::records`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    /// Records produced (blank lines are not records; the header is one).
    pub records: u64,
    /// Fields over all records.
    pub fields: u64,
    /// Sum of the cooked field lengths, in bytes.
    pub bytes: u64,
}

impl Fingerprint {
    /// Adds one record whose cooked field lengths are `field_lens`.
    pub fn add_record(&mut self, field_lens: impl IntoIterator<Item = usize>) {
        self.records += 1;
        for len in field_lens {
            self.fields += 1;
            self.bytes += len as u64;
        }
    }

    /// The fingerprint as a JSON object.
    pub fn to_json(&self) -> String {
        format!(
            r#"{{"records":{},"fields":{},"bytes":{}}}"#,
            self.records, self.fields, self.bytes
        )
    }
}

/// A step of the ladder. Implemented by a unit struct in each step's `lib.rs`.
///
/// The three functions must share the step's one parser: the gate checks
/// [`Step::records`] and [`Step::fingerprint`] on the same inputs, and the benchmark
/// times [`Step::pass`].
pub trait Step {
    /// Where the step sits on the ladder: 1, 2, …
    const NUMBER: u32;
    /// The package name: `"step1"`, `"step2"`, …
    const NAME: &'static str;
    /// The idea the step adds, in a few words, as the results table shows it.
    const IDEA: &'static str;

    /// Parses `input` with `dialect`'s delimiter into owned records (for the gate and
    /// `--records`).
    ///
    /// # Errors
    /// The dialect's [`ParseError`], with the same position as the reference parser's.
    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError>;

    /// [`Step::records_in`] with the comma.
    ///
    /// # Errors
    /// As [`Step::records_in`].
    fn records(input: &[u8]) -> Result<Vec<Record>, ParseError> {
        Self::records_in(input, Dialect::default())
    }

    /// Parses `input` with the step's fast path and `dialect`'s delimiter, and returns
    /// its fingerprint.
    ///
    /// # Errors
    /// As [`Step::records_in`].
    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError>;

    /// [`Step::fingerprint_in`] with the comma.
    ///
    /// # Errors
    /// As [`Step::records_in`].
    fn fingerprint(input: &[u8]) -> Result<Fingerprint, ParseError> {
        Self::fingerprint_in(input, Dialect::default())
    }

    /// The timed pass: opens `path` the step's way (reads, maps, …) and fingerprints it
    /// with `dialect`'s delimiter.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::Parse`] on bad input.
    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error>;
}

/// A step as values: its name and its two parse functions, which the gate calls.
/// The gate takes this instead of a type parameter so that its code, and rayon's
/// that it runs on, is compiled once, in the harness, and not again for each step in
/// that step's binary and test binaries (a generic function is compiled anew for
/// every type it is called with).
#[derive(Clone, Copy, Debug)]
pub struct StepFns {
    /// [`Step::NAME`].
    pub name: &'static str,
    /// [`Step::records_in`].
    pub records_in: fn(&[u8], Dialect) -> Result<Vec<Record>, ParseError>,
    /// [`Step::fingerprint_in`].
    pub fingerprint_in: fn(&[u8], Dialect) -> Result<Fingerprint, ParseError>,
}

impl StepFns {
    /// `S`'s name and parse functions.
    pub fn of<S: Step>() -> StepFns {
        StepFns {
            name: S::NAME,
            records_in: S::records_in,
            fingerprint_in: S::fingerprint_in,
        }
    }
}
