//! CI's `cargo x exercise verify`: the book's sections are current, every task and
//! hint names only what its step has ([`super::names`]), and for every exercise, its
//! function stubbed in place in the step is red on its `todo!()`, and the step's own
//! body green on the same check.
//!
//! The stub is written into the step's file, not a copy, so the check reuses the
//! workspace's build and rebuilds only the step. A [`Stubbed`] guard puts the file's
//! text back when it is dropped (an error, a panic), and a backup under
//! `target/exercises/verify/` puts it back at the start of the next run when the
//! process was killed before it could.

use std::path::{Path, PathBuf};

use super::anchor::{self, TODO_PREFIX};
use super::catalog::{EXERCISES, Exercise};
use super::check::{families, run_tests, tail};
use super::live::{is_live, read, rel_file, target_dir, write};
use crate::error::{Error, Result, failed};

/// The backup of `e`'s file while verify has it stubbed.
fn backup(root: &Path, e: &Exercise) -> PathBuf {
    target_dir(root)
        .join("exercises/verify")
        .join(format!("{}.rs", e.name))
}

/// `e`'s file with its function stubbed, until dropped: then the file's text is back
/// byte for byte, and the backup gone.
struct Stubbed {
    path: PathBuf,
    text: String,
    backup: PathBuf,
}

impl Stubbed {
    fn new(root: &Path, e: &Exercise) -> Result<Self> {
        let path = root.join(rel_file(e));
        let text = read(&path)?;
        let stub = anchor::stub(&text, e)?;
        let backup = backup(root, e);
        // The backup first: if anything stops this process after the next write, the
        // next run puts the text back from it.
        write(&backup, &text)?;
        let guard = Stubbed { path, text, backup };
        write(&guard.path, &stub)?;
        Ok(guard)
    }
}

impl Drop for Stubbed {
    fn drop(&mut self) {
        match std::fs::write(&self.path, &self.text) {
            Ok(()) => {
                let _ = std::fs::remove_file(&self.backup);
            }
            Err(err) => eprintln!(
                "xtask: could not restore {} ({err}); its text is in {}",
                self.path.display(),
                self.backup.display()
            ),
        }
    }
}

/// Puts back every file that a killed run left stubbed.
pub(super) fn recover(root: &Path) -> Result {
    for e in EXERCISES {
        let backup = backup(root, e);
        if let Ok(text) = std::fs::read_to_string(&backup) {
            write(&root.join(rel_file(e)), &text)?;
            std::fs::remove_file(&backup).map_err(Error::io(&backup))?;
            println!(
                "exercise: restored {} from {} (a verify run stopped before it could)",
                rel_file(e),
                backup.display()
            );
        }
    }
    Ok(())
}

/// `cargo x exercise verify`.
pub fn verify(root: &Path) -> Result {
    recover(root)?;
    super::book::current(root)?;
    super::names::check(root, EXERCISES)?;
    if let Some(e) = EXERCISES.iter().find(|e| is_live(root, e)) {
        return Err(failed!(
            "{} is live (its function is a learner's, or the stub): `cargo x exercise \
             solve {}` first",
            e.name,
            e.name
        ));
    }
    for e in EXERCISES {
        verify_one(root, e)?;
    }
    println!(
        "exercise: all {} stubs are red and all {} solutions green",
        EXERCISES.len(),
        EXERCISES.len()
    );
    Ok(())
}

/// The stub of `e` is red on its own `todo!()`; the step's body is green, and ran
/// at least one test of every family the check filters on.
fn verify_one(root: &Path, e: &Exercise) -> Result {
    let start = std::time::Instant::now();
    let stub = {
        let _stubbed = Stubbed::new(root, e)?;
        run_tests(root, e)?.0
    };
    let todo = format!("not yet implemented: {TODO_PREFIX}{}", e.name);
    let said = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stdout).contains(&todo)
            || String::from_utf8_lossy(&out.stderr).contains(&todo)
    };
    if stub.status.success() || !said(&stub) {
        return Err(failed!(
            "{}: the stub is not red on its todo!() (a defect: its tests do not reach the \
             function, or they did not build)\n{}\n{}",
            e.name,
            tail(&stub.stdout, 40),
            tail(&stub.stderr, 40)
        ));
    }
    let solved = run_tests(root, e)?.0;
    if !solved.status.success() {
        return Err(failed!(
            "{}: the step's own body does not pass the exercise's check\n{}\n{}",
            e.name,
            tail(&solved.stdout, 60),
            tail(&solved.stderr, 40)
        ));
    }
    let stdout = String::from_utf8_lossy(&solved.stdout);
    for family in families(e) {
        if !stdout
            .lines()
            .any(|l| l.starts_with(&format!("test {family}::")) && l.ends_with(" ok"))
        {
            return Err(failed!(
                "{}: the check ran no test of the family `{family}` in {}/tests/main.rs",
                e.name,
                e.step_dir
            ));
        }
    }
    println!(
        "exercise {}: stub red, solution green ({:.0} s)",
        e.name,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_guard_restores_and_recover_puts_back_what_a_killed_run_left() {
        let e = &EXERCISES[0];
        let root = std::env::temp_dir().join(format!("xtask-verify-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        if std::env::var_os("CARGO_TARGET_DIR").is_some() {
            // The backup would go to the shared target folder, not this root's.
            return;
        }
        let path = root.join(rel_file(e));
        let text = read(&crate::workspace_root().join(rel_file(e))).unwrap();
        write(&path, &text).unwrap();
        {
            let _stubbed = Stubbed::new(&root, e).unwrap();
            assert!(anchor::is_stubbed(&read(&path).unwrap(), e));
            assert_eq!(read(&backup(&root, e)).unwrap(), text);
        }
        assert_eq!(read(&path).unwrap(), text);
        assert!(!backup(&root, e).exists());
        // A run killed while stubbed: the guard never drops.
        std::mem::forget(Stubbed::new(&root, e).unwrap());
        assert!(anchor::is_stubbed(&read(&path).unwrap(), e));
        recover(&root).unwrap();
        assert_eq!(read(&path).unwrap(), text);
        assert!(!backup(&root, e).exists());
        let _ = std::fs::remove_dir_all(&root);
    }
}
