//! A file changed while a step has it mapped: cut short or grown, never a crash
//! (SIGBUS) and never an answer from the bytes that changed.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::{TempFile, expect, text};

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
