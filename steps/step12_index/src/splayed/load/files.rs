//! The column files, created in the staging directory at their final size and
//! mapped ([`crate::splayed::mapped`]) before pass 2; each chunk's windows of them;
//! and the validity bits, joined after it.

use std::path::{Path, PathBuf};

use crate::splayed::encode::{Bits, ChunkColumns, Windows};
use crate::splayed::error::TableError;
use crate::splayed::infer::Seen;
use crate::splayed::layout;
use crate::splayed::load::pass1::PartSize;
use crate::splayed::mapped::{MappedFile, windows};
use crate::splayed::types::ColumnType;

/// One column's mapped files: its values, and its second file: the exact decimals
/// of a `float64` column, the bytes of a `text` column.
pub(super) struct ColumnFiles {
    pub(super) values: MappedFile,
    pub(super) extra: Option<MappedFile>,
}

// ANCHOR: create_column_files
/// Each column's files in `tmp`, at their final size for `rows` rows (`seen` summed
/// a `text` column's bytes), mapped.
pub(super) fn create_column_files(
    tmp: &Path,
    types: &[ColumnType],
    rows: u64,
    seen: &[Seen],
) -> Result<Vec<ColumnFiles>, TableError> {
    let create = |path: PathBuf, len: u64| {
        MappedFile::create(&path, len).map_err(TableError::io_write_at(&path))
    };
    let file = |k: usize, part: &str| layout::column_file(tmp, k, part);
    types
        .iter()
        .enumerate()
        .map(|(k, ty)| {
            Ok(ColumnFiles {
                values: create(
                    file(k, "values"),
                    rows * ty.values_width(seen[k].bytes) as u64,
                )?,
                extra: match ty {
                    ColumnType::Float64 => Some(create(file(k, "exact"), rows * 16)?),
                    ColumnType::Text => Some(create(file(k, "text"), seen[k].bytes)?),
                    _ => None,
                },
            })
        })
        .collect()
}

/// Each chunk's [`Windows`] of each column's files, chunk `c`'s after the chunks'
/// before it (their rows, and for `text` their bytes, as pass 1 counted them).
pub(super) fn chunk_windows<'m>(
    files: &'m mut [ColumnFiles],
    types: &[ColumnType],
    sizes: &[PartSize],
) -> Vec<Vec<Windows<'m>>> {
    let mut per_chunk: Vec<Vec<Windows<'m>>> = sizes
        .iter()
        .map(|_| Vec::with_capacity(types.len()))
        .collect();
    for (k, (column, ty)) in files.iter_mut().zip(types).enumerate() {
        let rows = |width: usize| sizes.iter().map(move |s| s.rows as usize * width);
        let width = ty.values_width(sizes.iter().map(|s| s.bytes[k]).sum());
        let values = windows(column.values.bytes_mut(), rows(width));
        let extra = match (&mut column.extra, ty) {
            (Some(text), ColumnType::Text) => {
                windows(text.bytes_mut(), sizes.iter().map(|s| s.bytes[k] as usize))
            }
            (Some(exact), _) => windows(exact.bytes_mut(), rows(16)),
            (None, _) => sizes.iter().map(|_| <&mut [u8]>::default()).collect(),
        };
        let mut text_start = 0;
        for ((chunk, values), extra) in per_chunk.iter_mut().zip(values).zip(extra) {
            let len = extra.len() as u64;
            chunk.push(Windows {
                values,
                extra,
                text_start,
                offset_width: width,
            });
            text_start += len;
        }
    }
    per_chunk
}
// ANCHOR_END: create_column_files

/// Each column's validity bits, the chunks' joined (`None` for a string column).
pub(super) fn joined_valid(
    chunks: &[ChunkColumns<'_, '_>],
    types: &[ColumnType],
) -> Vec<Option<Bits>> {
    types
        .iter()
        .enumerate()
        .map(|(k, ty)| {
            ty.has_validity().then(|| {
                let mut valid = Bits::default();
                for chunk in chunks {
                    valid.extend(&chunk.columns[k].valid);
                }
                valid
            })
        })
        .collect()
}
