//! Reading a table: the manifest, then each column's files mapped as they lie, read
//! as little-endian arrays ([`ColumnFiles`], in [`crate::splayed::column`]). Only the
//! columns asked for are mapped.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use harness::query::{QueryError, find_column};
use memmap2::Mmap;

// A column's files and values are read through this module's paths too (`scan::Value`).
pub use crate::splayed::column::{ColumnFiles, Value, prefetch};
use crate::splayed::column::{offset_at, u64_at};
use crate::splayed::error::TableError;
use crate::splayed::layout::{MANIFEST, SYMBOL_BYTES, SYMBOL_OFFSETS, column_file};
use crate::splayed::manifest::Manifest;
use crate::splayed::mapped_check::{Running, Under, map_exact, map_sized, open_regular};
use crate::splayed::types::ColumnType;

/// An open table: its manifest and its symbol file, and each column's files once a
/// query asked for them (mapped once, so a second query does not fault the pages in
/// again).
pub struct SplayedTable {
    pub(crate) dir: PathBuf,
    /// What the table holds.
    pub manifest: Manifest,
    symbol_bytes: Mmap,
    symbol_offsets: Mmap,
    columns: Vec<OnceLock<ColumnFiles>>,
}

/// A column's files as [`SplayedTable::column_to_scan`] gives them.
pub(crate) enum ToScan<'t> {
    /// Checked by an earlier query.
    Checked(&'t ColumnFiles),
    /// Mapped now, every file checked but `values`, whose check the scan takes.
    Unchecked(ColumnFiles, Running),
}

impl std::ops::Deref for ToScan<'_> {
    type Target = ColumnFiles;
    fn deref(&self) -> &ColumnFiles {
        match self {
            ToScan::Checked(files) => files,
            ToScan::Unchecked(files, _) => files,
        }
    }
}

/// The largest manifest a table may have, in bytes: room for hundreds of thousands
/// of columns.
const MANIFEST_MAX: u64 = 64 << 20;

impl SplayedTable {
    /// Opens the table at `dir`: reads the manifest, maps the symbol file.
    ///
    /// # Errors
    /// [`TableError::NotATable`] when the manifest is missing (a load that did not
    /// finish), of another format, or a file's size disagrees with it.
    pub fn open(dir: &Path) -> Result<SplayedTable, TableError> {
        let not = |why: String| TableError::NotATable(dir.into(), why);
        // A manifest is a few lines a column; a larger file is not one, and is not
        // read into memory; nor is more than that of a file that grows as it is read.
        let file = open_regular(dir, &dir.join(MANIFEST))?;
        let size = file.metadata().map_or(0, |m| m.len());
        if size > MANIFEST_MAX {
            return Err(not(format!(
                "{MANIFEST}: {size} bytes is too large for one"
            )));
        }
        let mut text = Vec::with_capacity(size as usize);
        file.take(MANIFEST_MAX)
            .read_to_end(&mut text)
            .map_err(|e| not(format!("{MANIFEST}: {e}")))?;
        let json = serde_json::from_slice(&text).map_err(|e| not(format!("{MANIFEST}: {e}")))?;
        let manifest = Manifest::from_json(&json).map_err(|e| not(e.to_string()))?;
        let symbol_offsets = map_exact(
            dir,
            &manifest,
            &dir.join(SYMBOL_OFFSETS),
            8 * (manifest.symbols + 1),
            None,
        )?;
        // Each symbol is the bytes between two offsets: they must not go back, or
        // a symbol would be a slice that ends before it starts.
        let offsets = (0..=manifest.symbols as usize).map(|i| u64_at(&symbol_offsets, i));
        if let Some(id) = offsets
            .clone()
            .zip(offsets.skip(1))
            .position(|(start, end)| start > end)
        {
            return Err(not(format!(
                "{SYMBOL_OFFSETS}: symbol {id} ends before it starts"
            )));
        }
        let total = u64_at(&symbol_offsets, manifest.symbols as usize);
        let symbol_bytes = map_exact(dir, &manifest, &dir.join(SYMBOL_BYTES), total, None)?;
        Ok(SplayedTable {
            dir: dir.to_path_buf(),
            columns: (0..manifest.columns.len())
                .map(|_| OnceLock::new())
                .collect(),
            manifest,
            symbol_bytes,
            symbol_offsets,
        })
    }

    /// The index of the column `name`: its name, or its 1-based position (a table
    /// loaded with `--no-header` names its columns `1`, `2`, …).
    ///
    /// # Errors
    /// As [`harness::query::find_column`].
    pub fn column_index(&self, name: &str) -> Result<usize, QueryError> {
        let names: Vec<&[u8]> = self.manifest.columns.iter().map(|c| &c.name[..]).collect();
        find_column(name, &names, true)
    }

