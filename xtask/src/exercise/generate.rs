//! Writing an exercise crate from its step: a copy of the step's crate in which the
//! marked function's body is `todo!("exercise NAME: HINT")`, every file headed by
//! where it came from, and the tests behind the feature `check` (so that
//! `cargo test --workspace` does not run a stub's tests, which fail by design).
//! Also the book's exercise section of each chapter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::catalog::{EXERCISES, Exercise};

/// Files by path relative to the workspace root, and their contents.
pub type Files = BTreeMap<PathBuf, String>;

/// The folder of every exercise crate, from the workspace root.
pub const EXERCISES_DIR: &str = "exercises";
/// The folder of the book's generated exercise sections, from the workspace root.
pub const BOOK_DIR: &str = "book/src/exercises";

/// The text the stub panics with; the check recognises an untouched stub by it.
pub const TODO_PREFIX: &str = "exercise ";

/// Every generated file: the exercise crates and the book sections.
pub fn all(root: &Path) -> Result<Files, String> {
    let mut files = Files::new();
    for e in EXERCISES {
        files.extend(crate_files(root, e, Body::Stub)?);
    }
    files.extend(book_sections(root)?);
    Ok(files)
}

/// What the marked function's body becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// `todo!()` with the first hint: what a learner starts from.
    Stub,
    /// The step's own body: what CI checks the tests against.
    Solution,
}

/// The files of `e`'s crate, `exercises/NAME/...`.
pub fn crate_files(root: &Path, e: &Exercise, body: Body) -> Result<Files, String> {
    let step = root.join(e.step_dir);
    let out = Path::new(EXERCISES_DIR).join(e.name);
    let lib = lib_name(e);
    let step_lib = format!("step{}", e.step);
    let mut files = Files::new();
    let tests = test_names(&step)?;
    let manifest = read(&step.join("Cargo.toml"))?;
    files.insert(out.join("Cargo.toml"), manifest_for(e, &manifest, &tests)?);
    for dir in ["src", "tests", "kernels"] {
        for path in tree(&step.join(dir))? {
            let rel = path.strip_prefix(&step).expect("under the step");
            let mut text = read(&path)?;
            if rel == Path::new(e.file) && body == Body::Stub {
                text = stub(&text, e)?;
            }
            if path.extension().is_some_and(|x| x == "rs") {
                text = rust_file(e, rel, &text, &lib, &step_lib);
            }
            files.insert(out.join(rel), text);
        }
    }
    if !files.contains_key(&out.join(e.file)) {
        return Err(format!("{}: no file {}", e.name, e.file));
    }
    Ok(files)
}

/// `step4_flag_bytes`: the library's name.
pub fn lib_name(e: &Exercise) -> String {
    e.name.replace('-', "_")
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))
}

