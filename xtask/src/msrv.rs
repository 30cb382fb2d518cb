//! `cargo x msrv`: every workspace member's `rust-version` is true of its
//! dependencies: no crate it builds (its normal dependencies, all the way down, with
//! their default features, as `cargo metadata` resolves them) declares a later one.
//! Its own code is checked by clippy's `incompatible_msrv` lint (standard library
//! items newer than the declared version), which `cargo x ci` runs with warnings as
//! errors. Optional features are left out (the export tool's `arrow` needs Rust
//! 1.88, as its `Cargo.toml` says).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

use crate::error::{Error, Result};
use serde_json::Value;

/// `1.87` or `1.87.0` as `(1, 87, 0)`; a missing version is `(0, 0, 0)`.
fn version(v: &Value) -> (u64, u64, u64) {
    let mut parts = v
        .as_str()
        .unwrap_or("0")
        .split('.')
        .map(|p| p.parse().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// Checks every member; the error lists each member whose dependencies need more.
pub fn check(root: &Path) -> Result {
    let out = Command::new("cargo")
        .args(["metadata", "--format-version", "1"])
        .current_dir(root)
        .output()
        .map_err(Error::spawn("cargo metadata"))?;
    let metadata: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    let packages: HashMap<&str, &Value> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let nodes: HashMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| Some((n["id"].as_str()?, n)))
        .collect();
    let mut wrong = Vec::new();
    for member in metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let member = member.as_str().unwrap_or_default();
        let declared = &packages[member]["rust_version"];
        let needs = normal_dependencies(member, &nodes)
            .into_iter()
            .map(|id| packages[id])
            .max_by_key(|p| version(&p["rust_version"]));
        if let Some(dep) = needs.filter(|d| version(&d["rust_version"]) > version(declared)) {
            wrong.push(format!(
                "{} declares rust-version {} but {} needs {}",
                packages[member]["name"], declared, dep["name"], dep["rust_version"]
            ));
        }
    }
    if wrong.is_empty() {
        println!("msrv: every member's rust-version covers its dependencies'");
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}

/// The ids of every package `id` builds against: normal dependencies, transitively.
fn normal_dependencies<'a>(id: &'a str, nodes: &HashMap<&'a str, &'a Value>) -> BTreeSet<&'a str> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![id];
    while let Some(id) = todo.pop() {
        for dep in nodes[id]["deps"].as_array().into_iter().flatten() {
            let normal = dep["dep_kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|k| k["kind"].is_null());
            let Some(pkg) = dep["pkg"].as_str() else {
                continue;
            };
            if normal && seen.insert(pkg) {
                todo.push(pkg);
            }
        }
    }
    seen
}
