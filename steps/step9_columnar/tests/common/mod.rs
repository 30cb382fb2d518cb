//! What several of step 9's test files need: the binary run on a command line, and
//! the files of a loaded table.

use std::ffi::OsStr;
use std::path::Path;

/// Runs the `step9` binary with `args`: its exit status, stdout and stderr (lossy
/// UTF-8).
pub fn step9<S: AsRef<OsStr>>(args: &[S]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_step9"))
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
/// or byte offsets, so an error found over a table names its record only. (`step9
/// FILE` and the query tests report the CSV query's error, place and all:
/// `step9::cli::query_table`.)
pub fn without_place(mut error: serde_json::Value) -> serde_json::Value {
    if let Some(fields) = error.as_object_mut() {
        fields.remove("line");
        fields.remove("byte");
    }
    error
}
