//! Scratch tables: the bench's and the query tests' tables, each in a directory of
//! its own in the system's temporary directory, marked as a load marks its staging
//! directory ([`crate::splayed::load::marker`]), with the table and its load's
//! staging directory inside.
//!
//! ```text
//! $TMPDIR/NAME-KIND-PID-N/        made with its marker first (KIND: bench, query)
//!   made-by.json                  {"made_by": KIND, "pid": PID, "for": NAME}
//!   table/                        the table, loaded afresh by each round
//!   .table.loading-PID/           its load's staging directory, while it runs
//! ```
//!
//! Removed, all of it, when the run ends, also by an error ([`Scratch`]'s `Drop`),
//! and by Ctrl-C or SIGTERM where the binary handles them. After `kill -9` or SIGBUS
//! the next run of the same kind removes the directories its marker proves a run of
//! that kind left, and no other, whatever its name.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::cli::NAME;
use crate::splayed::error::TableError;
use crate::splayed::load::marker::{create_marked, left_behind, pid_after};
use crate::splayed::load::{keep_on_interrupt, remove_on_interrupt};

/// A scratch directory of this process, removed when dropped.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// A new scratch directory of `kind` (`bench`, `query`) in the system's
    /// temporary directory, after removing those that runs of `kind` left behind
    /// ([`remove_left_behind`]); added to what Ctrl-C and SIGTERM remove.
    ///
    /// # Errors
    /// [`TableError::Io`] when the directory cannot be made.
    pub fn create(kind: &str) -> Result<Scratch, TableError> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        remove_left_behind(kind);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("{}{}-{n}", prefix(kind), std::process::id()));
        create_marked(&dir, kind, NAME.as_bytes()).map_err(TableError::io_write_at(&dir))?;
        remove_on_interrupt(&dir);
        Ok(Scratch { dir })
    }

    /// Where the table goes (not made: a load makes it).
    pub fn table(&self) -> PathBuf {
        self.dir.join("table")
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        keep_on_interrupt(&self.dir);
    }
}

/// `NAME-KIND-`: what the scratch directories of `kind` are named with, before the
/// process id.
fn prefix(kind: &str) -> String {
    format!("{NAME}-{kind}-")
}

/// Removes, once a process, the scratch directories of `kind` in the system's
/// temporary directory that a run of this binary left behind: named
/// `NAME-KIND-PID-N`, and proven by their marker ([`left_behind`]).
pub fn remove_left_behind(kind: &str) {
    static DONE: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut done = DONE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if done.iter().any(|k| k == kind) {
        return;
    }
    done.push(kind.to_string());
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    let prefix = prefix(kind);
    for entry in entries.flatten() {
        let name = entry.file_name();
        // NAME-KIND-PID-N: the process id is what lies between the prefix and `-N`.
        let pid = name
            .to_str()
            .and_then(|n| n.rsplit_once('-'))
            .and_then(|(head, _)| pid_after(head.as_ref(), &prefix));
        if let Some(pid) = pid
            && left_behind(&entry.path(), kind, NAME.as_bytes(), pid)
            && std::fs::remove_dir_all(entry.path()).is_ok()
        {
            eprintln!(
                "{NAME}: removed {}, left by a {kind} run that no longer runs",
                entry.path().display()
            );
        }
    }
}
