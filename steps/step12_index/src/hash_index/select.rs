//! `--where COLUMN=VALUE`: which rows a query over a table reads
//! ([`crate::splayed::rows::Selection`]), found through the column's hash index when
//! the table has one ([`crate::hash_index`]), by a scan of the column otherwise.
//!
//! ```text
//! VALUE -> its key, as the load stores the column (the same parse: int64, decimal,
//!          float64, date, bool; empty = NULL; a string stays text)
//! with an index:  hash the key (a string: its bytes) -> probe the slots -> the group
//!                 whose first row holds the key -> that group's rows, in row order
//! without:        every row, its key compared with VALUE's (a zero: with 0's and
//!                 -0's; a text column: its bytes with VALUE's)
//! ```
//!
//! The index touches only the matching rows (and their values); the scan reads the
//! whole column. Both give the same rows in the same order, so the same answer.

use harness::query::key_text;

use crate::hash_index::{IndexFiles, hash_key};
use crate::splayed::encode::{Bits, ColumnChunk, Out, push_typed};
use crate::splayed::error::TableError;
use crate::splayed::rows::{Selection, key_of, zero_is_zero, zero_keys};
use crate::splayed::scan::{ColumnFiles, SplayedTable};
use crate::splayed::types::ColumnType;

/// `--where COLUMN=VALUE`, split at the first `=` (a column's name has none of its
/// own; the value may).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Where<'a> {
    /// The column's name or 1-based position.
    pub column: &'a str,
    /// The bytes its value must equal, as the argument gives them (a key need not
    /// be UTF-8); empty: NULL (an empty field).
    pub value: &'a [u8],
}

impl<'a> Where<'a> {
    /// Parses `COLUMN=VALUE` from the argument's bytes: VALUE is taken byte for byte
    /// (`$'caf\xe9'` in bash passes the byte E9; `'\xe9'` is four characters, as in
    /// the file), COLUMN must be text.
    ///
    /// # Errors
    /// [`TableError::Where`] when there is no `=`, or COLUMN is not UTF-8.
    pub fn parse(text: &'a [u8]) -> Result<Where<'a>, TableError> {
        let Some(at) = text.iter().position(|&b| b == b'=') else {
            return Err(TableError::Where(format!(
                "{:?} is not COLUMN=VALUE (e.g. --where category=books)",
                key_text(text)
            )));
        };
        let column = std::str::from_utf8(&text[..at]).map_err(|_| {
            TableError::Where(format!(
                "the column {:?} is not UTF-8 text: name it by its position (1 is the first)",
                key_text(&text[..at])
            ))
        })?;
        Ok(Where {
            column,
            value: &text[at + 1..],
        })
    }
}

/// How the rows were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// No `--where`: every row.
    Every,
    /// Through the column's hash index.
    Index,
    /// By comparing every row's value.
    Scan,
}

/// VALUE's key in a column of type `ty` (not `string`): parsed as the load parses
/// the column's fields, so `--where value=1.50` finds the rows of `1.5` in a
/// decimal column (an int64 column holds canonical integers only: `07` is refused),
/// and `-0` those of `0` ([`zero_is_zero`]).
fn typed_key(ty: ColumnType, text: &[u8], column: &str) -> Result<[u8; 16], TableError> {
    let (mut value, mut exact) = ([0u8; 8], [0u8; 16]);
    let mut one = ColumnChunk {
        values: Out::new(&mut value),
        exact: Out::new(&mut exact),
        text: Out::default(),
        text_end: 0,
        offset_width: 8,
        valid: Bits::default(),
    };
    if !push_typed(&mut one, ty, text) {
        return Err(TableError::Where(format!(
            "{:?} is not a value of column {column:?}, which is {ty}",
            key_text(text)
        )));
    }
    let mut key = [0u8; 16];
    let filled = one.values.filled();
    key[..filled.len()].copy_from_slice(filled);
    key[15] = u8::from(one.valid.get(0));
    Ok(zero_is_zero(ty, key))
}

// ANCHOR: select
/// The rows `filter` selects in `table`, and how they are found: through `index`
/// when it is the column's, else by a scan (`index` is `None` for `--scan`).
///
/// # Errors
/// A missing column (step 10's error); [`TableError::Where`] for a value that is not
/// of the column's type; [`TableError::NotATable`] for missing or damaged files.
pub fn select<'t>(
    table: &'t SplayedTable,
    filter: Option<Where<'_>>,
    index: Option<&'t IndexFiles>,
) -> Result<(Selection<'t>, Access), TableError> {
    let Some(filter) = filter else {
        return Ok((Selection::All, Access::Every));
    };
    let k = table.column_index(filter.column)?;
    let column = table.column(k)?;
    let text = filter.value;
    let string = column.ty == ColumnType::String;
    if let Some(index) = index.filter(|index| index.column == k) {
        let key = if string {
            None
        } else {
            Some(typed_key(column.ty, filter.value, filter.column)?)
        };
        // The load hashed a string's bytes and any other key's 16 bytes.
        let hash = key.map_or_else(|| hash_key(text), |key| hash_key(&key));
        let holds = |g: usize| {
            let Some(first) = index.rows_of(g).get(..8) else {
                return false;
            };
            let row = u64::from_le_bytes(first.try_into().expect("8")) as usize;
            match key {
                Some(key) => key_of(column, row) == key,
                None => table.symbol(symbol_id(column, row)) == text,
            }
        };
        let found = index.probe(hash).find(|&g| holds(g));
        let selection = match found {
            Some(group) => Selection::List(index.rows_of(group)),
            None => Selection::Nothing,
        };
        return Ok((selection, Access::Index));
    }
    if column.ty == ColumnType::Text {
        let text = text.to_vec();
        return Ok((Selection::ScanText { column, text }, Access::Scan));
    }
    let key = if string {
        // Only ids below the column's bound can be in it: find VALUE's, if any.
        let bound = table.manifest.columns[k].id_bound;
        match (0..bound).find(|&id| table.symbol(id) == text) {
            Some(id) => {
                let mut key = [0u8; 16];
                key[..4].copy_from_slice(&id.to_le_bytes());
                key[15] = 1;
                key
            }
            None => return Ok((Selection::Nothing, Access::Scan)),
        }
    } else {
        typed_key(column.ty, filter.value, filter.column)?
    };
    // A zero is stored as 0 or as -0: both are rows of zero.
    if let Some(keys) = zero_keys(column.ty, key) {
        return Ok((Selection::ScanZero { column, keys }, Access::Scan));
    }
    Ok((Selection::Scan { column, key }, Access::Scan))
}
// ANCHOR_END: select

/// Row `row`'s symbol id in a string column.
fn symbol_id(column: &ColumnFiles, row: usize) -> u32 {
    u32::from_le_bytes(column.values[4 * row..4 * row + 4].try_into().expect("4"))
}

/// `--verbose`'s line: how the rows were found.
pub fn describe(filter: Option<Where<'_>>, access: Access, rows: u64) -> String {
    let (Some(filter), Access::Index | Access::Scan) = (filter, access) else {
        return format!("every row ({rows})");
    };
    let how = match access {
        Access::Index => "through the hash index of",
        _ => "by a scan of every row's",
    };
    format!(
        "{}={}: {rows} rows, {how} {:?}",
        filter.column,
        key_text(filter.value),
        filter.column
    )
}
