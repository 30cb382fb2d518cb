//! The splayed table: a directory with one file per column, loaded once from the CSV
//! and read back as it lies on disk.
//!
//! ```text
//! types     what a column can be, and its bytes a row    types, infer, decimal, date
//! layout    the directory and its files, the manifest    layout, manifest
//! symbols   each distinct string once, numbered by its   symbols (interning)
//!           first occurrence
//! load      CSV -> table: two passes over step 10's        load (plan, pass1, pass2,
//!           chunks, on every core                        intern, files, write),
//!                                                        encode, mapped, distinct, cooked
//! scan      table -> columns, mapped as they lie and      scan, column,
//!           checked                                      mapped_check, verify
//! query     the GROUP BY over two of them, over every     query, units, rows
//!           row or a selection of rows (--where)
//! ```
//!
//! A column's bytes are a little-endian array that a query maps and reads in place:
//! no parse, no copy. Strings are *interned*: each distinct string is stored once
//! in the table's symbol file, and a string column holds `u32` symbol ids, so the
//! GROUP BY indexes an array by symbol id. What the load and the queries can fail
//! with is one type, [`error::TableError`].

pub mod column;
pub mod cooked;
pub mod date;
pub mod decimal;
pub mod distinct;
pub mod encode;
pub mod error;
pub mod infer;
pub mod layout;
pub mod load;
pub mod manifest;
pub mod mapped;
pub mod mapped_check;
pub mod query;
pub mod rows;
pub mod scan;
pub mod symbols;
pub mod types;
pub mod units;
pub mod verify;

pub use error::TableError;
pub use load::LoadOptions;
pub use scan::SplayedTable;
pub use types::ColumnType;
