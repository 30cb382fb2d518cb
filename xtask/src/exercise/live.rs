//! A live exercise: its function stubbed in place, in the step's own file, and its
//! state under `target/exercises/NAME/`:
//!
//! - `start.rs`: the file as it was when the exercise started (the step's committed
//!   text, since `start` refuses a file with changes): where `solve` takes the body
//!   back from and `reset` the stub. Its presence is what makes the exercise live.
//! - `reference`: the step's binary built from that text, for the green check's speed
//!   comparison.
//! - `status`: the last check's verdict ([`super::status`]).
//! - `yours-N.rs`: the learner's file as it was at each `reset` or `solve`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::anchor;
use super::catalog::{EXERCISES, Exercise};
use super::check;
use crate::error::{Error, Result, failed};

/// The cargo target folder: `CARGO_TARGET_DIR`, else `target/`.
pub(super) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), PathBuf::from)
}

/// `target/exercises/NAME/`.
pub(super) fn state_dir(root: &Path, e: &Exercise) -> PathBuf {
    target_dir(root).join("exercises").join(e.name)
}

fn start_copy(root: &Path, e: &Exercise) -> PathBuf {
    state_dir(root, e).join("start.rs")
}

/// The step's binary saved by `start`.
pub(super) fn reference(root: &Path, e: &Exercise) -> PathBuf {
    state_dir(root, e).join("reference")
}

/// The exercise's file in the step, from the workspace root: `steps/step4_swar/src/scan.rs`.
pub(super) fn rel_file(e: &Exercise) -> String {
    format!("{}/{}", e.step_dir, e.file)
}

pub(super) fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(Error::io(&path))
}

pub(super) fn write(path: &Path, text: &str) -> Result {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(Error::io(&dir))?;
    }
    std::fs::write(path, text).map_err(Error::io(&path))
}

/// The exercise's file as it is now.
pub(super) fn learner_file(root: &Path, e: &Exercise) -> Result<String> {
    read(&root.join(rel_file(e)))
}

/// True when `e` has been started and not solved.
pub(super) fn is_live(root: &Path, e: &Exercise) -> bool {
    start_copy(root, e).is_file()
}

/// The step's text of the file: the copy taken at `start`, else the committed one
/// (when `target/` was deleted under a live exercise).
fn step_text(root: &Path, e: &Exercise) -> Result<String> {
    if let Ok(text) = read(&start_copy(root, e)) {
        return Ok(text);
    }
    git(root, &["show", &format!("HEAD:{}", rel_file(e))]).ok_or_else(|| {
        Error::Failed(format!(
            "{}: neither {} nor git has the step's text of {}",
            e.name,
            start_copy(root, e).display(),
            rel_file(e)
        ))
    })
}

/// What `git ARGS` prints, or `None` when git is missing, or this is no git checkout,
/// or the command fails.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// What `git status` says of `rel`: `Some(true)` when it has uncommitted changes,
/// `None` when git cannot tell (no git, or no checkout).
fn has_changes(root: &Path, rel: &str) -> Option<bool> {
    git(root, &["status", "--porcelain", "--", rel]).map(|out| !out.trim().is_empty())
}

/// Why `e` may not start now, if it may not: it is live already; another exercise is
/// live; or its file has changes that `reset` and `solve` would mix with the step's
/// text.
///
/// One exercise at a time: the gate runs the whole step, so a second stub in the
/// same step would keep the first exercise red; step 11's tests compare with step 7's
/// answers, so a stub in step 7 turns step 11 red; and a check builds the whole
/// workspace's tests in one command ([`check`]), so a half-written body in one step
/// would stop another's check from compiling.
pub(super) fn refusal(root: &Path, e: &Exercise) -> Option<String> {
    if is_live(root, e) {
        return Some(format!(
            "{} is started already: `cargo x exercise check {}` (or reset, or solve)",
            e.name, e.name
        ));
    }
    if let Some(other) = EXERCISES.iter().find(|o| is_live(root, o)) {
        return Some(format!(
            "{} is live: one exercise at a time, since its stub or half-written body \
             would turn this one's check red. `cargo x exercise solve {}` ends it (your \
             version is kept under target/exercises/)",
            other.name, other.name
        ));
    }
    let rel = rel_file(e);
    if has_changes(root, &rel) == Some(true) {
        return Some(format!(
            "{rel} has uncommitted changes (`git diff {rel}`): the exercise replaces a \
             function of that file and later puts the step's text back, so commit them, \
             or move them aside, first"
        ));
    }
    None
}

