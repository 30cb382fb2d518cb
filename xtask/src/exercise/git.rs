//! git for a live exercise: the file's entry and text in git's index, set without
//! touching the work tree, and whether the file has changes.

use std::path::Path;
use std::process::Command;

/// `git`, in the repository that holds `root`: the exercise's file is there, whatever
/// repository an inherited `GIT_DIR` (a hook, `git rebase --exec`) names.
pub(super) fn git_command(root: &Path) -> Command {
    let mut git = Command::new("git");
    git.env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .current_dir(root);
    git
}

/// What `git ARGS` prints, or `None` when git is missing, or this is no git checkout,
/// or the command fails.
pub(super) fn git(root: &Path, args: &[&str]) -> Option<String> {
    git_with_input(root, args, None)
}

/// [`git`], with `input` on its standard input.
fn git_with_input(root: &Path, args: &[&str], input: Option<&str>) -> Option<String> {
    use std::io::Write;
    let mut child = git_command(root)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let written = input.is_none_or(|text| stdin.write_all(text.as_bytes()).is_ok());
    drop(stdin);
    let out = child.wait_with_output().ok()?;
    (written && out.status.success()).then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The entry of `rel` in git's index, `MODE BLOB`; `None` when it has none (not
/// tracked, or no git).
pub(super) fn index_entry(root: &Path, rel: &str) -> Option<String> {
    let out = git(root, &["ls-files", "--stage", "--", rel])?;
    let mut parts = out.lines().next()?.split_whitespace();
    Some(format!("{} {}", parts.next()?, parts.next()?))
}

/// The text of `rel` in git's index.
pub(super) fn staged_text(root: &Path, rel: &str) -> Option<String> {
    git(root, &["show", &format!(":./{rel}")])
}

/// Makes `entry` (`MODE BLOB`) the entry of `rel` in git's index; the work tree is
/// left alone.
pub(super) fn set_index_entry(root: &Path, rel: &str, entry: &str) -> Option<()> {
    let (mode, blob) = entry.trim().split_once(' ')?;
    let info = format!("{mode},{blob},{rel}");
    git(root, &["update-index", "--cacheinfo", &info]).map(drop)
}

/// Puts `text` in git's index as the content of `rel` (with the entry's mode); the work
/// tree is left alone.
pub(super) fn stage(root: &Path, rel: &str, text: &str) -> Option<()> {
    let entry = index_entry(root, rel)?;
    let (mode, _) = entry.split_once(' ')?;
    let args = ["hash-object", "-w", "--stdin", "--path", rel];
    let blob = git_with_input(root, &args, Some(text))?;
    set_index_entry(root, rel, &format!("{mode} {}", blob.trim()))
}

/// What `git status` says of `rel`: `Some(true)` when it has uncommitted changes,
/// `None` when git cannot tell (no git, or no checkout).
pub(super) fn has_changes(root: &Path, rel: &str) -> Option<bool> {
    git(root, &["status", "--porcelain", "--", rel]).map(|out| !out.trim().is_empty())
}
