//! Where the load writes: a load never overwrites a directory, leaves nothing behind
//! when it fails, is interrupted or cannot write, and removes what a killed load left
//! (and only that); a table path must end in a name; the bench refuses a missing
//! TMPDIR and removes what a killed bench left.

use std::path::Path;

use step11::splayed::error::TableError;
use step11::splayed::load::load;
use step11::splayed::load::marker::MARKER;
use step11::splayed::scan::SplayedTable;

use crate::common::{split, step11, table_dir, write_generated};

#[test]
fn a_load_never_overwrites_and_an_unfinished_one_is_no_table() {
    let dir = table_dir("crash");
    std::fs::create_dir_all(&dir).unwrap();
    assert!(matches!(
        load(b"a\n1\n", &dir, &split(1, 0)),
        Err(TableError::Exists(_))
    ));
    // A directory with column files but no manifest: what a crash would leave.
    std::fs::write(dir.join("col0.values"), [0u8; 8]).unwrap();
    let e = SplayedTable::open(&dir)
        .err()
        .expect("no manifest, no table");
    assert!(e.to_string().contains("manifest.json"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
    // A column file of the wrong size is noticed.
    load(b"a,b\nx,1\n", &dir, &split(1, 0)).unwrap();
    std::fs::write(dir.join("col1.values"), [0u8; 4]).unwrap();
    let table = SplayedTable::open(&dir).unwrap();
    assert!(
        table
            .column(1)
            .err()
            .unwrap()
            .to_string()
            .contains("the manifest says 8")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The staging directories beside `dir` (`.NAME.loading-PID`).
fn stagings(dir: &Path) -> Vec<String> {
    let prefix = format!(".{}.loading-", dir.file_name().unwrap().to_str().unwrap());
    let mut found: Vec<String> = std::fs::read_dir(dir.parent().unwrap())
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.starts_with(&prefix))
        .collect();
    found.sort();
    found
}

#[test]
fn an_interrupted_load_removes_its_staging_and_the_next_load_a_killed_ones() {
    let dir = table_dir("killed");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 300_000, 7);
    let load = |dir: &Path| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_step11"));
        command
            .args(["load", "--threads", "1", "--no-guess"])
            .arg(&csv)
            .arg(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        command
    };

    // A load started, once it has made its staging directory and marked it: a load
    // killed between the two leaves a directory no later load can prove its own.
    let marked = || {
        stagings(&dir).first().is_some_and(|s| {
            std::fs::read_to_string(dir.with_file_name(s).join(MARKER))
                .is_ok_and(|text| text.ends_with('}'))
        })
    };
    let started = || {
        let child = load(&dir).spawn().unwrap();
        let start = std::time::Instant::now();
        while !marked() && start.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        child
    };
    // Ctrl-C (SIGINT) and SIGTERM: the load removes its staging directory and says so.
    for signal in ["-INT", "-TERM"] {
        let child = started();
        let staging = dir.with_file_name(&stagings(&dir)[0]);
        let sent = std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{signal}: {stderr}");
        assert!(
            stderr.contains(&format!("interrupted: removed {}", staging.display())),
            "{signal}: {stderr}"
        );
        assert!(stagings(&dir).is_empty() && !dir.exists(), "{signal}");
    }
    // kill -9: no handler runs, and the staging directory stays.
    let mut child = started();
    child.kill().unwrap();
    child.wait().unwrap();
    let left = stagings(&dir);
    assert_eq!(left.len(), 1, "a killed load leaves its staging: {left:?}");
    assert!(!dir.exists(), "and no table under the table's name");
    // A staging directory of a load still running (process 1 always runs) is kept.
    let running = dir.with_file_name(format!(
        ".{}.loading-1",
        dir.file_name().unwrap().to_str().unwrap()
    ));
    std::fs::create_dir(&running).unwrap();
    let out = load(&dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "removed {}",
            dir.with_file_name(&left[0]).display()
        )) && stderr.contains("a load that no longer runs"),
        "the load says what it removed: {stderr}"
    );
    assert_eq!(
        stagings(&dir),
        [running.file_name().unwrap().to_str().unwrap()]
    );
    assert!(SplayedTable::open(&dir).is_ok(), "the second load's table");
    std::fs::remove_dir_all(&running).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}