/// `cargo x exercise start NAME`.
pub fn start(root: &Path, e: &Exercise) -> Result {
    if let Some(why) = refusal(root, e) {
        return Err(why.into());
    }
    let rel = rel_file(e);
    let path = root.join(&rel);
    let text = read(&path)?;
    let stubbed = anchor::stub(&text, e)?;
    if has_changes(root, &rel).is_none() {
        println!(
            "(not a git checkout: the exercise keeps {rel} as it is now, and `solve` puts \
             that back)"
        );
    }
    // The reference: the step's binary as the check builds it, from the step's body.
    println!(
        "exercise {}: building the steps' tests and binaries as they are first (step \
         {}'s binary is the reference for the speed comparison; after `prefetch`, this \
         takes seconds)",
        e.name, e.step
    );
    let built = match check::build(root, e)? {
        Ok(built) => built.bin,
        Err(out) => {
            return Err(failed!(
                "the steps do not build as they are:\n{}",
                check::tail(&out.stderr, 40)
            ));
        }
    };
    let reference = reference(root, e);
    write(&start_copy(root, e), &text)?;
    std::fs::copy(&built, &reference).map_err(|err| {
        let _ = std::fs::remove_file(start_copy(root, e));
        format!("{} to {}: {err}", built.display(), reference.display())
    })?;
    write(&path, &stubbed)?;
    println!(
        "\nexercise {}: {} (step {}, book/src/{})\n\n{}\n\n\
         Its body now says todo!() in {rel}: write it there (`git diff {rel}` shows your \
         work), then:\n\n  \
         cargo x exercise check {}   # red or green, and why\n  \
         cargo x exercise reset {}   # the stub again\n  \
         cargo x exercise solve {}   # the step's body back; ends the exercise",
        e.name,
        e.title,
        e.step,
        e.chapter(),
        e.task,
        e.name,
        e.name,
        e.name
    );
    Ok(())
}

/// Keeps the learner's file as `target/exercises/NAME/yours-N.rs` unless its function
/// is the stub, and says where.
fn keep(root: &Path, e: &Exercise, current: &str) -> Result {
    if anchor::is_stubbed(current, e) {
        return Ok(());
    }
    let dir = state_dir(root, e);
    let kept = (1..)
        .map(|n| dir.join(format!("yours-{n}.rs")))
        .find(|p| !p.exists())
        .expect("a free name");
    write(&kept, current)?;
    println!(
        "your version is kept: {} (`cp` it over {} to take it back)",
        kept.strip_prefix(root).unwrap_or(&kept).display(),
        rel_file(e)
    );
    Ok(())
}

/// `cargo x exercise reset NAME`: the stub again, in the function only.
pub fn reset(root: &Path, e: &Exercise) -> Result {
    if !is_live(root, e) {
        return Err(failed!(
            "{} is not started: `cargo x exercise start {}`",
            e.name,
            e.name
        ));
    }
    let current = learner_file(root, e)?;
    let stub = anchor::stub(&step_text(root, e)?, e)?;
    keep(root, e, &current)?;
    write(
        &root.join(rel_file(e)),
        &anchor::with_region_of(&current, &stub, e)?,
    )?;
    let _ = std::fs::remove_file(super::status::status_path(root, e));
    println!("exercise {}: back to the stub", e.name);
    Ok(())
}

