//! What a learner sees when a mapped file shrinks during the pass: the process dies of
//! SIGBUS at once, with no panic and no `Err` ("Bus error", exit status 135 in a
//! shell). [`crate::sigbus_test!`] gives a mapping step the test that shows it; the
//! `SAFETY` comment on each step's `map` says why the step accepts the risk.
//!
//! The crash must not take the test runner down, so the test re-runs its own test
//! binary as a child process (with core dumps off) and checks how the child died.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

#[cfg(target_os = "linux")]
const SIGBUS: i32 = 7;
#[cfg(target_os = "macos")]
const SIGBUS: i32 = 10;

/// Set in the child: the file it maps, truncates and then parses.
const CHILD: &str = "HARNESS_SIGBUS_CHILD";
/// The test's name, which the child is run with.
pub const TEST: &str = "truncating_the_mapped_file_kills_the_pass_with_sigbus";

/// The test for a step whose `$map(path)` maps a file and whose `$fingerprint(&input)`
/// parses the mapping: truncating the file under the mapping kills the pass with
/// SIGBUS.
///
/// ```text
/// // steps/step2_mmap/tests/sigbus.rs
/// harness::sigbus_test!(step2::map, step2::Step2);
/// ```
#[macro_export]
macro_rules! sigbus_test {
    ($map:path, $step:ty) => {
        #[test]
        fn truncating_the_mapped_file_kills_the_pass_with_sigbus() {
            let dir = ::std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
            let test = $crate::sigbus::test_name(module_path!());
            $crate::sigbus::check(dir, env!("CARGO_PKG_NAME"), &test, |path| {
                let input = $map(path).unwrap();
                $crate::sigbus::truncate(path, input.len());
                // SIGBUS: the first page read is past the end of the file.
                let fp = <$step as $crate::harness::Step>::fingerprint(&input);
                eprintln!("child: survived with {fp:?}");
            });
        }
    };
}

/// The test's name as the test runner knows it, from the `module_path!()` of the
/// module the macro expands in: `main::sigbus` gives `sigbus::` + [`TEST`] (the
/// test binary's crate name is not part of a test's name).
pub fn test_name(module: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{TEST}"),
        None => TEST.to_string(),
    }
}

/// In the child (the environment names the file): runs `child` on the file and exits.
/// In the test: writes a 1.4 MB file, runs this test binary as the child, and asserts
/// that the child got as far as the truncation and then died of SIGBUS.
pub fn check(tmp_dir: &Path, step: &str, test: &str, child: impl FnOnce(&Path)) {
    if let Some(path) = std::env::var_os(CHILD) {
        child(Path::new(&path));
        std::process::exit(0);
    }
    let path = PathBuf::from(tmp_dir).join(format!("{step}_sigbus.csv"));
    std::fs::write(&path, "id,name\n1,abc\n".repeat(100_000)).unwrap();
    let out = Command::new("sh")
        .args(["-c", r#"ulimit -c 0 && exec "$0" "$@""#])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
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

/// Truncates the mapped file to 0 bytes, as another process could, and says so.
pub fn truncate(path: &Path, mapped: usize) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_len(0).unwrap();
    eprintln!("child: mapped {mapped} bytes, truncated the file to 0, parsing");
}