/// Every file under `dir` (none when it does not exist), sorted.
fn tree(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(out);
    };
    for entry in entries {
        let path = entry.map_err(|err| err.to_string())?.path();
        if path.is_dir() {
            out.extend(tree(&path)?);
        } else {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// The integration test binaries of a step: the `[[test]]` names of its
/// `Cargo.toml` (`main`, and `alloc` where the step counts allocations).
fn test_names(step: &Path) -> Result<Vec<String>, String> {
    let manifest = std::fs::read_to_string(step.join("Cargo.toml"))
        .map_err(|e| format!("{}: {e}", step.display()))?;
    let mut names = Vec::new();
    let mut in_test = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_test = line == "[[test]]";
        } else if in_test && let Some(name) = line.strip_prefix("name = ") {
            names.push(name.trim_matches('"').to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// Replaces the body of the function between `e`'s anchors by the stub.
///
/// The region holds doc comments and attributes, then one `fn` whose signature ends
/// with the first line that ends in `{`, then the body, then a `}` at the signature's
/// indentation as the region's last line.
pub fn stub(text: &str, e: &Exercise) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let Parts {
        open,
        close,
        indent,
    } = parts(&lines, e)?;
    let hint = e.hints.first().copied().unwrap_or("see the book");
    // As rustfmt writes it (CI checks the format of the exercise crates too): on one
    // line when it fits in 100 columns, else the message on a line of its own.
    let message = format!("{:?}", format!("{TODO_PREFIX}{}: {hint}", e.name));
    let mut todo = format!("{indent}    todo!({message})");
    if todo.chars().count() > 100 {
        todo = format!("{indent}    todo!(\n{indent}        {message}\n{indent}    )");
    }
    let mut out: Vec<String> = lines[..=open].iter().map(|l| l.to_string()).collect();
    out.push(todo);
    out.extend(lines[close..].iter().map(|l| l.to_string()));
    Ok(out.join("\n") + "\n")
}

fn is_fn_line(line: &str) -> bool {
    let t = line.trim_start();
    !t.starts_with("//") && !t.starts_with('#') && (t.contains("fn ") && !t.starts_with("///"))
}

/// The lines strictly between `e`'s `ANCHOR` and `ANCHOR_END` lines, as a range.
pub fn region(text: &str, e: &Exercise) -> Result<(usize, usize), String> {
    region_of(&text.lines().collect::<Vec<_>>(), e)
}

fn region_of(lines: &[&str], e: &Exercise) -> Result<(usize, usize), String> {
    let name = e.anchor_name();
    let find = |marker: &str| {
        let wanted = format!("// {marker}: {name}");
        lines.iter().position(|l| l.trim() == wanted)
    };
    match (find("ANCHOR"), find("ANCHOR_END")) {
        (Some(a), Some(b)) if a < b => Ok((a + 1, b)),
        _ => Err(format!(
            "{}: no `// ANCHOR: {name}` … `// ANCHOR_END: {name}` in {}/{}",
            e.name, e.step_dir, e.file
        )),
    }
}

/// The body lines of the function in `text` (between its signature and its `}`).
pub fn body(text: &str, e: &Exercise) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let Parts { open, close, .. } = parts(&lines, e)?;
    Ok(lines[open + 1..close].join("\n"))
}

/// Where `e`'s function lies between its anchors: the line that ends its signature
/// (`{`), the line of its closing `}` (the region's last), and its indentation.
struct Parts<'t> {
    open: usize,
    close: usize,
    indent: &'t str,
}

fn parts<'t>(lines: &[&'t str], e: &Exercise) -> Result<Parts<'t>, String> {
    let (start, end) = region_of(lines, e)?;
    let fn_line = (start..end)
        .find(|&i| is_fn_line(lines[i]))
        .ok_or_else(|| format!("{}: no fn between its anchors", e.name))?;
    let open = (fn_line..end)
        .find(|&i| lines[i].trim_end().ends_with('{'))
        .ok_or_else(|| format!("{}: no `{{` ends its signature", e.name))?;
    let line = lines[fn_line];
    let indent = &line[..line.len() - line.trim_start().len()];
    let close = end - 1;
    if lines[close] != format!("{indent}}}") {
        return Err(format!(
            "{}: the line before ANCHOR_END must be the function's `}}`",
            e.name
        ));
    }
    Ok(Parts {
        open,
        close,
        indent,
    })
}

/// A Rust file of the exercise crate: the header, and the crate seen under its step's
/// name (`extern crate step4_flag_bytes as step4;`) where tests and the binary name it.
fn rust_file(e: &Exercise, rel: &Path, text: &str, lib: &str, step_lib: &str) -> String {
    let what = if rel == Path::new(e.file) {
        format!(
            "// The exercise is the function whose body says todo!(): write it here;\n\
             // `cargo x exercise reset {}` restores the stub.\n",
            e.name
        )
    } else {
        "// The step's code, unchanged: the exercise is elsewhere in this crate.\n".to_string()
    };
    let header = format!(
        "// GENERATED by `cargo x exercise generate` from {}/{}\n\
         // for the exercise `{}` (edit the step, not this copy).\n{what}",
        e.step_dir,
        rel.display(),
        e.name,
    );
    let is_lib = rel == Path::new("src/lib.rs");
    let is_root = rel == Path::new("src/main.rs")
        || (rel.starts_with("tests") && rel.components().count() == 2);
    let text = text.replace(
        &format!("CARGO_BIN_EXE_{step_lib}\""),
        &format!("CARGO_BIN_EXE_{}\"", e.name),
    );
    let inserted = if is_lib {
        // Code that only the solution used is unused in the stub.
        Some("#![allow(unused)]".to_string())
    } else if is_root {
        Some(format!("extern crate {lib} as {step_lib};"))
    } else {
        None
    };
    let Some(line) = inserted else {
        return header + &text;
    };
    // After the inner doc comment and inner attributes, before the first item.
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| {
            let t = l.trim();
            !(t.starts_with("//!") || t.starts_with("#![") || t.is_empty())
        })
        .unwrap_or(lines.len());
    let mut out: Vec<String> = lines[..at].iter().map(|l| l.to_string()).collect();
    out.push(line);
    if lines.get(at).is_some_and(|l| !l.trim().is_empty()) {
        out.push(String::new());
    }
    out.extend(lines[at..].iter().map(|l| l.to_string()));
    header + &out.join("\n") + "\n"
}

