//! The marker: a file that a load writes first into the directory it makes (its
//! staging directory, and the bench's scratch directories), naming its kind, its
//! process and what the directory is for. It is what lets a later run prove that a
//! directory left behind by a killed run is one that a run of its kind made, and
//! remove that directory and no other, whatever the others are named.
//!
//! ```text
//! create:  mkdir DIR (never one that exists, never its parents), then
//!          DIR/made-by.json  {"made_by": KIND, "pid": PID, "for": NAME}
//! left behind, and removed by the next run of KIND for NAME, when all hold:
//!          DIR is a directory (not a link) whose name ends in PID
//!          DIR/made-by.json is a regular file of at most 4 KiB naming KIND, PID, NAME
//!          process PID no longer runs (/proc/PID is gone; only where /proc is)
//!          DIR holds no manifest.json: a complete table is never removed
//! or, killed while it wrote its marker, when all hold:
//!          DIR is a directory (not a link) whose name ends in PID
//!          DIR is empty, or holds only made-by.json, a regular file whose bytes
//!          are a part, from its start, of the marker that run would write
//!          process PID no longer runs
//! ```
//!
//! A directory that a user made or renamed, a complete table under a staging
//! directory's name included, has no marker, or one for another name, and is kept.
//! A run killed between its `mkdir` and the end of its marker's write leaves a
//! directory that holds nothing of anyone's: at most the start of its own marker,
//! whose every byte the next run can tell from its kind, process and name (the
//! marker is one line of JSON, written the same way each time).

use std::io::Read;
use std::path::Path;

use harness::query::key_text;
use serde_json::{Value, json};

use crate::splayed::layout::MANIFEST;
use crate::splayed::mapped_check::open_regular;

/// The marker's file name: no file of a table is named so.
pub const MARKER: &str = "made-by.json";

/// The largest marker read, in bytes: a marker is a line.
const MARKER_MAX: u64 = 4096;

// ANCHOR: create_marked
/// Creates the directory `dir`, then the marker in it, which says that a run of
/// `kind` (`load`, `bench`) in this process made it for `name` (the table's file
/// name). On an error nothing is left: the marker and the directory are removed.
///
/// # Errors
/// What creating either fails with; `AlreadyExists` when `dir` exists, whatever it
/// holds.
pub fn create_marked(dir: &Path, kind: &str, name: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir(dir)?;
    let marker = marker_text(kind, std::process::id(), name);
    std::fs::write(dir.join(MARKER), marker).inspect_err(|_| {
        let _ = std::fs::remove_file(dir.join(MARKER));
        let _ = std::fs::remove_dir(dir);
    })
}
// ANCHOR_END: create_marked

/// The marker that a run of `kind` in process `pid` writes for `name`: one line of
/// JSON, the same bytes for the same three (serde_json writes an object's keys in
/// order), so that a later run can tell its start from anything else.
fn marker_text(kind: &str, pid: u32, name: &[u8]) -> String {
    json!({"made_by": kind, "pid": pid, "for": key_text(name)}).to_string()
}

/// Whether process `pid` runs: `None` where `/proc` does not tell (not Linux). This
/// process runs.
pub fn runs(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(true);
    }
    let proc = Path::new("/proc");
    proc.join("self")
        .exists()
        .then(|| proc.join(pid.to_string()).exists())
}

// ANCHOR: left_behind
/// Whether `dir` was made by a run of `kind` for `name` in process `pid`, which no
/// longer runs, and holds no complete table, or was made by that run and holds
/// at most the start of its marker: then it is that run's, left behind, and may
/// be removed (the module's table has every condition).
pub fn left_behind(dir: &Path, kind: &str, name: &[u8], pid: u32) -> bool {
    runs(pid) == Some(false)
        && (made_by(dir, kind, name, pid) && std::fs::symlink_metadata(dir.join(MANIFEST)).is_err()
            || killed_while_marking(dir, kind, name, pid))
}
// ANCHOR_END: left_behind

/// Whether `dir` is a directory (not a link) that is empty or holds only a marker
/// whose bytes begin the one a run of `kind` in process `pid` writes for `name`:
/// what a run killed between its `mkdir` and the end of its marker's write leaves.
fn killed_while_marking(dir: &Path, kind: &str, name: &[u8], pid: u32) -> bool {
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let entries: Vec<_> = entries.collect();
    match entries.as_slice() {
        [] => true,
        [Ok(entry)] if entry.file_name() == MARKER => read_marker(dir)
            .is_some_and(|text| marker_text(kind, pid, name).as_bytes().starts_with(&text)),
        _ => false,
    }
}

