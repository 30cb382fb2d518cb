//! Where `gen` writes: a target that is a regular file or absent, reached through a
//! temporary beside it (`X.tmp`) that is renamed into place once complete, and
//! removed on every failure and, in the `gen` binary, on SIGINT and SIGTERM.
//!
//! ```text
//! target  X            absent, or a regular file (a link to one): else refused
//! write   X.tmp        created new, registered as live
//! commit  X.tmp -> X   under the lock of the live list, every file of a run at once
//! fail    X.tmp        removed (Drop), unregistered
//! signal  X.tmp        the handler takes the lock, removes what is live, exits 130
//! ```
//!
//! A device, a FIFO or a directory as the target is refused before anything is
//! created: renamed over, a device node would become a regular file (as root,
//! `--out /dev/full` replaced the node), and its temporary would land in `/dev`.
//! A temporary left by a run that was killed outright (SIGKILL) has the name this
//! target's next run uses, and that run removes it first.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The temporaries not yet renamed into place, for the interrupt handler.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Refuses `target` unless it is absent or a regular file (or a symbolic link to
/// one), and unless it names a file: `.`, `..`, `/` and a path ending in `/` name
/// none.
///
/// # Errors
/// [`io::ErrorKind::IsADirectory`] for a directory, [`io::ErrorKind::InvalidInput`]
/// for a device, a FIFO, a socket or a path that names no file, and whatever asking
/// about the path fails with other than its absence.
pub fn check_target(target: &Path) -> io::Result<()> {
    let text = target.as_os_str().to_string_lossy();
    if target.file_name().is_none() || text.ends_with(std::path::MAIN_SEPARATOR) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names no file (it ends in a directory): give a file's path",
        ));
    }
    match std::fs::metadata(target) {
        Ok(m) if m.is_dir() => Err(io::ErrorKind::IsADirectory.into()),
        Ok(m) if !m.is_file() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a device, a pipe or a socket): gen writes only files",
        )),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// `e`, about the reference file `path` written beside a CSV: said so, since the
/// error is reported under the CSV's name.
pub fn of_reference(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("its answer {}: {e}", path.display()))
}

/// A file being written for `target`, at `target` with `.tmp` appended: removed on
/// drop unless [`commit`]ted.
#[derive(Debug)]
pub struct Temporary {
    path: PathBuf,
    target: PathBuf,
}

