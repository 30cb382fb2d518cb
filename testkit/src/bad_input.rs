//! Bad input through a step's binary: a clear error or the right answer, never a
//! panic, nothing lost. One helper for every step: `tests/bad_input_cli.rs` of a step
//! is `harness::bad_input_tests!(env!("CARGO_BIN_EXE_stepN"));`, one test per case.
//!
//! The binary's kind decides what a case gives: a parsing step measures (and prints
//! the fingerprint); a query step (its `--help` has `--group-by`) answers the query
//! of `category` and `value`. `--records` is the same for both. The book's dialect
//! chapter lists what each case gives; every step must give it.
//!
//! Measuring runs the gate first (seconds in a debug build), so each case makes few
//! measuring runs. The case over 4 GiB is opt-in: see [`over_4_gib`].

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use harness::json::to_json;
use harness::reference;

mod large;
mod mapped;
mod paths;

pub use large::{field_of_100_mb, over_4_gib};
pub use mapped::{appended_while_read, truncated_while_mapped};
pub use paths::{a_pipe_or_a_device, directory, unreadable_file};

/// One test per case for the step binary at `$bin` (`env!("CARGO_BIN_EXE_stepN")`).
#[macro_export]
macro_rules! bad_input_tests {
    ($bin:expr) => {
        $crate::__bad_input_tests!($bin;
            empty_file, one_quote, unterminated_quote_at_the_end, nul_bytes,
            invalid_utf8_key, missing_path, directory, a_pipe_or_a_device, unreadable_file,
            field_of_100_mb,
            truncated_while_mapped, appended_while_read, compressed_or_utf16_file,
            another_delimiter, every_error_is_json_with_json);
        #[test]
        #[ignore = "writes a sparse file over 4 GiB (it takes no disk space) and reads it all: \
                    BAD_INPUT_4GIB=1 cargo test --release --test main -- --ignored over_4_gib"]
        fn over_4_gib() {
            $crate::bad_input::over_4_gib(::std::path::Path::new($bin));
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __bad_input_tests {
    ($bin:expr; $($case:ident),*) => {
        $(
            #[test]
            fn $case() {
                $crate::cases::$case(::std::path::Path::new($bin));
            }
        )*
    };
}

/// What a step binary does with a file in its measuring mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Parses, checks the fingerprint and prints the row.
    Parse,
    /// Runs `SELECT category, COUNT(*), SUM(value) ... GROUP BY category`.
    Query,
}

impl Kind {
    /// The kind of the binary at `bin`, from its `--help`.
    pub fn of(bin: &Path) -> Kind {
        let help = run(bin, &["--help"]);
        if String::from_utf8_lossy(&help.stdout).contains("--group-by") {
            Kind::Query
        } else {
            Kind::Parse
        }
    }
}

pub(crate) fn run(bin: &Path, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()))
}

pub(crate) fn run_on(bin: &Path, file: &Path, args: &[&str]) -> Output {
    Command::new(bin)
        .arg(file)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()))
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts the exit status, and that stderr holds every one of `needles`.
pub(crate) fn expect(out: &Output, code: i32, needles: &[&str], what: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: {:?}\n{stderr}",
        out.status
    );
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{what}: stderr lacks {needle:?}:\n{stderr}"
        );
    }
    assert!(!stderr.contains("panicked"), "{what}: a panic:\n{stderr}");
}

/// A file in the temp dir, named for the binary and the case, removed on drop.
pub(crate) struct TempFile(pub(crate) PathBuf);

impl TempFile {
    fn new(bin: &Path, case: &str) -> TempFile {
        let name = bin
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = std::env::temp_dir().join(format!(
            "bad-input-{name}-{case}-{}.csv",
            std::process::id()
        ));
        TempFile(path)
    }

