//! Where a learner stands on each exercise: todo (the stub as generated), edited
//! since the last check, red or green (`target/exercises/NAME.status` keeps the last
//! check's verdict and the hash of the sources it holds for), and `cargo x exercise
//! list`.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use super::catalog::{EXERCISES, Exercise};
use super::generate::{self, EXERCISES_DIR};

/// Where a learner stands on one exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// The body still says `todo!()` as generated.
    Todo,
    /// Edited since the last check (or never checked).
    Edited,
    /// The last check of these sources failed.
    Red,
    /// The last check of these sources passed.
    Green,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Todo => "todo",
            Status::Edited => "edited",
            Status::Red => "red",
            Status::Green => "green",
        }
    }
}

pub(super) fn crate_dir(root: &Path, e: &Exercise) -> PathBuf {
    root.join(EXERCISES_DIR).join(e.name)
}

/// The learner's file, as it is now.
pub(super) fn learner_file(root: &Path, e: &Exercise) -> Result<String, String> {
    let path = crate_dir(root, e).join(e.file);
    std::fs::read_to_string(&path).map_err(|err| {
        format!(
            "{}: {err} (run `cargo x exercise reset {}`)",
            path.display(),
            e.name
        )
    })
}

/// True when the function's body is still the generated stub.
pub(super) fn untouched(root: &Path, e: &Exercise) -> Result<bool, String> {
    let step_file = std::fs::read_to_string(root.join(e.step_dir).join(e.file))
        .map_err(|err| err.to_string())?;
    let stub = generate::body(&generate::stub(&step_file, e)?, e)?;
    Ok(generate::body(&learner_file(root, e)?, e)? == stub)
}

/// A hash of the exercise crate's sources: a check's verdict holds for these.
fn sources_hash(root: &Path, e: &Exercise) -> u64 {
    let mut h = DefaultHasher::new();
    let mut files = Vec::new();
    for dir in ["src", "tests", "kernels"] {
        collect(&crate_dir(root, e).join(dir), &mut files);
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

/// `target/exercises/NAME.status`: `green|red HASH REDS`.
pub(super) fn status_path(root: &Path, e: &Exercise) -> PathBuf {
    root.join("target/exercises")
        .join(format!("{}.status", e.name))
}

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
    let path = status_path(root, e);
    let _ = std::fs::create_dir_all(path.parent().expect("a folder"));
    let _ = std::fs::write(
        path,
        format!("{} {} {reds}\n", status.name(), sources_hash(root, e)),
    );
}

fn status(root: &Path, e: &Exercise) -> Status {
    if untouched(root, e).unwrap_or(false) {
        return Status::Todo;
    }
    match saved(root, e) {
        Some((status, hash, _)) if hash == sources_hash(root, e) => status,
        _ => Status::Edited,
    }
}

/// `cargo x exercise list`.
pub fn list(root: &Path) -> Result<(), String> {
    println!(
        "{:<24} {:>4}  {:<18} {:<7} title",
        "exercise", "step", "chapter", "status"
    );
    for e in EXERCISES {
        println!(
            "{:<24} {:>4}  {:<18} {:<7} {}",
            e.name,
            e.step,
            format!("book/src/{}", e.chapter()),
            status(root, e).name(),
            e.title
        );
    }
    println!(
        "\n{} exercises. Edit exercises/NAME/…, then `cargo x exercise check NAME`.",
        EXERCISES.len()
    );
    Ok(())
}
