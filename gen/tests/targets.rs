//! `gen`'s binary and what it writes over: a target that is not a regular file or
//! absent is refused before anything is created, and no temporary outlives a failed
//! write, SIGINT or SIGTERM.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const GEN: &str = env!("CARGO_BIN_EXE_gen");

/// An empty directory of the test's own, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("gen-targets-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    /// The names in the directory, sorted.
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_gen(args: &[&str]) -> Output {
    Command::new(GEN).args(args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A FIFO, a directory, `.`, a path ending in `/` and a link to the character device
/// `/dev/null`, as the CSV's target and as the 1BRC file's: exit 1 with what it is,
/// nothing created, the FIFO still a FIFO. (`/dev/null` itself is not written to
/// here: as root, a regression would replace the node; `output`'s unit tests ask
/// about it without writing.)
#[test]
fn a_target_that_is_not_a_regular_file_is_refused() {
    use std::os::unix::fs::FileTypeExt;
    let dir = Dir::new("refused");
    let fifo = dir.0.join("fifo.csv");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let null = dir.0.join("null.csv");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    let sub = dir.0.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let slash = format!("{}/", dir.0.join("new").display());
    let cases: [(&Path, &str); 5] = [
        (&fifo, "not a regular file"),
        (&null, "not a regular file"),
        (&sub, "is a directory"),
        (Path::new("."), "names no file"),
        (Path::new(&slash), "names no file"),
    ];
    for (target, why) in cases {
        let target = target.to_str().unwrap();
        for format in ["csv", "1brc"] {
            let out = run_gen(&["--rows", "100", "--format", format, "--out", target]);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{format} {target}: {}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains(why),
                "{format} {target}: {}",
                stderr(&out)
            );
            assert_eq!(
                dir.names(),
                ["fifo.csv", "null.csv", "sub"],
                "{format} {target}"
            );
            assert_eq!(std::fs::read_dir(&sub).unwrap().count(), 0);
        }
    }
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // The answer's target is checked before the CSV is written.
    let answer = dir.0.join("x.ref.json");
    std::fs::create_dir(&answer).unwrap();
    let out = run_gen(&[
        "--rows",
        "100",
        "--out",
        dir.0.join("x.csv").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("x.ref.json: is a directory"),
        "{}",
        stderr(&out)
    );
    assert_eq!(dir.names(), ["fifo.csv", "null.csv", "sub", "x.ref.json"]);
}

/// `gen` with files limited to 2048 blocks (`ulimit -f`: 1 or 2 MiB, as the shell
/// counts) and SIGXFSZ ignored, so that a write past the limit fails with "File too
/// large", as a full disk makes it fail: the honest stand-in for a full disk without
/// root.
fn gen_limited(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ && ulimit -f 2048 && exec \"$0\" \"$@\"")
        .arg(GEN)
        .args(args)
        .output()
        .unwrap()
}

/// A write that fails, in the CSV (3.1 MB) or in the answer beside it (a CSV of
/// 1.0 MB that fits, and an answer of 2.8 MB that does not): exit 1, and neither
/// file nor temporary is left.
#[test]
fn a_failed_write_leaves_no_temporary() {
    let dir = Dir::new("full");
    let csv = dir.0.join("x.csv");
    let csv = csv.to_str().unwrap();
    for args in [
        &["--rows", "60000"][..],
        &["--rows", "20000", "--keys", "20000"],
        &["--rows", "300000", "--format", "1brc"],
    ] {
        let out = gen_limited(&[args, &["--out", csv]].concat());
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("File too large"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(dir.names(), Vec::<String>::new(), "{args:?}");
    }
    // The same limit lets a small file through: it was the size that failed.
    let out = gen_limited(&["--rows", "1000", "--out", csv]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(dir.names(), ["x.csv", "x.ref.json"]);
}

/// SIGINT or SIGTERM while the CSV is written: exit status 130, its temporary
/// removed, no file left.
#[test]
fn an_interrupt_removes_the_temporaries() {
    for signal in ["-INT", "-TERM"] {
        let dir = Dir::new(&format!("signal{signal}"));
        let csv = dir.0.join("x.csv");
        let tmp = dir.0.join("x.csv.tmp");
        // Far more rows than it writes before the signal.
        let mut child = Command::new(GEN)
            .args(["--rows", "1000000000", "--out", csv.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::fs::metadata(&tmp).map_or(true, |m| m.len() == 0) {
            assert!(Instant::now() < deadline, "no {} after 60 s", tmp.display());
            assert!(child.try_wait().unwrap().is_none(), "gen ended early");
            std::thread::sleep(Duration::from_millis(5));
        }
        let pid = child.id().to_string();
        assert!(
            Command::new("kill")
                .args([signal, &pid])
                .status()
                .unwrap()
                .success()
        );
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(130),
            "{signal}: {:?} {}",
            out.status,
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("interrupted: removed"),
            "{}",
            stderr(&out)
        );
        assert_eq!(dir.names(), Vec::<String>::new(), "{signal}");
    }
}
