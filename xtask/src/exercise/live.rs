//! A live exercise: its function stubbed in place, in the step's own file, and its
//! state under `target/exercises/NAME/`:
//!
//! - `start.rs`: the file as it was when the exercise started (the step's committed
//!   text, since `start` refuses a file with changes): where `solve` takes the body
//!   back from and `reset` the stub. Its presence is what makes the exercise live.
//! - `reference`: the step's binary built from that text, for the green check's speed
//!   comparison.
//! - `index`: the file's entry in git's index before `start` (`MODE BLOB`). While the
//!   exercise is live the index holds the stub, so that `git diff` (the work tree
//!   against the index) shows the learner's work and not the step's body as removed
//!   lines; `solve` puts this entry back.
//! - `status`: the last check's verdict ([`super::status`]).
//! - `yours-N.rs`: the learner's file as it was at each `reset` or `solve`.
//! - `solved`: written by `solve`, which ends the exercise: `green` when the last
//!   check was, for `list`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::anchor;
use super::catalog::{EXERCISES, Exercise};
use super::check;
use super::git::{git, git_command, has_changes, index_entry, set_index_entry, stage, staged_text};
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

fn index_copy(root: &Path, e: &Exercise) -> PathBuf {
    state_dir(root, e).join("index")
}

/// `target/exercises/NAME/solved`: the exercise ended with `solve`.
pub(super) fn solved_path(root: &Path, e: &Exercise) -> PathBuf {
    state_dir(root, e).join("solved")
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
    let text = read(&root.join(&rel))?;
    anchor::stub(&text, e)?;
    if has_changes(root, &rel).is_none() {
        println!(
            "(not a git checkout: the exercise keeps {rel} as it is now, and `solve` puts \
             that back)"
        );
    }
    // The reference: the step's binary as the check builds it, from the step's body.
    println!(
        "exercise {}: first, building every step's tests and binaries as they are (step \
         {}'s binary is the reference for the speed comparison). After `cargo x exercise \
         prefetch`, which builds all of them once before a workshop, this takes seconds; \
         without it, the first build takes minutes.",
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
    let staged = stub_in_place(root, e, &text)?;
    let diff = if staged {
        "`git diff` shows your work against the stub (git's index holds the stub while \
         the exercise is live, so do not commit until `solve` has put it back), as does \
         `cargo x exercise diff`"
    } else {
        "`cargo x exercise diff` shows your work against the stub"
    };
    println!(
        "\nexercise {}: {} (step {}, book/src/{})\n\n{}\n\n\
         Its body now says todo!() in {rel}: write it there. {diff}. Then:\n\n  \
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

/// Puts the stub of `text` (the step's file) in `e`'s file, and in git's index when
/// git tracks the file, keeping the index entry it replaces for `solve`. True when
/// the index holds the stub.
fn stub_in_place(root: &Path, e: &Exercise, text: &str) -> Result<bool> {
    let rel = rel_file(e);
    let stubbed = anchor::stub(text, e)?;
    let _ = std::fs::remove_file(solved_path(root, e));
    let entry = index_entry(root, &rel);
    if let Some(entry) = &entry {
        write(&index_copy(root, e), entry)?;
    }
    write(&root.join(&rel), &stubbed)?;
    Ok(entry.is_some() && stage(root, &rel, &stubbed).is_some())
}

/// `text` with CR LF as LF: git's index may hold a file's lines with LF where the work
/// tree has CR LF.
fn lf(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// Keeps the learner's file as `target/exercises/NAME/yours-N.rs`, and the version in
/// git's index too when they staged one (`git add`) that is neither the file nor the
/// stub nor the step's, since `reset` and `solve` replace the index entry; each only
/// when its function is not the stub. Says where.
fn keep(root: &Path, e: &Exercise, current: &str, step: &str) -> Result {
    let mut versions = vec![("your version", current.to_string())];
    if let Some(staged) = staged_text(root, &rel_file(e))
        && ![current, step].iter().any(|t| lf(t) == lf(&staged))
    {
        versions.push(("the version you staged (`git add`)", staged));
    }
    let dir = state_dir(root, e);
    for (what, text) in versions {
        if anchor::is_stubbed(&text, e) {
            continue;
        }
        let kept = (1..)
            .map(|n| dir.join(format!("yours-{n}.rs")))
            .find(|p| !p.exists())
            .expect("a free name");
        write(&kept, &text)?;
        println!(
            "{what} is kept: {} (`cp` it over {} to take it back)",
            kept.strip_prefix(root).unwrap_or(&kept).display(),
            rel_file(e)
        );
    }
    Ok(())
}

/// `cargo x exercise reset NAME`: the stub again, in the function only, and in git's
/// index when `start` put it there.
pub fn reset(root: &Path, e: &Exercise) -> Result {
    if !is_live(root, e) {
        return Err(failed!(
            "{} is not started: `cargo x exercise start {}`",
            e.name,
            e.name
        ));
    }
    let current = learner_file(root, e)?;
    let step = step_text(root, e)?;
    let stub = anchor::stub(&step, e)?;
    keep(root, e, &current, &step)?;
    let rel = rel_file(e);
    write(
        &root.join(&rel),
        &anchor::with_region_of(&current, &stub, e)?,
    )?;
    if index_copy(root, e).is_file() && stage(root, &rel, &stub).is_none() {
        println!("(git could not stage the stub again: `cargo x exercise diff` shows your work)");
    }
    let _ = std::fs::remove_file(super::status::status_path(root, e));
    println!("exercise {}: back to the stub", e.name);
    Ok(())
}

/// `cargo x exercise solve NAME`: the step's own function back, and git's index entry
/// as it was before `start`, which ends the exercise.
pub fn solve(root: &Path, e: &Exercise) -> Result {
    let current = learner_file(root, e)?;
    if !is_live(root, e) && !anchor::is_stubbed(&current, e) {
        return Err(failed!("{} is not started", e.name));
    }
    let green = super::status::status(root, e) == super::status::Status::Green;
    let step = step_text(root, e)?;
    keep(root, e, &current, &step)?;
    let solved = anchor::with_region_of(&current, &step, e)?;
    let rel = rel_file(e);
    write(&root.join(&rel), &solved)?;
    restore_index(root, e, &step)?;
    let reference = reference(root, e);
    // The stamp that the step's binary leaves beside itself once it passed the gate.
    let stamp = reference.with_file_name("reference.gate");
    for done in [
        start_copy(root, e),
        index_copy(root, e),
        state_dir(root, e).join("stub.rs"),
        reference,
        stamp,
        super::status::status_path(root, e),
    ] {
        let _ = std::fs::remove_file(done);
    }
    write(
        &solved_path(root, e),
        if green { "green\n" } else { "not green\n" },
    )?;
    println!(
        "exercise {}: the step's body is back in {rel}; the exercise has ended",
        e.name
    );
    if solved != step {
        println!("({rel} still differs from the step outside the function: `git diff {rel}`)");
    }
    Ok(())
}

/// Git's index entry of `e`'s file as it was before `start`: the one `start` kept, or,
/// when `target/` was deleted under a live exercise and the index still holds the
/// stub, the committed one.
fn restore_index(root: &Path, e: &Exercise, step: &str) -> Result {
    let rel = rel_file(e);
    let entry = match read(&index_copy(root, e)) {
        Ok(entry) => Some(entry),
        Err(_) => {
            let stub = anchor::stub(step, e)?;
            let staged = staged_text(root, &rel).is_some_and(|t| lf(&t) == lf(&stub));
            let head = git(root, &["ls-tree", "HEAD", "--", &rel]);
            // `MODE blob BLOB\tPATH`
            let head = head.as_deref().and_then(|l| {
                let mut parts = l.split_whitespace();
                Some(format!("{} {}", parts.next()?, parts.nth(1)?))
            });
            head.filter(|_| staged)
        }
    };
    if let Some(entry) = entry
        && set_index_entry(root, &rel, &entry).is_none()
    {
        return Err(failed!(
            "the step's body is back in {rel}, but git could not put back its index \
             entry ({}): `git restore --staged {rel}` does",
            entry.trim()
        ));
    }
    Ok(())
}

/// `cargo x exercise diff [NAME]`: the learner's work against the stub (by default
/// the live exercise's).
pub fn diff(root: &Path, e: Option<&Exercise>) -> Result {
    let e = match e {
        Some(e) => e,
        None => EXERCISES
            .iter()
            .find(|e| is_live(root, e))
            .ok_or("no exercise is live: `cargo x exercise start NAME` starts one")?,
    };
    let status = diff_command(root, e)?
        .status()
        .map_err(Error::spawn("git"))?;
    // Killed by SIGPIPE: the reader stopped early (`… | head`), which is no failure.
    #[cfg(unix)]
    if std::os::unix::process::ExitStatusExt::signal(&status) == Some(13) {
        return Ok(());
    }
    match status.code() {
        Some(0) => {
            println!("{}: no change against the stub yet", rel_file(e));
            Ok(())
        }
        Some(1) => Ok(()),
        _ => Err(failed!("git diff failed ({status})")),
    }
}

/// `git diff --no-index STUB FILE`, with the stub of `e` written to
/// `target/exercises/NAME/stub.rs`: works without a checkout, and whatever the index
/// holds.
fn diff_command(root: &Path, e: &Exercise) -> Result<Command> {
    if !is_live(root, e) {
        return Err(failed!(
            "{} is not started: `cargo x exercise start {}`",
            e.name,
            e.name
        ));
    }
    let stub = state_dir(root, e).join("stub.rs");
    write(&stub, &anchor::stub(&step_text(root, e)?, e)?)?;
    let mut git = git_command(root);
    git.args(["diff", "--no-index", "--no-ext-diff", "--"])
        .arg(stub.strip_prefix(root).unwrap_or(&stub))
        .arg(rel_file(e));
    Ok(git)
}

#[cfg(test)]
mod tests;