#[test]
fn the_bench_refuses_a_missing_tmpdir_and_does_not_create_it() {
    let csv = table_dir("tmpdir").with_extension("csv");
    std::fs::write(&csv, b"category,value\na,1\nb,2\n").unwrap();
    let missing = std::env::temp_dir().join(format!("step11-no-such-tmp-{}", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_step11"))
        .arg(&csv)
        .args(["--runs", "1"])
        .env("TMPDIR", &missing)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the scratch directory {} (TMPDIR) does not exist",
            missing.display()
        )),
        "{stderr}"
    );
    assert!(!missing.exists(), "TMPDIR was created");
    std::fs::remove_file(&csv).unwrap();
}

#[test]
fn a_load_where_it_cannot_write_says_so_and_leaves_nothing() {
    let base = table_dir("unwritable");
    std::fs::create_dir(&base).unwrap();
    let csv = base.join("in.csv");
    std::fs::write(&csv, b"category,value\na,1\nb,2\n").unwrap();
    // A folder that is a file: refused on any account, root's included.
    let file = base.join("a-file");
    std::fs::write(&file, b"").unwrap();
    let mut targets = vec![file.join("table")];
    // A folder without write permission: only a user other than root is refused.
    // SAFETY: `geteuid` reads the process's user id and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let read_only = base.join("read-only");
    std::fs::create_dir(&read_only).unwrap();
    if !root {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o555)).unwrap();
        targets.push(read_only.join("table"));
    }
    for target in &targets {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_step11"))
            .arg("load")
            .arg(&csv)
            .arg(target)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", target.display());
        assert!(
            stderr.contains("cannot write"),
            "{}: {stderr}",
            target.display()
        );
        assert!(!target.exists(), "{}", target.display());
    }
    let left: Vec<_> = std::fs::read_dir(&read_only).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    if !root {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::remove_dir_all(&base).unwrap();
}

/// A process id that no process has: past the kernel's largest (2^22).
const ENDED: u64 = 4_000_000_000;

