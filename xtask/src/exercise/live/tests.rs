//! The unit tests of [`super`]: each command in a git checkout of its own.

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
