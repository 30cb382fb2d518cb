//! What the path is, where a regular file is expected: a directory, a pipe or a
//! device, a file the user may not read.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::{TempFile, expect, run, run_on};

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
/// would make it wait forever), which fails the test with `what`. Under
/// AddressSanitizer (`RUSTFLAGS=-Zsanitizer=address`, as `cargo x ci` runs step 7's
/// tests) there is no address-space limit: the sanitizer reserves terabytes of shadow
/// memory at start, and the binary would not start at all; the 60 s bound remains.
fn run_bounded(bin: &Path, args: &[&str], what: &str) -> Output {
    let sanitized = std::env::var("RUSTFLAGS").is_ok_and(|f| f.contains("sanitizer=address"));
    let limit = if sanitized {
        ""
    } else {
        "ulimit -v 4194304 && "
    };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{limit}exec \"$0\" \"$@\""))
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
