//! `cargo x book`: every `{{#include}}` of the book names an existing file and anchor,
//! inside a code fence, never by line numbers; then `mdbook build book`.

use std::path::{Path, PathBuf};

use crate::run;

/// Checks the book's includes, then builds it.
pub fn book(root: &Path) -> Result<(), String> {
    let count = check_book_includes(&root.join("book/src"))?;
    println!("book: all {count} includes name an existing file and anchor");
    run(root, "mdbook", &["build", "book"])
}

/// mdBook only warns when an include's anchor is missing, and silently includes the
/// wrong lines when code moves under a line-number include: both fail here.
fn check_book_includes(src: &Path) -> Result<usize, String> {
    let mut count = 0;
    let mut problems = Vec::new();
    for md in markdown_files(src) {
        let text = std::fs::read_to_string(&md).map_err(|e| format!("{}: {e}", md.display()))?;
        problems.extend(unfenced_code_includes(&text).into_iter().map(|t| {
            format!("{}: {{{{#include {t}}}}} is code outside a ``` fence: mdBook would render it as text", md.display())
        }));
        for (target, anchor) in includes(&text) {
            count += 1;
            let file = md.parent().unwrap_or(src).join(&target);
            let where_ = format!("{}: {{{{#include {target}}}}}", md.display());
            let Ok(body) = std::fs::read_to_string(&file) else {
                problems.push(format!("{where_}: no such file"));
                continue;
            };
            match anchor {
                None => {}
                Some(a) if a.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
                    problems.push(format!("{where_}: includes by line number; use an anchor"));
                }
                Some(a)
                    if !has_marker(&body, "ANCHOR", &a) || !has_marker(&body, "ANCHOR_END", &a) =>
                {
                    problems.push(format!(
                        "{where_}: anchor `{a}` not found (needs ANCHOR: {a} and ANCHOR_END: {a})"
                    ));
                }
                Some(_) => {}
            }
        }
    }
    if problems.is_empty() {
        Ok(count)
    } else {
        Err(problems.join("\n"))
    }
}

/// True when a line of `body` holds `MARKER: name` as mdBook reads it: the name is the
/// run of letters, digits, `_` and `-` after the colon.
fn has_marker(body: &str, marker: &str, name: &str) -> bool {
    let tag = format!("{marker}:");
    body.lines().any(|line| {
        line.match_indices(&tag).any(|(at, _)| {
            let word_before = line[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let rest = line[at + tag.len()..].trim_start();
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            !word_before && word == name
        })
    })
}

/// The includes of files other than Markdown that stand outside a fenced code block.
fn unfenced_code_includes(text: &str) -> Vec<String> {
    let mut in_fence = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence {
            found.extend(
                includes(line)
                    .into_iter()
                    .map(|(path, _)| path)
                    .filter(|p| !p.ends_with(".md")),
            );
        }
    }
    found
}

/// `(path, anchor)` of every `{{#include path[:anchor]}}` in `text`.
fn includes(text: &str) -> Vec<(String, Option<String>)> {
    text.split("{{#")
        .skip(1)
        .filter_map(|rest| {
            let inner = rest.split("}}").next()?;
            let arg = inner
                .strip_prefix("include ")
                .or_else(|| inner.strip_prefix("rustdoc_include "))?
                .trim();
            Some(match arg.split_once(':') {
                Some((path, anchor)) => (path.to_string(), Some(anchor.to_string())),
                None => (arg.to_string(), None),
            })
        })
        .collect()
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(markdown_files(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace_root;

    #[test]
    fn finds_includes_with_and_without_anchors() {
        let text = "a {{#include ../x.rs:state}} b {{#include ../y.md}} {{#title t}}";
        assert_eq!(
            includes(text),
            [
                ("../x.rs".to_string(), Some("state".to_string())),
                ("../y.md".to_string(), None)
            ]
        );
    }

    #[test]
    fn the_book_includes_resolve() {
        let src = workspace_root().join("book/src");
        assert!(check_book_includes(&src).unwrap() > 0);
    }

    #[test]
    fn a_missing_anchor_or_a_line_number_fails() {
        let dir = std::env::temp_dir().join(format!("xtask-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("code.rs"),
            "// ANCHOR: real\nfn f() {}\n// ANCHOR_END: real\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("bad.md"),
            "{{#include code.rs:gone}} {{#include code.rs:1:3}} {{#include none.rs}}",
        )
        .unwrap();
        let err = check_book_includes(&dir).unwrap_err();
        assert!(
            err.contains("anchor `gone` not found")
                && err.contains("line number")
                && err.contains("no such file"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
