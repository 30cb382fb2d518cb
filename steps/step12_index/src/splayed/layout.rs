//! The table on disk: a directory, one file per column (a splayed table, as kdb+
//! calls it), the symbol file, and the manifest, written last.
//!
//! ```text
//! TABLE_DIR/
//!   manifest.json        names, types, rows, symbols, format version (written last)
//!   symbols.bytes        every distinct string, once, one after the other
//!   symbols.offsets      u64 LE, symbols + 1: symbol i = bytes[offsets[i]..offsets[i+1]]
//!   col{k}.values        column k: rows x (8 bytes int64/decimal/float64, 4 bytes
//!                        date/string id, 1 byte bool; text: each row's end offset,
//!                        4 bytes when the column's text is at most 4 GiB, else 8),
//!                        little-endian
//!   col{k}.valid         u64 LE words, bit i = row i has a value (not string, text)
//!   col{k}.exact         float64 only: i128 LE, each value's exact decimal or i128::MIN
//!   col{k}.text          text only: the rows' bytes, one after the other; row i is
//!                        text[values[i-1]..values[i]] (values[-1] = 0)
//! ```
//!
//! Every file is a raw little-endian array: it can be memory-mapped and read as it
//! lies, and the file sizes follow from the manifest (the reader checks them).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::splayed::encode::Bits;
use crate::splayed::symbols::Symbols;

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.json";
/// The symbol bytes' file name.
pub const SYMBOL_BYTES: &str = "symbols.bytes";
/// The symbol offsets' file name.
pub const SYMBOL_OFFSETS: &str = "symbols.offsets";

// ANCHOR: text_offset_width
/// Bytes of a `text` column's end offsets (in `col{k}.values`) when its text file
/// holds `text_bytes` bytes: 4 while every offset fits a `u32`, else 8, the choice
/// Arrow makes between `Utf8` and `LargeUtf8`. Both the load and the reader take it
/// from the text's size, so it needs no field in the manifest. A column of names
/// is mostly offsets: half of them is a large share of the table's bytes (the
/// chapter measures it).
pub fn text_offset_width(text_bytes: u64) -> usize {
    if text_bytes <= u64::from(u32::MAX) {
        4
    } else {
        8
    }
}
// ANCHOR_END: text_offset_width

/// The file of column `k`'s `part` (`values`, `valid` or `exact`) in `dir`.
pub fn column_file(dir: &Path, k: usize, part: &str) -> PathBuf {
    dir.join(format!("col{k}.{part}"))
}

/// Writes `parts` one after the other into the new file `path`, and flushes it to
/// the disk. New: never a file that exists, nor a FIFO or a device put in its
/// place, which opening for writing would wait on or write into.
///
/// # Errors
/// What creating (`AlreadyExists` when something is at `path`), writing or syncing
/// the file fails with.
pub fn write_file<'a>(
    path: &Path,
    parts: impl IntoIterator<Item = &'a [u8]>,
) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create_new(path)?);
    for part in parts {
        out.write_all(part)?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// Writes `words` into the new file `path` as little-endian bytes (`le` gives a
/// word's), a block at a time: no second copy of the whole array on the heap (the
/// symbol offsets of a large file are a word per distinct string). Flushed to the
/// disk.
///
/// # Errors
/// As [`write_file`].
pub fn write_words<T: Copy, const N: usize>(
    path: &Path,
    words: &[T],
    le: impl Fn(T) -> [u8; N],
) -> std::io::Result<()> {
    const BLOCK: usize = 8192;
    let mut out = BufWriter::with_capacity(1 << 20, File::create_new(path)?);
    let mut block = Vec::with_capacity(BLOCK * N);
    for chunk in words.chunks(BLOCK) {
        block.clear();
        for &w in chunk {
            block.extend_from_slice(&le(w));
        }
        out.write_all(&block)?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}

// ANCHOR: write_valid
/// Writes column `k`'s validity bits (the load wrote its values and exact decimals
/// through their maps, [`crate::splayed::mapped`]).
///
/// # Errors
/// As [`write_file`].
pub fn write_valid(dir: &Path, k: usize, valid: &Bits) -> std::io::Result<()> {
    write_words(
        &column_file(dir, k, "valid"),
        &valid.words,
        u64::to_le_bytes,
    )
}
// ANCHOR_END: write_valid

/// Writes the symbol file.
///
/// # Errors
/// As [`write_file`].
pub fn write_symbols(dir: &Path, symbols: &Symbols) -> std::io::Result<()> {
    write_file(&dir.join(SYMBOL_BYTES), [&symbols.blob[..]])?;
    write_words(
        &dir.join(SYMBOL_OFFSETS),
        &symbols.offsets,
        u64::to_le_bytes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_offsets_take_four_bytes_while_every_offset_fits_a_u32() {
        assert_eq!(text_offset_width(0), 4);
        assert_eq!(text_offset_width(u64::from(u32::MAX)), 4);
        assert_eq!(text_offset_width(u64::from(u32::MAX) + 1), 8);
    }
}
