//! The hash index of a column: each distinct value's rows, the groups numbered by
//! first occurrence, built in parallel by hash partitions from a loaded table, and
//! added to it as an optional part that its manifest names.
//!
//! ```text
//! in parallel, per range of rows: each row's partition (hash of its key)
//! in order: each partition's rows, in row order (a counting sort)
//! in parallel, per partition: its groups (key -> local group), each group's first
//!     row and size, and each of its rows' local group
//! in order: the groups sorted by first row -> group numbers, offsets (prefix sums);
//!     each row written at its group's next slot
//! ```
//!
//! Sorting the groups by their first row numbers them by first occurrence, whatever
//! the partitions, and rows stay in row order within a group: so the files are the
//! same bytes as a one-thread build's.
//!
//! Files: `col{k}.index.offsets` (u64 LE, groups + 1: group g's rows are
//! `rows[offsets[g]..offsets[g + 1]]`), `col{k}.index.rows` (u64 LE row numbers) and
//! `col{k}.index.slots` (u32 LE, a power of two of at least twice the groups: an
//! open-addressed table, linear probing, 0 for an empty slot, else group + 1). A
//! group's key is the value of its first row.
//!
//! The slots make the index answer `--where COLUMN=VALUE` without reading every
//! group: hash the value ([`hash_key`]), walk the slots from `hash & (len - 1)` to
//! the first empty one, and compare the key of each group met. The hash is written
//! here, not drawn at random per process as hashbrown's is, because the slots are
//! saved and read back by another process. A string column's slots hash the string's
//! bytes, not its symbol id, so that a query can look a text up without a symbol
//! table of its own.
//!
//! The room: the build ([`mod@build`]), adding it to a table ([`add`]), its files as a
//! query maps them ([`files`]), `--where` ([`select`]), which finds a value's rows
//! through the index or, without one, by a scan, and its check ([`verify`]). It
//! reads the table through [`crate::splayed`], which knows nothing of it: the arrows
//! go one way, index to table.

pub mod add;
pub mod build;
pub mod files;
pub mod select;
pub mod verify;

pub use build::{HashIndex, hash_key};
pub use files::IndexFiles;