#[test]
fn a_load_removes_only_a_staging_directory_it_can_prove_a_load_left() {
    let base = table_dir("proven");
    std::fs::create_dir(&base).unwrap();
    let csv = base.join("s.csv");
    std::fs::write(&csv, b"category,value\na,1\nb,2\n").unwrap();
    let load = |name: &str| {
        step11(&[
            "load",
            csv.to_str().unwrap(),
            base.join(name).to_str().unwrap(),
        ])
    };
    let verified = |name: &str| step11(&["verify", base.join(name).to_str().unwrap()]).0 == Some(0);
    // A complete table under a staging directory's name, of a process that ended:
    // the next load of `x` removed it by its name alone.
    let named = format!(".x.loading-{ENDED}");
    assert_eq!(load(&named).0, Some(0));
    let loaded = load("x");
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    assert!(!loaded.2.contains("removed"), "{loaded:?}");
    assert!(verified(&named) && verified("x"), "both tables are whole");
    // What a killed load of `y` leaves: its marker and some column files. Beside
    // it, directories that only look like one: marked for another table, marked by
    // another process than their name says, marked but holding a complete table.
    let marked = |name: &str, pid: u64, table: &str| {
        let dir = base.join(name);
        std::fs::create_dir(&dir).unwrap();
        let marker = serde_json::json!({"made_by": "load", "pid": pid, "for": table});
        std::fs::write(dir.join("made-by.json"), marker.to_string()).unwrap();
        std::fs::write(dir.join("col0.values"), [0u8; 8]).unwrap();
        dir
    };
    let left = marked(&format!(".y.loading-{ENDED}"), ENDED, "y");
    let other_table = marked(&format!(".y.loading-{}", ENDED + 1), ENDED + 1, "z");
    let other_pid = marked(&format!(".y.loading-{}", ENDED + 2), ENDED + 3, "y");
    let complete = marked(&format!(".y.loading-{}", ENDED + 4), ENDED + 4, "y");
    std::fs::write(complete.join("manifest.json"), b"{}").unwrap();
    // Killed between its `mkdir` and the end of its marker's write: empty, or the
    // start of its marker; beside them, one holding a file that is no marker.
    let [unmarked, half_marked, users] =
        [5, 6, 7].map(|n| base.join(format!(".y.loading-{}", ENDED + n)));
    for dir in [&unmarked, &half_marked, &users] {
        std::fs::create_dir(dir).unwrap();
    }
    let marker = serde_json::json!({"made_by": "load", "pid": ENDED + 6, "for": "y"}).to_string();
    let half = &marker[..marker.len() / 2];
    std::fs::write(half_marked.join("made-by.json"), half).unwrap();
    std::fs::write(users.join("col0.values"), [0u8; 8]).unwrap();
    let loaded = load("y");
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    assert!(
        !left.exists(),
        "a killed load's staging is removed: {loaded:?}"
    );
    assert!(
        loaded.2.contains(&format!("removed {}", left.display())),
        "{loaded:?}"
    );
    assert!(
        loaded.2.contains(&format!("kept {}", complete.display()))
            && loaded.2.contains("holds a complete table"),
        "{loaded:?}"
    );
    for removed in [&unmarked, &half_marked] {
        assert!(!removed.exists(), "{}: {loaded:?}", removed.display());
    }
    for kept in [&other_table, &other_pid, &complete, &users] {
        assert!(kept.join("col0.values").exists(), "{}", kept.display());
    }
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_table_path_must_end_in_a_name_and_a_long_name_is_a_name() {
    let base = table_dir("names");
    std::fs::create_dir(&base).unwrap();
    let csv = base.join("s.csv");
    std::fs::write(&csv, b"category,value\na,1\nb,2\n").unwrap();
    let load = |target: &Path| step11(&["load", csv.to_str().unwrap(), target.to_str().unwrap()]);
    // `z/..` made `z`, then failed at the rename ("Device or resource busy") and
    // left `z`; a missing directory above the table was made too.
    for (target, why, made) in [
        (base.join("z/.."), "must end in its name", base.join("z")),
        (base.join("z/."), "must end in its name", base.join("z")),
        (base.join("w/t"), "no such directory", base.join("w")),
        (csv.join("t"), "not a directory", csv.join("t")),
    ] {
        let out = load(&target);
        assert_eq!(out.0, Some(2), "{}: {out:?}", target.display());
        assert!(out.2.contains(why), "{}: {out:?}", target.display());
        assert!(!made.exists(), "{} was made", made.display());
    }
    // A name of up to 255 bytes is a name: its staging directory's is cut to fit.
    for len in [200, 247, 250, 255] {
        // Two-byte characters, so that the cut falls inside one.
        let name = "é".repeat(len / 2) + &"t".repeat(len % 2);
        assert_eq!(name.len(), len);
        let target = base.join(&name);
        let out = load(&target);
        assert_eq!(out.0, Some(0), "{len} bytes: {out:?}");
        assert_eq!(step11(&["verify", target.to_str().unwrap()]).0, Some(0));
        std::fs::remove_dir_all(&target).unwrap();
    }
    let left: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["s.csv"], "nothing else left behind");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_killed_bench_leaves_its_scratch_and_the_next_bench_removes_it_and_nothing_else() {
    // The bench's table and its load's staging directory are in one scratch
    // directory of its own, marked: `kill -9` left `.step11-bench-PID.loading-PID`
    // in TMPDIR before, which no later run removed.
    let tmp = table_dir("bench-tmp");
    std::fs::create_dir(&tmp).unwrap();
    let csv = tmp.with_extension("csv");
    write_generated(&csv, 300_000, 8);
    let small = tmp.with_extension("small.csv");
    std::fs::write(&small, b"category,value\na,1\nb,2\n").unwrap();
    // Named as a bench's of a process that ended, but not marked: a user's.
    let users = tmp.join(format!("step11-bench-{ENDED}-0"));
    std::fs::create_dir(&users).unwrap();
    std::fs::write(users.join("keep"), b"").unwrap();
    let bench = |csv: &Path, runs: &str| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_step11"));
        command
            .arg(csv)
            .args(["--runs", runs, "--threads", "1"])
            .env("TMPDIR", &tmp)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        command
    };
    // Killed during a load: once a staging directory is there, in TMPDIR or a
    // directory of it.
    let loading = || {
        let names = |d: &Path| -> Vec<std::path::PathBuf> {
            std::fs::read_dir(d)
                .map(|e| e.flatten().map(|e| e.path()).collect())
                .unwrap_or_default()
        };
        names(&tmp)
            .iter()
            .flat_map(|p| [vec![p.clone()], names(p)].concat())
            .any(|p| p.to_string_lossy().contains(".loading-"))
    };
    let mut child = bench(&csv, "50").spawn().unwrap();
    let scratch = tmp.join(format!("step11-bench-{}-0", child.id()));
    let start = std::time::Instant::now();
    while !loading() && start.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        loading(),
        "a killed bench leaves its load's staging directory"
    );
    let out = bench(&small, "1").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("removed {}", scratch.display())),
        "{stderr}"
    );
    let mut left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    left.sort();
    assert_eq!(
        left,
        std::slice::from_ref(&users),
        "only the user's directory is left"
    );
    assert!(users.join("keep").exists());
    std::fs::remove_dir_all(&tmp).unwrap();
    std::fs::remove_file(&csv).unwrap();
    std::fs::remove_file(&small).unwrap();
}
