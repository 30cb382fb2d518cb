//! A mapping step's pass on real files, as one family of tests: the mapped pass agrees
//! with the reference parser on the same bytes, an empty file is zero records, a
//! missing file is an I/O error and an unterminated quote a parse error, never a panic.
//! [`crate::mapped_file_tests!`] gives a step the family in one line.
//!
//! ```text
//! // steps/step2_mmap/tests/file.rs
//! harness::mapped_file_tests!(step2::Step2, step2::map);
//! ```

use std::path::{Path, PathBuf};

use harness::{ErrorKind, Fingerprint, Step};

/// One `#[test]` per case for the step `$step`, whose `$map(path)` maps a file.
#[macro_export]
macro_rules! mapped_file_tests {
    ($step:ty, $map:path) => {
        fn __dir() -> &'static ::std::path::Path {
            ::std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        }
        #[test]
        fn an_empty_file_has_zero_records() {
            let path = $crate::files::an_empty_file_has_zero_records::<$step>(__dir());
            assert_eq!($map(&path).unwrap().len(), 0, "an empty mapping");
        }
        #[test]
        fn the_mapped_pass_agrees_with_the_slice() {
            $crate::files::the_mapped_pass_agrees_with_the_slice::<$step>(__dir());
        }
        #[test]
        fn a_missing_file_is_an_io_error() {
            $crate::files::a_missing_file_is_an_io_error::<$step>(__dir());
        }
        #[test]
        fn an_unterminated_quote_in_a_file_is_a_parse_error() {
            $crate::files::an_unterminated_quote_in_a_file_is_a_parse_error::<$step>(__dir());
        }
    };
}

fn write<S: Step>(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(format!("{}_{name}.csv", S::NAME));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// An empty file: the pass gives zero records. Returns the file, for the mapping's check.
pub fn an_empty_file_has_zero_records<S: Step>(dir: &Path) -> PathBuf {
    let path = write::<S>(dir, "empty", b"");
    assert_eq!(
        S::pass(&path, harness::dialect::Dialect::default()).unwrap(),
        Fingerprint::default()
    );
    path
}

/// A BOM, CR LF, a quoted field with `""` and an LF, a blank line, a stray CR at the
/// end: the pass over the file gives the reference parser's fingerprint.
pub fn the_mapped_pass_agrees_with_the_slice<S: Step>(dir: &Path) {
    let bytes = b"\xEF\xBB\xBFid,text\r\n1,\"a \"\"b\"\"\nc\"\n\n2,\r";
    let path = write::<S>(dir, "small", bytes);
    let expected = harness::reference::fingerprint(bytes).unwrap();
    assert_eq!(expected.records, 3);
    assert_eq!(
        S::pass(&path, harness::dialect::Dialect::default()).unwrap(),
        expected
    );
}

/// A missing file: [`ErrorKind::Io`], not a panic.
pub fn a_missing_file_is_an_io_error<S: Step>(dir: &Path) {
    let path = dir.join(format!("{}_no_such_file.csv", S::NAME));
    assert_eq!(
        S::pass(&path, harness::dialect::Dialect::default())
            .unwrap_err()
            .kind(),
        ErrorKind::Io
    );
}

/// A file that ends inside a quoted field: [`ErrorKind::UnterminatedQuote`].
pub fn an_unterminated_quote_in_a_file_is_a_parse_error<S: Step>(dir: &Path) {
    let path = write::<S>(dir, "open_quote", b"a\n\"b");
    assert_eq!(
        S::pass(&path, harness::dialect::Dialect::default())
            .unwrap_err()
            .kind(),
        ErrorKind::UnterminatedQuote
    );
}
