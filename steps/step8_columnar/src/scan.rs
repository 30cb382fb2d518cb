//! Reading a table: the manifest, then each column's files mapped as they lie, read
//! as little-endian arrays. Only the columns asked for are mapped.

use std::fs::File;
use std::path::{Path, PathBuf};

use harness::query::{QueryError, find_column};
use memmap2::Mmap;

use crate::error::TableError;
use crate::hash_index::HashIndex;
use crate::infer::ColumnType;
use crate::layout::{MANIFEST, SYMBOL_BYTES, SYMBOL_OFFSETS, column_file};
use crate::manifest::Manifest;
use crate::value::POWERS_OF_TEN;

/// An open table: its manifest and its symbol file.
pub struct Table {
    dir: PathBuf,
    /// What the table holds.
    pub manifest: Manifest,
    symbol_bytes: Mmap,
    symbol_offsets: Mmap,
}

/// One column's files, mapped.
pub struct ColumnFiles {
    /// Its type.
    pub ty: ColumnType,
    /// `col{k}.values`.
    pub values: Mmap,
    /// `col{k}.valid` (empty for a string column).
    pub valid: Option<Mmap>,
    /// `col{k}.exact` (float64 only).
    pub exact: Option<Mmap>,
}

/// Maps the file at `path`, checking that it is `len` bytes long.
fn map_exact(dir: &Path, path: &Path, len: u64) -> Result<Mmap, TableError> {
    let file = File::open(path)
        .map_err(|e| TableError::NotATable(dir.into(), format!("{}: {e}", path.display())))?;
    // SAFETY: a table's files are written once, under a temporary name, and renamed
    // into place complete; nothing in this program writes them again. Another process
    // that truncated one while it is mapped would raise SIGBUS on the next read (see
    // step 2's chapter); the size is checked here, against the manifest.
    let map =
        unsafe { Mmap::map(&file) }.map_err(|e| TableError::Io(harness::Error::io(path, e)))?;
    if map.len() as u64 != len {
        return Err(TableError::NotATable(
            dir.into(),
            format!(
                "{} has {} bytes, the manifest says {len}",
                path.display(),
                map.len()
            ),
        ));
    }
    Ok(map)
}

