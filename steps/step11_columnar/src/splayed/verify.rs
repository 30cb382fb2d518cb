//! `verify`: the whole table checked, every file against its size and its checksum,
//! every value a query relies on against its bounds (symbol ids, text offsets,
//! validity bits), and every value against what a load writes, since a checksum
//! cannot tell bytes that make sense from bytes written with a matching checksum.

use crate::exact::fixed_to_f64;
use crate::splayed::column::{ColumnFiles, offset_at};
use crate::splayed::date;
use crate::splayed::error::TableError;
use crate::splayed::layout::{MANIFEST, SYMBOL_BYTES};
use crate::splayed::scan::SplayedTable;
use crate::splayed::types::ColumnType;

impl SplayedTable {
    /// Checks the whole table, as the `verify` subcommand does: maps every column's
    /// files, each checked against its size and its checksum in the manifest
    /// (`map_exact`), reads every value a query relies on against its bounds
    /// (`check_values`), finds every symbol once, and every file of the directory in
    /// the manifest.
    /// Returns the files and bytes checked, the manifest not counted.
    ///
    /// # Errors
    /// [`TableError::NotATable`] naming the first file that does not match, is
    /// missing, or is not the table's.
    pub fn verify(&self) -> Result<(usize, u64), TableError> {
        for k in 0..self.manifest.columns.len() {
            self.check_values(k, self.column(k)?)?;
        }
        let not = |why: String| TableError::NotATable(self.dir.clone(), why);
        // A load stores each string once: a symbol twice would be two groups of one
        // key, and `--where` would find one of them.
        let mut seen = hashbrown::HashMap::with_capacity(self.manifest.symbols as usize);
        for id in 0..self.manifest.symbols as u32 {
            if let Some(first) = seen.insert(self.symbol(id), id) {
                return Err(not(format!(
                    "{SYMBOL_BYTES}: symbol {id} is symbol {first}'s string again, which \
                     a load stores once"
                )));
            }
        }
        let mut bytes = 0;
        for entry in std::fs::read_dir(&self.dir).map_err(TableError::io_at(&self.dir))? {
            let entry = entry.map_err(TableError::io_at(&self.dir))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == MANIFEST {
                continue;
            }
            if !self.manifest.checksums.contains_key(&name) {
                return Err(not(format!("{name} is not one of the manifest's files")));
            }
            bytes += entry
                .metadata()
                .map_err(TableError::io_at(&entry.path()))?
                .len();
        }
        // Every file the manifest names is here (the columns' were mapped above).
        for name in self.manifest.checksums.keys() {
            if !self.dir.join(name).is_file() {
                return Err(not(format!("{name} is missing")));
            }
        }
        Ok((self.manifest.checksums.len(), bytes))
    }

    /// What `verify` checks of column `k`'s values beyond their checksums, which a
    /// program that writes its own table can make match: a text's offsets in order,
    /// and as many NULLs as the manifest says, no validity bit past the last row.
    fn check_values(&self, k: usize, files: &ColumnFiles) -> Result<(), TableError> {
        let column = &self.manifest.columns[k];
        let rows = self.manifest.rows as usize;
        let not = |why: String| TableError::NotATable(self.dir.clone(), format!("col{k}.{why}"));
        // A string column's ids were checked against its bound as it was mapped.
        if files.ty == ColumnType::Text {
            let offsets = (0..rows).map(|i| offset_at(&files.values, files.width, i));
            if let Some(row) = offsets
                .clone()
                .zip(offsets.skip(1))
                .position(|(a, b)| a > b)
            {
                return Err(not(format!(
                    "values: row {} of the text ends before it starts",
                    row + 2
                )));
            }
        }
        if files.valid.is_some() {
            // The values a load writes: zeros under a NULL, 0 or 1 for a bool, a day
            // of the four-digit years for a date; a query groups by these bytes.
            let days = date::parse(b"0000-01-01").zip(date::parse(b"9999-12-31"));
            let (first, last) = days.expect("both are dates");
            let w = files.width;
            let odd = (0..rows).find(|&i| {
                let bytes = &files.values[w * i..w * i + w];
                match (files.is_valid(i), files.ty) {
                    (false, _) => bytes.iter().any(|&b| b != 0),
                    (true, ColumnType::Bool) => bytes[0] > 1,
                    (true, ColumnType::Date) => {
                        let day = i32::from_le_bytes(bytes.try_into().expect("4"));
                        !(first..=last).contains(&day)
                    }
                    _ => false,
                }
            });
            if let Some(row) = odd {
                return Err(not(format!(
                    "values: row {} holds a value no load writes",
                    row + 1
                )));
            }
        }
        if let Some(exact) = &files.exact {
            // A float64's exact value, where it has one, is the same number as its
            // f64: the query sums the one and prints extremes from the other.
            let disagrees = (0..rows).find(|&i| {
                let fixed = i128::from_le_bytes(exact[16 * i..16 * i + 16].try_into().expect("16"));
                let float =
                    f64::from_le_bytes(files.values[8 * i..8 * i + 8].try_into().expect("8"));
                files.is_valid(i) && fixed != i128::MIN && fixed_to_f64(fixed) != float
            });
            if let Some(row) = disagrees {
                return Err(not(format!(
                    "exact: row {} is not the number of its value",
                    row + 1
                )));
            }
        }
        if let Some(valid) = &files.valid {
            // The bits of rows past the last are zero, as the load leaves them: a bit
            // set there could stand in for a row's cleared one in the count below.
            let last = valid.len().checked_sub(8).map(|at| &valid[at..]);
            let tail = rows % 64;
            if let Some(last) = last.filter(|_| tail > 0) {
                let word = u64::from_le_bytes(last.try_into().expect("8"));
                if word >> tail != 0 {
                    return Err(not("valid: a bit is set past the last row".into()));
                }
            }
            let set: u64 = valid
                .chunks_exact(8)
                .map(|w| u64::from(u64::from_le_bytes(w.try_into().expect("8")).count_ones()))
                .sum();
            if set + column.nulls != self.manifest.rows {
                return Err(not(format!(
                    "valid: {} rows have a value, but the manifest says {} of {} are NULL",
                    set, column.nulls, self.manifest.rows
                )));
            }
        }
        Ok(())
    }
}
