//! The manifest: what a table holds (its columns' names and types, its rows, its
//! symbols, the column with a hash index if any) and the format's version, as JSON.
//! The load writes it last, so a table directory without one is not a table.

use std::collections::BTreeMap;
use std::fmt;
use std::num::TryFromIntError;

use harness::query::key_text;
use serde_json::{Value, json};

use crate::splayed::types::ColumnType;

/// The format this step writes and reads.
pub const FORMAT: &str = "step11-splayed-table";
/// Its version; a reader refuses any other.
pub const VERSION: u64 = 5;

/// One column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The header's field, byte for byte.
    pub name: Vec<u8>,
    /// Its type.
    pub ty: ColumnType,
    /// Rows without a value (empty fields; always 0 for `string` and `text`).
    pub nulls: u64,
    /// For a `string` column: one more than its largest symbol id (the size of an
    /// array indexed by its ids); 0 for the other types.
    pub id_bound: u32,
}

/// The manifest of a table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Records, the header not counted.
    pub rows: u64,
    /// Symbols in the symbol file.
    pub symbols: u64,
    /// The columns, in the header's order.
    pub columns: Vec<Column>,
    /// The column with a hash index (`hash_index`), if any: an optional
    /// part, added to a loaded table, written only when there is one, so that a
    /// table without an index is step 11's table byte for byte.
    pub index: Option<usize>,
    /// Every other file of the table, by name, with its CRC-32 ([`checksum`]): what
    /// ties the files to this manifest, so that a file damaged, edited or copied from
    /// another table is refused when it is mapped ([`crate::splayed::scan`]). The
    /// manifest's own text carries one more, over everything else in it. The idea is
    /// DuckDB's, which checksums every block of its file and checks it on read.
    pub checksums: BTreeMap<String, u32>,
}

/// Why a manifest is refused: what is missing or wrong in it.
#[derive(Clone, Debug, PartialEq)]
pub enum ManifestError {
    /// Another format, or another version of this one: the two as the JSON has them.
    Format {
        /// The `format` field.
        format: Value,
        /// The `version` field.
        version: Value,
    },
    /// The text's checksum does not match the rest of it.
    Checksum,
    /// A field the manifest must have is not there or of the wrong kind: the words
    /// that name it (`its columns`, `the number "rows"`).
    Lacks(String),
    /// A column has no name.
    NamelessColumn,
    /// A column's name is not a text [`key_text`] makes.
    BadName(String),
    /// A column's type is none of [`ColumnType`]'s.
    UnknownType(String),
    /// A column's `id_bound` does not fit a `u32`.
    IdBound(TryFromIntError),
    /// A file's checksum is not a `u32`: the file's name.
    BadChecksum(String),
    /// More rows than a file of 16 bytes a row can hold.
    TooManyRows(u64),
    /// More symbols than a `u32` id can name.
    TooManySymbols(u64),
    /// More symbols than the table has string fields.
    SymbolsPastStrings(u64),
    /// A file's name that is a path, not a name in the table's directory.
    NotAFileName(String),
    /// A column's `id_bound` past the table's symbols.
    IdBoundPastSymbols {
        /// The column's name, as [`key_text`].
        column: String,
        /// Its `id_bound`.
        id_bound: u32,
        /// The table's symbols.
        symbols: u64,
    },
    /// A column with more NULLs than rows.
    NullsPastRows {
        /// The column's name, as [`key_text`].
        column: String,
        /// Its NULLs.
        nulls: u64,
        /// The table's rows.
        rows: u64,
    },
    /// A column of a type without validity bits, with NULLs.
    NullsWithoutValidity {
        /// The column's name, as [`key_text`].
        column: String,
        /// Its type.
        ty: ColumnType,
        /// Its NULLs.
        nulls: u64,
    },
    /// The `index` is not a column's position.
    BadIndex,
    /// The `index` names a text column, which is never indexed.
    TextIndex,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ManifestError as E;
        match self {
            E::Format { format, version } => write!(
                f,
                "not a {FORMAT} of version {VERSION}: format {format}, version {version}"
            ),
            E::Checksum => f.write_str(
                "the manifest does not match its checksum: it was edited or damaged after \
                 the load",
            ),
            E::Lacks(what) => write!(f, "the manifest lacks {what}"),
            E::NamelessColumn => f.write_str("a column without a name"),
            E::BadName(name) => write!(f, "a bad column name {name:?}"),
            E::UnknownType(name) => write!(f, "column {name:?} has no known type"),
            E::IdBound(e) => e.fmt(f),
            E::BadChecksum(name) => write!(f, "a bad checksum of {name}"),
            E::TooManyRows(rows) => write!(f, "{rows} rows is more than a file can hold"),
            E::TooManySymbols(n) => write!(f, "{n} symbols is more than a u32 id can name"),
            E::SymbolsPastStrings(n) => {
                write!(f, "{n} symbols is more than the table's string fields")
            }
            E::NotAFileName(name) => {
                write!(f, "{name:?} is not a file name of the table's directory")
            }
            E::IdBoundPastSymbols {
                column,
                id_bound,
                symbols,
            } => write!(
                f,
                "column {column:?} has an id bound of {id_bound}, past the table's {symbols} \
                 symbols"
            ),
            E::NullsPastRows {
                column,
                nulls,
                rows,
            } => write!(f, "column {column:?} has {nulls} NULLs in {rows} rows"),
            E::NullsWithoutValidity { column, ty, nulls } => write!(
                f,
                "column {column:?} is {ty}, which holds no NULLs, but has {nulls} of them"
            ),
            E::BadIndex => f.write_str("a bad index"),
            E::TextIndex => f.write_str("an index on a text column, which is never built"),
        }
    }
}

