//! `cargo x book`: the book checked as a reader sees it.
//!
//! 1. Every `{{#include}}` of the book names an existing file and anchor, inside a code
//!    fence (for code), never by line numbers.
//! 2. The README's recorded blocks equal their recordings ([`readme`]).
//! 3. No speed is typed in the README or a chapter ([`figures`]): it is included from
//!    a recorded run (`bench.sh --record`). Listed alone by `cargo x book --figures`.
//! 4. `mdbook build book`.
//! 5. Every internal link and image of the built pages resolves, with its `#fragment`
//!    ([`links`]), and so do the README's.
//! 6. Every page opens in headless Chromium with no script error, console error,
//!    failed load, broken image, table wider than the page or empty page
//!    ([`browser`]); skipped with a line saying why when no browser is found, unless
//!    `REQUIRE_BROWSER=1` (CI).
//!
//! `cargo x book --figures` lists the typed figures; `cargo x book --readme` fills the
//! README's recorded blocks.

mod browser;
mod figures;
mod links;
mod readme;
mod recordings;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::error::{Error, Result, failed};
use crate::run;

/// The options of `cargo x book`: none checks and builds the whole book.
#[derive(clap_derive::Args)]
pub struct Args {
    /// Only list the typed figures of the README and the chapters
    #[arg(long, conflicts_with = "readme")]
    figures: bool,
    /// Only fill the README's recorded blocks from their recordings
    #[arg(long)]
    readme: bool,
}

/// `cargo x book [--figures | --readme]`.
pub fn book(root: &Path, args: &Args) -> Result {
    if args.figures {
        let found = figures::check(root)?;
        if found.is_empty() {
            println!("book: no typed figure in the README or the chapters");
            return Ok(());
        }
        println!("{}", figures::report(&found));
        Err(figure_advice().into())
    } else if args.readme {
        readme::update(root)
    } else {
        check_and_build(
            root,
            std::env::var("REQUIRE_BROWSER").is_ok_and(|v| v == "1"),
        )
    }
}

/// The stage of `cargo x ci`: the browser check's own lints and tests, then as
/// `cargo x book`, and a missing browser fails it.
pub fn ci(root: &Path) -> Result {
    browser::lint_and_test(root)?;
    check_and_build(root, true)
}

fn figure_advice() -> String {
    format!(
        "a speed in the README or a chapter comes from a recorded run: include it from \
         book/src/results/ (book/src/results.md, \"Recording a run\"); a figure that is \
         not a measurement (a target, another project's figure, with its source) is \
         marked right after it with `{}`",
        figures::NOT_MEASURED
    )
}

/// Every check, each one's result printed as it comes; the first failures' messages
/// together at the end, so that one run shows everything a reader would meet.
fn check_and_build(root: &Path, require_browser: bool) -> Result {
    let start = Instant::now();
    let mut failed = Vec::new();
    let mut step = |result: Result<String>| match result {
        Ok(line) => println!("book: {line}"),
        Err(e) => {
            let e = e.to_string();
            println!("book: FAILED: {}", e.lines().next().unwrap_or(""));
            failed.push(e);
        }
    };
    step(
        check_book_includes(&root.join("book/src"))
            .map(|n| format!("all {n} includes name an existing file and anchor")),
    );
    step(
        readme::check(root)
            .map(|n| format!("README.md's {n} recorded blocks equal their recordings")),
    );
    step(recordings::check(root));
    step(figures::check(root).and_then(|typed| {
        if typed.is_empty() {
            Ok("no typed figure in the README or the chapters".to_string())
        } else {
            Err(failed!("{}\n{}", figures::report(&typed), figure_advice()))
        }
    }));
    run(root, "mdbook", &["build", "book"])?;
    let out = root.join("book/book");
    step(
        links::check_book(&out)
            .map(|n| format!("all {n} internal links and images of the built book resolve")),
    );
    step(
        links::check_readme(root)
            .map(|n| format!("all {n} relative links and images of README.md resolve")),
    );
    let rendered = Instant::now();
    step(
        browser::check(root, &out, require_browser).map(|outcome| match outcome {
            browser::Outcome::Checked(said) => {
                format!("{said} ({:.1} s)", rendered.elapsed().as_secs_f64())
            }
            browser::Outcome::Skipped(why) => {
                format!("SKIPPED the browser check: {why}; REQUIRE_BROWSER=1 makes this an error")
            }
        }),
    );
    println!("book: {:.1} s", start.elapsed().as_secs_f64());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n").into())
    }
}

