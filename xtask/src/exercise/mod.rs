//! `cargo x exercise …`: the workshop's loop.
//!
//! - `list`: every exercise, its step, its chapter and its status (todo, red, green,
//!   or edited since the last check).
//! - `check NAME`: builds the exercise's crate, runs the gate and its tests, and says
//!   in a few lines what failed and the hint; exit status 0 only when green. Green, it
//!   also times the exercise's binary beside the step's on the bench file.
//! - `reset NAME`: restores the stub (the edited file is kept in `target/exercises/`).
//! - `prefetch`: everything a workshop needs offline: the crates, the builds of every
//!   exercise's tests, and the bench file.
//! - `generate`: writes `exercises/` and the book's exercise sections from the steps.
//! - `verify` (CI): the committed exercises are what `generate` writes now; every
//!   untouched stub is red, and every exercise is green with the solution's body.

mod catalog;
mod check;
mod generate;
mod report;
mod status;

use std::path::Path;

pub use catalog::{EXERCISES, Exercise};

/// Runs `cargo x exercise ARGS`.
pub fn exercise(root: &Path, args: &[&str]) -> Result<(), String> {
    match args {
        ["list"] => status::list(root),
        ["check", name] => check::check(root, find(name)?),
        ["reset", name] => check::reset(root, find(name)?),
        ["prefetch"] => check::prefetch(root),
        ["generate"] => write_all(root),
        ["verify"] => verify(root),
        _ => Err(
            "usage: cargo x exercise list | check NAME | reset NAME | prefetch | generate | verify"
                .into(),
        ),
    }
}

fn find(name: &str) -> Result<&'static Exercise, String> {
    catalog::find(name).ok_or_else(|| {
        let names: Vec<&str> = EXERCISES.iter().map(|e| e.name).collect();
        format!("no exercise {name:?}; there are: {}", names.join(", "))
    })
}

/// Writes every generated file, and removes generated files that are no longer made.
fn write_all(root: &Path) -> Result<(), String> {
    let files = generate::all(root)?;
    for stale in stale(root, &files)? {
        std::fs::remove_file(root.join(&stale)).map_err(|e| format!("{}: {e}", stale.display()))?;
    }
    for (path, text) in &files {
        write(&root.join(path), text)?;
    }
    println!(
        "exercise: wrote {} files for {} exercises",
        files.len(),
        EXERCISES.len()
    );
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Files under the generated folders that the generator does not write.
fn stale(root: &Path, files: &generate::Files) -> Result<Vec<std::path::PathBuf>, String> {
    let mut out = Vec::new();
    for dir in [generate::EXERCISES_DIR, generate::BOOK_DIR] {
        for path in walk(&root.join(dir)) {
            let rel = path
                .strip_prefix(root)
                .expect("under the root")
                .to_path_buf();
            if !files.contains_key(&rel) {
                out.push(rel);
            }
        }
    }
    Ok(out)
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// CI: generated equals committed; every stub red; every solution green.
fn verify(root: &Path) -> Result<(), String> {
    let files = generate::all(root)?;
    let mut drift: Vec<String> = stale(root, &files)?
        .iter()
        .map(|p| format!("{} (not generated any more)", p.display()))
        .collect();
    for (path, text) in &files {
        if std::fs::read_to_string(root.join(path)).ok().as_deref() != Some(text.as_str()) {
            drift.push(path.display().to_string());
        }
    }
    if !drift.is_empty() {
        return Err(format!(
            "the committed exercises differ from what the steps generate now; run \
             `cargo x exercise generate` and commit:\n  {}",
            drift.join("\n  ")
        ));
    }
    println!("exercise: the committed exercises are what the steps generate");
    for e in EXERCISES {
        check::verify_one(root, e)?;
    }
    println!(
        "exercise: all {} stubs are red and all {} solutions green",
        EXERCISES.len(),
        EXERCISES.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::catalog::EXERCISES;
    use super::generate::{self, Body};
    use crate::workspace_root;

    #[test]
    fn every_exercise_has_its_anchors_and_a_stub() {
        let root = workspace_root();
        for e in EXERCISES {
            let files = generate::crate_files(&root, e, Body::Stub).unwrap();
            let file = &files[&std::path::Path::new("exercises").join(e.name).join(e.file)];
            assert!(file.contains("todo!("), "{}", e.name);
            let message = format!("\"exercise {}: ", e.name);
            assert!(file.contains(&message), "{}", e.name);
            let solution = generate::crate_files(&root, e, Body::Solution).unwrap();
            let solved = &solution[&std::path::Path::new("exercises").join(e.name).join(e.file)];
            assert!(!solved.contains(&message), "{}", e.name);
        }
    }

    #[test]
    fn names_are_unique_and_two_per_step_from_2_to_8() {
        let mut names: Vec<&str> = EXERCISES.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EXERCISES.len());
        for step in 2..=8 {
            assert!(
                EXERCISES.iter().filter(|e| e.step == step).count() >= 2,
                "step {step}"
            );
        }
        assert!(EXERCISES.len() >= 14);
    }

    #[test]
    fn a_stub_keeps_the_signature_and_docs() {
        let e = &EXERCISES[0];
        let text = "\
    // ANCHOR: exercise_record_buf_field
    /// Field k.
    #[inline]
    pub fn field(
        &self,
        k: usize,
    ) -> &[u8] {
        let a = 1;
        &self.bytes[a..]
    }
    // ANCHOR_END: exercise_record_buf_field
";
        let out = generate::stub(text, e).unwrap();
        let expected = "\
    // ANCHOR: exercise_record_buf_field
    /// Field k.
    #[inline]
    pub fn field(
        &self,
        k: usize,
    ) -> &[u8] {
        todo!(";
        assert!(out.starts_with(expected), "{out}");
        assert!(out.contains("\"exercise step2-record-buf-field: "), "{out}");
        assert!(!out.contains("let a = 1"));
        assert!(out.ends_with("\n    }\n    // ANCHOR_END: exercise_record_buf_field\n"));
        assert_eq!(
            generate::body(text, e).unwrap(),
            "        let a = 1;\n        &self.bytes[a..]"
        );
    }

    #[test]
    fn a_region_without_its_closing_brace_is_refused() {
        let e = &EXERCISES[0];
        let text = "// ANCHOR: exercise_record_buf_field\nfn f() {\n}\nfn g() {}\n// ANCHOR_END: exercise_record_buf_field\n";
        assert!(generate::stub(text, e).is_err());
    }
}
