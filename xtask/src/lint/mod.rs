//! `cargo x lint`: the shape of the code, where clippy has no lint for it. It reads
//! the `src/` files of every workspace member (`cargo metadata`), each as its library
//! code: comments, literals and `#[cfg(test)]` items blanked, test modules' files
//! left out ([`source`]).
//!
//! `cargo x lint` (run by `cargo x ci`) runs both checks and fails when either finds
//! something; `cargo x lint --circles` runs the second alone.
//!
//! - No `Result<_, String>` ([`strings`]); each is printed as `FILE:LINE: TYPE`.
//! - No circle between the top-level modules of one crate ([`circles`]); each is
//!   printed with one use of each edge as `FILE:LINE`.

mod circles;
mod source;
mod strings;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::error::{Error, Result, failed};

/// The options of `cargo x lint`: none runs the checks that CI enforces.
#[derive(clap_derive::Args)]
pub struct Args {
    /// Only the circles between the modules of one crate: print each, and fail when
    /// there is one
    #[arg(long)]
    circles: bool,
}

/// A workspace member's library code.
struct Crate {
    /// The package's name.
    name: String,
    /// Its folder, from the workspace's root.
    dir: PathBuf,
    /// `(path under src/, library code)`, sorted by path; no test module's file.
    files: Vec<(String, String)>,
}

/// `cargo x lint [--circles]`.
pub fn lint(root: &Path, args: &Args) -> Result {
    let crates = crates(root)?;
    if args.circles {
        check_circles(&crates)
    } else {
        check_all(&crates)
    }
}

/// What `cargo x ci` runs: `cargo x lint`.
pub fn ci(root: &Path) -> Result {
    println!("\n==> cargo x lint");
    check_all(&crates(root)?)
}

/// Every check, each run even when one before it failed, so that one run lists all
/// that is to fix; the first failure is the answer.
fn check_all(crates: &[Crate]) -> Result {
    let strings = check_strings(crates);
    let circles = check_circles(crates);
    strings.and(circles)
}

fn check_strings(crates: &[Crate]) -> Result {
    let mut found = 0;
    let mut files = 0;
    for krate in crates {
        for (path, code) in &krate.files {
            let shown = krate.dir.join("src").join(path);
            let shown = shown.to_string_lossy();
            files += 1;
            for hit in strings::string_errors(code) {
                println!("{shown}:{}: {}", hit.line, hit.text);
                found += 1;
            }
        }
    }
    if found > 0 {
        return Err(failed!(
            "lint: {found} `Result<_, String>` in library code: give each failure a type \
             (an enum; thiserror writes its messages), as harness::query::QueryError does"
        ));
    }
    println!(
        "lint: no `Result<_, String>` in the library code of {} crates ({files} files)",
        crates.len()
    );
    Ok(())
}

fn check_circles(crates: &[Crate]) -> Result {
    let mut count = 0;
    for krate in crates {
        let edges = circles::edges(&krate.files);
        for circle in circles::circles(&edges) {
            count += 1;
            println!(
                "{} ({}): {}",
                krate.name,
                krate.dir.display(),
                circle.join(" <-> ")
            );
            for e in edges
                .iter()
                .filter(|e| circle.contains(&e.from) && circle.contains(&e.to))
            {
                let file = krate.dir.join("src").join(&e.at.0);
                println!("    {} -> {}  {}:{}", e.from, e.to, file.display(), e.at.1);
            }
        }
    }
    if count > 0 {
        return Err(failed!(
            "lint: {count} circles between the modules of a crate: cut each where it first \
             appears (a type or function moved to the module both need, or to the one that \
             uses it)"
        ));
    }
    println!(
        "lint: no circle between the modules of any of {} crates",
        crates.len()
    );
    Ok(())
}

/// Every workspace member's library code, from `cargo metadata`.
fn crates(root: &Path) -> Result<Vec<Crate>> {
    let out = Command::new("cargo")
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(root)
        .output()
        .map_err(Error::spawn("cargo metadata"))?;
    let metadata: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| failed!("cargo metadata printed no JSON: {e}"))?;
    let mut crates = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let (Some(name), Some(manifest)) = (
            package["name"].as_str(),
            package["manifest_path"].as_str().map(Path::new),
        ) else {
            continue;
        };
        let dir = manifest.parent().unwrap_or(root);
        let files = library_files(&dir.join("src"))?;
        crates.push(Crate {
            name: name.to_string(),
            dir: dir.strip_prefix(root).unwrap_or(dir).to_path_buf(),
            files,
        });
    }
    crates.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(crates)
}

/// The `.rs` files under `src` as `(path under src/, library code)`, without the
/// files of test modules (`#[cfg(test)] mod tests;` in `table.rs`: `table/tests.rs`).
fn library_files(src: &Path) -> Result<Vec<(String, String)>> {
    let mut paths = Vec::new();
    walk(src, &mut paths)?;
    paths.sort();
    let mut files = Vec::new();
    let mut tests = BTreeSet::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
        let under = path.strip_prefix(src).unwrap_or(&path);
        let under = under.to_string_lossy().replace('\\', "/");
        let (code, test_modules) = source::library_code(&text);
        for module in test_modules {
            tests.insert(format!("{}{module}", children_of(&under)));
        }
        files.push((under, code));
    }
    files.retain(|(path, _)| {
        !tests.iter().any(|t| {
            path.strip_prefix(t.as_str())
                .is_some_and(|rest| rest == ".rs" || rest.starts_with('/'))
        })
    });
    Ok(files)
}

/// The folder (under src/, with its `/`) of the modules that `path` declares:
/// `lib.rs` and `a/mod.rs` declare theirs beside them, `a/b.rs` in `a/b/`.
fn children_of(path: &str) -> String {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    let dir = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    match file {
        "lib.rs" | "main.rs" | "mod.rs" => dir,
        file => format!("{dir}{}/", file.trim_end_matches(".rs")),
    }
}

fn walk(dir: &Path, into: &mut Vec<PathBuf>) -> Result {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(()); // a package without src/
    };
    for entry in entries {
        let path = entry.map_err(Error::io(dir))?.path();
        if path.is_dir() {
            walk(&path, into)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_modules_file_is_found_beside_its_declaration() {
        assert_eq!(children_of("lib.rs"), "");
        assert_eq!(children_of("table.rs"), "table/");
        assert_eq!(children_of("splayed/mod.rs"), "splayed/");
        assert_eq!(children_of("splayed/load.rs"), "splayed/load/");
    }
}
