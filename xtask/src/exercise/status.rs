//! Where a learner stands on each exercise, and `cargo x exercise list`:
//! `target/exercises/NAME/status` keeps the last check's verdict and a hash of the
//! step's sources it holds for, and `target/exercises/NAME/solved` says that `solve`
//! ended the exercise.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use super::anchor;
use super::catalog::{EXERCISES, Exercise};
use super::live::{self, is_live, learner_file, state_dir};
use crate::error::Result;

/// Where a learner stands on one exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// Not started: the step's own body is in place.
    Off,
    /// Started; the body still says `todo!()`.
    Todo,
    /// Edited since the last check (or never checked).
    Edited,
    /// The last check of these sources failed.
    Red,
    /// The last check of these sources passed.
    Green,
    /// Ended by `solve` after a green check.
    Done,
    /// Ended by `solve` before a green check: the step's body was put back.
    Solved,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Off => "-",
            Status::Todo => "todo",
            Status::Edited => "edited",
            Status::Red => "red",
            Status::Green => "green",
            Status::Done => "done",
            Status::Solved => "solved",
        }
    }
}

/// A hash of the step's sources: a check's verdict holds for these.
fn sources_hash(root: &Path, e: &Exercise) -> u64 {
    let mut h = DefaultHasher::new();
    let mut files = Vec::new();
    for dir in ["src", "tests", "kernels"] {
        collect(&root.join(e.step_dir).join(dir), &mut files);
    }
    files.sort();
    for f in files {
        f.hash(&mut h);
        std::fs::read(&f).unwrap_or_default().hash(&mut h);
    }
    h.finish()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// `target/exercises/NAME/status`: `green|red HASH REDS`.
pub(super) fn status_path(root: &Path, e: &Exercise) -> PathBuf {
    state_dir(root, e).join("status")
}

/// The last check's verdict, the hash it holds for, and the red checks so far.
pub(super) fn saved(root: &Path, e: &Exercise) -> Option<(Status, u64, usize)> {
    let text = std::fs::read_to_string(status_path(root, e)).ok()?;
    let mut parts = text.split_whitespace();
    let status = match parts.next()? {
        "green" => Status::Green,
        "red" => Status::Red,
        _ => return None,
    };
    Some((
        status,
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
    ))
}

pub(super) fn save(root: &Path, e: &Exercise, status: Status, reds: usize) {
    let _ = live::write(
        &status_path(root, e),
        &format!("{} {} {reds}\n", status.name(), sources_hash(root, e)),
    );
}

/// True when the exercise's function is the stub.
pub(super) fn untouched(root: &Path, e: &Exercise) -> bool {
    learner_file(root, e).is_ok_and(|text| anchor::is_stubbed(&text, e))
}

/// Where a learner stands on `e` now.
pub(super) fn status(root: &Path, e: &Exercise) -> Status {
    if !is_live(root, e) {
        return match std::fs::read_to_string(live::solved_path(root, e)) {
            Ok(verdict) if verdict.trim() == "green" => Status::Done,
            Ok(_) => Status::Solved,
            Err(_) => Status::Off,
        };
    }
    if untouched(root, e) {
        return Status::Todo;
    }
    match saved(root, e) {
        Some((status, hash, _)) if hash == sources_hash(root, e) => status,
        _ => Status::Edited,
    }
}

/// `cargo x exercise list`.
pub fn list(root: &Path) -> Result {
    println!(
        "{:<24} {:>4}  {:<7}  {:<18} {:<6} title",
        "exercise", "step", "level", "chapter", "status"
    );
    for e in EXERCISES {
        println!(
            "{:<24} {:>4}  {:<7}  {:<18} {:<6} {}",
            e.name,
            e.step,
            e.level_name(),
            format!("book/src/{}", e.chapter()),
            status(root, e).name(),
            e.title
        );
    }
    let stray: Vec<&str> = EXERCISES
        .iter()
        .filter(|e| !is_live(root, e) && untouched(root, e))
        .map(|e| e.name)
        .collect();
    println!(
        "\n{} exercises.\n\
         level:  warm-up, a few lines; core, one idea in tens of lines; long, for the fast\n\
         \x20       or a second day\n\
         status: - not started; todo: the body still says todo!(); edited: changed since\n\
         \x20       the last check; red, green: the last check's verdict; done: green, then\n\
         \x20       ended by `solve`; solved: ended by `solve` before a green check\n\n\
         `cargo x exercise start NAME` stubs one in its step's file; then `check`, `diff`,\n\
         `reset`, `solve`. Before the first, once, with a network: `cargo x exercise\n\
         prefetch` downloads the crates and builds every step's check (minutes); after it,\n\
         each `start` and `check` rebuilds only its step (seconds), offline.",
        EXERCISES.len()
    );
    for name in stray {
        println!(
            "{name}: its function says todo!() but it has no state under target/exercises/ \
             (deleted?): `cargo x exercise solve {name}` puts the step's body back"
        );
    }
    Ok(())
}
