//! After pass 2: the manifest, the files that the maps do not hold, every file
//! flushed to the disk, and the rename that makes the table appear, complete.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::pool::map_chunks;
use crate::splayed::encode::{Bits, ChunkColumns};
use crate::splayed::error::TableError;
use crate::splayed::layout::{self, MANIFEST};
use crate::splayed::load::files::ColumnFiles;
use crate::splayed::load::marker::{MARKER, create_marked, left_behind, made_by, pid_after, runs};
use crate::splayed::manifest::{Column, Manifest};
use crate::splayed::mapped::MappedFile;
use crate::splayed::symbols;
use crate::splayed::types::ColumnType;

/// The manifest of the table of `chunks`: its columns' names, types and NULLs, each
/// string column's bound on its symbol ids, its rows and symbols.
pub(super) fn manifest(
    names: Vec<Vec<u8>>,
    types: &[ColumnType],
    chunks: &[ChunkColumns<'_, '_>],
    id_bounds: &[u32],
    symbols: usize,
) -> Manifest {
    let rows: u64 = chunks.iter().map(|c| c.rows).sum();
    let columns = names
        .into_iter()
        .enumerate()
        .map(|(k, name)| {
            let valid: u64 = chunks
                .iter()
                .flat_map(|c| &c.columns[k].valid.words)
                .map(|w| u64::from(w.count_ones()))
                .sum();
            Column {
                name,
                ty: types[k],
                nulls: if types[k].has_validity() {
                    rows - valid
                } else {
                    0
                },
                id_bound: id_bounds[k],
            }
        })
        .collect();
    Manifest {
        rows,
        symbols: symbols as u64,
        columns,
        ..Manifest::default() // the checksums once the files are written: write_table
    }
}

// ANCHOR: write_table
/// What the load writes after pass 2: the column files (already filled through
/// their maps), the validity bits, the symbols and the manifest.
pub(super) struct Written<'w> {
    pub(super) files: &'w [ColumnFiles],
    pub(super) valid: &'w [Option<Bits>],
    pub(super) symbols: &'w symbols::Symbols,
    pub(super) manifest: &'w Manifest,
}

/// Writes what the maps do not hold into the staging directory `tmp`, and flushes
/// every file to the disk, one task per column; the manifest last.
pub(super) fn write_table(tmp: &Path, w: &Written<'_>, threads: usize) -> std::io::Result<()> {
    // One task per column, and one more for the symbols, so that their write
    // overlaps the columns' flushes.
    let columns = map_chunks(
        threads,
        w.files.len() + 1,
        || (),
        |(), k| {
            if k == w.files.len() {
                return layout::write_symbols(tmp, w.symbols);
            }
            let files = &w.files[k];
            files.values.sync()?;
            files.extra.as_ref().map_or(Ok(()), MappedFile::sync)?;
            w.valid[k]
                .as_ref()
                .map_or(Ok(()), |valid| layout::write_valid(tmp, k, valid))
        },
    )
    .0;
    columns.into_iter().collect::<std::io::Result<()>>()?;
    let manifest = Manifest {
        checksums: checksums(tmp, threads)?,
        ..w.manifest.clone()
    };
    let json = manifest.to_json().to_string();
    layout::write_file(&tmp.join(MANIFEST), [json.as_bytes()])?;
    std::fs::File::open(tmp)?.sync_all()
}
// ANCHOR_END: write_table

/// The CRC-32 of every file in `tmp`, by name, one task per file: read back from the
/// page cache, where the load has just written them.
fn checksums(tmp: &Path, threads: usize) -> std::io::Result<BTreeMap<String, u32>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(tmp)? {
        let name = entry?.file_name();
        if name == MARKER {
            continue; // the staging directory's, removed before the rename
        }
        names.push(
            name.into_string().map_err(|n| {
                std::io::Error::other(format!("a file name that is not UTF-8: {n:?}"))
            })?,
        );
    }
    let sums = map_chunks(
        threads,
        names.len(),
        || (),
        |(), i| file_checksum(&tmp.join(&names[i])),
    )
    .0;
    names
        .into_iter()
        .zip(sums)
        .map(|(name, sum)| Ok((name, sum?)))
        .collect()
}

