//! The index as a query reads it: its three files mapped, each checked against its
//! size and its checksum in the manifest (the row numbers each under the table's
//! rows, as they index its columns), and read where a query needs them
//! ([`crate::hash_index`] has the layout).

use memmap2::Mmap;

use crate::splayed::column::u64_at;
use crate::splayed::error::TableError;
use crate::splayed::layout::column_file;
use crate::splayed::mapped_check::{Under, map_exact};
use crate::splayed::scan::SplayedTable;

/// A column's hash index as it lies on disk: three little-endian arrays, mapped,
/// read where a query needs them.
pub struct IndexFiles {
    /// The indexed column's position.
    pub column: usize,
    offsets: Mmap,
    rows: Mmap,
    slots: Mmap,
}

impl IndexFiles {
    /// The index of `table`, its files mapped and checked; `None` when the table has
    /// none.
    ///
    /// # Errors
    /// [`TableError::NotATable`] when a file is missing, of another size or checksum
    /// than the manifest's, holds a row number past the table's rows, or its offsets
    /// or slots are not an index's.
    pub fn open(table: &SplayedTable) -> Result<Option<IndexFiles>, TableError> {
        let Some(k) = table.manifest.index else {
            return Ok(None);
        };
        let (dir, manifest) = (&table.dir, &table.manifest);
        let file = |part| column_file(dir, k, part);
        let len = |part| std::fs::metadata(file(part)).map_or(0, |m| m.len());
        // The offsets are groups + 1 words; the slots a power of two of at least
        // twice the groups: their sizes are checked below, against each other.
        let map = |part, len, under| map_exact(dir, manifest, &file(part), len, under);
        let index = IndexFiles {
            column: k,
            offsets: map("index.offsets", len("index.offsets").max(8), None)?,
            // Row numbers index the table's columns.
            rows: map(
                "index.rows",
                8 * manifest.rows,
                Some(Under {
                    width: 8,
                    bound: manifest.rows,
                    what: "a row number",
                }),
            )?,
            slots: map("index.slots", len("index.slots").max(8), None)?,
        };
        let (groups, slots) = (index.groups(), index.slots.len() / 4);
        let in_order = (0..groups).all(|g| index.offset(g) <= index.offset(g + 1));
        let bad = if !index.offsets.len().is_multiple_of(8) || !index.slots.len().is_multiple_of(4)
        {
            Some("an index file is not a whole number of words")
        } else if !in_order {
            Some("the index's offsets go back")
        } else if index.offset(groups) != manifest.rows {
            Some("the index does not cover every row")
        } else if !slots.is_power_of_two() || slots < 2 * groups {
            Some("the index's slots are not a power of two of twice its groups")
        } else {
            None
        };
        match bad {
            Some(why) => Err(TableError::NotATable(dir.clone(), why.into())),
            None => Ok(Some(index)),
        }
    }

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
