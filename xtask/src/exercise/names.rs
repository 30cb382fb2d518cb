//! The names an exercise's task and hints use exist in its step: a hint that calls a
//! function of another step (or of an older version of this one) sends a learner
//! looking for code that is not there.
//!
//! A name is every identifier in a `code span` (but a span that names a dependency of
//! the step, `fast-float2`) and every path written right before a `(` in the prose
//! (`slot_of(hash)`). Each must be a word of the step's code (`src/`, comments left
//! out, so that a name the code only mentions does not count), and a
//! `Type::function` whose type the step defines must be a `fn` of the step.

use std::collections::BTreeSet;
use std::path::Path;

use super::catalog::Exercise;
use super::live::read;
use crate::error::{Error, Result, failed};

/// A path as written: `GroupTable::entry`, `slot_of`, `LO`.
#[derive(Debug, PartialEq, Eq)]
struct Name {
    segments: Vec<String>,
}

/// The names of `text` (Markdown): all of each code span's but those of a span that
/// `manifest` (the step's `Cargo.toml`) holds, and in the prose the paths followed by
/// `(`.
fn names(text: &str, manifest: &str) -> Vec<Name> {
    let mut out = Vec::new();
    for (k, part) in text.split('`').enumerate() {
        let code = k % 2 == 1;
        if !(code && is_dependency(manifest, part)) {
            out.extend(paths(part, code));
        }
    }
    out
}

/// True when a line of `manifest` declares the package `name`: `name = …`,
/// `name.workspace = true`.
fn is_dependency(manifest: &str, name: &str) -> bool {
    !name.is_empty()
        && manifest.lines().any(|line| {
            line.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with([' ', '.', '=']))
        })
}

/// The paths of `text`: every one in code, only those called in prose. String
/// literals and numbers (`0x00FF_00FF`) are skipped; a macro (`vec!`) is Rust's.
fn paths(text: &str, code: bool) -> Vec<Name> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if code && b == b'"' {
            i += 1 + text[i + 1..].find('"').map_or(text.len(), |n| n + 1);
            continue;
        }
        if !word(b) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && word(bytes[i]) {
            i += 1;
        }
        if b.is_ascii_digit() {
            continue; // a number
        }
        let mut segments = vec![text[start..i].to_string()];
        while text[i..].starts_with("::")
            && bytes
                .get(i + 2)
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
        {
            let from = i + 2;
            i = from;
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
            segments.push(text[from..i].to_string());
        }
        let next = bytes.get(i).copied();
        if next == Some(b'!') {
            continue;
        }
        if code || next == Some(b'(') {
            out.push(Name { segments });
        }
    }
    out
}

/// The step's code: every `.rs` file under `src/`, with `//` comments (doc comments
/// included) removed.
fn step_code(root: &Path, e: &Exercise) -> Result<String> {
    let mut files = Vec::new();
    rust_files(&root.join(e.step_dir).join("src"), &mut files)?;
    let mut code = String::new();
    for file in files {
        code.push_str(&without_comments(&read(&file)?));
    }
    Ok(code)
}

/// `text` with every `//` comment removed (a string that holds `//` loses the rest of
/// its line, which only makes the check stricter).
fn without_comments(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        code.push_str(line.find("//").map_or(line, |at| &line[..at]));
        code.push('\n');
    }
    code
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result {
    for entry in std::fs::read_dir(dir).map_err(Error::io(dir))? {
        let path = entry.map_err(Error::io(dir))?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// The words of `code`: its identifiers.
fn words(code: &str) -> BTreeSet<&str> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The names of `e`'s task and hints that its step (`code`, without comments, and
/// `manifest`) does not have, one line each.
fn missing(e: &Exercise, code: &str, manifest: &str) -> Vec<String> {
    let words = words(code);
    let defines = |kind: &str, name: &str| code.contains(&format!("{kind} {name}"));
    let mut out = Vec::new();
    let texts = std::iter::once(("the task".to_string(), e.task)).chain(
        e.hints
            .iter()
            .enumerate()
            .map(|(k, h)| (format!("hint {}", k + 1), *h)),
    );
    for (what, text) in texts {
        for name in names(text, manifest) {
            let path = name.segments.join("::");
            if let Some(absent) = name.segments.iter().find(|s| !words.contains(s.as_str())) {
                out.push(format!(
                    "{what}: `{path}`: no `{absent}` in the step's code"
                ));
                continue;
            }
            // `GroupTable::find`: the step's own type, so its own function.
            if let [.., ty, function] = name.segments.as_slice()
                && ["struct", "enum", "trait", "type"]
                    .iter()
                    .any(|kind| defines(kind, ty))
                && function.starts_with(|c: char| c.is_ascii_lowercase())
                && !defines("fn", function)
            {
                out.push(format!("{what}: `{path}`: the step has no `fn {function}`"));
            }
        }
    }
    out
}

/// Every exercise's task and hints name only what its step has.
pub(super) fn check(root: &Path, exercises: &[Exercise]) -> Result {
    let mut wrong = Vec::new();
    for e in exercises {
        let code = step_code(root, e)?;
        let manifest = read(&root.join(e.step_dir).join("Cargo.toml"))?;
        for line in missing(e, &code, &manifest) {
            wrong.push(format!("{} ({}): {line}", e.name, e.step_dir));
        }
    }
    if !wrong.is_empty() {
        return Err(failed!(
            "exercises name what their step does not have (edit \
             xtask/src/exercise/catalog.rs):\n  {}",
            wrong.join("\n  ")
        ));
    }
    println!("exercise: every task and hint names only what its step has");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::catalog::EXERCISES;

    fn names_of(text: &str) -> Vec<String> {
        let manifest = "[dependencies]\nfast-float2 = \"0.2\"\n";
        names(text, manifest)
            .iter()
            .map(|n| n.segments.join("::"))
            .collect()
    }

    #[test]
    fn names_are_code_spans_and_calls_in_the_prose() {
        assert_eq!(
            names_of("the slot (its first) is slot_of(hash); `GroupTable::entry` and `x.len()`"),
            ["slot_of", "GroupTable::entry", "x", "len"]
        );
        assert_eq!(
            names_of(
                "`vec![0u32; len]`, `0x00FF_00FF`, `\"a\"\"b\"c`, u64::from(b), `fast-float2`"
            ),
            ["len", "c", "u64::from"]
        );
    }

    #[test]
    fn a_function_of_another_step_is_caught() {
        let code = "pub struct GroupTable;\nimpl GroupTable {\n    fn entry(&mut self, key: &[u8]) {\n        let find = hash(key); // holds(\n    }\n}\n";
        let e = Exercise {
            task: "Write `GroupTable::find` with `hash(key)`.",
            hints: &["call holds(group, key)", "then `GroupTable::entry`"],
            ..EXERCISES[0]
        };
        assert_eq!(
            missing(&e, &without_comments(code), ""),
            [
                "the task: `GroupTable::find`: the step has no `fn find`",
                "hint 1: `holds`: no `holds` in the step's code",
            ]
        );
    }

    /// The check CI runs (`cargo test --workspace`), over the whole catalog.
    #[test]
    fn every_exercise_names_only_what_its_step_has() {
        check(&crate::workspace_root(), EXERCISES).unwrap();
    }
}
