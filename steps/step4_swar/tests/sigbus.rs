//! What a learner sees when the mapped file shrinks during the pass: the process dies
//! of SIGBUS at once, with no panic and no `Err` ("Bus error", exit status 135 in a
//! shell). See the `SAFETY` comment in `step4::map`.
//!
//! The crash must not take the test runner down, so the test re-runs this same test
//! binary as a child process (with core dumps off) and checks how the child died.
#![cfg(any(target_os = "linux", target_os = "macos"))]

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

#[cfg(target_os = "linux")]
const SIGBUS: i32 = 7;
#[cfg(target_os = "macos")]
const SIGBUS: i32 = 10;

/// Set in the child: the file it maps, truncates and then parses.
const CHILD: &str = "STEP4_SIGBUS_CHILD";
const TEST: &str = "truncating_the_mapped_file_kills_the_pass_with_sigbus";

#[test]
fn truncating_the_mapped_file_kills_the_pass_with_sigbus() {
    if let Some(path) = std::env::var_os(CHILD) {
        child(Path::new(&path));
    }
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("step4_sigbus.csv");
    std::fs::write(&path, "id,name\n1,abc\n".repeat(100_000)).unwrap(); // 1.4 MB
    let out = Command::new("sh")
        .args(["-c", r#"ulimit -c 0 && exec "$0" "$@""#])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
        .env(CHILD, &path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("truncated"),
        "the child stopped early: {stderr}"
    );
    assert!(!stderr.contains("survived"), "the child survived: {stderr}");
    assert_eq!(
        out.status.signal(),
        Some(SIGBUS),
        "{:?}: {stderr}",
        out.status
    );
}

/// Maps the file, truncates it (as another process could), then parses the mapping.
fn child(path: &Path) -> ! {
    let input = step4::map(path).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_len(0).unwrap();
    eprintln!(
        "child: mapped {} bytes, truncated the file to 0, parsing",
        input.len()
    );
    let fp = step4::fingerprint(&input); // SIGBUS: the first page read is past the end
    eprintln!("child: survived with {fp:?}");
    std::process::exit(0)
}
