//! `cargo stepdiff A B`: the source diff from step A to step B, the one idea B adds.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result, failed};
use crate::steps;

pub fn diff(root: &Path, a: u32, b: u32) -> Result {
    let find = |n: u32| {
        steps(root)
            .into_iter()
            .find(|(k, _)| *k == n)
            .map(|(_, dir)| dir)
            .ok_or_else(|| Error::Failed(format!("no step {n}")))
    };
    let (a, b) = (find(a)?, find(b)?);
    // A folder only one step has (step 13's kernels) is compared with an empty one, and
    // -N shows a file only one side has in full: new files are the idea too.
    let empty = root.join("target/stepdiff-empty");
    std::fs::create_dir_all(&empty).map_err(Error::io(&empty))?;
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    for folder in ["src", "kernels"] {
        let (from, to) = (a.join(folder), b.join(folder));
        if !from.is_dir() && !to.is_dir() {
            continue;
        }
        let side = |p: PathBuf| if p.is_dir() { p } else { empty.clone() };
        // diff exits 1 when the files differ, which is the expected case here.
        let status = Command::new("diff")
            .args(["-ruN", "--color=auto", &rel(&side(from)), &rel(&side(to))])
            .current_dir(root)
            .status()
            .map_err(Error::spawn("diff"))?;
        // Killed by SIGPIPE: the reader stopped early (`cargo stepdiff 3 4 | head`),
        // which is no failure, and there is nobody left to show the next folder to.
        #[cfg(unix)]
        if std::os::unix::process::ExitStatusExt::signal(&status) == Some(13) {
            return Ok(());
        }
        if status.code().is_none_or(|c| c > 1) {
            return Err(failed!("diff failed ({status})"));
        }
    }
    Ok(())
}
