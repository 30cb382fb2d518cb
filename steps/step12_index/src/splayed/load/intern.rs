//! Interning, after pass 2: the chunks' dictionaries into the table's symbols
//! ([`crate::splayed::symbols::intern`]), then each chunk's string columns rewritten
//! from local ids to symbol ids, in place in the mapped column files.

use crate::splayed::encode::ChunkColumns;
use crate::splayed::symbols::{self, Symbols};
use crate::splayed::types::ColumnType;

/// The table's symbols, every chunk's ids rewritten as theirs; and each column's
/// largest symbol id + 1 (0 for other types).
pub(super) fn intern(
    chunks: &mut [ChunkColumns<'_, '_>],
    types: &[ColumnType],
    threads: usize,
) -> (Symbols, Vec<u32>) {
    let dicts: Vec<_> = chunks
        .iter_mut()
        .map(|c| std::mem::take(&mut c.dict))
        .collect();
    let (symbols, ids) = symbols::intern(&dicts, threads);
    drop(dicts);
    let id_bounds = to_symbol_ids(chunks, &ids, types, threads);
    (symbols, id_bounds)
}

// ANCHOR: to_symbol_ids
/// Rewrites each chunk's string columns from local ids to symbol ids, a chunk per
/// task; returns each column's largest symbol id + 1 (0 for other types).
fn to_symbol_ids(
    chunks: &mut [ChunkColumns<'_, '_>],
    ids: &[Vec<u32>],
    types: &[ColumnType],
    threads: usize,
) -> Vec<u32> {
    let per_thread = chunks.len().div_ceil(threads.max(1)).max(1);
    let bounds: Vec<Vec<u32>> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .chunks_mut(per_thread)
            .zip(ids.chunks(per_thread))
            .map(|(mine, my_ids)| {
                scope.spawn(move || {
                    let mut bound = vec![0u32; types.len()];
                    for (chunk, map) in mine.iter_mut().zip(my_ids) {
                        for (k, column) in chunk.columns.iter_mut().enumerate() {
                            if types[k] != ColumnType::String {
                                continue;
                            }
                            for id in column.values.filled_mut().chunks_exact_mut(4) {
                                let local = u32::from_le_bytes(id.try_into().expect("4 bytes"));
                                let symbol = map[local as usize];
                                bound[k] = bound[k].max(symbol + 1);
                                id.copy_from_slice(&symbol.to_le_bytes());
                            }
                        }
                    }
                    bound
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    (0..types.len())
        .map(|k| bounds.iter().map(|b| b[k]).max().unwrap_or(0))
        .collect()
}
// ANCHOR_END: to_symbol_ids