/// `cargo x exercise solve NAME`: the step's own function back, which ends the
/// exercise.
pub fn solve(root: &Path, e: &Exercise) -> Result {
    let current = learner_file(root, e)?;
    if !is_live(root, e) && !anchor::is_stubbed(&current, e) {
        return Err(failed!("{} is not started", e.name));
    }
    let step = step_text(root, e)?;
    keep(root, e, &current)?;
    let solved = anchor::with_region_of(&current, &step, e)?;
    let rel = rel_file(e);
    write(&root.join(&rel), &solved)?;
    let reference = reference(root, e);
    // The stamp that the step's binary leaves beside itself once it passed the gate.
    let stamp = reference.with_file_name("reference.gate");
    for done in [
        start_copy(root, e),
        reference,
        stamp,
        super::status::status_path(root, e),
    ] {
        let _ = std::fs::remove_file(done);
    }
    println!(
        "exercise {}: the step's body is back in {rel}; the exercise has ended",
        e.name
    );
    if solved != step {
        println!("({rel} still differs from the step outside the function: `git diff {rel}`)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::catalog::EXERCISES;

    /// A git checkout in a temporary folder holding `e`'s file, committed, with
    /// `CARGO_TARGET_DIR` unset: `target/` is under the folder.
    fn checkout(e: &Exercise, tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "xtask-exercise-{}-{tag}-{}",
            e.name,
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let text = read(&crate::workspace_root().join(rel_file(e))).unwrap();
        write(&dir.join(rel_file(e)), &text).unwrap();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                // Inherited (as under `git rebase --exec` or a hook), these would aim
                // `git init` and `git commit` at the workspace's own repository.
                .env_remove("GIT_DIR")
                .env_remove("GIT_WORK_TREE")
                .env_remove("GIT_INDEX_FILE")
                .current_dir(&dir)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "step"]);
        dir
    }

    #[test]
    fn start_refuses_a_file_with_changes() {
        let e = &EXERCISES[0];
        let dir = checkout(e, "dirty");
        assert_eq!(refusal(&dir, e), None);
        let path = dir.join(rel_file(e));
        let text = read(&path).unwrap();
        write(&path, &(text + "// mine\n")).unwrap();
        let why = refusal(&dir, e).expect("refused");
        assert!(why.contains("uncommitted changes"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reset_and_solve_put_back_the_stub_and_the_step_byte_for_byte() {
        if std::env::var_os("CARGO_TARGET_DIR").is_some() {
            // The state would go to the shared target folder, not the checkout's.
            return;
        }
        let e = &EXERCISES[0];
        let dir = checkout(e, "cycle");
        let path = dir.join(rel_file(e));
        let step = read(&path).unwrap();
        // What `start` does after its build.
        write(&start_copy(&dir, e), &step).unwrap();
        write(&path, &anchor::stub(&step, e).unwrap()).unwrap();
        assert!(is_live(&dir, e));
        let other = EXERCISES.last().unwrap();
        assert!(
            refusal(&dir, other)
                .unwrap()
                .contains("one exercise at a time")
        );
        let stubbed = read(&path).unwrap();
        let mine = stubbed.replace(&format!("{}{}: ", anchor::TODO_PREFIX, e.name), "mine: ");
        write(&path, &mine).unwrap();
        reset(&dir, e).unwrap();
        assert_eq!(read(&path).unwrap(), stubbed);
        assert_eq!(read(&state_dir(&dir, e).join("yours-1.rs")).unwrap(), mine);
        write(&path, &mine).unwrap();
        solve(&dir, e).unwrap();
        assert_eq!(read(&path).unwrap(), step);
        assert!(!is_live(&dir, e));
        assert_eq!(read(&state_dir(&dir, e).join("yours-2.rs")).unwrap(), mine);
        assert_eq!(has_changes(&dir, &rel_file(e)), Some(false));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
