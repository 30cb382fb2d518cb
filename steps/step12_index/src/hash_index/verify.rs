//! The index in `verify`: beyond its files' sizes and checksums (checked as they are
//! mapped, [`IndexFiles::open`]), that it is the index a build makes of its column,
//! since a program that writes its own files can make the checksums match.

use crate::hash_index::{IndexFiles, hash_key};
use crate::splayed::error::TableError;
use crate::splayed::rows::key_of;
use crate::splayed::scan::SplayedTable;
use crate::splayed::types::ColumnType;

/// Checks `table`'s index, if it has one, against its column: every group has rows,
/// in order, each row once, all with the group's key (its first row's), and probing
/// the key's hash finds the group before any other of that key. Returns whether
/// there was an index.
///
/// # Errors
/// [`TableError::NotATable`] naming the first file and entry that is not what a
/// build writes.
pub fn verify(table: &SplayedTable) -> Result<bool, TableError> {
    let Some(index) = IndexFiles::open(table)? else {
        return Ok(false);
    };
    let k = index.column;
    let column = table.column(k)?;
    let not = |why: String| TableError::NotATable(table.dir.clone(), format!("col{k}.{why}"));
    let key = |row: usize| key_of(column, row);
    let row_at = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("8")) as usize;
    let mut seen = vec![false; table.manifest.rows as usize];
    for g in 0..index.groups() {
        let rows = index.rows_of(g);
        let Some(first) = rows.get(..8).map(row_at) else {
            return Err(not(format!("index.offsets: group {g} has no rows")));
        };
        let mut previous = None;
        for row in rows.chunks_exact(8).map(row_at) {
            if previous >= Some(row) || std::mem::replace(&mut seen[row], true) {
                return Err(not(format!(
                    "index.rows: row {} is out of order or twice in group {g}",
                    row + 1
                )));
            }
            if key(row) != key(first) {
                return Err(not(format!(
                    "index.rows: row {} is not of group {g}'s value",
                    row + 1
                )));
            }
            previous = Some(row);
        }
        let hash = match column.ty {
            ColumnType::String => {
                let id = u32::from_le_bytes(key(first)[..4].try_into().expect("4"));
                hash_key(table.symbol(id))
            }
            _ => hash_key(&key(first)),
        };
        let found = index
            .probe(hash)
            .find(|&h| index.rows_of(h).get(..8).map(row_at).map(key) == Some(key(first)));
        if found != Some(g) {
            return Err(not(format!(
                "index.slots: group {g} is not found by its value"
            )));
        }
    }
    Ok(true)
}
