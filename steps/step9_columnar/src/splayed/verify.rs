//! `step9 verify`: the whole table checked, every file against its size and its
//! checksum, and every value a query relies on against its bounds (symbol ids,
//! text offsets, validity bits), since a checksum cannot tell bytes that make sense
//! from bytes written with a matching checksum.

use crate::splayed::error::TableError;
use crate::splayed::layout::MANIFEST;
use crate::splayed::scan::{ColumnFiles, Table, offset_at};
use crate::splayed::types::ColumnType;

impl Table {
    /// Checks the whole table, as `step9 verify` does: maps every column's files and
    /// the index, each checked against its size and its checksum in the manifest
    /// (`map_exact`), reads every value a query relies on against its bounds
    /// (`check_values`), and finds every file of the directory in the
    /// manifest. Returns the files and bytes checked, the manifest not counted.
    ///
    /// # Errors
    /// [`TableError::NotATable`] naming the first file that does not match, is
    /// missing, or is not the table's.
    pub fn verify(&self) -> Result<(usize, u64), TableError> {
        for k in 0..self.manifest.columns.len() {
            self.check_values(k, self.column(k)?)?;
            self.index(k)?;
        }
        let not = |why: String| TableError::NotATable(self.dir.clone(), why);
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
        // Every file the manifest names was mapped above, or is missing here.
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
    pub(crate) fn check_values(&self, k: usize, files: &ColumnFiles) -> Result<(), TableError> {
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
