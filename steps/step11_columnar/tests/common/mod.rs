//! What several of step 11's test files need: the binary run on a command line, a
//! table's directory and load options, gen's file written out, the files of a loaded
//! table, the query's answer as JSON, and a damaged table's checksums written again.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use gen_csv::{Config, generate_in_memory};
use harness::query::{Aggs, Groups, groups_to_json_with};
use step11::parallel::Split;
use step11::splayed::load::LoadOptions;

/// Runs the `step11` binary with `args`: its exit status, stdout and stderr (lossy
/// UTF-8).
pub fn step11<S: AsRef<OsStr>>(args: &[S]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_step11"))
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// Every file of the table at `dir`, by name, with its bytes: two loads that
/// should give the same table compare these.
pub fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// A query error's JSON without its place (`line`, `byte`): a table keeps no lines
/// or byte offsets, so an error found over a table names its record only. (`step11
/// FILE` and the query tests report the CSV query's error, place and all:
/// `step11::cli::query_table`.)
pub fn without_place(mut error: serde_json::Value) -> serde_json::Value {
    if let Some(fields) = error.as_object_mut() {
        fields.remove("line");
        fields.remove("byte");
    }
    error
}

/// The answer with every aggregate (count, sum, min, max, mean), so that every
/// comparison of the table's answer with the CSV's covers them all.
pub fn groups_to_json(groups: &Groups) -> serde_json::Value {
    groups_to_json_with(groups, Aggs::ALL)
}

/// A fresh directory path (not created) for a table.
pub fn table_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("step11-test-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Load options that split the input over `threads` threads, in chunks of `chunk`
/// bytes (0: the default size).
pub fn split(threads: usize, chunk: usize) -> LoadOptions {
    LoadOptions {
        split: Some(Split { threads, chunk }),
        ..LoadOptions::default()
    }
}

/// Writes `gen`'s bench layout of `rows` rows (seed `seed`) to `path`.
pub fn write_generated(path: &Path, rows: u64, seed: u64) {
    let (bytes, _) = generate_in_memory(&Config {
        rows,
        seed,
        quoted_pct: 2.0,
        crlf: false,
    });
    std::fs::write(path, bytes).unwrap();
}

/// Writes the CRC-32 of every file of the table at `dir` into its manifest, and the
/// manifest's own, as a program that writes tables of its own would: so that a test
/// can damage a table and leave its checksums matching.
pub fn reseal(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    use step11::splayed::manifest::checksum;
    let path = dir.join("manifest.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut json);
    let names: Vec<String> = json["files"].as_object().unwrap().keys().cloned().collect();
    for name in names {
        json["files"][&name] = checksum(&std::fs::read(dir.join(&name)).unwrap()).into();
    }
    json.as_object_mut().unwrap().remove("checksum");
    let crc = checksum(json.to_string().as_bytes());
    json["checksum"] = crc.into();
    std::fs::write(&path, json.to_string()).unwrap();
}
