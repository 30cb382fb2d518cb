//! After the rounds: `results.json`, the markdown and the chart in the run's folder
//! ([`report()`]), the notes under the table ([`notes`]), and with `--record` the copy
//! into the book ([`record`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::bench::machine::{Machine, Tree, utc_now};
use crate::bench::options::Options;
use crate::bench::run::Checks;
use crate::error::{Error, Result};
use crate::report::{Meta, RunInfo};
use crate::{chart, keys, outputs, report};

/// Where the recordings live, from the repository's root.
pub const RESULTS: &str = "book/src/results";

/// What a finished run knows besides its runs.
#[derive(Clone, Debug)]
pub struct Context<'a> {
    /// The machine it ran on.
    pub machine: &'a Machine,
    /// The work tree it measured.
    pub tree: &'a Tree,
    /// The command as typed again.
    pub command: &'a str,
    /// The recording's name.
    pub kind: &'a str,
    /// When it started, UTC.
    pub started: &'a str,
    /// The measured file.
    pub file: &'a Path,
    /// Rounds.
    pub runs: u32,
    /// Timed runs inside each step's process.
    pub in_process: u32,
}

impl Context<'_> {
    /// What `results.json` says about the run, finished now.
    pub fn meta(&self) -> Meta {
        let m = self.machine;
        Meta {
            cpu: m.cpu(),
            cpu_name: m.cpu_name.clone(),
            cpu_family: m.cpu_family.clone(),
            cpu_model: m.cpu_model.clone(),
            cores: m.cores_text(),
            memory: m.memory.clone(),
            os: m.os.clone(),
            os_release: m.os_release.clone(),
            cpu_features: m.cpu_features.clone(),
            rustc: m.rustc.clone(),
            file: self.file.to_path_buf(),
            runs: self.runs,
            run: RunInfo {
                command: self.command.to_string(),
                kind: self.kind.to_string(),
                started_utc: self.started.to_string(),
                finished_utc: utc_now(),
                commit: self.tree.commit.clone().unwrap_or_default(),
                dirty: self.tree.dirty(),
                in_process: Some(self.in_process),
            },
        }
    }
}

/// Writes `results.json`, `table.md`, `figures.md`, `rows.md` and `mbps.svg` in
/// `out_dir` from the runs (`runs`: the lines of `runs.jsonl`), and prints the table
/// on stdout; returns `results.json`.
///
/// # Errors
/// [`report::rows`]' when a run is not one, [`Error::Io`] or [`Error::Draw`] when a
/// file cannot be written.
pub fn report(context: &Context, runs: &str, out_dir: &Path) -> Result<Value> {
    let meta = context.meta();
    let rows = report::rows(runs)?;
    let results = report::results(&meta, report::file_info(&meta.file)?, &rows);
    outputs::write_results(&results, out_dir)?;
    print!("{}", outputs::write_markdown(&results, out_dir)?);
    chart::write_svg(&results, &out_dir.join("mbps.svg"))?;
    Ok(results)
}

/// The lines printed under the table: whether the baseline parsed the file as the
/// first step did, a wrong answer, and what `--quick` measures.
pub fn notes(checks: &Checks, options: &Options, file: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let first = checks.first.as_ref().map_or("", |(name, _)| name.as_str());
    if let Some(note) = &checks.baseline_note {
        notes.push(format!("Note: {note}"));
    } else if options.brc.is_some() {
        let reference = file.with_extension("ref.txt");
        notes.push(format!(
            "The 1BRC file has no baseline rows; every step's answer is byte-compared with \
             gen's reference in the steps' tests ({} here).",
            reference.display()
        ));
    } else {
        notes.push(format!(
            "The baseline's fingerprint equals {first}'s on this file."
        ));
    }
    if let Some(note) = &checks.answer_note {
        notes.push(format!("Note: {note}"));
    }
    if options.quick {
        notes.push(
            "Note: --quick measures a 1 MB file once: start-up, first touches and caches weigh \
             on every row (the peers' most, the limit's least), so its numbers say that the \
             pipeline works, not how fast anything is."
                .to_string(),
        );
    }
    notes
}

/// Copies the run's files from `out_dir` into `root/book/src/results/KIND/`, replacing
/// that folder wholly (no file of an older run stays beside the new ones), and with
/// `--keys` draws `keys.svg` and `keys.md` again from every keys recording.
///
/// # Errors
/// [`Error::Io`] when a file cannot be copied, [`keys::write`]'s.
pub fn record(root: &Path, out_dir: &Path, context: &Context, options: &Options) -> Result {
    let recording = PathBuf::from(RESULTS).join(context.kind);
    let to = root.join(&recording);
    if to.exists() {
        std::fs::remove_dir_all(&to).map_err(Error::io(&to))?;
    }
    std::fs::create_dir_all(&to).map_err(Error::io(&to))?;
    let mut files: Vec<PathBuf> = ["results.json", "table.md", "figures.md", "rows.md"]
        .iter()
        .map(|name| out_dir.join(name))
        .collect();
    for entry in std::fs::read_dir(out_dir).map_err(Error::io(out_dir))? {
        let path = entry.map_err(Error::io(out_dir))?.path();
        if path.extension().is_some_and(|e| e == "svg") {
            files.push(path);
        }
    }
    for from in files {
        let name = from.file_name().unwrap_or_default();
        std::fs::copy(&from, to.join(name)).map_err(Error::io(&from))?;
    }
    let commit = context.tree.commit.as_deref().unwrap_or_default();
    eprintln!(
        "Recorded the run as {}/ (commit {}{}): include its figures from there; commit it \
         with the chapters that quote it.",
        recording.display(),
        &commit[..commit.len().min(7)],
        context.tree.dirty_note()
    );
    // Every keys-N recording is a point of one chart: draw it again with this one.
    if options.keys.is_some() {
        for path in keys::write(&root.join(RESULTS))? {
            eprintln!("Wrote {}", path.display());
        }
    }
    if options.quick {
        eprintln!(
            "Note: a --quick recording measures start-up more than anything: no chapter should quote it."
        );
    }
    Ok(())
}
