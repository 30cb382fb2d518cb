//! The README's recorded blocks. GitHub shows README.md as it is, with no includes, so
//! the README carries a copy of what it quotes from a recording, between two comments:
//!
//! ```text
//! <!-- include: book/src/results/bench-20000000/table.md -->
//! …filled by `cargo x book --readme`…
//! <!-- end include -->
//! ```
//!
//! `PATH[:ANCHOR]` is relative to the repository's root, an anchor as in mdBook's
//! `{{#include}}`. `cargo x book --readme` fills every block from its file; `cargo x
//! book` fails while a block differs from its file (a new recording not yet copied).

use std::path::Path;

use super::take_anchored;
use crate::error::{Error, Result, failed};

const END: &str = "<!-- end include -->";

/// `PATH[:ANCHOR]` of a block's first line.
fn block_target(line: &str) -> Option<&str> {
    let inner = line.trim().strip_prefix("<!-- include:")?;
    Some(inner.strip_suffix("-->")?.trim())
}

pub fn is_block_start(line: &str) -> bool {
    block_target(line).is_some()
}

pub fn is_block_end(line: &str) -> bool {
    line.trim() == END
}

/// `text` with every block filled from its file; the count of blocks.
fn fill(root: &Path, text: &str) -> Result<(String, usize)> {
    let mut out = String::new();
    let mut lines = text.lines().enumerate();
    let mut count = 0;
    while let Some((i, line)) = lines.next() {
        out += line;
        out += "\n";
        let Some(target) = block_target(line) else {
            continue;
        };
        count += 1;
        let where_ = format!("README.md:{}: <!-- include: {target} -->", i + 1);
        let (path, anchor) = match target.split_once(':') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target, None),
        };
        let body = std::fs::read_to_string(root.join(path))
            .map_err(|e| format!("{where_}: {path}: {e}"))?;
        let content = match anchor {
            Some(a) => take_anchored(&body, a)
                .ok_or_else(|| format!("{where_}: anchor `{a}` not found in {path}"))?,
            None => body,
        };
        out += content.trim_end_matches('\n');
        out += "\n";
        // Skip the old content, up to and with the end marker.
        loop {
            match lines.next() {
                Some((_, l)) if is_block_end(l) => break,
                Some((_, l)) if is_block_start(l) => {
                    return Err(failed!("{where_}: a block starts before `{END}`"));
                }
                Some(_) => {}
                None => return Err(failed!("{where_}: no `{END}` after it")),
            }
        }
        out += END;
        out += "\n";
    }
    Ok((out, count))
}

/// Fails when a block of README.md differs from its file.
pub fn check(root: &Path) -> Result<usize> {
    let path = root.join("README.md");
    let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
    let (filled, count) = fill(root, &text)?;
    if filled != text {
        return Err(
            "README.md: a recorded block differs from its recording: run `cargo x book --readme`"
                .into(),
        );
    }
    Ok(count)
}

/// `cargo x book --readme`: fills README.md's blocks from their recordings.
pub fn update(root: &Path) -> Result {
    let path = root.join("README.md");
    let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
    let (filled, count) = fill(root, &text)?;
    if filled != text {
        std::fs::write(&path, filled).map_err(Error::io(&path))?;
        println!("README.md: {count} recorded blocks filled");
    } else {
        println!("README.md: {count} recorded blocks, all up to date");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_filled_from_their_file_and_anchor() {
        let dir = std::env::temp_dir().join(format!("xtask-readme-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("rec")).unwrap();
        std::fs::write(dir.join("rec/table.md"), "| a |\n|---|\n| 1 |\n").unwrap();
        std::fs::write(
            dir.join("rec/figures.md"),
            "ANCHOR: machine\nIntel, 2 cores\nANCHOR_END: machine\n",
        )
        .unwrap();
        let text = "Intro\n<!-- include: rec/figures.md:machine -->\nold\n<!-- end include -->\n\
                    <!-- include: rec/table.md -->\n<!-- end include -->\nEnd\n";
        let (filled, count) = fill(&dir, text).unwrap();
        assert_eq!(count, 2);
        assert_eq!(
            filled,
            "Intro\n<!-- include: rec/figures.md:machine -->\nIntel, 2 cores\n<!-- end include -->\n\
             <!-- include: rec/table.md -->\n| a |\n|---|\n| 1 |\n<!-- end include -->\nEnd\n"
        );
        assert_eq!(
            fill(&dir, &filled).unwrap().0,
            filled,
            "filling twice changes nothing"
        );
        let err = fill(&dir, "<!-- include: rec/table.md -->\nno end\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no `<!-- end include -->`"), "{err}");
        let err = fill(
            &dir,
            "<!-- include: rec/figures.md:gone -->\n<!-- end include -->\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("anchor `gone` not found"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