/// mdBook only warns when an include's anchor is missing, and silently includes the
/// wrong lines when code moves under a line-number include: both fail here.
fn check_book_includes(src: &Path) -> Result<usize> {
    let mut count = 0;
    let mut problems = Vec::new();
    for md in markdown_files(src) {
        let text = std::fs::read_to_string(&md).map_err(Error::io(&md))?;
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
        Err(problems.join("\n").into())
    }
}

/// True when a line of `body` holds `MARKER: name` as mdBook reads it: the name is the
/// run of letters, digits, `_` and `-` after the colon.
fn has_marker(body: &str, marker: &str, name: &str) -> bool {
    body.lines().any(|line| line_has_marker(line, marker, name))
}

fn line_has_marker(line: &str, marker: &str, name: &str) -> bool {
    marker_names(line, marker).any(|word| word == name)
}

/// The names after each `MARKER:` of a line.
fn marker_names<'a>(line: &'a str, marker: &str) -> impl Iterator<Item = &'a str> {
    let tag = format!("{marker}:");
    let len = tag.len();
    line.match_indices(&tag)
        .map(|(at, _)| at)
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(move |at| {
            let word_before = line[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let rest = line[at + len..].trim_start();
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(rest.len());
            (!word_before).then(|| &rest[..end])
        })
}

/// The lines of `body` between `ANCHOR: name` and `ANCHOR_END: name`, other markers'
/// lines left out, joined by line breaks: what mdBook includes for `file:name`.
fn take_anchored(body: &str, name: &str) -> Option<String> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in body.lines() {
        if !inside {
            inside = line_has_marker(line, "ANCHOR", name);
        } else if line_has_marker(line, "ANCHOR_END", name) {
            return Some(lines.join("\n"));
        } else if marker_names(line, "ANCHOR").next().is_none()
            && marker_names(line, "ANCHOR_END").next().is_none()
        {
            lines.push(line);
        }
    }
    None
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

/// `(path, anchor)` of every `{{#include path[:anchor]}}` in `text`; an escaped one
/// (`\{{#include …}}`, which mdBook shows as written) is not an include.
fn includes(text: &str) -> Vec<(String, Option<String>)> {
    let mut parts = text.split("{{#");
    let mut escaped = parts.next().is_some_and(|first| first.ends_with('\\'));
    parts
        .filter_map(|rest| {
            let this_escaped = escaped;
            escaped = rest.ends_with('\\');
            if this_escaped {
                return None;
            }
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

pub(crate) fn markdown_files(dir: &Path) -> Vec<PathBuf> {
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
    fn an_escaped_include_is_text() {
        let text = r"shown: \{{#include results/KIND/figures.md:NAME}} real: {{#include a.md:x}}";
        assert_eq!(
            includes(text),
            [("a.md".to_string(), Some("x".to_string()))]
        );
    }

    #[test]
    fn anchored_lines_are_taken_as_mdbook_takes_them() {
        let body = "ANCHOR: step6_mbps\n1,860\nANCHOR_END: step6_mbps\n\
                    <!-- ANCHOR: table -->\n| a |\n<!-- ANCHOR: row -->\n| 1 |\n<!-- ANCHOR_END: row -->\n\
                    <!-- ANCHOR_END: table -->\n";
        assert_eq!(take_anchored(body, "step6_mbps").as_deref(), Some("1,860"));
        assert_eq!(take_anchored(body, "step6").as_deref(), None);
        assert_eq!(
            take_anchored(body, "table").as_deref(),
            Some("| a |\n| 1 |")
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
        let err = check_book_includes(&dir).unwrap_err().to_string();
        assert!(
            err.contains("anchor `gone` not found")
                && err.contains("line number")
                && err.contains("no such file"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