/// Whether `dir` is a directory (not a link) whose marker says that a run of `kind`
/// in process `pid` made it for `name`.
pub fn made_by(dir: &Path, kind: &str, name: &[u8], pid: u32) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
        && marker(dir)
            .is_some_and(|m| m["made_by"] == kind && m["pid"] == pid && m["for"] == key_text(name))
}

/// The marker in `dir`, if it is a regular file (not a link) of at most
/// [`MARKER_MAX`] bytes that holds a JSON object.
fn marker(dir: &Path) -> Option<Value> {
    serde_json::from_slice::<Value>(&read_marker(dir)?)
        .ok()
        .filter(Value::is_object)
}

/// The bytes of the marker in `dir`, if it is a regular file (not a link) of at
/// most [`MARKER_MAX`] bytes.
fn read_marker(dir: &Path) -> Option<Vec<u8>> {
    let path = dir.join(MARKER);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MARKER_MAX {
        return None;
    }
    let mut text = Vec::new();
    open_regular(dir, &path)
        .ok()?
        .take(MARKER_MAX)
        .read_to_end(&mut text)
        .ok()?;
    Some(text)
}

/// The process id that ends `file_name` after `prefix`, if that is all digits.
pub fn pid_after(file_name: &std::ffi::OsStr, prefix: &str) -> Option<u32> {
    let rest = file_name.to_str()?.strip_prefix(prefix)?;
    rest.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| rest.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_marked_directory_of_a_process_that_ended_is_left_behind() {
        let base = std::env::temp_dir().join(format!("marker-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir(&base).unwrap();
        // No process has an id past the kernel's largest (2^22).
        let ended = 4_000_000_000u32;
        let dir = base.join("d");
        create_marked(&dir, "load", b"t").unwrap();
        assert!(
            create_marked(&dir, "load", b"t").is_err(),
            "never one that exists"
        );
        // Made by this process, which runs.
        assert!(!left_behind(&dir, "load", b"t", std::process::id()));
        // Written as a process that ended would have written it.
        let as_ended = json!({"made_by": "load", "pid": ended, "for": "t"});
        std::fs::write(dir.join(MARKER), as_ended.to_string()).unwrap();
        if runs(1).is_some() {
            assert!(left_behind(&dir, "load", b"t", ended));
        }
        assert!(!left_behind(&dir, "bench", b"t", ended), "another kind");
        assert!(!left_behind(&dir, "load", b"u", ended), "another table");
        assert!(
            !left_behind(&dir, "load", b"t", ended + 1),
            "another process"
        );
        std::fs::write(dir.join(MANIFEST), b"{}").unwrap();
        assert!(!left_behind(&dir, "load", b"t", ended), "a complete table");
        std::fs::remove_file(dir.join(MANIFEST)).unwrap();
        std::fs::remove_file(dir.join(MARKER)).unwrap();
        std::fs::write(dir.join("x"), b"").unwrap();
        assert!(!left_behind(&dir, "load", b"t", ended), "no marker");
        std::fs::remove_file(dir.join("x")).unwrap();
        std::fs::write(dir.join(MARKER), b"not json").unwrap();
        assert!(!left_behind(&dir, "load", b"t", ended), "not a marker");
        if runs(1).is_some() {
            // Killed while it wrote its marker: the start of that marker, or none.
            let whole = marker_text("load", ended, b"t");
            for cut in [0, 1, whole.len() / 2, whole.len() - 1] {
                std::fs::write(dir.join(MARKER), &whole[..cut]).unwrap();
                assert!(left_behind(&dir, "load", b"t", ended), "cut at {cut}");
                // Past the table's name, the start tells one table from another.
                let named = cut > whole.find("made_by").unwrap();
                assert_eq!(left_behind(&dir, "load", b"u", ended), !named, "{cut}");
            }
            std::fs::write(dir.join("x"), b"").unwrap();
            assert!(
                !left_behind(&dir, "load", b"t", ended),
                "a file of someone's"
            );
            std::fs::remove_file(dir.join("x")).unwrap();
            std::fs::remove_file(dir.join(MARKER)).unwrap();
            assert!(left_behind(&dir, "load", b"t", ended), "empty");
        }
        assert_eq!(pid_after("x.loading-12".as_ref(), "x.loading-"), Some(12));
        assert_eq!(pid_after("x.loading-12a".as_ref(), "x.loading-"), None);
        assert_eq!(pid_after("x.loading-+1".as_ref(), "x.loading-"), None);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
