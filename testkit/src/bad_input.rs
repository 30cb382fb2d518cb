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

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use harness::json::to_json;
use harness::reference;
use harness::run::measure::thousands;

pub use crate::file_kind::{another_delimiter, compressed_or_utf16_file};

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
                $crate::bad_input::$case(::std::path::Path::new($bin));
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

/// A directory: exit 2, "is a directory", before the gate.
pub fn directory(bin: &Path) {
    let dir = std::env::temp_dir();
    let shown = dir.display().to_string();
    let out = run_on(bin, &dir, &[]);
    expect(
        &out,
        2,
        &["cannot read", shown.as_str(), "is a directory"],
        "directory",
    );
    let out = run(bin, &["--records", &shown]);
    expect(
        &out,
        2,
        &["cannot read", "directory"],
        "--records directory",
    );
}

/// A pipe (FIFO), a device (`/dev/null`) or a symbolic link to one (to `/dev/zero`),
/// as the file to measure and as `--records FILE`: exit 2, "not a regular file",
/// before the gate; mapping one would fail with the bare "No such device", reading
/// one would wait for a writer or fill the memory.
pub fn a_pipe_or_a_device(bin: &Path) {
    let needles = ["/dev/null", "not a regular file"];
    expect(
        &run_on(bin, Path::new("/dev/null"), &[]),
        2,
        &needles,
        "/dev/null",
    );
    expect(
        &run(bin, &["--records", "/dev/null"]),
        2,
        &needles,
        "--records /dev/null",
    );
    let name = bin.file_name().and_then(|n| n.to_str()).unwrap_or("step");
    let temp =
        |what: &str| std::env::temp_dir().join(format!("{name}-{what}-{}", std::process::id()));
    let zero = TempPath(temp("to-dev-zero"));
    std::os::unix::fs::symlink("/dev/zero", &zero.0).unwrap();
    let shown = zero.0.display().to_string();
    for args in [vec![shown.as_str()], vec!["--records", shown.as_str()]] {
        let out = run_bounded(bin, &args, "a link to /dev/zero");
        expect(
            &out,
            2,
            &[&shown, "not a regular file"],
            "a link to /dev/zero",
        );
    }
    let fifo = TempPath(temp("fifo"));
    let made = Command::new("mkfifo").arg(&fifo.0).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED the FIFO half of a_pipe_or_a_device: mkfifo did not run");
        return;
    }
    let shown = fifo.0.display().to_string();
    for args in [vec![shown.as_str()], vec!["--records", shown.as_str()]] {
        let out = run_bounded(bin, &args, "a FIFO without a writer");
        expect(&out, 2, &["not a regular file"], "FIFO");
    }
}

/// A path removed on drop.
struct TempPath(PathBuf);

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `bin` with `args` where it may neither wait nor grow for long: with 4 GiB
/// of address space (`ulimit -v`), so that reading `/dev/zero` fails in a second
/// instead of filling the machine, and killed after 60 s (a FIFO without a writer
/// would make it wait forever), which fails the test with `what`.
fn run_bounded(bin: &Path, args: &[&str], what: &str) -> Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4194304 && exec \"$0\" \"$@\"")
        .arg(bin)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() >= Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} {args:?} ({what}) was still running after 60 s",
                bin.display()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// A file without read permission: exit 2, "Permission denied". Skipped, with a
/// line saying so, where the tests run as root (root reads it anyway).
pub fn unreadable_file(bin: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let file = TempFile::with(bin, "unreadable", b"a,b\n");
    std::fs::set_permissions(&file.0, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&file.0).is_ok() {
        eprintln!("SKIPPED unreadable_file: this process reads a mode-000 file anyway (root?)");
        return;
    }
    let needles = ["cannot read", "Permission denied"];
    expect(&run_on(bin, &file.0, &[]), 2, &needles, "unreadable");
    expect(
        &run(bin, &["--records", file.0.to_str().unwrap()]),
        2,
        &needles,
        "--records unreadable",
    );
}