/// The CRC-32 of the file at `path`, read back a block at a time (from the page
/// cache, where it was just written).
///
/// # Errors
/// The file's open or read error.
pub fn file_checksum(path: &Path) -> std::io::Result<u32> {
    let mut file = std::fs::File::open(path)?;
    let (mut crc, mut block) = (crc32fast::Hasher::new(), vec![0u8; 1 << 20]);
    loop {
        match file.read(&mut block)? {
            0 => return Ok(crc.finalize()),
            n => crc.update(&block[..n]),
        }
    }
}

// ANCHOR: staging
/// The load's temporary directory beside the table's (`temporary_dir`), made with
/// its marker first ([`create_marked`]): removed when dropped (an error, a panic)
/// unless [`Staging::commit`] renamed it into place. A load that cannot run its
/// destructors (`kill -9`, SIGBUS) leaves it behind, and no query opens it, since it
/// has no table's name; the next load of the same table removes it, proven its own
/// by the marker ([`remove_stale_staging`]).
pub(super) struct Staging {
    pub(super) tmp: PathBuf,
    done: bool,
}

impl Staging {
    pub(super) fn create(dir: &Path) -> Result<Staging, TableError> {
        let tmp = temporary_dir(dir);
        let (removed, kept) = remove_stale_staging(dir);
        for stale in removed {
            eprintln!(
                "load: removed {}, left by a load that no longer runs",
                stale.display()
            );
        }
        for complete in kept {
            eprintln!(
                "load: kept {}, left by a load that no longer runs: it holds a complete \
                 table (rename it to use it, or remove it)",
                complete.display()
            );
        }
        let mut interrupt = on_interrupt();
        create_marked(&tmp, "load", table_name(dir)).map_err(TableError::io_write_at(&tmp))?;
        interrupt.push(tmp.clone());
        Ok(Staging { tmp, done: false })
    }

    /// Renames the complete table to `dir`: the one step that makes it appear; the
    /// marker is removed just before, as it is no file of a table. Under the
    /// interrupt list's lock, so that an interrupt removes the staging directory
    /// before the rename or not at all, never half of it.
    pub(super) fn commit(mut self, dir: &Path) -> Result<(), TableError> {
        let mut interrupt = on_interrupt();
        std::fs::remove_file(self.tmp.join(MARKER)).map_err(TableError::io_write_at(&self.tmp))?;
        std::fs::rename(&self.tmp, dir).map_err(TableError::io_write_at(dir))?;
        interrupt.retain(|p| *p != self.tmp);
        self.done = true;
        Ok(())
    }
}
impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let mut interrupt = on_interrupt();
            let _ = std::fs::remove_dir_all(&self.tmp);
            interrupt.retain(|p| *p != self.tmp);
        }
    }
}

/// Directories (and files) this process removes if SIGINT or SIGTERM stops it: its
/// load's staging directory while it exists, and whatever [`remove_on_interrupt`]
/// adds.
static ON_INTERRUPT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn on_interrupt() -> MutexGuard<'static, Vec<PathBuf>> {
    ON_INTERRUPT.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes SIGINT (Ctrl-C) and SIGTERM remove the directories of `ON_INTERRUPT`, say
/// so, and exit with status 130, as a shell reports Ctrl-C. The handler runs in a
/// thread of its own (the `ctrlc` crate), where removing files is allowed, as it is
/// not in a signal handler. Call it once, from a binary: a process has one handler.
///
/// # Errors
/// When a handler is already installed.
pub fn remove_staging_on_interrupt() -> Result<(), ctrlc::Error> {
    ctrlc::set_handler(|| {
        // The lock is kept until the exit: a load cannot commit after this point.
        let paths = on_interrupt();
        for path in paths.iter() {
            let removed = match std::fs::symlink_metadata(path) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
                _ => std::fs::remove_file(path),
            };
            if removed.is_ok() {
                eprintln!("interrupted: removed {}", path.display());
            }
        }
        std::process::exit(130);
    })
}

/// Adds `dir` to what an interrupt removes ([`remove_staging_on_interrupt`]): a
/// scratch table, for as long as it exists, or a file not yet part of a table.
pub fn remove_on_interrupt(dir: &Path) {
    on_interrupt().push(dir.to_path_buf());
}

/// Runs `step`, the one step that makes `paths` part of a table (a rename), under
/// the lock of what an interrupt removes, and then takes `paths` off it: an
/// interrupt removes them before the step, or not at all.
///
/// # Errors
/// What `step` fails with; `paths` are then still removed by an interrupt.
pub fn keep_after(
    paths: &[PathBuf],
    step: impl FnOnce() -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut interrupt = on_interrupt();
    step()?;
    interrupt.retain(|p| !paths.contains(p));
    Ok(())
}

