//! The typed-figure check: a speed in the README or a chapter comes from a recorded run
//! (`bench.sh --record`, included from `book/src/results/`), never from typing.
//!
//! A typed figure is a number followed by `MB/s`, `GB/s`, `MiB/s`, `GiB/s` or
//! `Mrows/s`; a number followed by `x step N` or `times step N`; a speedup `N.Nx` on a
//! line that says "step"; and any number in a markdown table's column whose header
//! says one of those units or `x step`. Code fences are read too: a pasted output is a
//! typed number as much as a sentence is (include the recorded figure inside the
//! fence instead, mdBook expands includes there too).
//!
//! A figure that is not a measurement (a target, a figure quoted from another project)
//! is marked by [`NOT_MEASURED`] right after it: `2.0 GB/s<!-- not measured -->`.
//!
//! Not checked: what an include brings in (the check reads the sources: an included
//! figure is not typed there), the generated recordings (`book/src/results/`), and in
//! the README the blocks that `cargo x book --readme` fills from a recording
//! (`<!-- include: PATH[:ANCHOR] -->` … `<!-- end include -->`). There is no section
//! of old sittings where a figure may be typed: history lives in git, and a page
//! tells today's story from today's recordings.

use std::path::{Path, PathBuf};

use super::{markdown_files, readme};
use crate::error::{Error, Result};

/// Written right after a figure that is not a measurement (a target, a figure quoted
/// from elsewhere), it lets the figure stand; it does not show in the page.
pub const NOT_MEASURED: &str = "<!-- not measured -->";

/// Units that make the number before them a measured speed.
const UNITS: [&str; 5] = ["MB/s", "GB/s", "MiB/s", "GiB/s", "Mrows/s"];

/// A typed figure: where, and the text that gave it away.
#[derive(Debug, PartialEq, Eq)]
pub struct Typed {
    pub file: PathBuf,
    pub line: usize,
    pub figure: String,
}

/// Every typed figure in the README and the book's pages, by file and line.
pub fn check(root: &Path) -> Result<Vec<Typed>> {
    let src = root.join("book/src");
    let mut files = vec![root.join("README.md")];
    files.extend(
        markdown_files(&src)
            .into_iter()
            .filter(|p| !p.starts_with(src.join("results"))),
    );
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(Error::io(&file))?;
        let shown = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        found.extend(scan(&text).into_iter().map(|(line, figure)| Typed {
            file: shown.clone(),
            line,
            figure,
        }));
    }
    Ok(found)
}

/// `(line number, figure)` of every typed figure of one page.
pub fn scan(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fence: Option<&str> = None;
    let mut recorded = false;
    // The columns of the current markdown table that hold speeds, once its header and
    // separator are read.
    let mut header: Option<&str> = None;
    let mut speed_columns: Vec<usize> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
                continue;
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            continue;
        } else if readme::is_block_start(trimmed) {
            recorded = true;
        } else if readme::is_block_end(trimmed) {
            recorded = false;
        }
        if recorded {
            continue;
        }
        let text = without_includes(line);
        let mut figures = inline_figures(&text);
        // A table: the header, then the separator; speeds by column below.
        if fence.is_none() && trimmed.starts_with('|') {
            if let Some(head) = header.filter(|_| is_separator(trimmed)) {
                speed_columns = cells(head)
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| is_speed_header(h))
                    .map(|(c, _)| c)
                    .collect();
                header = None;
            } else if !speed_columns.is_empty() {
                let cells = cells(&text);
                for &c in &speed_columns {
                    if let Some(cell) = cells.get(c).filter(|c| {
                        c.bytes().any(|b| b.is_ascii_digit()) && !c.contains(NOT_MEASURED)
                    }) {
                        figures.push(format!("{} in a speed column", cell.trim()));
                    }
                }
            } else {
                header = Some(trimmed);
            }
        } else {
            header = None;
            speed_columns.clear();
        }
        found.extend(figures.into_iter().map(|f| (i + 1, f)));
    }
    found
}

/// `line` without its `{{#…}}` includes (an included figure is not a typed one, and
/// an anchor's name may hold digits).
fn without_includes(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find("{{#") {
        out += &rest[..start];
        match rest[start..].find("}}") {
            Some(end) => rest = &rest[start + end + 2..],
            None => {
                rest = "";
            }
        }
    }
    out + rest
}

