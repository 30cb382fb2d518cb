//! Bad input by the kind of file, through every step's binary: another delimiter, a
//! compressed or UTF-16 file. Part of the family of [`crate::bad_input_tests!`]
//! (named, with the others, in [`crate::cases`]).

use std::path::Path;

use crate::bad_input::{Kind, TempFile, expect, run, run_on, text};
use harness::json::to_json;
use harness::reference;

/// `--delimiter`: `--records` with `;` and with a tab prints what the reference
/// parser gives with that delimiter, and the measuring run's fingerprint is the
/// reference's (its check would fail the run otherwise); a delimiter that cannot be
/// one is refused by the command line (exit status 2).
pub fn another_delimiter(bin: &Path) {
    let bytes = b"a;b\t,c\n\"x;y\";\"z\"\"\t\"\n1;2\t3\n";
    let file = TempFile::with(bin, "delimiter", bytes);
    for (arg, d) in [(";", b';'), ("\\t", b'\t'), (",", b',')] {
        let out = run(
            bin,
            &["--records", file.0.to_str().unwrap(), "--delimiter", arg],
        );
        let dialect = harness::dialect::Dialect { delimiter: d };
        let status = if reference::parse_in(bytes, dialect).is_ok() {
            0
        } else {
            1
        };
        expect(&out, status, &[], arg);
        assert_eq!(
            text(&out.stdout),
            to_json(&reference::parse_in(bytes, dialect)),
            "--records --delimiter {arg}"
        );
    }
    if Kind::of(bin) == Kind::Parse {
        let out = run_on(bin, &file.0, &["--runs", "1", "--delimiter", ";"]);
        expect(
            &out,
            0,
            &["the same as the reference parser's"],
            "measure with ;",
        );
    }
    let out = run_on(bin, &file.0, &["--delimiter", "\""]);
    expect(
        &out,
        2,
        &["cannot delimit fields"],
        "a quote as the delimiter",
    );
}

/// A gzip file, or UTF-16 text with or without its BOM: exit status 2 and what the
/// file looks like, not a parse of garbage ([`harness::run::sniff`]).
pub fn compressed_or_utf16_file(bin: &Path) {
    let utf16: Vec<u8> = "category,value\na,1\n"
        .bytes()
        .flat_map(|b| [b, 0])
        .collect();
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "gzip",
            b"\x1f\x8b\x08\x00\x00\x00\x00\x00".to_vec(),
            "gzip -dk FILE",
        ),
        ("utf16bom", [&b"\xff\xfe"[..], &utf16].concat(), "UTF-16"),
        ("utf16", utf16.clone(), "are NUL"),
    ];
    for (case, bytes, needle) in cases {
        let file = TempFile::with(bin, case, &bytes);
        let out = run_on(bin, &file.0, &["--runs", "1"]);
        expect(&out, 2, &["it looks like", needle], case);
    }
}
