//! `cargo x exercise …`: the workshop's loop, on the steps themselves.
//!
//! An exercise is one function of a step, marked by `// ANCHOR: exercise_*`; no copy
//! of a step is kept anywhere. `start` replaces the function's body with `todo!()`
//! in the step's own file, so a check rebuilds only that step and `git status` shows
//! the one file the learner edits; the state of a started exercise lives under
//! `target/exercises/NAME/` (`live.rs`).
//!
//! - `list`: every exercise, its step, its chapter and its status (not started,
//!   todo, edited since the last check, red, green, or ended by `solve`).
//! - `start NAME`: builds the step's check and saves its binary (the reference for
//!   the speed comparison), then stubs the function. Refused when the file has
//!   uncommitted changes or another exercise of the step is live.
//! - `check NAME`: rebuilds the step, runs its unit tests, the gate and the
//!   exercise's test families, and says in a few lines what failed and one more
//!   hint; exit status 0 only when green. Green, it also times the learner's binary
//!   beside the reference on the bench file.
//! - `reset NAME`: the stub again; `solve NAME`: the step's body back, which ends the
//!   exercise. Both keep the learner's file under `target/exercises/NAME/`.
//! - `diff [NAME]`: the learner's work against the stub. While an exercise is live,
//!   git's index holds the stub too, so that plain `git diff` shows the same and never
//!   the step's body as removed lines; `solve` puts the index entry back.
//! - `prefetch`: everything a workshop needs offline: the crates, every step's check
//!   built, and the bench file.
//! - `book`: writes the book's exercise sections (`book/src/exercises/`) from the
//!   catalog.
//! - `verify` (CI): the sections are current; every stub is red and every step's
//!   body green on the exercise's check.

mod anchor;
mod book;
mod catalog;
mod check;
mod git;
mod live;
mod names;
mod report;
mod status;
mod verify;

use std::path::Path;

use crate::error::{Error, Result};
use clap_derive::Subcommand;

pub use catalog::{EXERCISES, Exercise};

/// `cargo x exercise COMMAND`.
#[derive(Subcommand)]
pub enum Command {
    /// Every exercise, its step, its chapter and its status
    List,
    /// Stubs the exercise's function in its step (its body becomes `todo!()`)
    Start {
        /// The exercise (`cargo x exercise list` names them)
        name: String,
    },
    /// Rebuilds the step and runs the exercise's tests: red or green, and why
    Check {
        /// The exercise
        name: String,
    },
    /// The stub again (your version is kept under target/exercises/NAME/)
    Reset {
        /// The exercise
        name: String,
    },
    /// The step's body back, which ends the exercise (your version is kept)
    Solve {
        /// The exercise
        name: String,
    },
    /// Your work against the stub (as `git diff` shows it while an exercise is live)
    Diff {
        /// The exercise (default: the live one)
        name: Option<String>,
    },
    /// Everything a workshop needs offline: the crates, every check built, the bench file
    Prefetch,
    /// Writes the book's exercise sections (book/src/exercises/) from the catalog
    Book,
    /// CI: the sections are current; every stub is red and every step's body green
    Verify,
}

/// Runs `cargo x exercise COMMAND`.
pub fn run(root: &Path, command: &Command) -> Result {
    match command {
        Command::List => status::list(root),
        Command::Start { name } => live::start(root, find(name)?),
        Command::Check { name } => check::check(root, find(name)?),
        Command::Reset { name } => live::reset(root, find(name)?),
        Command::Solve { name } => live::solve(root, find(name)?),
        Command::Diff { name } => live::diff(root, name.as_deref().map(find).transpose()?),
        Command::Prefetch => check::prefetch(root),
        Command::Book => book::write(root),
        Command::Verify => verify::verify(root),
    }
}

fn find(name: &str) -> Result<&'static Exercise> {
    catalog::find(name).ok_or_else(|| {
        let names: Vec<&str> = EXERCISES.iter().map(|e| e.name).collect();
        Error::Failed(format!(
            "no exercise {name:?}; there are: {}",
            names.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::catalog::EXERCISES;

    #[test]
    fn names_are_unique_and_every_step_from_2_has_one() {
        let mut names: Vec<&str> = EXERCISES.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EXERCISES.len());
        for step in 2..=13 {
            let n = EXERCISES.iter().filter(|e| e.step == step).count();
            assert!(n >= 1, "step {step}");
            assert!(
                n >= 2 || [7, 8, 9, 12, 13].contains(&step),
                "step {step}: {n}"
            );
        }
        assert!(EXERCISES.len() >= 19);
    }

    #[test]
    fn the_catalog_is_in_ladder_order() {
        // `prefetch` builds each step once and the book writes a page per step, both
        // walking the catalog in order.
        assert!(EXERCISES.windows(2).all(|w| w[0].step <= w[1].step));
    }
}
