//! After pass 2: the manifest, the files that the maps do not hold, every file
//! flushed to the disk, and the rename that makes the table appear, complete.

use std::path::{Path, PathBuf};

use crate::chunks::map_chunks;
use crate::hash_index::{self, HashIndex};
use crate::splayed::encode::{Bits, ChunkColumns};
use crate::splayed::error::TableError;
use crate::splayed::layout::{self, MANIFEST};
use crate::splayed::load::files::ColumnFiles;
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
        index: None,
    }
}

// ANCHOR: write_table
/// What the load writes after pass 2: the column files (already filled through
/// their maps), the validity bits, the symbols, the index and the manifest.
pub(super) struct Written<'w> {
    pub(super) files: &'w [ColumnFiles],
    pub(super) valid: &'w [Option<Bits>],
    pub(super) symbols: &'w symbols::Symbols,
    pub(super) index: Option<&'w (usize, HashIndex)>,
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
    if let Some((k, index)) = w.index {
        hash_index::files::write(tmp, *k, index)?;
    }
    let json = w.manifest.to_json().to_string();
    layout::write_file(&tmp.join(MANIFEST), [json.as_bytes()])?;
    std::fs::File::open(tmp)?.sync_all()
}
// ANCHOR_END: write_table

// ANCHOR: staging
/// The load's temporary directory beside the table's (`temporary_dir`): removed
/// when dropped (an error, a panic) unless [`Staging::commit`] renamed it into place.
/// A crash leaves it behind, and no query opens it: it has no table's name.
pub(super) struct Staging {
    pub(super) tmp: PathBuf,
    done: bool,
}

impl Staging {
    pub(super) fn create(dir: &Path) -> Result<Staging, TableError> {
        let tmp = temporary_dir(dir);
        let _ = std::fs::remove_dir_all(&tmp); // a crashed load's leftovers, if any
        std::fs::create_dir_all(&tmp).map_err(TableError::io_at(&tmp))?;
        Ok(Staging { tmp, done: false })
    }

    /// Renames the complete table to `dir`: the one step that makes it appear.
    pub(super) fn commit(mut self, dir: &Path) -> Result<(), TableError> {
        std::fs::rename(&self.tmp, dir).map_err(TableError::io_at(dir))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}
// ANCHOR_END: staging

/// `.NAME.loading-PID` beside `dir`: the same file system, so the rename is atomic.
pub fn temporary_dir(dir: &Path) -> PathBuf {
    let name = dir
        .file_name()
        .map_or("table".into(), |n| n.to_string_lossy().into_owned());
    dir.with_file_name(format!(".{name}.loading-{}", std::process::id()))
}
