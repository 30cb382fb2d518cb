//! The recordings' check: every run under `book/src/results/` names one commit, and a
//! clean tree at it, so that every figure of the README and the pages (which come
//! only from these runs, [`super::figures`]) describes one state of the code.
//!
//! A page that quotes two recordings of two commits would set figures of different
//! code side by side; a recording of a tree with uncommitted changes measured code
//! that no commit holds. Both fail; the fix is to record the runs again, together.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Result, failed};

/// One recorded run: its folder (the kind) and what its `results.json` says.
#[derive(Debug, PartialEq, Eq)]
pub struct Recording {
    /// The folder under `book/src/results/`, e.g. `bench-20000000`.
    pub kind: String,
    /// The commit the run measured (`run.commit`), in full.
    pub commit: String,
    /// Whether the tree had changes outside `book/src/results/` (`run.dirty`).
    pub dirty: bool,
}

/// Every recording under `results` (one folder with a `results.json` each), by kind.
///
/// # Errors
/// A `results.json` that cannot be read or that lacks `run.commit`.
pub fn read(results: &Path) -> Result<Vec<Recording>> {
    let mut found = Vec::new();
    let entries = std::fs::read_dir(results).map_err(Error::io(results))?;
    for entry in entries {
        let dir = entry.map_err(Error::io(results))?.path();
        let json = dir.join("results.json");
        if !json.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&json).map_err(Error::io(&json))?;
        let doc: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| failed!("{}: not JSON: {e}", json.display()))?;
        let run = &doc["run"];
        let commit = run["commit"]
            .as_str()
            .ok_or_else(|| failed!("{}: no run.commit", json.display()))?;
        found.push(Recording {
            kind: dir.file_name().unwrap_or_default().to_string_lossy().into(),
            commit: commit.to_string(),
            dirty: run["dirty"].as_bool().unwrap_or(false),
        });
    }
    found.sort_by(|a, b| a.kind.cmp(&b.kind));
    Ok(found)
}

/// `Ok(line)` when every recording names one commit and none is dirty; else an error
/// that lists the kinds by commit.
pub fn judge(recordings: &[Recording]) -> Result<String> {
    let mut by_commit: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in recordings {
        by_commit.entry(&r.commit).or_default().push(&r.kind);
    }
    let dirty: Vec<&str> = recordings
        .iter()
        .filter(|r| r.dirty)
        .map(|r| r.kind.as_str())
        .collect();
    let short = |c: &str| c.chars().take(7).collect::<String>();
    if by_commit.len() > 1 {
        let list: Vec<String> = by_commit
            .iter()
            .map(|(c, kinds)| format!("{}: {}", short(c), kinds.join(", ")))
            .collect();
        return Err(failed!(
            "the recordings name {} commits ({}): a page would set figures of different \
             code side by side; record them again at one commit",
            by_commit.len(),
            list.join("; ")
        ));
    }
    if !dirty.is_empty() {
        return Err(failed!(
            "recorded from a tree with uncommitted changes: {} (no commit holds the code \
             they measured); record them again from a clean tree",
            dirty.join(", ")
        ));
    }
    match by_commit.keys().next() {
        Some(commit) => Ok(format!(
            "all {} recordings are of commit {}, from a clean tree",
            recordings.len(),
            short(commit)
        )),
        None => Ok("no recording under book/src/results/".to_string()),
    }
}

/// [`read`] then [`judge`] the recordings of the book at `root`.
///
/// # Errors
/// As [`read`] and [`judge`].
pub fn check(root: &Path) -> Result<String> {
    judge(&read(&root.join("book/src/results"))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(kind: &str, commit: &str, dirty: bool) -> Recording {
        Recording {
            kind: kind.into(),
            commit: commit.into(),
            dirty,
        }
    }

    #[test]
    fn one_clean_commit_passes() {
        let said = judge(&[
            rec("bench", "abcdef12", false),
            rec("keys-10", "abcdef12", false),
        ]);
        assert_eq!(
            said.unwrap(),
            "all 2 recordings are of commit abcdef1, from a clean tree"
        );
    }

    #[test]
    fn two_commits_fail_and_name_each_kind() {
        let e = judge(&[
            rec("bench", "1111111aa", false),
            rec("keys-10", "2222222bb", false),
            rec("quoted", "1111111aa", false),
        ])
        .unwrap_err()
        .to_string();
        assert!(e.contains("2 commits"), "{e}");
        assert!(e.contains("1111111: bench, quoted"), "{e}");
        assert!(e.contains("2222222: keys-10"), "{e}");
    }

    #[test]
    fn a_dirty_recording_fails() {
        let e = judge(&[rec("bench", "abc", true)]).unwrap_err().to_string();
        assert!(e.contains("uncommitted changes: bench"), "{e}");
    }

    #[test]
    fn the_book_has_one_commit() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let recordings = read(&root.join("book/src/results")).unwrap();
        assert!(!recordings.is_empty());
        judge(&recordings).unwrap();
    }
}