/// The exercise crate's `Cargo.toml`: the step's, renamed, its tests behind the
/// feature `check`, no benches or examples, paths one folder further.
fn manifest_for(e: &Exercise, step: &str, tests: &[String]) -> Result<String, String> {
    let mut out = format!(
        "# GENERATED by `cargo x exercise generate` from {}/Cargo.toml for the exercise\n\
         # `{}`. Its tests run only with the feature `check` (`cargo x exercise check`),\n\
         # so that `cargo test --workspace` does not run a stub's tests.\n",
        e.step_dir, e.name
    );
    let mut section = String::new();
    let mut has_features = false;
    for line in step.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            section = t.to_string();
            if section == "[[bench]]" || section == "[[test]]" {
                continue;
            }
            if section == "[features]" {
                has_features = true;
                out.push_str("[features]\ncheck = []\n");
                continue;
            }
        }
        if section == "[[bench]]" || section == "[[test]]" {
            continue;
        }
        if section == "[package]" && t.starts_with("name = ") {
            out.push_str(&format!("name = \"{}\"\n", e.name));
            continue;
        }
        if section == "[package]" && t == "autotests = false" {
            continue;
        }
        if section == "[package]" && t.starts_with("description = ") {
            out.push_str(&format!(
                "description = \"Exercise: {} (step {}, generated from {})\"\n",
                e.title, e.step, e.step_dir
            ));
            out.push_str(
                "autobins = false\nautotests = false\nautobenches = false\nautoexamples = false\n",
            );
            continue;
        }
        out.push_str(&line.replace("path = \"../", "path = \"../../steps/"));
        out.push('\n');
    }
    if !out.contains("autotests = false") {
        return Err(format!(
            "{}: the step's Cargo.toml has no description",
            e.name
        ));
    }
    if !has_features {
        out.push_str("\n[features]\ncheck = []\n");
    }
    out.push_str(&format!(
        "\n[lib]\npath = \"src/lib.rs\"\ntest = false\ndoctest = false\n\n\
         [[bin]]\nname = \"{}\"\npath = \"src/main.rs\"\ntest = false\n",
        e.name
    ));
    for t in tests {
        out.push_str(&format!(
            "\n[[test]]\nname = \"{t}\"\npath = \"tests/{t}.rs\"\nrequired-features = [\"check\"]\n"
        ));
    }
    Ok(out)
}

/// `book/src/exercises/stepN.md` for each step with exercises: each exercise's task,
/// what the check runs, its hints folded one inside the next, and the solution
/// included from the step through its anchor, folded.
fn book_sections(root: &Path) -> Result<Files, String> {
    let mut files = Files::new();
    let mut steps: Vec<u32> = EXERCISES.iter().map(|e| e.step).collect();
    steps.dedup();
    for step in steps {
        let mut text = String::from(
            "<!-- GENERATED by `cargo x exercise generate` from xtask/src/exercise/catalog.rs: \
             edit the catalog, not this file. -->\n\n\
             ### Workshop exercises\n\n\
             Each exercise is a copy of this step's crate under `exercises/` in which one \
             function's body says `todo!()`. Write the body, then run the check: it builds \
             the crate, runs the gate and the exercise's tests, and says what failed (exit \
             status 0 only when all pass; then it also compares your speed with the \
             solution's). `cargo x exercise list` shows every exercise and where you stand.\n",
        );
        for e in EXERCISES.iter().filter(|e| e.step == step) {
            text.push_str(&book_entry(root, e)?);
        }
        files.insert(Path::new(BOOK_DIR).join(format!("step{step}.md")), text);
    }
    Ok(files)
}

fn book_entry(root: &Path, e: &Exercise) -> Result<String, String> {
    // The include must resolve: the file and its anchor.
    region(&read(&root.join(e.step_dir).join(e.file))?, e)?;
    let mut hints = String::new();
    for (k, hint) in e.hints.iter().enumerate() {
        hints.push_str(&format!(
            "\n<details><summary>Hint {}</summary>\n\n{}\n",
            k + 1,
            hint
        ));
    }
    hints.push_str(&"\n</details>".repeat(e.hints.len()));
    Ok(format!(
        "\n#### {title} (`{name}`)\n\n\
         {task}\n\n\
         - Edit: `exercises/{name}/{file}`, the function that says `todo!()`.\n\
         - Check: `cargo x exercise check {name}`; start again: `cargo x exercise reset {name}`.\n\
         - The check runs {checks}.\n\
         {hints}\n\n\
         <details><summary>The solution (the step's own code)</summary>\n\n\
         ```rust\n\
         {{{{#include ../../../{dir}/{file}:{anchor}}}}}\n\
         ```\n\n\
         </details>\n",
        title = e.title,
        name = e.name,
        task = e.task,
        file = e.file,
        checks = e.checks,
        dir = e.step_dir,
        anchor = e.anchor_name(),
    ))
}
