//! The index on disk: what the load writes for the column `--index` names, and what
//! a query maps to read it ([`crate::hash_index`] has the layout).
//!
//! ```text
//! load:   the column's key of each row (its value's bytes, and 1, or 0 for NULL)
//!         -> build -> the slots, a string keyed by its bytes -> three files
//! query:  the three files mapped once per table, their sizes checked
//! ```

use std::path::Path;

use memmap2::Mmap;

use crate::hash_index::build::{HashIndex, build, hash_key, slots};
use crate::splayed::encode::ChunkColumns;
use crate::splayed::error::TableError;
use crate::splayed::layout::{column_file, write_words};
use crate::splayed::mapped_check::{Under, map_exact};
use crate::splayed::scan::{Table, u64_at};
use crate::splayed::symbols::Symbols;
use crate::splayed::types::ColumnType;

/// The column `--index` names, `k` among the load's columns of `types`; not a `text`
/// column, whose values hardly repeat: an index of them would be a group per row.
///
/// # Errors
/// [`TableError::Schema`] for a `text` column.
pub fn index_column(types: &[ColumnType], k: usize, name: &str) -> Result<usize, TableError> {
    if types[k] == ColumnType::Text {
        return Err(TableError::Schema(format!(
            "column {name:?} is stored as text (nearly every value distinct), which has no \
             index; --schema {name}=string interns it, and then it can have one"
        )));
    }
    Ok(k)
}

/// The index of column `k` of the loaded `chunks` (their symbol ids final), its
/// slots keyed as [`crate::hash_index::select`] looks values up.
pub fn of_column(
    chunks: &[ChunkColumns<'_, '_>],
    types: &[ColumnType],
    k: usize,
    symbols: &Symbols,
    threads: usize,
) -> HashIndex {
    let keys = index_keys(chunks, types, k);
    let mut index = build(&keys, threads);
    let key_of = |g: usize| &keys[index.first_row(g)];
    index.slots = slots(index.groups(), |g| slot_hash(types[k], key_of(g), symbols));
    index
}

/// Column `k`'s key of each row for the hash index: its value's bytes, and a last
/// byte 1 for a value, 0 for NULL (whose bytes are zeros).
fn index_keys(chunks: &[ChunkColumns<'_, '_>], types: &[ColumnType], k: usize) -> Vec<[u8; 16]> {
    let mut keys = Vec::with_capacity(chunks.iter().map(|c| c.rows as usize).sum());
    let width = types[k].width();
    for chunk in chunks {
        let column = &chunk.columns[k];
        for (row, value) in column.values.filled().chunks_exact(width).enumerate() {
            let mut key = [0u8; 16];
            key[..width].copy_from_slice(value);
            let valid = column.valid.len == 0 || column.valid.get(row as u64);
            key[15] = u8::from(valid);
            keys.push(key);
        }
    }
    keys
}

/// The slots' hash of an index key ([`hash_key`]): a string's bytes, or the key's
/// 16 bytes for any other type.
pub fn slot_hash(ty: ColumnType, key: &[u8; 16], symbols: &Symbols) -> u64 {
    match ty {
        ColumnType::String => {
            let id = u32::from_le_bytes(key[..4].try_into().expect("4"));
            hash_key(symbols.get(id as usize))
        }
        _ => hash_key(key),
    }
}

/// Writes column `k`'s hash index into `dir`.
///
/// # Errors
/// As [`crate::splayed::layout::write_file`].
pub fn write(dir: &Path, k: usize, index: &HashIndex) -> std::io::Result<()> {
    let file = |part| column_file(dir, k, part);
    write_words(&file("index.offsets"), &index.offsets, u64::to_le_bytes)?;
    write_words(&file("index.rows"), &index.rows, u64::to_le_bytes)?;
    write_words(&file("index.slots"), &index.slots, u32::to_le_bytes)
}

/// A column's hash index as it lies on disk: three little-endian arrays, mapped,
/// read where a query needs them.
pub struct IndexFiles {
    offsets: Mmap,
    rows: Mmap,
    slots: Mmap,
}

