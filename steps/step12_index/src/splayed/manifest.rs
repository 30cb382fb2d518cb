//! The manifest: what a table holds (its columns' names and types, its rows, its
//! symbols, the column with a hash index if any) and the format's version, as JSON.
//! The load writes it last, so a table directory without one is not a table.

use std::collections::BTreeMap;

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
    /// A message naming what is missing or wrong (another format or version, a field
    /// that is not there or of the wrong kind).
    pub fn from_json(value: &Value) -> Result<Manifest, String> {
        if value["format"] != FORMAT || value["version"] != VERSION {
            return Err(format!(
                "not a {FORMAT} of version {VERSION}: format {}, version {}",
                value["format"], value["version"]
            ));
        }
        if value["checksum"].as_u64() != Some(u64::from(text_checksum(value))) {
            return Err(
                "the manifest does not match its checksum: it was edited or \
                        damaged after the load"
                    .into(),
            );
        }
        let number = |v: &Value, name: &str| {
            v[name]
                .as_u64()
                .ok_or_else(|| format!("the manifest lacks the number {name:?}"))
        };
        let columns = value["columns"]
            .as_array()
            .ok_or("the manifest lacks its columns")?
            .iter()
            .map(|c| {
                let name = c["name"].as_str().ok_or("a column without a name")?;
                let ty = c["type"].as_str().and_then(ColumnType::parse);
                Ok(Column {
                    name: from_key_text(name).ok_or(format!("a bad column name {name:?}"))?,
                    ty: ty.ok_or(format!("column {name:?} has no known type"))?,
                    nulls: number(c, "nulls")?,
                    id_bound: u32::try_from(number(c, "id_bound")?).map_err(|e| e.to_string())?,
                })
            })
            .collect::<Result<Vec<Column>, String>>()?;
        let index = match &value["index"] {
            Value::Null => None,
            v => Some(
                v.as_u64()
                    .filter(|&k| k < columns.len() as u64)
                    .ok_or("a bad index")? as usize,
            ),
        };
        let checksums = value["files"]
            .as_object()
            .ok_or("the manifest lacks its files' checksums")?
            .iter()
            .map(|(name, crc)| {
                let crc = crc.as_u64().and_then(|c| u32::try_from(c).ok());
                Ok((
                    name.clone(),
                    crc.ok_or(format!("a bad checksum of {name}"))?,
                ))
            })
            .collect::<Result<BTreeMap<String, u32>, String>>()?;
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
    fn check_bounds(&self) -> Result<(), String> {
        // 16 bytes a row is the widest file (a float64's exact sums).
        if self.rows > u64::MAX / 16 {
            return Err(format!("{} rows is more than a file can hold", self.rows));
        }
        if self.symbols > u64::from(u32::MAX) + 1 {
            return Err(format!(
                "{} symbols is more than a u32 id can name",
                self.symbols
            ));
        }
        // Each symbol is some row's string: a query's arrays are never longer than
        // the table's strings.
        let strings = self.columns.iter().filter(|c| c.ty == ColumnType::String);
        if self.symbols > self.rows.saturating_mul(strings.count() as u64) {
            return Err(format!(
                "{} symbols is more than the table's string fields",
                self.symbols
            ));
        }
        if let Some(k) = self.index
            && self.columns[k].ty == ColumnType::Text
        {
            return Err("an index on a text column, which is never built".into());
        }
        // A file of the table is a name in its directory, never a path elsewhere.
        if let Some(name) = self
            .checksums
            .keys()
            .find(|n| n.is_empty() || n.contains(['/', '\\']) || *n == "." || *n == "..")
        {
            return Err(format!(
                "{name:?} is not a file name of the table's directory"
            ));
        }
        for c in &self.columns {
            let name = key_text(&c.name);
            if u64::from(c.id_bound) > self.symbols {
                return Err(format!(
                    "column {name:?} has an id bound of {}, past the table's {} symbols",
                    c.id_bound, self.symbols
                ));
            }
            if c.nulls > self.rows {
                return Err(format!(
                    "column {name:?} has {} NULLs in {} rows",
                    c.nulls, self.rows
                ));
            }
            // A string or text column has no validity bits, so no NULLs to count.
            if !c.ty.has_validity() && c.nulls != 0 {
                return Err(format!(
                    "column {name:?} is {}, which holds no NULLs, but has {} of them",
                    c.ty, c.nulls
                ));
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
mod tests {
    use super::*;

    #[test]
    fn names_and_manifests_round_trip() {
        for name in [
            &b"value"[..],
            b"a\\b",
            b"\xff\\xff",
            b"caf\xc3\xa9",
            b"",
            b"\\",
        ] {
            assert_eq!(from_key_text(&key_text(name)).as_deref(), Some(name));
        }
        let m = Manifest {
            rows: 3,
            symbols: 2,
            columns: vec![
                Column {
                    name: b"k\xff".to_vec(),
                    ty: ColumnType::String,
                    nulls: 0,
                    id_bound: 2,
                },
                Column {
                    name: b"v".to_vec(),
                    ty: ColumnType::Decimal { scale: 6 },
                    nulls: 1,
                    id_bound: 0,
                },
            ],
            index: Some(1),
            checksums: [("col0.values".to_string(), 7), ("symbols.bytes".into(), 9)].into(),
        };
        assert_eq!(Manifest::from_json(&m.to_json()), Ok(m.clone()));
        let mut other = m.to_json();
        other["version"] = (VERSION + 1).into();
        assert!(Manifest::from_json(&other).unwrap_err().contains("version"));
        // Any number edited, the text's checksum refuses it.
        for edit in ["rows", "symbols"] {
            let mut edited = m.to_json();
            edited[edit] = 4.into();
            let e = Manifest::from_json(&edited).unwrap_err();
            assert!(e.contains("does not match its checksum"), "{edit}: {e}");
        }
        let mut edited = m.to_json();
        edited["columns"][0]["id_bound"] = 1.into();
        assert!(Manifest::from_json(&edited).is_err());
    }
}