impl Table {
    /// Opens the table at `dir`: reads the manifest, maps the symbol file.
    ///
    /// # Errors
    /// [`TableError::NotATable`] when the manifest is missing (a load that did not
    /// finish), of another format, or a file's size disagrees with it.
    pub fn open(dir: &Path) -> Result<Table, TableError> {
        let not = |why: String| TableError::NotATable(dir.into(), why);
        let text =
            std::fs::read(dir.join(MANIFEST)).map_err(|e| not(format!("{MANIFEST}: {e}")))?;
        let json = serde_json::from_slice(&text).map_err(|e| not(format!("{MANIFEST}: {e}")))?;
        let manifest = Manifest::from_json(&json).map_err(not)?;
        let symbol_offsets = map_exact(dir, &dir.join(SYMBOL_OFFSETS), 8 * (manifest.symbols + 1))?;
        let total = u64_at(&symbol_offsets, manifest.symbols as usize);
        let symbol_bytes = map_exact(dir, &dir.join(SYMBOL_BYTES), total)?;
        Ok(Table {
            dir: dir.to_path_buf(),
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

    /// Maps column `k`'s files, checking their sizes.
    ///
    /// # Errors
    /// As [`Table::open`].
    pub fn column(&self, k: usize) -> Result<ColumnFiles, TableError> {
        let ty = self.manifest.columns[k].ty;
        let rows = self.manifest.rows;
        let file = |part| column_file(&self.dir, k, part);
        let values = map_exact(&self.dir, &file("values"), rows * ty.width() as u64)?;
        let valid = (ty != ColumnType::String)
            .then(|| map_exact(&self.dir, &file("valid"), rows.div_ceil(64) * 8))
            .transpose()?;
        let exact = (ty == ColumnType::Float64)
            .then(|| map_exact(&self.dir, &file("exact"), rows * 16))
            .transpose()?;
        Ok(ColumnFiles {
            ty,
            values,
            valid,
            exact,
        })
    }

    /// The hash index of column `k` ([`crate::hash_index`]): its offsets (groups + 1)
    /// and its rows, as `u64` arrays; `None` when the load built none on `k`.
    ///
    /// # Errors
    /// As [`Table::open`].
    pub fn index(&self, k: usize) -> Result<Option<HashIndex>, TableError> {
        if self.manifest.index != Some(k) {
            return Ok(None);
        }
        let rows = self.manifest.rows;
        let offsets_file = column_file(&self.dir, k, "index.offsets");
        let len = std::fs::metadata(&offsets_file).map_or(0, |m| m.len());
        let offsets = map_exact(&self.dir, &offsets_file, len.max(8))?;
        let row_file = map_exact(
            &self.dir,
            &column_file(&self.dir, k, "index.rows"),
            8 * rows,
        )?;
        let words = |b: &[u8]| {
            b.chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().expect("8")))
                .collect::<Vec<u64>>()
        };
        let (offsets, rows_of) = (words(&offsets), words(&row_file));
        if offsets.last() != Some(&rows) {
            return Err(TableError::NotATable(
                self.dir.clone(),
                "the index does not cover every row".into(),
            ));
        }
        Ok(Some(HashIndex {
            offsets,
            rows: rows_of,
        }))
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

/// Element `i` of a little-endian `u64` array.
fn u64_at(bytes: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
}

/// One value read back from a column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'t> {
    /// An empty field of a typed column.
    Null,
    /// `int64`.
    Int(i64),
    /// `decimal` or `float64`: the field's `f64`, as step 7's value parser gives it.
    Float(f64),
    /// `date`: days since 1970-01-01.
    Date(i32),
    /// `bool`.
    Bool(bool),
    /// `string`: the field's bytes.
    Str(&'t [u8]),
}

impl ColumnFiles {
    /// Row `i`'s value; `table` gives the symbols.
    pub fn value<'t>(&self, table: &'t Table, i: usize) -> Value<'t> {
        match self.value_at(i) {
            Value::Str(id) => Value::Str(table.symbol(u32::from_le_bytes(
                id.try_into().expect("a string column's id is 4 bytes"),
            ))),
            Value::Null => Value::Null,
            Value::Int(v) => Value::Int(v),
            Value::Float(v) => Value::Float(v),
            Value::Date(v) => Value::Date(v),
            Value::Bool(v) => Value::Bool(v),
        }
    }

    /// Row `i`'s value, a string as `Str` of its id's four bytes (no table at hand).
    #[inline]
    pub fn value_at(&self, i: usize) -> Value<'_> {
        let valid = self
            .valid
            .as_ref()
            .is_none_or(|v| v[i / 8] >> (i % 8) & 1 == 1);
        if !valid {
            return Value::Null;
        }
        let w = self.ty.width();
        let raw = &self.values[i * w..i * w + w];
        let word = |n: usize| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(raw);
            u64::from_le_bytes(b)
        };
        match self.ty {
            ColumnType::Int64 => Value::Int(word(8) as i64),
            ColumnType::Decimal { scale } => Value::Float(decimal_to_f64(word(8) as i64, scale)),
            ColumnType::Float64 => Value::Float(f64::from_bits(word(8))),
            ColumnType::Date => Value::Date(word(4) as u32 as i32),
            ColumnType::Bool => Value::Bool(raw[0] == 1),
            ColumnType::String => Value::Str(raw),
        }
    }
}

// ANCHOR: decimal_to_f64
/// The `f64` nearest to `units` x 10^-`scale` (`i64::MIN`: -0.0): the same bits as
/// parsing the field's text, because both round the same rational number correctly.
/// Clinger's fast path when it is exact, else the standard library's parse.
pub fn decimal_to_f64(units: i64, scale: u8) -> f64 {
    if units == i64::MIN {
        return -0.0;
    }
    if units.unsigned_abs() <= 1 << 53 && scale <= 22 {
        return units as f64 / POWERS_OF_TEN[usize::from(scale)];
    }
    format!("{units}e-{scale}")
        .parse()
        .expect("a decimal parses")
}
// ANCHOR_END: decimal_to_f64
