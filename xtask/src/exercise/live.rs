//! A live exercise: its function stubbed in place, in the step's own file, and its
//! state under `target/exercises/NAME/`:
//!
//! - `start.rs`: the file as it was when the exercise started (the step's committed
//!   text, since `start` refuses a file with changes): where `solve` takes the body
//!   back from and `reset` the stub. Its presence is what makes the exercise live.
//! - `reference`: the step's binary built from that text, for the green check's speed
//!   comparison.
//! - `index`: the file's entry in git's index before `start` (`MODE BLOB`). While the
//!   exercise is live the index holds the stub, so that `git diff` (the work tree
//!   against the index) shows the learner's work and not the step's body as removed
//!   lines; `solve` puts this entry back.
//! - `status`: the last check's verdict ([`super::status`]).
//! - `yours-N.rs`: the learner's file as it was at each `reset` or `solve`.
//! - `solved`: written by `solve`, which ends the exercise: `green` when the last
//!   check was, for `list`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::anchor;
use super::catalog::{EXERCISES, Exercise};
use super::check;
use crate::error::{Error, Result, failed};

/// The cargo target folder: `CARGO_TARGET_DIR`, else `target/`.
pub(super) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), PathBuf::from)
}

/// `target/exercises/NAME/`.
pub(super) fn state_dir(root: &Path, e: &Exercise) -> PathBuf {
    target_dir(root).join("exercises").join(e.name)
}

fn start_copy(root: &Path, e: &Exercise) -> PathBuf {
    state_dir(root, e).join("start.rs")
}

fn index_copy(root: &Path, e: &Exercise) -> PathBuf {
    state_dir(root, e).join("index")
}

/// `target/exercises/NAME/solved`: the exercise ended with `solve`.
pub(super) fn solved_path(root: &Path, e: &Exercise) -> PathBuf {
    state_dir(root, e).join("solved")
}

/// The step's binary saved by `start`.
pub(super) fn reference(root: &Path, e: &Exercise) -> PathBuf {
    state_dir(root, e).join("reference")
}

/// The exercise's file in the step, from the workspace root: `steps/step4_swar/src/scan.rs`.
pub(super) fn rel_file(e: &Exercise) -> String {
    format!("{}/{}", e.step_dir, e.file)
}

pub(super) fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(Error::io(&path))
}

pub(super) fn write(path: &Path, text: &str) -> Result {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(Error::io(&dir))?;
    }
    std::fs::write(path, text).map_err(Error::io(&path))
}

/// The exercise's file as it is now.
pub(super) fn learner_file(root: &Path, e: &Exercise) -> Result<String> {
    read(&root.join(rel_file(e)))
}

/// True when `e` has been started and not solved.
pub(super) fn is_live(root: &Path, e: &Exercise) -> bool {
    start_copy(root, e).is_file()
}

/// The step's text of the file: the copy taken at `start`, else the committed one
/// (when `target/` was deleted under a live exercise).
fn step_text(root: &Path, e: &Exercise) -> Result<String> {
    if let Ok(text) = read(&start_copy(root, e)) {
        return Ok(text);
    }
    git(root, &["show", &format!("HEAD:{}", rel_file(e))]).ok_or_else(|| {
        Error::Failed(format!(
            "{}: neither {} nor git has the step's text of {}",
            e.name,
            start_copy(root, e).display(),
            rel_file(e)
        ))
    })
}

/// `git`, in the repository that holds `root`: the exercise's file is there, whatever
/// repository an inherited `GIT_DIR` (a hook, `git rebase --exec`) names.
fn git_command(root: &Path) -> Command {
    let mut git = Command::new("git");
    git.env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .current_dir(root);
    git
}