impl Temporary {
    /// Checks `target` ([`check_target`]) and creates its temporary, new (a regular
    /// file of that name, left by a run that was killed, is removed first).
    ///
    /// # Errors
    /// As [`check_target`]; the temporary's name taken by something that is not a
    /// regular file; whatever creating it fails with.
    pub fn create(target: &Path) -> io::Result<(Temporary, File)> {
        check_target(target)?;
        let mut name = target.as_os_str().to_owned();
        name.push(".tmp");
        let path = PathBuf::from(name);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => std::fs::remove_file(&path)?,
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{} exists and is not a regular file: gen's temporary has that name",
                        path.display()
                    ),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        // Registered before it exists, so that a signal in between finds it.
        live().push(path.clone());
        match File::options().write(true).create_new(true).open(&path) {
            Ok(file) => Ok((
                Temporary {
                    path,
                    target: target.to_path_buf(),
                },
                file,
            )),
            Err(e) => {
                // Not ours: another process created it first.
                live().retain(|p| *p != path);
                Err(e)
            }
        }
    }

    /// Where the temporary is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        let mut live = live();
        if let Some(i) = live.iter().position(|p| *p == self.path) {
            live.swap_remove(i);
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Renames every temporary of `files` to its target, in order, under the lock that
/// the interrupt handler takes: a signal comes before all of them or after.
///
/// # Errors
/// The first rename that fails; the temporaries not yet renamed are removed.
pub fn commit(files: Vec<Temporary>) -> io::Result<()> {
    let mut result = Ok(());
    {
        let mut live = live();
        for file in &files {
            if result.is_ok() {
                result = std::fs::rename(&file.path, &file.target);
            }
            if result.is_ok() {
                live.retain(|p| *p != file.path);
            }
        }
    }
    drop(files); // removes what was not renamed
    result
}

/// Removes the files `paths`, and returns those it removed.
fn remove_all(paths: &[PathBuf]) -> Vec<&PathBuf> {
    paths
        .iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .collect()
}

/// On SIGINT or SIGTERM (and SIGHUP), removes the temporaries not yet renamed into
/// place and exits with status 130: for a binary that writes with [`Temporary`]
/// (`gen`). A library does not install it: a process has one such handler, and a
/// step that generates its bench file may install its own.
///
/// # Errors
/// When the process already has a handler (the `ctrlc` crate's error).
pub fn remove_temporaries_on_interrupt() -> Result<(), ctrlc::Error> {
    ctrlc::set_handler(|| {
        // The lock is kept until the exit: nothing commits after this point.
        let live = live();
        for path in remove_all(&live) {
            eprintln!("interrupted: removed {}", path.display());
        }
        std::process::exit(130);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gen-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn targets_that_are_not_files_are_refused() {
        let d = dir("targets");
        assert!(check_target(&d.join("absent.csv")).is_ok());
        std::fs::write(d.join("file.csv"), b"x").unwrap();
        assert!(check_target(&d.join("file.csv")).is_ok());
        let refused = |p: &Path, kind| {
            let e = check_target(p).unwrap_err();
            assert_eq!(e.kind(), kind, "{}: {e}", p.display());
        };
        refused(&d, io::ErrorKind::IsADirectory);
        refused(Path::new("/dev/null"), io::ErrorKind::InvalidInput);
        for p in [".", "..", "/", "a/..", "a/"] {
            refused(Path::new(p), io::ErrorKind::InvalidInput);
        }
        std::os::unix::fs::symlink("/dev/null", d.join("null")).unwrap();
        refused(&d.join("null"), io::ErrorKind::InvalidInput);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_dropped_temporary_is_removed_and_a_committed_one_renamed() {
        use std::io::Write;
        let d = dir("commit");
        let (kept, target) = (d.join("kept.csv"), d.join("dropped.csv"));
        let (dropped, mut file) = Temporary::create(&target).unwrap();
        file.write_all(b"partial").unwrap();
        let path = dropped.path().to_path_buf();
        assert_eq!(path, d.join("dropped.csv.tmp"));
        assert!(path.exists() && live().contains(&path));
        drop(dropped);
        assert!(!path.exists() && !live().contains(&path));
        // A leftover regular file of the temporary's name is replaced.
        std::fs::write(d.join("kept.csv.tmp"), b"left by a killed run").unwrap();
        let (temporary, mut file) = Temporary::create(&kept).unwrap();
        file.write_all(b"whole").unwrap();
        commit(vec![temporary]).unwrap();
        assert_eq!(std::fs::read(&kept).unwrap(), b"whole");
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["kept.csv"]);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_failed_commit_removes_what_it_did_not_rename() {
        let d = dir("failed");
        let (a, _) = Temporary::create(&d.join("a.csv")).unwrap();
        let (b, _) = Temporary::create(&d.join("b.csv")).unwrap();
        // `a`'s target becomes a directory after the check: its rename fails.
        std::fs::create_dir(d.join("a.csv")).unwrap();
        std::fs::write(d.join("a.csv").join("x"), b"x").unwrap();
        assert!(commit(vec![a, b]).is_err());
        assert!(!d.join("a.csv.tmp").exists() && !d.join("b.csv.tmp").exists());
        assert!(!d.join("b.csv").exists());
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn what_a_signal_finds_live_is_removed() {
        let d = dir("signal");
        let (temporary, _) = Temporary::create(&d.join("x.csv")).unwrap();
        let path = temporary.path().to_path_buf();
        // The handler's removal, on this test's temporary only: the others' run
        // beside it in this process.
        let found: Vec<PathBuf> = live().iter().filter(|p| **p == path).cloned().collect();
        assert_eq!(remove_all(&found), [&path]);
        assert!(!path.exists());
        drop(temporary);
        std::fs::remove_dir_all(d).unwrap();
    }
}