    pub(crate) fn with(bin: &Path, case: &str, bytes: &[u8]) -> TempFile {
        let file = TempFile::new(bin, case);
        std::fs::write(&file.0, bytes).unwrap();
        file
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `--records FILE` prints what the reference parser gives, errors included, and
/// exits 1 on an error (0 for records).
fn records_match_reference(bin: &Path, file: &Path, bytes: &[u8]) {
    let out = run(bin, &["--records", file.to_str().unwrap()]);
    let status = if reference::parse(bytes).is_ok() {
        0
    } else {
        1
    };
    expect(&out, status, &[], "--records");
    assert_eq!(
        text(&out.stdout),
        to_json(&reference::parse(bytes)),
        "--records"
    );
}

/// An empty file: zero records. A parsing step measures it (exit 0); a query step has
/// no header to find its columns in (exit 1, `no_header`).
pub fn empty_file(bin: &Path) {
    let file = TempFile::with(bin, "empty", b"");
    let out = run(bin, &["--records", file.0.to_str().unwrap()]);
    assert_eq!(text(&out.stdout), "[]\n");
    let out = run_on(bin, &file.0, &["--runs", "1"]);
    match Kind::of(bin) {
        Kind::Parse => {
            expect(
                &out,
                0,
                &["fingerprint: 0 records, 0 fields, 0 bytes"],
                "empty",
            );
            // The binary is built in the test's profile: a dev build says so under its row.
            assert_eq!(
                text(&out.stdout).contains("note: a dev build"),
                cfg!(debug_assertions),
                "{}",
                text(&out.stdout)
            );
        }
        Kind::Query => expect(
            &out,
            1,
            &["the input is empty: there is no header"],
            "empty",
        ),
    }
}

/// A file of one quote: the quoted field opened at byte 0 never closes.
pub fn one_quote(bin: &Path) {
    let file = TempFile::with(bin, "one-quote", b"\"");
    let out = run(bin, &["--records", file.0.to_str().unwrap()]);
    expect(&out, 1, &[], "one quote");
    assert_eq!(
        text(&out.stdout),
        "{\"error\":\"unterminated_quote\",\"record\":0,\"byte\":0}\n"
    );
}

/// A quote opened in the last record and never closed: the error names its record,
/// its line and its byte, in `--records` and in the measuring mode (exit 1).
pub fn unterminated_quote_at_the_end(bin: &Path) {
    let file = TempFile::with(bin, "open-quote", b"category,value\na,1\nb,2\n\"c,3\n");
    let out = run(bin, &["--records", file.0.to_str().unwrap()]);
    expect(&out, 1, &[], "--records on an open quote");
    assert_eq!(
        text(&out.stdout),
        "{\"error\":\"unterminated_quote\",\"record\":3,\"byte\":23}\n"
    );
    let out = run_on(bin, &file.0, &["--runs", "1"]);
    expect(
        &out,
        1,
        &["unterminated quote", "byte 23 (line 4, record 3)"],
        "open quote",
    );
}

/// NUL bytes are data like any other byte, quoted or not.
pub fn nul_bytes(bin: &Path) {
    let bytes = b"category,value,x\na\0b,1,\0\n\0,2,\"\0\0\"\n";
    let file = TempFile::with(bin, "nul", bytes);
    records_match_reference(bin, &file.0, bytes);
    if Kind::of(bin) == Kind::Query {
        let out = run_on(bin, &file.0, &["--runs", "1", "--json"]);
        expect(&out, 0, &[], "NUL keys");
        assert_eq!(
            text(&out.stdout).trim(),
            r#"{"\u0000":{"count":1,"sum":2.0},"a\u0000b":{"count":1,"sum":1.0}}"#
        );
    }
}

/// Bytes that are not UTF-8: `--records` prints them as hex; a query keeps such a
/// key as a group of its own and prints its invalid bytes as `\xNN` (JSON objects are
/// in the order of that text, so `\xff` comes before `caf\xe9`).
pub fn invalid_utf8_key(bin: &Path) {
    let bytes = b"category,value\ncaf\xe9,1\n\xff,2\ncaf\xe9,0.5\n";
    let file = TempFile::with(bin, "utf8", bytes);
    records_match_reference(bin, &file.0, bytes);
    if Kind::of(bin) == Kind::Query {
        let out = run_on(bin, &file.0, &["--runs", "1", "--json"]);
        expect(&out, 0, &[], "invalid UTF-8 key");
        assert_eq!(
            text(&out.stdout).trim(),
            r#"{"\\xff":{"count":1,"sum":2.0},"caf\\xe9":{"count":2,"sum":1.5}}"#
        );
    }
}

/// A path that does not exist: exit 2, naming the path, before the gate.
pub fn missing_path(bin: &Path) {
    let path = std::env::temp_dir().join("bad-input-no-such-dir/no-such-file.csv");
    let shown = path.display().to_string();
    let needles = ["cannot read", shown.as_str(), "No such file or directory"];
    expect(&run_on(bin, &path, &[]), 2, &needles, "missing path");
    expect(
        &run(bin, &["--records", &shown]),
        2,
        &needles,
        "--records missing path",
    );
}

/// With `--json`, every error is also one JSON object on stdout, `{"error": …}`,
/// with its exit status and its message: a path that cannot be read,
/// measured or as `--records` (`io`), and arguments that cannot be read (`usage`,
/// as clap reports them). The errors of a run are JSON too: the query's (the query
/// family), a file that shrinks under the pass ([`truncated_while_mapped`]).
pub fn every_error_is_json_with_json(bin: &Path) {
    let missing = std::env::temp_dir().join("bad-input-no-such-dir/no-such-file.csv");
    let missing = missing.to_str().unwrap();
    let cases: [(&[&str], i32, &str, &str); 3] = [
        (&[missing, "--json"], 2, "io", "No such file or directory"),
        (
            &["--records", missing, "--json"],
            2,
            "io",
            "No such file or directory",
        ),
        (&["--json", "--runs", "0"], 2, "usage", "--runs"),
    ];
    for (args, code, kind, needle) in cases {
        let out = run(bin, args);
        expect(&out, code, &[], &format!("{args:?}"));
        let stdout = text(&out.stdout);
        let json: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
            panic!("{args:?}: stdout is not one JSON object ({e}): {stdout:?}")
        });
        assert_eq!(json["error"], kind, "{args:?}: {json}");
        let message = json["message"].as_str().unwrap_or_default();
        assert!(message.contains(needle), "{args:?}: {json}");
    }
    // Without `--json`, stdout stays empty.
    let out = run(bin, &["--runs", "0"]);
    expect(&out, 2, &["--runs"], "--runs 0");
    assert_eq!(text(&out.stdout), "");
}