/// One quoted field of 100 MB (with delimiters, doubled quotes and CR LFs inside):
/// measured like any file, with the reference parser's fingerprint.
pub fn field_of_100_mb(bin: &Path) {
    // 1000 bytes, 999 cooked: `ab,""` CR LF and 993 x's; 100,000 of them.
    let block = [&b"ab,\"\"\r\n"[..], &[b'x'; 993]].concat();
    let mut bytes = b"category,value,blob\na,1,\"".to_vec();
    bytes.extend_from_slice(&block.repeat(100_000));
    bytes.extend_from_slice(b"\"\n");
    let file = TempFile::with(bin, "100mb", &bytes);
    drop(bytes);
    let cooked = 17 + 2 + 999 * 100_000;
    match Kind::of(bin) {
        Kind::Parse => {
            let line = format!(
                "fingerprint: 2 records, 6 fields, {} bytes",
                thousands(cooked)
            );
            expect(
                &run_on(bin, &file.0, &["--runs", "1"]),
                0,
                &[&line],
                "100 MB field",
            );
        }
        Kind::Query => {
            let out = run_on(bin, &file.0, &["--runs", "1", "--json"]);
            expect(&out, 0, &[], "100 MB field");
            assert_eq!(text(&out.stdout).trim(), r#"{"a":{"count":1,"sum":1.0}}"#);
        }
    }
}

/// A file every step reads to its end, the query steps included (their columns,
/// valid numbers), so that it stays mapped for the whole of each run: a query that
/// failed at the header would unmap it in microseconds, too fast for these tests to
/// see. 29 MB.
fn file_read_to_its_end(bin: &Path, case: &str) -> TempFile {
    let mut bytes = b"category,value\n".to_vec();
    bytes.extend(b"abcdefghijklmnopqrstuvwxyz,1\n".repeat(999_999));
    TempFile::with(bin, case, &bytes)
}

/// Runs `bin` on `file` with `args`; once the process has `file` mapped, stops it
/// (SIGSTOP), calls `change` on the file and lets it go on (SIGCONT). Returns its
/// output and whether `change` ran: a step that reads its input instead of mapping
/// it (step 1) never maps it.
fn change_while_mapped(
    bin: &Path,
    file: &Path,
    args: &[&str],
    change: impl FnOnce(&Path),
) -> (Output, bool) {
    let mut child = Command::new(bin)
        .arg(file)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let maps = format!("/proc/{pid}/maps");
    let name = file.display().to_string();
    let mapped = || std::fs::read_to_string(&maps).is_ok_and(|m| m.contains(&name));
    let signal = |sig: &str| {
        let ok = Command::new("kill").args([sig, &pid]).status().unwrap();
        assert!(ok.success());
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut change = Some(change);
    while change.is_some() && Instant::now() < deadline && child.try_wait().unwrap().is_none() {
        if mapped() {
            signal("-STOP");
            if mapped() {
                change.take().expect("not yet changed")(file);
            }
            signal("-CONT");
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    (child.wait_with_output().unwrap(), change.is_none())
}

/// The binary never mapped its input, so nothing changed under it: the run succeeds.
fn never_mapped(bin: &Path, file: &Path, out: &Output) {
    eprintln!(
        "{} never mapped {}: it reads its input",
        bin.display(),
        file.display()
    );
    expect(out, 0, &["fingerprint: 1,000,000 records"], "never mapped");
}

/// The file shrinks while the binary has it mapped: one line naming the file and the
/// cause, exit status 135, instead of a bare "Bus error"; and, with `--json`, the
/// error as one JSON object on stdout (`file_changed`). A step that reads instead of
/// mapping (step 1) never maps it: then the run must just succeed.
pub fn truncated_while_mapped(bin: &Path) {
    let file = file_read_to_its_end(bin, "truncated");
    let truncate = |path: &Path| {
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_len(0)
            .unwrap();
    };
    let args = ["--runs", "5", "--json"];
    let (out, truncated) = change_while_mapped(bin, &file.0, &args, truncate);
    if !truncated {
        return never_mapped(bin, &file.0, &out);
    }
    let name = file.0.display().to_string();
    let needles = [
        name.as_str(),
        "changed size while it was mapped (SIGBUS)",
        "step 2 chapter",
    ];
    expect(&out, 135, &needles, "truncated while mapped");
    let stdout = text(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("--json: stdout is not one JSON object ({e}): {stdout:?}"));
    assert_eq!(json["error"], "file_changed", "{json}");
    assert_eq!(json["path"], name.as_str(), "{json}");
}

/// Another program appends a record while the binary reads the file: exit 2, "PATH
/// changed while it was read", neither a fault of the parser ("the pass … gave the
/// fingerprint …") nor another answer of step 1's parser, and a message of a few
/// lines, never a print of every group. A step that never maps its input (step 1) is
/// not caught in the act by this test: then the run must just succeed.
pub fn appended_while_read(bin: &Path) {
    let file = file_read_to_its_end(bin, "appended");
    let append = |path: &Path| {
        let mut f = File::options().append(true).open(path).unwrap();
        f.write_all(b"another,2\n").unwrap();
    };
    let (out, appended) = change_while_mapped(bin, &file.0, &["--runs", "5"], append);
    if !appended {
        return never_mapped(bin, &file.0, &out);
    }
    let name = file.0.display().to_string();
    let needles = [
        name.as_str(),
        "changed while it was read",
        "its length went from",
    ];
    expect(&out, 2, &needles, "appended while read");
    let stderr = text(&out.stderr);
    assert!(
        !stderr.contains("fingerprint") && !stderr.contains("another answer"),
        "{stderr}"
    );
    assert!(stderr.len() < 2_000, "a long message:\n{stderr}");
    assert_eq!(text(&out.stdout), "", "an answer or a row was printed");
}

/// A sparse file of 4 GiB and 16 MiB, with records every 16 MiB and real records past
/// 2^32 at its end, valid and then with a quote left open at byte 2^32 + 16 MiB - 2:
/// no step may overflow a 32-bit offset. Costs almost no disk, but every step reads
/// it all (`--records` and the reference parser hold it in memory: up to 8 GiB of RAM),
/// so it is opt-in:
/// `BAD_INPUT_4GIB=1 cargo test --release --test main -- --ignored over_4_gib` in a
/// step's directory (or `-p stepN`).
pub fn over_4_gib(bin: &Path) {
    if std::env::var_os("BAD_INPUT_4GIB").is_none() {
        eprintln!("SKIPPED over_4_gib: set BAD_INPUT_4GIB=1 (and use --release)");
        return;
    }
    const GAP: u64 = 16 << 20;
    let len = (1u64 << 32) + GAP;
    let tail = b"\na,1.5,x\nb,2,y\n";
    let file = TempFile::new(bin, "4gib");
    let mut f = File::create(&file.0).unwrap();
    f.set_len(len).unwrap();
    f.write_all(b"category,value,blob\nk,1,").unwrap();
    let mut records = 2; // the header, and the first record
    let mut at = GAP;
    while at + GAP < len {
        f.seek(SeekFrom::Start(at)).unwrap();
        f.write_all(b"\nk,1,").unwrap();
        records += 1;
        at += GAP;
    }
    let tail_at = len - tail.len() as u64;
    f.seek(SeekFrom::Start(tail_at)).unwrap();
    f.write_all(tail).unwrap();
    drop(f);
    records += 2;
    // Every record ends in an LF and has two delimiters; no quotes, no CR.
    let cooked = len - 3 * records;
    let start = Instant::now();
    match Kind::of(bin) {
        Kind::Parse => {
            let line = format!(
                "fingerprint: {} records, {} fields, {} bytes",
                thousands(records),
                thousands(3 * records),
                thousands(cooked)
            );
            expect(
                &run_on(bin, &file.0, &["--runs", "1"]),
                0,
                &[&line],
                "4 GiB",
            );
        }
        Kind::Query => {
            let out = run_on(bin, &file.0, &["--runs", "1", "--json"]);
            expect(&out, 0, &[], "4 GiB");
            let k = records - 3;
            let want = format!(
                r#"{{"a":{{"count":1,"sum":1.5}},"b":{{"count":1,"sum":2.0}},"k":{{"count":{k},"sum":{k}.0}}}}"#
            );
            assert_eq!(text(&out.stdout).trim(), want);
        }
    }
    eprintln!(
        "over_4_gib: valid file in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    // The same file with a quote left open in its last record, past 2^32: the step's
    // own error through `--records`, and the measuring mode's message.
    let mut f = File::options().write(true).open(&file.0).unwrap();
    f.seek(SeekFrom::Start(len - 2)).unwrap();
    f.write_all(b"\"y").unwrap();
    drop(f);
    let (record, byte) = (records - 1, len - 2);
    let out = run(bin, &["--records", file.0.to_str().unwrap()]);
    assert_eq!(
        text(&out.stdout),
        format!("{{\"error\":\"unterminated_quote\",\"record\":{record},\"byte\":{byte}}}\n")
    );
    let needle = format!("byte {byte} (line {records}, record {record})");
    expect(
        &run_on(bin, &file.0, &["--runs", "1"]),
        1,
        &["unterminated quote", &needle],
        "4 GiB open quote",
    );
    eprintln!(
        "over_4_gib: both files in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}