/// The typed figures of one line of text: numbers before a unit of speed, before
/// `x step N` or `times step N`, and `N.Nx` on a line that says "step".
fn inline_figures(line: &str) -> Vec<String> {
    let says_step = line.to_ascii_lowercase().contains("step");
    let mut found = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // A number starts at a digit that does not continue a word (`step6`,
        // `bench-20000000`) or another number.
        let before = |back: usize| i.checked_sub(back).map(|j| bytes[j]);
        let starts_number = bytes[i].is_ascii_digit()
            && match before(1) {
                None => true,
                Some(p) if p.is_ascii_alphanumeric() || b"_.,".contains(&p) => false,
                Some(b'-') => !before(2).is_some_and(|q| q.is_ascii_alphanumeric()),
                Some(_) => true,
            };
        if !starts_number {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len()
            && (bytes[i].is_ascii_digit()
                || (b",.".contains(&bytes[i]) && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
        {
            i += 1;
        }
        let number = &line[start..i];
        let after = &line[i..];
        let spaced = after.trim_start();
        let word_after = |text: &str, word: &str| {
            text.strip_prefix(word)
                .is_some_and(|r| r.chars().next().is_none_or(|c| !c.is_alphanumeric()))
        };
        // The figure, and the text after it.
        let figure = if let Some(unit) = UNITS.iter().find(|u| word_after(spaced, u)) {
            Some((format!("{number} {unit}"), &spaced[unit.len()..]))
        } else if let Some(x) = after.strip_prefix('x').or_else(|| after.strip_prefix('×')) {
            let standalone = x.chars().next().is_none_or(|c| !c.is_alphanumeric());
            match step_number(x.trim_start()) {
                _ if !standalone => None,
                Some((n, rest)) => Some((format!("{number}x step {n}"), rest)),
                None if says_step => Some((format!("{number}x"), x)),
                None => None,
            }
        } else {
            spaced
                .strip_prefix("times")
                .and_then(|r| step_number(r.trim_start()))
                .map(|(n, rest)| (format!("{number} times step {n}"), rest))
        };
        if let Some((figure, rest)) = figure {
            if !rest.trim_start().starts_with(NOT_MEASURED) {
                found.push(figure);
            }
        }
    }
    found
}

/// `N` of text that starts `step N`, and the text after it.
fn step_number(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("step ")?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    (end > 0).then(|| rest.split_at(end))
}

fn cells(row: &str) -> Vec<&str> {
    let row = row.trim().trim_start_matches('|').trim_end_matches('|');
    row.split('|').map(str::trim).collect()
}

fn is_separator(row: &str) -> bool {
    row.contains('-')
        && row
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

fn is_speed_header(cell: &str) -> bool {
    UNITS.iter().any(|u| cell.contains(u)) || cell.contains("x step") || cell.contains("GB/s")
}

/// The report of `cargo x book --figures`, and of `cargo x book` once enforced.
pub fn report(found: &[Typed]) -> String {
    let mut out = String::new();
    for t in found {
        out += &format!("{}:{}: {}\n", t.file.display(), t.line, t.figure);
    }
    let mut files: Vec<&PathBuf> = found.iter().map(|t| &t.file).collect();
    files.dedup();
    out += &format!(
        "{} typed figures in {} files; per file: {}",
        found.len(),
        files.len(),
        files
            .iter()
            .map(|f| format!(
                "{} {}",
                f.display(),
                found.iter().filter(|t| &&t.file == f).count()
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(text: &str) -> Vec<String> {
        scan(text).into_iter().map(|(_, f)| f).collect()
    }

    #[test]
    fn a_typed_figure_is_caught_and_an_included_one_passes() {
        let typed = "Step 6 runs at 1,860 MB/s, 14.9x step 1.\n";
        assert_eq!(figures(typed), ["1,860 MB/s", "14.9x step 1"]);
        let included = "Step 6 runs at {{#include results/bench-20000000/figures.md:step6_mbps}} MB/s, \
             {{#include results/bench-20000000/figures.md:step6_x_step1}}x step 1.\n";
        assert_eq!(figures(included), Vec::<String>::new());
    }

    #[test]
    fn each_form_of_a_speed_is_caught_with_its_line() {
        let text = "intro\n\
                    step 10 at 3.5 GB/s and 12 Mrows/s\n\
                    step 7's 738 (5.8x), and 1.97 times step 5\n\
                    a 2x speedup elsewhere\n\
                    1.2x faster than step 5\n";
        assert_eq!(
            scan(text),
            [
                (2, "3.5 GB/s".to_string()),
                (2, "12 Mrows/s".to_string()),
                (3, "5.8x".to_string()),
                (3, "1.97 times step 5".to_string()),
                (5, "1.2x".to_string()),
            ]
        );
    }

    #[test]
    fn a_target_marked_as_not_measured_passes() {
        let text = "the issue asks 2.0 GB/s<!-- not measured --> and 2x step 5 <!-- not measured -->; \
                    step 6 ran 1,860 MB/s\n";
        assert_eq!(figures(text), ["1,860 MB/s"]);
        let table = "| step | target MB/s |\n|---|---:|\n| 6 | 2,000<!-- not measured --> |\n";
        assert_eq!(figures(table), Vec::<String>::new());
    }

    #[test]
    fn numbers_that_are_not_speeds_pass() {
        let text = "data/bench-20000000.csv, 49.3 MB, 20,000,001 records, 0x1F, 64 bytes, \
                    step6_mbps, 8x8 tiles, about 90 ms, MB/s in a header, 10^6 bytes\n";
        assert_eq!(figures(text), Vec::<String>::new());
    }

    #[test]
    fn a_typed_table_is_caught_by_its_columns() {
        let text = "| step | idea | MB/s | x step 1 |\n|---|---|---:|---:|\n| 1 step1 | lines | 134 | 1.0 |\n| limit | – | – | – |\n\nafter 1 step\n";
        assert_eq!(
            scan(text),
            [
                (3, "134 in a speed column".to_string()),
                (3, "1.0 in a speed column".to_string())
            ]
        );
    }

    #[test]
    fn fences_and_every_section_are_read_and_recorded_blocks_are_not() {
        let text = "```text\nstep5: 945 MB/s\n```\n\
                    ## Measured\n\
                    ## Measured in other sittings\n\
                    On 2026-11-30, Intel: 985 MB/s.\n\
                    ## Exercises\n\
                    back to the rules: 7 MB/s\n\
                    <!-- include: book/src/results/bench/table.md -->\n\
                    | 1 step1 | 134 MB/s |\n\
                    <!-- end include -->\n\
                    and 8 MB/s\n";
        assert_eq!(
            scan(text),
            [
                (2, "945 MB/s".to_string()),
                (6, "985 MB/s".to_string()),
                (8, "7 MB/s".to_string()),
                (12, "8 MB/s".to_string())
            ]
        );
    }

    #[test]
    fn the_check_skips_the_recordings_only() {
        let dir = std::env::temp_dir().join(format!("xtask-figures-{}", std::process::id()));
        let src = dir.join("book/src");
        std::fs::create_dir_all(src.join("results/bench")).unwrap();
        std::fs::write(dir.join("README.md"), "Step 6: 1,860 MB/s.\n").unwrap();
        std::fs::write(
            src.join("step6.md"),
            "# Step 6\n\n{{#include results/bench/figures.md:step6_mbps}} MB/s\n",
        )
        .unwrap();
        std::fs::write(src.join("results-history.md"), "985 MB/s\n").unwrap();
        std::fs::write(src.join("results/bench/table.md"), "| 1 | 134 MB/s |\n").unwrap();
        let found = check(&dir).unwrap();
        assert_eq!(
            found,
            [
                Typed {
                    file: PathBuf::from("README.md"),
                    line: 1,
                    figure: "1,860 MB/s".to_string()
                },
                Typed {
                    file: PathBuf::from("book/src/results-history.md"),
                    line: 1,
                    figure: "985 MB/s".to_string()
                }
            ]
        );
        assert!(report(&found).ends_with(
            "2 typed figures in 2 files; per file: README.md 1, book/src/results-history.md 1"
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