impl std::error::Error for ManifestError {}

/// The CRC-32 (IEEE 802.3, as zlib's) of `bytes`, by `crc32fast` (its PCLMULQDQ
/// folding where the CPU has it).
pub fn checksum(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// The CRC-32 of the manifest's JSON text without its `checksum` field, as
/// `serde_json` writes it.
fn text_checksum(json: &Value) -> u32 {
    let mut rest = json.clone();
    if let Some(object) = rest.as_object_mut() {
        object.remove("checksum");
    }
    checksum(rest.to_string().as_bytes())
}

impl Manifest {
    /// The manifest as JSON. Names are written as [`key_text`] (valid UTF-8 as it is,
    /// other bytes as `\xNN`, a backslash as `\\`), which [`from_key_text`] inverts.
    pub fn to_json(&self) -> Value {
        let columns: Vec<Value> = self
            .columns
            .iter()
            .map(|c| {
                json!({"name": key_text(&c.name), "type": c.ty.name(), "nulls": c.nulls,
                       "id_bound": c.id_bound})
            })
            .collect();
        let mut json = json!({"format": FORMAT, "version": VERSION, "rows": self.rows,
               "symbols": self.symbols, "columns": columns, "files": self.checksums});
        if let Some(k) = self.index {
            json["index"] = k.into();
        }
        json["checksum"] = text_checksum(&json).into();
        json
    }

    /// Reads the JSON of [`Manifest::to_json`].
    ///
    /// # Errors
    /// A [`ManifestError`] naming what is missing or wrong (another format or
    /// version, a field that is not there or of the wrong kind).
    pub fn from_json(value: &Value) -> Result<Manifest, ManifestError> {
        if value["format"] != FORMAT || value["version"] != VERSION {
            return Err(ManifestError::Format {
                format: value["format"].clone(),
                version: value["version"].clone(),
            });
        }
        if value["checksum"].as_u64() != Some(u64::from(text_checksum(value))) {
            return Err(ManifestError::Checksum);
        }
        let lacks = |what: &str| ManifestError::Lacks(what.to_string());
        let number = |v: &Value, name: &str| {
            v[name]
                .as_u64()
                .ok_or_else(|| lacks(&format!("the number {name:?}")))
        };
        let columns = value["columns"]
            .as_array()
            .ok_or_else(|| lacks("its columns"))?
            .iter()
            .map(|c| {
                let name = c["name"].as_str().ok_or(ManifestError::NamelessColumn)?;
                let ty = c["type"].as_str().and_then(ColumnType::parse);
                Ok(Column {
                    name: from_key_text(name)
                        .ok_or_else(|| ManifestError::BadName(name.to_string()))?,
                    ty: ty.ok_or_else(|| ManifestError::UnknownType(name.to_string()))?,
                    nulls: number(c, "nulls")?,
                    id_bound: u32::try_from(number(c, "id_bound")?)
                        .map_err(ManifestError::IdBound)?,
                })
            })
            .collect::<Result<Vec<Column>, ManifestError>>()?;
        let index = match &value["index"] {
            Value::Null => None,
            v => Some(
                v.as_u64()
                    .filter(|&k| k < columns.len() as u64)
                    .ok_or(ManifestError::BadIndex)? as usize,
            ),
        };
        let checksums = value["files"]
            .as_object()
            .ok_or_else(|| lacks("its files' checksums"))?
            .iter()
            .map(|(name, crc)| {
                let crc = crc.as_u64().and_then(|c| u32::try_from(c).ok());
                Ok((
                    name.clone(),
                    crc.ok_or_else(|| ManifestError::BadChecksum(name.clone()))?,
                ))
            })
            .collect::<Result<BTreeMap<String, u32>, ManifestError>>()?;
        let manifest = Manifest {
            rows: number(value, "rows")?,
            symbols: number(value, "symbols")?,
            columns,
            index,
            checksums,
        };
        manifest.check_bounds()?;
        Ok(manifest)
    }

    /// The bounds a reader relies on before it maps a file, whatever the checksums
    /// say (a manifest written by another program can carry its own): a file's size,
    /// `rows` times a row's bytes, fits a `u64`; every symbol id fits a `u32`; a
    /// column's `id_bound`, the size of the query's array, is at most `symbols`; a
    /// column has at most `rows` NULLs, and a string or text column none.
    fn check_bounds(&self) -> Result<(), ManifestError> {
        // 16 bytes a row is the widest file (a float64's exact sums).
        if self.rows > u64::MAX / 16 {
            return Err(ManifestError::TooManyRows(self.rows));
        }
        if self.symbols > u64::from(u32::MAX) + 1 {
            return Err(ManifestError::TooManySymbols(self.symbols));
        }
        // Each symbol is some row's string: a query's arrays are never longer than
        // the table's strings.
        let strings = self.columns.iter().filter(|c| c.ty == ColumnType::String);
        if self.symbols > self.rows.saturating_mul(strings.count() as u64) {
            return Err(ManifestError::SymbolsPastStrings(self.symbols));
        }
        if let Some(k) = self.index
            && self.columns[k].ty == ColumnType::Text
        {
            return Err(ManifestError::TextIndex);
        }
        // A file of the table is a name in its directory, never a path elsewhere.
        if let Some(name) = self
            .checksums
            .keys()
            .find(|n| n.is_empty() || n.contains(['/', '\\']) || *n == "." || *n == "..")
        {
            return Err(ManifestError::NotAFileName(name.clone()));
        }
        for c in &self.columns {
            let column = key_text(&c.name);
            if u64::from(c.id_bound) > self.symbols {
                return Err(ManifestError::IdBoundPastSymbols {
                    column,
                    id_bound: c.id_bound,
                    symbols: self.symbols,
                });
            }
            if c.nulls > self.rows {
                return Err(ManifestError::NullsPastRows {
                    column,
                    nulls: c.nulls,
                    rows: self.rows,
                });
            }
            // A string or text column has no validity bits, so no NULLs to count.
            if !c.ty.has_validity() && c.nulls != 0 {
                return Err(ManifestError::NullsWithoutValidity {
                    column,
                    ty: c.ty,
                    nulls: c.nulls,
                });
            }
        }
        Ok(())
    }
}

/// The bytes of a [`key_text`]; `None` for a text `key_text` never makes.
pub fn from_key_text(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b != b'\\' {
            out.push(b);
            rest = tail;
            continue;
        }
        match tail {
            [b'\\', more @ ..] => {
                out.push(b'\\');
                rest = more;
            }
            [b'x', h, l, more @ ..] => {
                let hex = std::str::from_utf8(&[*h, *l]).ok()?.to_owned();
                out.push(u8::from_str_radix(&hex, 16).ok()?);
                rest = more;
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests;