/// What `git ARGS` prints, or `None` when git is missing, or this is no git checkout,
/// or the command fails.
fn git(root: &Path, args: &[&str]) -> Option<String> {
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
fn index_entry(root: &Path, rel: &str) -> Option<String> {
    let out = git(root, &["ls-files", "--stage", "--", rel])?;
    let mut parts = out.lines().next()?.split_whitespace();
    Some(format!("{} {}", parts.next()?, parts.next()?))
}

/// The text of `rel` in git's index.
fn staged_text(root: &Path, rel: &str) -> Option<String> {
    git(root, &["show", &format!(":./{rel}")])
}

/// Makes `entry` (`MODE BLOB`) the entry of `rel` in git's index; the work tree is
/// left alone.
fn set_index_entry(root: &Path, rel: &str, entry: &str) -> Option<()> {
    let (mode, blob) = entry.trim().split_once(' ')?;
    let info = format!("{mode},{blob},{rel}");
    git(root, &["update-index", "--cacheinfo", &info]).map(drop)
}

/// Puts `text` in git's index as the content of `rel` (with the entry's mode); the work
/// tree is left alone.
fn stage(root: &Path, rel: &str, text: &str) -> Option<()> {
    let entry = index_entry(root, rel)?;
    let (mode, _) = entry.split_once(' ')?;
    let args = ["hash-object", "-w", "--stdin", "--path", rel];
    let blob = git_with_input(root, &args, Some(text))?;
    set_index_entry(root, rel, &format!("{mode} {}", blob.trim()))
}

/// What `git status` says of `rel`: `Some(true)` when it has uncommitted changes,
/// `None` when git cannot tell (no git, or no checkout).
fn has_changes(root: &Path, rel: &str) -> Option<bool> {
    git(root, &["status", "--porcelain", "--", rel]).map(|out| !out.trim().is_empty())
}

/// Why `e` may not start now, if it may not: it is live already; another exercise is
/// live; or its file has changes that `reset` and `solve` would mix with the step's
/// text.
///
/// One exercise at a time: the gate runs the whole step, so a second stub in the
/// same step would keep the first exercise red; step 11's tests compare with step 7's
/// answers, so a stub in step 7 turns step 11 red; and a check builds the whole
/// workspace's tests in one command ([`check`]), so a half-written body in one step
/// would stop another's check from compiling.
pub(super) fn refusal(root: &Path, e: &Exercise) -> Option<String> {
    if is_live(root, e) {
        return Some(format!(
            "{} is started already: `cargo x exercise check {}` (or reset, or solve)",
            e.name, e.name
        ));
    }
    if let Some(other) = EXERCISES.iter().find(|o| is_live(root, o)) {
        return Some(format!(
            "{} is live: one exercise at a time, since its stub or half-written body \
             would turn this one's check red. `cargo x exercise solve {}` ends it (your \
             version is kept under target/exercises/)",
            other.name, other.name
        ));
    }
    let rel = rel_file(e);
    if has_changes(root, &rel) == Some(true) {
        return Some(format!(
            "{rel} has uncommitted changes (`git diff {rel}`): the exercise replaces a \
             function of that file and later puts the step's text back, so commit them, \
             or move them aside, first"
        ));
    }
    None
}

/// `cargo x exercise start NAME`.
pub fn start(root: &Path, e: &Exercise) -> Result {
    if let Some(why) = refusal(root, e) {
        return Err(why.into());
    }
    let rel = rel_file(e);
    let text = read(&root.join(&rel))?;
    anchor::stub(&text, e)?;
    if has_changes(root, &rel).is_none() {
        println!(
            "(not a git checkout: the exercise keeps {rel} as it is now, and `solve` puts \
             that back)"
        );
    }
    // The reference: the step's binary as the check builds it, from the step's body.
    println!(
        "exercise {}: first, building every step's tests and binaries as they are (step \
         {}'s binary is the reference for the speed comparison). After `cargo x exercise \
         prefetch`, which builds all of them once before a workshop, this takes seconds; \
         without it, the first build takes minutes.",
        e.name, e.step
    );
    let built = match check::build(root, e)? {
        Ok(built) => built.bin,
        Err(out) => {
            return Err(failed!(
                "the steps do not build as they are:\n{}",
                check::tail(&out.stderr, 40)
            ));
        }
    };
    let reference = reference(root, e);
    write(&start_copy(root, e), &text)?;
    std::fs::copy(&built, &reference).map_err(|err| {
        let _ = std::fs::remove_file(start_copy(root, e));
        format!("{} to {}: {err}", built.display(), reference.display())
    })?;
    let staged = stub_in_place(root, e, &text)?;
    let diff = if staged {
        "`git diff` shows your work against the stub (git's index holds the stub while \
         the exercise is live, so do not commit until `solve` has put it back), as does \
         `cargo x exercise diff`"
    } else {
        "`cargo x exercise diff` shows your work against the stub"
    };
    println!(
        "\nexercise {}: {} (step {}, book/src/{})\n\n{}\n\n\
         Its body now says todo!() in {rel}: write it there. {diff}. Then:\n\n  \
         cargo x exercise check {}   # red or green, and why\n  \
         cargo x exercise reset {}   # the stub again\n  \
         cargo x exercise solve {}   # the step's body back; ends the exercise",
        e.name,
        e.title,
        e.step,
        e.chapter(),
        e.task,
        e.name,
        e.name,
        e.name
    );
    Ok(())
}

/// Puts the stub of `text` (the step's file) in `e`'s file, and in git's index when
/// git tracks the file, keeping the index entry it replaces for `solve`. True when
/// the index holds the stub.
fn stub_in_place(root: &Path, e: &Exercise, text: &str) -> Result<bool> {
    let rel = rel_file(e);
    let stubbed = anchor::stub(text, e)?;
    let _ = std::fs::remove_file(solved_path(root, e));
    let entry = index_entry(root, &rel);
    if let Some(entry) = &entry {
        write(&index_copy(root, e), entry)?;
    }
    write(&root.join(&rel), &stubbed)?;
    Ok(entry.is_some() && stage(root, &rel, &stubbed).is_some())
}

/// `text` with CR LF as LF: git's index may hold a file's lines with LF where the work
/// tree has CR LF.
fn lf(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// Keeps the learner's file as `target/exercises/NAME/yours-N.rs`, and the version in
/// git's index too when they staged one (`git add`) that is neither the file nor the
/// stub nor the step's, since `reset` and `solve` replace the index entry; each only
/// when its function is not the stub. Says where.
fn keep(root: &Path, e: &Exercise, current: &str, step: &str) -> Result {
    let mut versions = vec![("your version", current.to_string())];
    if let Some(staged) = staged_text(root, &rel_file(e))
        && ![current, step].iter().any(|t| lf(t) == lf(&staged))
    {
        versions.push(("the version you staged (`git add`)", staged));
    }
    let dir = state_dir(root, e);
    for (what, text) in versions {
        if anchor::is_stubbed(&text, e) {
            continue;
        }
        let kept = (1..)
            .map(|n| dir.join(format!("yours-{n}.rs")))
            .find(|p| !p.exists())
            .expect("a free name");
        write(&kept, &text)?;
        println!(
            "{what} is kept: {} (`cp` it over {} to take it back)",
            kept.strip_prefix(root).unwrap_or(&kept).display(),
            rel_file(e)
        );
    }
    Ok(())
}

/// `cargo x exercise reset NAME`: the stub again, in the function only, and in git's
/// index when `start` put it there.
pub fn reset(root: &Path, e: &Exercise) -> Result {
    if !is_live(root, e) {
        return Err(failed!(
            "{} is not started: `cargo x exercise start {}`",
            e.name,
            e.name
        ));
    }
    let current = learner_file(root, e)?;
    let step = step_text(root, e)?;
    let stub = anchor::stub(&step, e)?;
    keep(root, e, &current, &step)?;
    let rel = rel_file(e);
    write(
        &root.join(&rel),
        &anchor::with_region_of(&current, &stub, e)?,
    )?;
    if index_copy(root, e).is_file() && stage(root, &rel, &stub).is_none() {
        println!("(git could not stage the stub again: `cargo x exercise diff` shows your work)");
    }
    let _ = std::fs::remove_file(super::status::status_path(root, e));
    println!("exercise {}: back to the stub", e.name);
    Ok(())
}

/// `cargo x exercise solve NAME`: the step's own function back, and git's index entry
/// as it was before `start`, which ends the exercise.
pub fn solve(root: &Path, e: &Exercise) -> Result {
    let current = learner_file(root, e)?;
    if !is_live(root, e) && !anchor::is_stubbed(&current, e) {
        return Err(failed!("{} is not started", e.name));
    }
    let green = super::status::status(root, e) == super::status::Status::Green;
    let step = step_text(root, e)?;
    keep(root, e, &current, &step)?;
    let solved = anchor::with_region_of(&current, &step, e)?;
    let rel = rel_file(e);
    write(&root.join(&rel), &solved)?;
    restore_index(root, e, &step)?;
    let reference = reference(root, e);
    // The stamp that the step's binary leaves beside itself once it passed the gate.
    let stamp = reference.with_file_name("reference.gate");
    for done in [
        start_copy(root, e),
        index_copy(root, e),
        state_dir(root, e).join("stub.rs"),
        reference,
        stamp,
        super::status::status_path(root, e),
    ] {
        let _ = std::fs::remove_file(done);
    }
    write(
        &solved_path(root, e),
        if green { "green\n" } else { "not green\n" },
    )?;
    println!(
        "exercise {}: the step's body is back in {rel}; the exercise has ended",
        e.name
    );
    if solved != step {
        println!("({rel} still differs from the step outside the function: `git diff {rel}`)");
    }
    Ok(())
}

/// Git's index entry of `e`'s file as it was before `start`: the one `start` kept, or,
/// when `target/` was deleted under a live exercise and the index still holds the
/// stub, the committed one.
fn restore_index(root: &Path, e: &Exercise, step: &str) -> Result {
    let rel = rel_file(e);
    let entry = match read(&index_copy(root, e)) {
        Ok(entry) => Some(entry),
        Err(_) => {
            let stub = anchor::stub(step, e)?;
            let staged = staged_text(root, &rel).is_some_and(|t| lf(&t) == lf(&stub));
            let head = git(root, &["ls-tree", "HEAD", "--", &rel]);
            // `MODE blob BLOB\tPATH`
            let head = head.as_deref().and_then(|l| {
                let mut parts = l.split_whitespace();
                Some(format!("{} {}", parts.next()?, parts.nth(1)?))
            });
            head.filter(|_| staged)
        }
    };
    if let Some(entry) = entry
        && set_index_entry(root, &rel, &entry).is_none()
    {
        return Err(failed!(
            "the step's body is back in {rel}, but git could not put back its index \
             entry ({}): `git restore --staged {rel}` does",
            entry.trim()
        ));
    }
    Ok(())
}

/// `cargo x exercise diff [NAME]`: the learner's work against the stub (by default
/// the live exercise's).
pub fn diff(root: &Path, e: Option<&Exercise>) -> Result {
    let e = match e {
        Some(e) => e,
        None => EXERCISES
            .iter()
            .find(|e| is_live(root, e))
            .ok_or("no exercise is live: `cargo x exercise start NAME` starts one")?,
    };
    let status = diff_command(root, e)?
        .status()
        .map_err(Error::spawn("git"))?;
    // Killed by SIGPIPE: the reader stopped early (`… | head`), which is no failure.
    #[cfg(unix)]
    if std::os::unix::process::ExitStatusExt::signal(&status) == Some(13) {
        return Ok(());
    }
    match status.code() {
        Some(0) => {
            println!("{}: no change against the stub yet", rel_file(e));
            Ok(())
        }
        Some(1) => Ok(()),
        _ => Err(failed!("git diff failed ({status})")),
    }
}

/// `git diff --no-index STUB FILE`, with the stub of `e` written to
/// `target/exercises/NAME/stub.rs`: works without a checkout, and whatever the index
/// holds.
fn diff_command(root: &Path, e: &Exercise) -> Result<Command> {
    if !is_live(root, e) {
        return Err(failed!(
            "{} is not started: `cargo x exercise start {}`",
            e.name,
            e.name
        ));
    }
    let stub = state_dir(root, e).join("stub.rs");
    write(&stub, &anchor::stub(&step_text(root, e)?, e)?)?;
    let mut git = git_command(root);
    git.args(["diff", "--no-index", "--no-ext-diff", "--"])
        .arg(stub.strip_prefix(root).unwrap_or(&stub))
        .arg(rel_file(e));
    Ok(git)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::catalog::EXERCISES;

    /// A git checkout in a temporary folder holding `e`'s file, committed, with
    /// `CARGO_TARGET_DIR` unset: `target/` is under the folder.
    fn checkout(e: &Exercise, tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "xtask-exercise-{}-{tag}-{}",
            e.name,
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let text = read(&crate::workspace_root().join(rel_file(e))).unwrap();
        write(&dir.join(rel_file(e)), &text).unwrap();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                // Inherited (as under `git rebase --exec` or a hook), these would aim
                // `git init` and `git commit` at the workspace's own repository.
                .env_remove("GIT_DIR")
                .env_remove("GIT_WORK_TREE")
                .env_remove("GIT_INDEX_FILE")
                .current_dir(&dir)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "step"]);
        dir
    }

    #[test]
    fn start_refuses_a_file_with_changes() {
        let e = &EXERCISES[0];
        let dir = checkout(e, "dirty");
        assert_eq!(refusal(&dir, e), None);
        let path = dir.join(rel_file(e));
        let text = read(&path).unwrap();
        write(&path, &(text + "// mine\n")).unwrap();
        let why = refusal(&dir, e).expect("refused");
        assert!(why.contains("uncommitted changes"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reset_and_solve_put_back_the_stub_and_the_step_byte_for_byte() {
        if std::env::var_os("CARGO_TARGET_DIR").is_some() {
            // The state would go to the shared target folder, not the checkout's.
            return;
        }
        let e = &EXERCISES[0];
        let dir = checkout(e, "cycle");
        let path = dir.join(rel_file(e));
        let step = read(&path).unwrap();
        // What `start` does after its build.
        write(&start_copy(&dir, e), &step).unwrap();
        assert!(stub_in_place(&dir, e, &step).unwrap());
        assert!(is_live(&dir, e));
        let other = EXERCISES.last().unwrap();
        assert!(
            refusal(&dir, other)
                .unwrap()
                .contains("one exercise at a time")
        );
        let stubbed = read(&path).unwrap();
        let mine = stubbed.replace(&format!("{}{}: ", anchor::TODO_PREFIX, e.name), "mine: ");
        write(&path, &mine).unwrap();
        reset(&dir, e).unwrap();
        assert_eq!(read(&path).unwrap(), stubbed);
        assert_eq!(read(&state_dir(&dir, e).join("yours-1.rs")).unwrap(), mine);
        write(&path, &mine).unwrap();
        solve(&dir, e).unwrap();
        assert_eq!(read(&path).unwrap(), step);
        assert!(!is_live(&dir, e));
        assert_eq!(read(&state_dir(&dir, e).join("yours-2.rs")).unwrap(), mine);
        assert_eq!(has_changes(&dir, &rel_file(e)), Some(false));
        assert_eq!(
            super::super::status::status(&dir, e),
            super::super::status::Status::Solved
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The removed (`-`) and added (`+`) lines of a unified diff.
    fn changes(diff: &str) -> (Vec<&str>, Vec<&str>) {
        let lines = |sign: char| {
            diff.lines()
                .filter(|l| l.starts_with(sign) && !l.starts_with("---") && !l.starts_with("+++"))
                .map(|l| &l[1..])
                .collect()
        };
        (lines('-'), lines('+'))
    }

    #[test]
    fn git_diff_shows_the_learners_work_and_solve_leaves_the_index_as_it_was() {
        if std::env::var_os("CARGO_TARGET_DIR").is_some() {
            return;
        }
        let e = &EXERCISES[0];
        let dir = checkout(e, "index");
        let rel = rel_file(e);
        let path = dir.join(&rel);
        let step = read(&path).unwrap();
        let index_before = git(&dir, &["ls-files", "--stage"]).unwrap();
        write(&start_copy(&dir, e), &step).unwrap();
        assert!(stub_in_place(&dir, e, &step).unwrap());
        // Nothing written yet: nothing to show, although the file is not the step's.
        assert_eq!(git(&dir, &["diff"]).unwrap(), "");
        assert_ne!(git(&dir, &["diff", "HEAD"]).unwrap(), "");

        // The learner's body in place of the stub's message line.
        let stubbed = read(&path).unwrap();
        let todo = format!("{}{}: ", anchor::TODO_PREFIX, e.name);
        let mine = stubbed.replace(&todo, "mine: ");
        write(&path, &mine).unwrap();
        let todo_line = stubbed.lines().find(|l| l.contains(&todo)).unwrap();
        let mine_line = mine.lines().find(|l| l.contains("mine: ")).unwrap();
        let expected = (vec![todo_line], vec![mine_line]);
        // `git diff`: the stub's line out, the learner's in, no line of the step's body.
        let plain = git(&dir, &["diff"]).unwrap();
        assert_eq!(changes(&plain), expected, "{plain}");
        // `cargo x exercise diff`: the same, whatever the index holds.
        let out = diff_command(&dir, e).unwrap().output().unwrap();
        let shown = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(1), "{shown}");
        assert_eq!(changes(&shown), expected, "{shown}");

        // Staged by the learner, then edited again: solve keeps both versions.
        assert!(git(&dir, &["add", "--", &rel]).is_some());
        let more = mine.replace("mine: ", "mine, later: ");
        write(&path, &more).unwrap();
        solve(&dir, e).unwrap();
        let kept = |n: usize| read(&state_dir(&dir, e).join(format!("yours-{n}.rs"))).unwrap();
        assert_eq!((kept(1), kept(2)), (more, mine));
        // As it was before `start`: the file, the index, and so `git status`.
        assert_eq!(read(&path).unwrap(), step);
        assert_eq!(git(&dir, &["ls-files", "--stage"]).unwrap(), index_before);
        assert_eq!(
            git(&dir, &["status", "--porcelain", "--", &rel]).unwrap(),
            ""
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn list_shows_an_exercise_solved_after_a_green_check_as_done() {
        if std::env::var_os("CARGO_TARGET_DIR").is_some() {
            return;
        }
        use super::super::status::{Status, save, status};
        let e = &EXERCISES[0];
        let dir = checkout(e, "done");
        let step = read(&dir.join(rel_file(e))).unwrap();
        write(&start_copy(&dir, e), &step).unwrap();
        stub_in_place(&dir, e, &step).unwrap();
        write(&dir.join(rel_file(e)), &step).unwrap(); // the learner's body
        save(&dir, e, Status::Green, 2);
        assert_eq!(status(&dir, e), Status::Green);
        solve(&dir, e).unwrap();
        assert_eq!(status(&dir, e), Status::Done);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn solve_without_the_state_puts_back_the_committed_index_entry() {
        if std::env::var_os("CARGO_TARGET_DIR").is_some() {
            return;
        }
        let e = &EXERCISES[0];
        let dir = checkout(e, "lost");
        let step = read(&dir.join(rel_file(e))).unwrap();
        write(&start_copy(&dir, e), &step).unwrap();
        assert!(stub_in_place(&dir, e, &step).unwrap());
        // `target/` deleted under the live exercise.
        std::fs::remove_dir_all(dir.join("target")).unwrap();
        solve(&dir, e).unwrap();
        assert_eq!(read(&dir.join(rel_file(e))).unwrap(), step);
        assert_eq!(has_changes(&dir, &rel_file(e)), Some(false));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