    /// Column `k`'s files, mapped on first use (their sizes checked).
    ///
    /// # Errors
    /// As [`SplayedTable::open`].
    pub fn column(&self, k: usize) -> Result<&ColumnFiles, TableError> {
        if let Some(files) = self.columns[k].get() {
            return Ok(files);
        }
        let files = self.map_column(k, true)?;
        Ok(self.columns[k].get_or_init(|| files))
    }

    // ANCHOR: to_scan
    /// Column `k`'s files for a scan that reads every row of its `values` file: as
    /// [`SplayedTable::column`] when an earlier query checked them; else mapped with every
    /// size and every other file's checksum checked, and the `values` file's check
    /// ([`Running`]) handed to the scan, which takes it as it reads and then gives
    /// the files back to the table with [`SplayedTable::checked`].
    ///
    /// # Errors
    /// As [`SplayedTable::open`].
    pub(crate) fn column_to_scan(&self, k: usize) -> Result<ToScan<'_>, TableError> {
        if let Some(files) = self.columns[k].get() {
            return Ok(ToScan::Checked(files));
        }
        let files = self.map_column(k, false)?;
        let check = Running::new(self.ids_under(k));
        Ok(ToScan::Unchecked(files, check))
    }

    /// Ends the scan's check of column `k`'s `values` file, `check` the pieces of
    /// every range joined in file order, and keeps the files for the next query.
    ///
    /// # Errors
    /// [`TableError::NotATable`] as [`SplayedTable::open`]: the file's checksum is not the
    /// manifest's, or a symbol id lies past its bound; the scan's answer is then
    /// not to be given.
    pub(crate) fn checked(
        &self,
        k: usize,
        files: ColumnFiles,
        check: Running,
    ) -> Result<(), TableError> {
        let path = column_file(&self.dir, k, "values");
        check.finish(&self.dir, &self.manifest, &path)?;
        let _ = self.columns[k].set(files);
        Ok(())
    }
    // ANCHOR_END: to_scan

    /// The bound of column `k`'s words when they are symbol ids, which index the
    /// query's arrays and the symbol file.
    fn ids_under(&self, k: usize) -> Option<Under> {
        (self.manifest.columns[k].ty == ColumnType::String).then_some(Under {
            width: 4,
            bound: u64::from(self.manifest.columns[k].id_bound),
            what: "a symbol id",
        })
    }

    /// Column `k`'s files, mapped, each checked as [`map_exact`] does, but the
    /// `values` file only for its size unless `check_values`.
    fn map_column(&self, k: usize, check_values: bool) -> Result<ColumnFiles, TableError> {
        let ty = self.manifest.columns[k].ty;
        let rows = self.manifest.rows;
        let file = |part| column_file(&self.dir, k, part);
        // A text column's offsets are 4 or 8 bytes by its text's size, read off its
        // file; its last offset must then be that size.
        let text_bytes = match ty {
            ColumnType::Text => std::fs::metadata(file("text"))
                .map_err(|e| TableError::NotATable(self.dir.clone(), format!("col{k}.text: {e}")))?
                .len(),
            _ => 0,
        };
        let width = ty.values_width(text_bytes);
        let len = rows * width as u64;
        let values = if check_values {
            map_exact(
                &self.dir,
                &self.manifest,
                &file("values"),
                len,
                self.ids_under(k),
            )?
        } else {
            map_sized(&self.dir, &file("values"), len)?
        };
        let valid = ty
            .has_validity()
            .then(|| {
                map_exact(
                    &self.dir,
                    &self.manifest,
                    &file("valid"),
                    rows.div_ceil(64) * 8,
                    None,
                )
            })
            .transpose()?;
        let exact = (ty == ColumnType::Float64)
            .then(|| map_exact(&self.dir, &self.manifest, &file("exact"), rows * 16, None))
            .transpose()?;
        let text = (ty == ColumnType::Text)
            .then(|| {
                // The text file ends where the last row's bytes do.
                let len = rows
                    .checked_sub(1)
                    .map_or(0, |last| offset_at(&values, width, last as usize));
                map_exact(&self.dir, &self.manifest, &file("text"), len, None)
            })
            .transpose()?;
        Ok(ColumnFiles {
            ty,
            values,
            valid,
            exact,
            text,
            width,
        })
    }

    /// The bytes of symbol `id`.
    pub fn symbol(&self, id: u32) -> &[u8] {
        let (start, end) = (
            u64_at(&self.symbol_offsets, id as usize),
            u64_at(&self.symbol_offsets, id as usize + 1),
        );
        &self.symbol_bytes[start as usize..end as usize]
    }
}

impl ColumnFiles {
    /// Row `i`'s value; `table` gives the symbols.
    pub fn value<'t>(&'t self, table: &'t SplayedTable, i: usize) -> Value<'t> {
        match (self.ty, self.value_at(i)) {
            (ColumnType::String, Value::Str(id)) => Value::Str(table.symbol(u32::from_le_bytes(
                id.try_into().expect("a string column's id is 4 bytes"),
            ))),
            (_, value) => value,
        }
    }
}
