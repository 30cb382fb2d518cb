//! Adding an index to a loaded table: the column read back from the table (mapped
//! and checked, as a query reads it), the index built, its three files written into
//! the table's directory, and the manifest written again to name them.
//!
//! ```text
//! the column, mapped -> each row's key (its value's bytes, and 1, or 0 for NULL)
//!   -> build (in parallel) -> the slots, a string keyed by its bytes
//!   -> col{k}.index.offsets, .rows, .slots, each synced, its CRC-32 taken
//!   -> the manifest with `index` and the three checksums, written beside the table
//!      and renamed over manifest.json: the one step that makes the index the
//!      table's; the files of an index on another column are removed after it
//! ```
//!
//! Until the rename the table is the one it was: its manifest names neither the new
//! files nor the index, and no query reads them. An error or Ctrl-C before it
//! removes them; a crash leaves them, which `verify` reports as not the manifest's
//! and the next `index` writes again.

use std::path::{Path, PathBuf};

use crate::hash_index::build::{HashIndex, build, hash_key, slots};
use crate::splayed::error::TableError;
use crate::splayed::layout::{MANIFEST, column_file, write_file, write_words};
use crate::splayed::load::{file_checksum, keep_after, keep_on_interrupt, remove_on_interrupt};
use crate::splayed::manifest::Manifest;
use crate::splayed::rows::key_of;
use crate::splayed::scan::SplayedTable;
use crate::splayed::types::ColumnType;

/// The parts of an index's files: `col{k}.index.{part}`.
pub const PARTS: [&str; 3] = ["index.offsets", "index.rows", "index.slots"];

// ANCHOR: add
/// Builds the hash index of the column `column` (its name or 1-based position) of
/// the table at `dir` on `threads` threads, and makes it part of the table; returns
/// the column's position and the index. An index on another column is replaced.
///
/// # Errors
/// [`TableError::NotATable`] for a table that does not open or whose column does not
/// match its checksum; step 10's error for a column that is not there;
/// [`TableError::Schema`] for a `text` column; [`TableError::Io`] when a file cannot
/// be written (the table is then as it was).
pub fn add(dir: &Path, column: &str, threads: usize) -> Result<(usize, HashIndex), TableError> {
    let table = SplayedTable::open(dir)?;
    let k = table.column_index(column)?;
    if table.manifest.columns[k].ty == ColumnType::Text {
        return Err(TableError::Schema(format!(
            "column {column:?} is stored as text (nearly every value distinct), which has no \
             index; --schema {column}=string interns it, and then it can have one"
        )));
    }
    let index = of_column(&table, k, threads)?;
    let mut manifest = Manifest {
        index: Some(k),
        ..table.manifest.clone()
    };
    let old = table.manifest.index.filter(|&old| old != k);
    // Until the rename no manifest names the new files: an error (a full disk) or
    // Ctrl-C removes them, and the temporary manifest. (An index on this column
    // already is the table's, and is written over.)
    let mut new = vec![temporary_manifest(dir)];
    if table.manifest.index != Some(k) {
        new.extend(PARTS.map(|part| column_file(dir, k, part)));
    }
    new.iter().for_each(|path| remove_on_interrupt(path));
    let committed = write(dir, k, &index).and_then(|written| {
        for (part, crc) in PARTS.iter().zip(written) {
            manifest.checksums.insert(format!("col{k}.{part}"), crc);
            if let Some(old) = old {
                manifest.checksums.remove(&format!("col{old}.{part}"));
            }
        }
        commit(dir, &manifest, &new)
    });
    if let Err(e) = committed {
        for path in &new {
            let _ = std::fs::remove_file(path);
            keep_on_interrupt(path);
        }
        return Err(TableError::io_write_at(dir)(e));
    }
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(TableError::io_write_at(dir))?;
    if let Some(old) = old {
        for part in PARTS {
            let _ = std::fs::remove_file(column_file(dir, old, part));
        }
    }
    Ok((k, index))
}
// ANCHOR_END: add

/// The index of column `k` of `table`, its slots keyed as
/// [`crate::hash_index::select`] looks values up: a string by its bytes, any other
/// value by its key.
///
/// # Errors
/// As [`SplayedTable::column`].
pub fn of_column(table: &SplayedTable, k: usize, threads: usize) -> Result<HashIndex, TableError> {
    let column = table.column(k)?;
    let keys: Vec<[u8; 16]> = (0..table.manifest.rows as usize)
        .map(|i| key_of(column, i))
        .collect();
    let mut index = build(&keys, threads);
    let hash = |key: &[u8; 16]| match column.ty {
        ColumnType::String => {
            hash_key(table.symbol(u32::from_le_bytes(key[..4].try_into().expect("4"))))
        }
        _ => hash_key(key),
    };
    index.slots = slots(index.groups(), |g| hash(&keys[index.first_row(g)]));
    Ok(index)
}

/// Writes column `k`'s index into `dir`, each file flushed to the disk; returns the
/// files' CRC-32s, in the order of [`PARTS`].
fn write(dir: &Path, k: usize, index: &HashIndex) -> std::io::Result<[u32; 3]> {
    let file = |part| column_file(dir, k, part);
    // Each file is made new: whatever lies in its place (an earlier index of this
    // column, a crash's leftover, a FIFO) goes first.
    for part in PARTS {
        match std::fs::remove_file(file(part)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    write_words(&file(PARTS[0]), &index.offsets, u64::to_le_bytes)?;
    write_words(&file(PARTS[1]), &index.rows, u64::to_le_bytes)?;
    write_words(&file(PARTS[2]), &index.slots, u32::to_le_bytes)?;
    Ok([
        file_checksum(&file(PARTS[0]))?,
        file_checksum(&file(PARTS[1]))?,
        file_checksum(&file(PARTS[2]))?,
    ])
}

/// Writes `manifest` beside the table at `dir` and renames it over the table's:
/// the reader sees the old manifest or the new one, never a part of either. The
/// rename takes `new` (the files it makes the table's, the temporary manifest among
/// them) off what an interrupt removes, at once ([`keep_after`]). (The caller
/// removes them when this fails, and syncs the directory when it does not.)
fn commit(dir: &Path, manifest: &Manifest, new: &[PathBuf]) -> std::io::Result<()> {
    let tmp = temporary_manifest(dir);
    let json = manifest.to_json().to_string();
    let _ = std::fs::remove_file(&tmp); // a killed process's of the same id
    write_file(&tmp, [json.as_bytes()])?;
    keep_after(new, || std::fs::rename(&tmp, dir.join(MANIFEST)))
}

/// `.NAME.manifest-PID` beside the table at `dir`, NAME cut so that the whole is a
/// file name (at most 255 bytes) whatever the table's name (a character is not cut).
fn temporary_manifest(dir: &Path) -> PathBuf {
    let name = dir
        .file_name()
        .map_or("table".into(), |n| n.to_string_lossy());
    let mut end = name.len().min(255 - 21); // `.`, `.manifest-` and a process id
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    dir.with_file_name(format!(".{}.manifest-{}", &name[..end], std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splayed::manifest::checksum;

    #[test]
    fn a_file_s_checksum_is_the_checksum_of_its_bytes() {
        let dir = std::env::temp_dir().join(format!("index-add-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7) as u8).collect();
        std::fs::write(dir.join("a"), &bytes).unwrap();
        assert_eq!(file_checksum(&dir.join("a")).unwrap(), checksum(&bytes));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
