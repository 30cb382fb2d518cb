//! A damaged table is refused, never read: a bit flipped in any file, a file shortened,
//! removed or taken from another table, a number of the manifest off by one; and a
//! first query checks each block of the two files it reads before adding it.

use std::path::Path;

use step11::query::Query;
use step11::splayed;
use step11::splayed::error::TableError;
use step11::splayed::scan::SplayedTable;

use crate::common::{groups_to_json, reseal, step11, table_dir, write_generated};

#[test]
fn a_damaged_table_is_refused_never_read() {
    let dir = table_dir("damaged");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 400, 3);
    let os = |s: &str| std::ffi::OsString::from(s);
    let loaded = step11(&[&os("load"), csv.as_os_str(), dir.as_os_str()]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let query = |d: &Path| {
        step11(&[
            &os("query"),
            d.as_os_str(),
            &os("--json"),
            &os("--agg"),
            &os("count,sum,min,max,mean"),
        ])
    };
    let intact = query(&dir);
    assert_eq!(intact.0, Some(0), "{intact:?}");
    let verified = step11(&[&os("verify"), dir.as_os_str()]);
    assert_eq!(verified.0, Some(0), "{verified:?}");
    assert!(
        verified
            .1
            .contains("every size and checksum matches, and every value"),
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
        let verified = step11(&[&os("verify"), copy.as_os_str()]);
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
    let loaded = step11(&[&os("load"), other_csv.as_os_str(), other.as_os_str()]);
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
fn a_first_query_checks_each_block_of_what_it_reads_before_adding_it() {
    // Enough rows for several blocks a range on every thread count: the first query
    // of an open table takes the checks of the two files it reads (`units.rs`) as it
    // reads them; the next reads the files it checked.
    let dir = table_dir("first-query");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 100_000, 5);
    let loaded = step11(&["load", csv.to_str().unwrap(), dir.to_str().unwrap()]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let input = std::fs::read(&csv).unwrap();
    let expected = groups_to_json(&step11::run(&input, Query::default()).unwrap());
    for threads in [1, 2, 3, 8] {
        let table = SplayedTable::open(&dir).unwrap();
        for run in ["first", "second"] {
            let groups = splayed::query::run(&table, Query::default(), threads).unwrap();
            assert_eq!(
                groups_to_json(&groups),
                expected,
                "{threads} threads, {run}"
            );
        }
    }
    let refused = |what: &str, name: &str, why: &str| {
        for threads in [1, 2, 3] {
            let table = SplayedTable::open(&dir).unwrap();
            // A refused file is not kept as checked: the next query refuses it too.
            for run in ["first", "second"] {
                let e = splayed::query::run(&table, Query::default(), threads).unwrap_err();
                let TableError::NotATable(_, message) = &e else {
                    panic!("{what}, {threads} threads, {run}: {e:?}");
                };
                assert!(
                    message.contains(name) && message.contains(why),
                    "{what}, {threads} threads, {run}: {message}"
                );
            }
        }
    };
    // One bit of the last block of each file (the values' `i64`s, the keys' ids).
    for name in ["col2.values", "col1.values"] {
        let intact = std::fs::read(dir.join(name)).unwrap();
        let mut damaged = intact.clone();
        let at = damaged.len() - 3;
        damaged[at] ^= 0x10;
        std::fs::write(dir.join(name), &damaged).unwrap();
        refused(
            &format!("a bit of {name}"),
            name,
            "does not match its checksum",
        );
        std::fs::write(dir.join(name), &intact).unwrap();
    }
    // A symbol id past the bound in the last block, its checksum written again: the
    // block is not added (its id would index past the groups) and the query fails.
    let mut ids = std::fs::read(dir.join("col1.values")).unwrap();
    let at = ids.len() - 4;
    ids[at..].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(dir.join("col1.values"), &ids).unwrap();
    reseal(&dir, |_| {});
    refused(
        "an id past the bound",
        "col1.values",
        "a symbol id past the bound",
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}

/// Runs the `step11` binary with `args`, killed if it has not ended within a minute:
/// its exit status (`None` when it was killed) and its stdout and stderr.
fn step11_or_killed(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    use std::time::{Duration, Instant};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_step11"))
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
            return (None, String::new(), "killed after a minute".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

#[test]
fn a_file_of_a_table_that_is_not_a_regular_file_is_named_and_refused() {
    // A FIFO blocked every reader (no writer comes), `/dev/zero` as the manifest
    // grew without limit, and a directory was "No such device", exit 2: each is
    // now a table that is not one, naming the file, exit 1, at once.
    let dir = table_dir("special");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 200, 6);
    let loaded = step11(&[
        "load",
        csv.to_str().unwrap(),
        dir.to_str().unwrap(),
        "--schema",
        "name=text",
    ]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let names = [
        "manifest.json",
        "symbols.bytes",
        "col1.values",
        "col2.values",
    ];
    for name in names {
        let path = dir.join(name);
        let intact = std::fs::read(&path).unwrap();
        let specials: [(&str, &dyn Fn()); 4] = [
            ("a FIFO", &|| {
                let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
                // SAFETY: `c` is a NUL-terminated path that lives across the call.
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            }),
            ("a link to /dev/zero", &|| {
                std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
            }),
            ("a link to /dev/null", &|| {
                std::os::unix::fs::symlink("/dev/null", &path).unwrap();
            }),
            ("a directory", &|| std::fs::create_dir(&path).unwrap()),
        ];
        for (what, make) in specials {
            std::fs::remove_file(&path).unwrap();
            make();
            let d = dir.as_os_str();
            for args in [
                &["query".as_ref(), d, "--json".as_ref()][..],
                &["query".as_ref(), d][..],
                &["verify".as_ref(), d][..],
            ] {
                let out = step11_or_killed(args);
                assert_eq!(out.0, Some(1), "{name} as {what}, {args:?}: {out:?}");
                let said = format!("{}{}", out.1, out.2);
                assert!(
                    said.contains("is not a complete table") || said.contains("not_a_table"),
                    "{name} as {what}, {args:?}: {out:?}"
                );
                assert!(said.contains(name), "{name} as {what}, {args:?}: {out:?}");
            }
            let _ = std::fs::remove_dir(&path);
            let _ = std::fs::remove_file(&path);
            std::fs::write(&path, &intact).unwrap();
        }
    }
    assert_eq!(step11(&["verify", dir.to_str().unwrap()]).0, Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}

#[test]
fn a_table_query_with_json_reports_every_error_as_json() {
    // `query TABLE --json` printed an option it could not honour on stderr only,
    // and a table file truncated under the query (SIGBUS, exit 135) too.
    let dir = table_dir("json");
    let csv = dir.with_extension("csv");
    write_generated(&csv, 300_000, 9);
    let d = dir.to_str().unwrap();
    let loaded = step11(&["load", csv.to_str().unwrap(), d]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    let json_of = |stdout: &str| -> serde_json::Value {
        serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {stdout:?}"))
    };
    let options = step11(&["query", d, "--format", "1brc", "--agg", "count", "--json"]);
    assert_eq!(options.0, Some(2), "{options:?}");
    assert_eq!(json_of(&options.1)["error"], "options", "{options:?}");
    // The values' file truncated while a query of many runs has it mapped.
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_step11"))
        .args(["query", d, "--runs", "1000000", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let values = dir.join("col2.values");
    let maps = format!("/proc/{}/maps", child.id());
    let name = values.to_str().unwrap().to_string();
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(&maps).is_ok_and(|m| m.contains(&name)) {
        assert!(
            start.elapsed().as_secs() < 120,
            "the query never mapped {name}"
        );
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    let file = std::fs::File::options().write(true).open(&values).unwrap();
    file.set_len(0).unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(135), "{stdout} {stderr}");
    let json = json_of(&stdout);
    assert_eq!(json["error"], "file_changed", "{json}");
    let message = json["message"].as_str().unwrap();
    assert!(message.starts_with("a file of the table"), "{json}");
    assert!(
        stderr.contains("changed size while it was mapped"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}
