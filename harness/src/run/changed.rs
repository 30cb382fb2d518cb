//! A file that another program changes while a step reads it: told apart from a
//! fault of the step.
//!
//! A step reads its input several times in one run: the timed runs (each maps the
//! file again), the reference parser's fingerprint, the same query on step 1's
//! parser. When another program appends to the file or rewrites it in between, the
//! reads disagree, and without a look at the file the disagreement reads like a bug
//! of the parser ("the pass gave the fingerprint … but the reference parser gives
//! …"). So the run takes the file's [`Stamp`] before its first read, and before it
//! blames anything or prints an answer it asks whether the file still has it.
//!
//! ```text
//! before the first read:   stamp = (device, inode, length, modification time)
//! before any verdict:      stamp again; different -> FileChanged, exit 2
//! ```
//!
//! A file truncated while it is mapped may end the run first, with SIGBUS
//! ([`crate::run::sigbus`]). A change that keeps the length and lands within the
//! file system's timestamp granularity (a few milliseconds on most) after the first
//! stamp is not seen; every append is.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What a file looked like: enough to tell that it changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The file's device and inode: another number after a rename over it.
    id: (u64, u64),
    /// Its length in bytes.
    len: u64,
    /// Its modification time, where the platform has one.
    modified: Option<SystemTime>,
}

impl Stamp {
    /// The stamp of the file at `path` (a link followed).
    ///
    /// # Errors
    /// Whatever asking about the file fails with.
    pub fn of(path: &Path) -> std::io::Result<Stamp> {
        let meta = std::fs::metadata(path)?;
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let id = (0, 0);
        Ok(Stamp {
            id,
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }

    /// The file's length in bytes.
    pub fn bytes(&self) -> u64 {
        self.len
    }

    /// `None` when the file at `path` still has this stamp; otherwise what changed.
    pub fn changed(&self, path: &Path) -> Option<FileChanged> {
        let how = match Stamp::of(path) {
            Err(e) => format!("it can no longer be read: {e}"),
            Ok(now) if now.id != self.id => "another file took its name".to_string(),
            Ok(now) if now.len != self.len => {
                format!("its length went from {} to {} bytes", self.len, now.len)
            }
            Ok(now) if now.modified != self.modified => {
                "it was written to (its modification time moved)".to_string()
            }
            Ok(_) => return None,
        };
        Some(FileChanged {
            path: path.to_path_buf(),
            how,
        })
    }
}

/// The error of a file that changed while a run read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChanged {
    /// The file.
    pub path: PathBuf,
    /// What changed, in words.
    pub how: String,
}

impl FileChanged {
    /// The exit status: 2, as for a file that cannot be read (it could not be read as
    /// one file).
    pub const EXIT: u8 = 2;

    /// `{"error":"file_changed","path":…,"message":…}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "error": "file_changed",
            "path": self.path.display().to_string(),
            "message": self.to_string(),
        })
    }
}

impl fmt::Display for FileChanged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} changed while it was read ({}): another program wrote to it during the \
             run, so the run's reads of it disagree and no answer is given. Run again \
             when nothing writes to it, or on a copy",
            self.path.display(),
            self.how
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn an_append_a_rename_and_a_removal_are_changes() {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("changed-{}.csv", std::process::id()));
        std::fs::write(&path, b"a,b\n1,2\n").unwrap();
        let stamp = Stamp::of(&path).unwrap();
        assert_eq!(stamp.changed(&path), None);
        let mut f = std::fs::File::options().append(true).open(&path).unwrap();
        f.write_all(b"3,4\n").unwrap();
        let change = stamp.changed(&path).expect("an append");
        assert_eq!(change.how, "its length went from 8 to 12 bytes");
        assert!(change.to_string().contains("changed while it was read"));
        assert_eq!(change.to_json()["error"], "file_changed");
        let stamp = Stamp::of(&path).unwrap();
        let other = dir.join(format!("changed-other-{}.csv", std::process::id()));
        std::fs::write(&other, b"a,b\n5,6\n7,8\n").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(
            stamp.changed(&path).unwrap().how,
            "another file took its name"
        );
        std::fs::remove_file(&path).unwrap();
        assert!(
            stamp
                .changed(&path)
                .unwrap()
                .how
                .starts_with("it can no longer be read")
        );
    }
}