impl IndexFiles {
    /// Groups in the index.
    pub fn groups(&self) -> usize {
        self.offsets.len() / 8 - 1
    }

    /// Where group `g`'s rows start in the row list (`g == groups()`: its end).
    pub fn offset(&self, g: usize) -> u64 {
        u64_at(&self.offsets, g)
    }

    /// Group `g`'s rows, as little-endian `u64` row numbers in row order.
    pub fn rows_of(&self, g: usize) -> &[u8] {
        let (from, to) = (self.offset(g) as usize, self.offset(g + 1) as usize);
        // A damaged file (offsets out of order or past the rows) gives no rows, not
        // a panic.
        self.rows.get(8 * from..8 * to).unwrap_or(&[])
    }

    // ANCHOR: probe
    /// The groups that may hold a key of hash `hash`, in probe order: from slot
    /// `hash & (slots - 1)` up to the first empty slot (the caller compares each
    /// group's key; [`crate::hash_index`] explains the slots).
    pub fn probe(&self, hash: u64) -> impl Iterator<Item = usize> + '_ {
        let len = self.slots.len() / 4;
        let slot =
            |s: usize| u32::from_le_bytes(self.slots[4 * s..4 * s + 4].try_into().expect("4"));
        let start = hash as usize & (len - 1);
        (0..len)
            .map(move |i| slot((start + i) & (len - 1)))
            .take_while(|&g| g != 0)
            .map(|g| g as usize - 1)
            .filter(|&g| g < self.groups())
    }
    // ANCHOR_END: probe
}

impl Table {
    /// The hash index of column `k`, its files mapped on first use; `None` when the
    /// load built none on `k`.
    ///
    /// # Errors
    /// As [`Table::open`].
    pub fn index(&self, k: usize) -> Result<Option<&IndexFiles>, TableError> {
        if self.manifest.index != Some(k) {
            return Ok(None);
        }
        if let Some(index) = self.index.get() {
            return Ok(index.as_ref());
        }
        let index = self.map_index(k)?;
        Ok(self.index.get_or_init(|| Some(index)).as_ref())
    }

    fn map_index(&self, k: usize) -> Result<IndexFiles, TableError> {
        let file = |part| column_file(&self.dir, k, part);
        let len = |part| std::fs::metadata(file(part)).map_or(0, |m| m.len());
        // The offsets are groups + 1 words; the slots a power of two of at least
        // twice the groups.
        let offsets = map_exact(
            &self.dir,
            &self.manifest,
            &file("index.offsets"),
            len("index.offsets").max(8),
            None,
        )?;
        let rows = map_exact(
            &self.dir,
            &self.manifest,
            &file("index.rows"),
            8 * self.manifest.rows,
            // Row numbers index the table's columns.
            Some(Under {
                width: 8,
                bound: self.manifest.rows,
                what: "a row number",
            }),
        )?;
        let slots = map_exact(
            &self.dir,
            &self.manifest,
            &file("index.slots"),
            len("index.slots").max(8),
            None,
        )?;
        let index = IndexFiles {
            offsets,
            rows,
            slots,
        };
        let (groups, slots) = (index.groups(), index.slots.len() / 4);
        let in_order = (0..groups).all(|g| index.offset(g) <= index.offset(g + 1));
        let bad = if !index.offsets.len().is_multiple_of(8) || !index.slots.len().is_multiple_of(4)
        {
            Some("an index file is not a whole number of words")
        } else if !in_order {
            Some("the index's offsets go back")
        } else if index.offset(groups) != self.manifest.rows {
            Some("the index does not cover every row")
        } else if !slots.is_power_of_two() || slots < 2 * groups {
            Some("the index's slots are not a power of two of twice its groups")
        } else {
            None
        };
        match bad {
            Some(why) => Err(TableError::NotATable(self.dir.clone(), why.into())),
            None => Ok(index),
        }
    }
}
