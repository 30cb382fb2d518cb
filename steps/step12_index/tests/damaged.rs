//! A damaged table with an index is refused, never read: a bit flipped in any file
//! (the index's too), a file shortened, removed or taken from another table, a
//! number of the manifest off by one. (Step 11 runs the same on a table without an
//! index.)

use std::path::Path;

use crate::common::{step12, table_dir, write_generated};

#[test]
fn a_damaged_table_is_refused_never_read() {
    let dir = table_dir("damaged");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 400, 3);
    let os = |s: &str| std::ffi::OsString::from(s);
    let loaded = step12(&[
        &os("load"),
        csv.as_os_str(),
        dir.as_os_str(),
        &os("--index"),
        &os("category"),
    ]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let query = |d: &Path| {
        step12(&[
            &os("query"),
            d.as_os_str(),
            &os("--json"),
            &os("--agg"),
            &os("count,sum,min,max,mean"),
        ])
    };
    let intact = query(&dir);
    assert_eq!(intact.0, Some(0), "{intact:?}");
    let verified = step12(&[&os("verify"), dir.as_os_str()]);
    assert_eq!(verified.0, Some(0), "{verified:?}");
    assert!(
        verified
            .1
            .contains("every size and checksum matches, and every value and the index"),
        "{verified:?}"
    );
    // Each damage in a copy: `verify` refuses it, and the query refuses it or, when
    // the damage is in a file it does not read, gives the intact answer.
    let copy = dir.with_file_name(format!(
        "{}-copy",
        dir.file_name().unwrap().to_str().unwrap()
    ));
    let check = |what: &str, damage: &dyn Fn(&Path)| {
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir(&copy).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
        }
        damage(&copy);
        let verified = step12(&[&os("verify"), copy.as_os_str()]);
        assert_eq!(verified.0, Some(1), "{what}: {verified:?}");
        assert!(
            verified.2.contains("is not a complete table"),
            "{what}: {verified:?}"
        );
        let queried = query(&copy);
        match queried.0 {
            Some(0) => assert_eq!(queried.1, intact.1, "{what}: a different answer"),
            _ => {
                assert_eq!(queried.0, Some(1), "{what}: {queried:?}");
                assert!(queried.1.contains("not_a_table"), "{what}: {queried:?}");
            }
        }
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    names.sort();
    for name in &names {
        let len = std::fs::metadata(dir.join(name)).unwrap().len() as usize;
        for at in [0, len / 3, len / 2, len.saturating_sub(1)] {
            for bit in [0, 7] {
                check(&format!("{name}: bit {bit} of byte {at}"), &|d: &Path| {
                    let mut b = std::fs::read(d.join(name)).unwrap();
                    b[at] ^= 1 << bit;
                    std::fs::write(d.join(name), b).unwrap();
                });
            }
        }
        if name != "manifest.json" {
            check(&format!("{name} shortened"), &|d: &Path| {
                let b = std::fs::read(d.join(name)).unwrap();
                std::fs::write(d.join(name), &b[..b.len() - 1]).unwrap();
            });
            check(&format!("{name} removed"), &|d: &Path| {
                std::fs::remove_file(d.join(name)).unwrap();
            });
        }
    }
    // Every number of the manifest, one more or one less.
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let numbers: Vec<(usize, usize)> = manifest
        .char_indices()
        .filter(|&(i, c)| {
            c.is_ascii_digit() && !manifest[..i].ends_with(|p: char| p.is_ascii_digit())
        })
        .map(|(i, _)| {
            (
                i,
                manifest[i..].find(|c: char| !c.is_ascii_digit()).unwrap() + i,
            )
        })
        .collect();
    assert!(numbers.len() > 20, "{manifest}");
    for &(start, end) in &numbers {
        for delta in [1i64, -1] {
            let n: i64 = manifest[start..end].parse().unwrap_or(0);
            let edited = format!(
                "{}{}{}",
                &manifest[..start],
                (n + delta).max(0),
                &manifest[end..]
            );
            if edited == manifest {
                continue;
            }
            check(
                &format!("manifest {start}..{end} {delta:+}"),
                &|d: &Path| {
                    std::fs::write(d.join("manifest.json"), &edited).unwrap();
                },
            );
        }
    }
    // A column file from another table of as many rows.
    let other = dir.with_file_name(format!(
        "{}-other",
        dir.file_name().unwrap().to_str().unwrap()
    ));
    let other_csv = other.with_extension("csv");
    write_generated(&other_csv, 400, 4);
    let loaded = step12(&[
        &os("load"),
        other_csv.as_os_str(),
        other.as_os_str(),
        &os("--index"),
        &os("category"),
    ]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    for name in ["col2.values", "col1.values", "symbols.bytes"] {
        check(&format!("{name} of another table"), &|d: &Path| {
            std::fs::copy(other.join(name), d.join(name)).unwrap();
        });
    }
    for d in [&dir, &copy, &other] {
        std::fs::remove_dir_all(d).unwrap();
    }
    std::fs::remove_file(&csv).unwrap();
    std::fs::remove_file(&other_csv).unwrap();
}

#[test]
fn an_index_file_that_is_not_a_regular_file_is_named_and_refused() {
    // A FIFO in an index file's place blocked `query --where` (no writer comes),
    // and a link to /dev/zero was mapped as an empty file: each is now a table
    // that is not one, naming the file, exit 1, at once. (Step 11 tries the
    // table's own files.)
    use std::time::{Duration, Instant};
    let dir = table_dir("special");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 200, 6);
    let d = dir.to_str().unwrap();
    let loaded = step12(&["load", csv.to_str().unwrap(), d, "--index", "category"]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let within_a_minute = |args: &[&str]| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_step12"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > Duration::from_secs(60) {
                child.kill().unwrap();
                let _ = child.wait();
                return (None, "killed after a minute".to_string());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&[out.stdout, out.stderr].concat()).into_owned();
        (out.status.code(), said)
    };
    for name in ["col1.index.rows", "col1.index.slots", "col1.index.offsets"] {
        let path = dir.join(name);
        let intact = std::fs::read(&path).unwrap();
        for what in ["a FIFO", "a link to /dev/zero", "a directory"] {
            std::fs::remove_file(&path).unwrap();
            match what {
                "a FIFO" => {
                    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
                    // SAFETY: `c` is a NUL-terminated path that lives across the call.
                    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
                }
                "a directory" => std::fs::create_dir(&path).unwrap(),
                _ => std::os::unix::fs::symlink("/dev/zero", &path).unwrap(),
            }
            for args in [
                &["query", d, "--where", "category=fish", "--json"][..],
                &["verify", d][..],
            ] {
                let (code, said) = within_a_minute(args);
                assert_eq!(code, Some(1), "{name} as {what}, {args:?}: {said}");
                assert!(
                    said.contains("not_a_table") || said.contains("is not a complete table"),
                    "{name} as {what}, {args:?}: {said}"
                );
                assert!(said.contains(name), "{name} as {what}, {args:?}: {said}");
            }
            let _ = std::fs::remove_dir(&path);
            let _ = std::fs::remove_file(&path);
            std::fs::write(&path, &intact).unwrap();
        }
    }
    assert_eq!(step12(&["verify", d]).0, Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}
