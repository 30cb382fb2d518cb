//! The workshop's exercises: which function of which step, what the learner is asked,
//! what the check runs, and the hints. The function itself is marked in the step's
//! source by `// ANCHOR: exercise_<anchor>` and `// ANCHOR_END: exercise_<anchor>`
//! (comments: the step builds as before, `start` finds the body to stub between
//! them, and the book includes the solution through the same anchor).
//!
//! The exercises themselves are in [`parser`], [`query`] and [`scale`], by part of
//! the ladder; [`EXERCISES`] lists them in ladder order.

mod parser;
mod query;
mod scale;

/// One exercise.
pub struct Exercise {
    /// What a learner types: `cargo x exercise check step4-flag-bytes`. Also the
    /// folder of its state under `target/exercises/`.
    pub name: &'static str,
    /// The step it comes from: 2..=13.
    pub step: u32,
    /// The step's folder, from the workspace root.
    pub step_dir: &'static str,
    /// The file that holds the function, from the step's folder.
    pub file: &'static str,
    /// The anchor name after `exercise_`.
    pub anchor: &'static str,
    /// A title for the book and the list.
    pub title: &'static str,
    /// How hard it is, for a workshop's plan: 1, a warm-up of a few lines; 2, one
    /// idea in tens of lines; 3, the longest (for the fast, or a second day).
    pub level: u8,
    /// The task, as the book states it (Markdown).
    pub task: &'static str,
    /// The test families the check runs, besides the step's unit tests and the gate:
    /// modules of the step's test binary `main` (`tests/main.rs`), which the check
    /// filters on (`scan` runs `scan::…`).
    pub tests: &'static [&'static str],
    /// What those tests check, in words (Markdown).
    pub checks: &'static str,
    /// Environment of the check: the portable SIMD tier for the bitmap exercises, so
    /// that the gate runs the learner's code on every machine, ARM included.
    pub env: &'static [(&'static str, &'static str)],
    /// Hints, gentlest first; the first is also the stub's `todo!` message. They guide
    /// (where to look, what to watch for) and never spell out the body; every name
    /// they use is one of the step's ([`super::names`] checks).
    pub hints: &'static [&'static str],
}

impl Exercise {
    /// The anchor as written in the source: `exercise_flag_bytes`.
    pub fn anchor_name(&self) -> String {
        format!("exercise_{}", self.anchor)
    }

    /// The level in words: `warm-up`, `core`, `long`.
    pub fn level_name(&self) -> &'static str {
        match self.level {
            1 => "warm-up",
            2 => "core",
            _ => "long",
        }
    }

    /// The book chapter of its step, from `book/src`.
    pub fn chapter(&self) -> String {
        format!("step{}.md", self.step)
    }
}

/// Every exercise, in ladder order.
pub const EXERCISES: &[Exercise] = &[
    parser::STEP2_RECORD_BUF_FIELD,
    parser::STEP2_STATE_MACHINE,
    parser::STEP3_SPLIT_QUOTED,
    parser::STEP3_COOKED,
    parser::STEP4_FLAG_BYTES,
    parser::STEP4_FIRST_FLAGGED,
    query::STEP5_PARSE_DECIMAL,
    query::STEP5_TABLE_ENTRY,
    query::STEP6_PREFIX_XOR,
    query::STEP6_EQ_BITS,
    query::STEP7_EIGHT_DIGITS,
    query::STEP8_PARSE_FIXED,
    query::STEP9_MERGE,
    scale::STEP10_TRANSITION,
    scale::STEP10_MERGE,
    scale::STEP11_INTERN,
    scale::STEP11_NUMBER_IN_ORDER,
    scale::STEP12_SLOTS,
    scale::STEP13_PROCESS_TILE,
];

/// The exercise called `name`.
pub fn find(name: &str) -> Option<&'static Exercise> {
    EXERCISES.iter().find(|e| e.name == name)
}