/// Takes `dir` off what an interrupt removes.
pub fn keep_on_interrupt(dir: &Path) {
    on_interrupt().retain(|p| p != dir);
}
// ANCHOR_END: staging

// ANCHOR: target
/// Checks, before anything is created, that the table can be made at `dir`: its
/// path ends in a name (not `..`, `.` or `/`, which `rename` cannot make), nothing
/// is there yet (not even a link), and its parent is a directory that exists: a
/// load makes its table's directory, never the ones above it, so that a failed load
/// leaves none behind.
///
/// # Errors
/// [`TableError::Exists`] when something is at `dir`; [`TableError::Io`] naming
/// the path or its parent otherwise.
pub(super) fn check_target(dir: &Path) -> Result<(), TableError> {
    let refuse = |path: &Path, kind, why: &str| {
        Err(TableError::Io(harness::Error::io_write(
            path,
            std::io::Error::new(kind, why),
        )))
    };
    let text = dir.as_os_str().as_encoded_bytes();
    let last = text.split(|&b| b == b'/').rfind(|c| !c.is_empty());
    if matches!(last, None | Some(b"." | b"..")) {
        return refuse(
            dir,
            std::io::ErrorKind::InvalidInput,
            "a table's path must end in its name (not .., . or /)",
        );
    }
    if std::fs::symlink_metadata(dir).is_ok() {
        return Err(TableError::Exists(dir.to_path_buf()));
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(parent) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => refuse(
            parent,
            std::io::ErrorKind::NotADirectory,
            "not a directory, so no table can be made in it",
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => refuse(
            parent,
            std::io::ErrorKind::NotFound,
            "no such directory; a load makes its table's directory, not the ones above it",
        ),
        Err(e) => Err(TableError::io_write_at(parent)(e)),
    }
}
// ANCHOR_END: target

/// The table's file name in `dir`, as bytes.
fn table_name(dir: &Path) -> &[u8] {
    dir.file_name().map_or(b"table", |n| n.as_encoded_bytes())
}

/// Bytes of a table's name that a staging directory's name keeps: a file name has
/// at most 255 bytes (`NAME_MAX`), and `.`, `.loading-` and a process id take up to
/// 20 of them. A longer name is cut; the marker holds it whole.
const NAME_KEPT: usize = 255 - 20;

/// `.NAME.loading-PID` beside `dir`: the same file system, so the rename is atomic.
pub fn temporary_dir(dir: &Path) -> PathBuf {
    dir.with_file_name(format!("{}{}", staging_prefix(dir), std::process::id()))
}

/// `.NAME.loading-`: what every load of `dir` names its staging directory with,
/// before its process id; NAME cut to [`NAME_KEPT`] bytes (a character is not cut).
fn staging_prefix(dir: &Path) -> String {
    let name = String::from_utf8_lossy(table_name(dir));
    let mut end = name.len().min(NAME_KEPT);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!(".{}.loading-", &name[..end])
}

/// Removes the staging directories of `dir` that a load of `dir` left behind (its
/// process no longer runs; [`left_behind`] proves it from the marker), and returns
/// them; and returns apart those that hold a complete table, which are kept. A
/// directory merely named like one is kept if it holds anything but the start of
/// the marker its named process would write. Only where `/proc` tells which
/// processes run (Linux); elsewhere nothing is removed.
pub fn remove_stale_staging(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let prefix = staging_prefix(dir);
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (mut removed, mut kept) = (Vec::new(), Vec::new());
    let Ok(entries) = std::fs::read_dir(parent) else {
        return (removed, kept); // no parent yet: no staging either
    };
    for entry in entries.flatten() {
        let Some(pid) = pid_after(&entry.file_name(), &prefix) else {
            continue;
        };
        let path = entry.path();
        if left_behind(&path, "load", table_name(dir), pid) {
            if std::fs::remove_dir_all(&path).is_ok() {
                removed.push(path);
            }
        } else if made_by(&path, "load", table_name(dir), pid) && runs(pid) == Some(false) {
            kept.push(path); // killed between its manifest and its rename
        }
    }
    removed.sort();
    kept.sort();
    (removed, kept)
}
