//! `Step::pass` on real files: the mapped pass agrees with the parse of the same bytes,
//! an empty file is zero records, and a missing file is an I/O error, not a panic.

use std::path::PathBuf;

use harness::{ErrorKind, Fingerprint, Step};
use step4::Step4;

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn an_empty_file_has_zero_records() {
    let path = write("step4_empty.csv", b"");
    assert_eq!(Step4::pass(&path).unwrap(), Fingerprint::default());
    assert_eq!(step4::map(&path).unwrap().len(), 0);
}

#[test]
fn the_mapped_pass_agrees_with_the_slice() {
    let bytes = b"\xEF\xBB\xBFid,text\r\n1,\"a \"\"b\"\"\nc\"\n\n2,\r";
    let path = write("step4_small.csv", bytes);
    let expected = harness::reference::fingerprint(bytes).unwrap();
    assert_eq!(expected.records, 3);
    assert_eq!(Step4::pass(&path).unwrap(), expected);
}

#[test]
fn a_missing_file_is_an_io_error() {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("step4_no_such_file.csv");
    assert_eq!(Step4::pass(&path).unwrap_err().kind(), ErrorKind::Io);
}

#[test]
fn an_unterminated_quote_in_a_file_is_a_parse_error() {
    let path = write("step4_open_quote.csv", b"a\n\"b");
    assert_eq!(
        Step4::pass(&path).unwrap_err().kind(),
        ErrorKind::UnterminatedQuote
    );
}
