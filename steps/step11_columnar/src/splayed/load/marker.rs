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
//! ```
//!
//! A directory that a user made or renamed, a complete table under a staging
//! directory's name included, has no marker, or one for another name, and is kept.
//! A run killed between its `mkdir` and its marker's write leaves an empty directory
//! that nothing removes: it cannot be told from one a user made.

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
    let marker = json!({"made_by": kind, "pid": std::process::id(), "for": key_text(name)});
    std::fs::write(dir.join(MARKER), marker.to_string()).inspect_err(|_| {
        let _ = std::fs::remove_file(dir.join(MARKER));
        let _ = std::fs::remove_dir(dir);
    })
}
// ANCHOR_END: create_marked

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
/// longer runs, and holds no complete table: then it is that run's, left behind,
/// and may be removed (the module's table has every condition).
pub fn left_behind(dir: &Path, kind: &str, name: &[u8], pid: u32) -> bool {
    made_by(dir, kind, name, pid)
        && runs(pid) == Some(false)
        && std::fs::symlink_metadata(dir.join(MANIFEST)).is_err()
}
// ANCHOR_END: left_behind

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
    serde_json::from_slice::<Value>(&text)
        .ok()
        .filter(Value::is_object)
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
        assert!(!left_behind(&dir, "load", b"t", ended), "no marker");
        std::fs::write(dir.join(MARKER), b"not json").unwrap();
        assert!(!left_behind(&dir, "load", b"t", ended), "not a marker");
        assert_eq!(pid_after("x.loading-12".as_ref(), "x.loading-"), Some(12));
        assert_eq!(pid_after("x.loading-12a".as_ref(), "x.loading-"), None);
        assert_eq!(pid_after("x.loading-+1".as_ref(), "x.loading-"), None);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
