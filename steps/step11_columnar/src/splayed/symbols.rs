//! Interning: every distinct string of the file stored once, numbered by its first
//! occurrence in the file, whatever the number of threads.
//!
//! ```text
//! in parallel, per chunk (in the chunk's record order, column order):
//!     local dictionary: string -> local id, first occurrence first; the column
//!     holds local ids
//! in parallel, per hash partition p (of PARTITIONS):
//!     for each chunk c in file order, each local string l of c whose hash is in p:
//!         first[c][l] = the first (chunk, local id) with the same bytes
//! in order (integers only, no hashing):
//!     for each chunk c, each local id l:
//!         if first[c][l] == (c, l): a new symbol, the next id, its bytes appended
//!         else: the id of first[c][l] (an earlier string, already numbered)
//! in parallel, per chunk: rewrite the column's local ids as symbol ids
//! ```
//!
//! Sorting new symbols by (chunk, local id) is sorting them by their first position
//! in the file, which does not depend on where the chunks begin: so the symbol file
//! and every column file are the same bytes on any thread count (Rayforce's parallel
//! splayed load had to be fixed to get this property). Each string is hashed once, in
//! its chunk; the partitions reuse the hash.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

use crate::pool::map_chunks;

/// Hash partitions of the deduplication: enough to keep every core busy.
pub const PARTITIONS: usize = 64;

/// The partition of a hash: bits that hashbrown's own tables do not use for their
/// bucket (low bits) nor their tag (top seven bits), so a partition's table still
/// sees well-spread hashes.
fn partition(hash: u64) -> usize {
    (hash >> 32) as usize % PARTITIONS
}

// ANCHOR: local
/// A chunk's dictionary: its distinct strings, in order of first occurrence, in one
/// bytes blob (no allocation per string), with their hashes.
#[derive(Clone, Debug, Default)]
pub struct LocalDict {
    blob: Vec<u8>,
    /// `ends[i]`: one past the last byte of string `i` in `blob`.
    ends: Vec<usize>,
    hashes: Vec<u64>,
    table: HashTable<u32>,
}

impl LocalDict {
    // ANCHOR: exercise_local_intern
    /// The local id of `bytes`, interned on first sight. `hasher` must be the same
    /// for every chunk of a load (the partitions reuse the hashes).
    #[inline]
    pub fn intern(&mut self, bytes: &[u8], hasher: &DefaultHashBuilder) -> u32 {
        let hash = hasher.hash_one(bytes);
        let (blob, ends) = (&self.blob, &self.ends);
        let get = |id: u32| string(blob, ends, id as usize);
        if let Some(&id) = self.table.find(hash, |&id| get(id) == bytes) {
            return id;
        }
        let id = self.ends.len() as u32;
        self.blob.extend_from_slice(bytes);
        self.ends.push(self.blob.len());
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.table
            .insert_unique(hash, id, |&id| hashes[id as usize]);
        id
    }
    // ANCHOR_END: exercise_local_intern

    /// Distinct strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when nothing was interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of local id `id`.
    pub fn get(&self, id: usize) -> &[u8] {
        string(&self.blob, &self.ends, id)
    }

    /// Bytes of all the strings.
    pub fn bytes(&self) -> usize {
        self.blob.len()
    }

    /// Room for `strings` more strings of `bytes` bytes in all, so that the arrays
    /// are allocated once instead of doubling (their bytes asked for: about half).
    /// The hash table still grows by doubling: sized up front it made the load's
    /// pass 2 slower (every early insert a cache miss in a table of the chunk's
    /// final size), for all its saved rehashes.
    pub fn reserve(&mut self, strings: usize, bytes: usize) {
        self.ends.reserve(strings);
        self.hashes.reserve(strings);
        self.blob.reserve(bytes);
    }
}
// ANCHOR_END: local

fn string<'b>(blob: &'b [u8], ends: &[usize], id: usize) -> &'b [u8] {
    let start = if id == 0 { 0 } else { ends[id - 1] };
    &blob[start..ends[id]]
}

/// The table's dictionary: symbol `i` is `blob[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Symbols {
    /// Every symbol's bytes, one after the other.
    pub blob: Vec<u8>,
    /// Symbols + 1 offsets into `blob`, starting at 0.
    pub offsets: Vec<u64>,
}

impl Symbols {
    /// Symbols.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there is no symbol.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of symbol `id`.
    pub fn get(&self, id: usize) -> &[u8] {
        &self.blob[self.offsets[id] as usize..self.offsets[id + 1] as usize]
    }
}

/// A packed `(chunk, local id)`: the chunk in the high half.
fn key(chunk: usize, local: u32) -> u64 {
    ((chunk as u64) << 32) | u64::from(local)
}

// ANCHOR: intern
/// Numbers the strings of every chunk's dictionary by first occurrence in the file
/// (`dicts` in file order) on `threads` threads. Returns the dictionary and, per
/// chunk, the symbol id of each of its local ids.
pub fn intern(dicts: &[LocalDict], threads: usize) -> (Symbols, Vec<Vec<u32>>) {
    let lists = map_chunks(threads, dicts.len(), || (), |(), c| by_partition(&dicts[c])).0;
    let firsts = map_chunks(
        threads,
        PARTITIONS,
        || (),
        |(), p| first_keys(dicts, &lists, p),
    )
    .0;
    let first = map_chunks(
        threads,
        dicts.len(),
        || (),
        |(), c| {
            let mut first = vec![0u64; dicts[c].len()];
            for (p, list) in lists[c].iter().enumerate() {
                for (&local, &k) in list.iter().zip(&firsts[p][c]) {
                    first[local as usize] = k;
                }
            }
            first
        },
    )
    .0;
    number_in_order(dicts, &first)
}
// ANCHOR_END: intern

/// The local ids of `dict` in each hash partition, in local id order.
fn by_partition(dict: &LocalDict) -> Vec<Vec<u32>> {
    // Counted first, so that each list is allocated once, at its size.
    let mut counts = [0usize; PARTITIONS];
    for &hash in &dict.hashes {
        counts[partition(hash)] += 1;
    }
    let mut lists: Vec<Vec<u32>> = counts.iter().map(|&n| Vec::with_capacity(n)).collect();
    for (id, &hash) in dict.hashes.iter().enumerate() {
        lists[partition(hash)].push(id as u32);
    }
    lists
}

/// Partition `p`: for each chunk's strings in it (aligned with `lists[c][p]`), the
/// key of the first string of the file with the same bytes.
fn first_keys(dicts: &[LocalDict], lists: &[Vec<Vec<u32>>], p: usize) -> Vec<Vec<u64>> {
    // At most every string of the partition is new: sized once, never rehashed.
    let strings: usize = lists.iter().map(|l| l[p].len()).sum();
    let mut table: HashTable<u64> = HashTable::with_capacity(strings);
    let bytes = |k: u64| dicts[(k >> 32) as usize].get((k & 0xFFFF_FFFF) as usize);
    let hash_of = |&k: &u64| dicts[(k >> 32) as usize].hashes[(k & 0xFFFF_FFFF) as usize];
    let mut out = Vec::with_capacity(dicts.len());
    for (c, dict) in dicts.iter().enumerate() {
        let list = &lists[c][p];
        let mut firsts = Vec::with_capacity(list.len());
        for &local in list {
            let (hash, text) = (dict.hashes[local as usize], dict.get(local as usize));
            let k = match table.find(hash, |&k| bytes(k) == text) {
                Some(&k) => k,
                None => *table.insert_unique(hash, key(c, local), hash_of).get(),
            };
            firsts.push(k);
        }
        out.push(firsts);
    }
    out
}

// ANCHOR: exercise_number_in_order
/// The sequential step: new symbols in (chunk, local id) order, so in order of first
/// occurrence; integer work and one copy of each new symbol's bytes.
fn number_in_order(dicts: &[LocalDict], first: &[Vec<u64>]) -> (Symbols, Vec<Vec<u32>>) {
    // At most every chunk's every string is new: allocated once, never doubled.
    let total: usize = dicts.iter().map(|d| d.blob.len()).sum();
    let strings: usize = dicts.iter().map(LocalDict::len).sum();
    let mut symbols = Symbols {
        blob: Vec::with_capacity(total),
        offsets: Vec::with_capacity(strings + 1),
    };
    symbols.offsets.push(0);
    let mut ids: Vec<Vec<u32>> = Vec::with_capacity(dicts.len());
    for (c, dict) in dicts.iter().enumerate() {
        let mut chunk_ids = Vec::with_capacity(dict.len());
        for (local, &k) in first[c].iter().enumerate() {
            let id = if k == key(c, local as u32) {
                symbols.blob.extend_from_slice(dict.get(local));
                symbols.offsets.push(symbols.blob.len() as u64);
                (symbols.offsets.len() - 2) as u32
            } else {
                let (fc, fl) = ((k >> 32) as usize, (k & 0xFFFF_FFFF) as usize);
                if fc == c { chunk_ids[fl] } else { ids[fc][fl] }
            };
            chunk_ids.push(id);
        }
        ids.push(chunk_ids);
    }
    (symbols, ids)
}
// ANCHOR_END: exercise_number_in_order

#[cfg(test)]
mod tests {
    use super::*;

    fn dict(words: &[&str], hasher: &DefaultHashBuilder) -> (LocalDict, Vec<u32>) {
        let mut d = LocalDict::default();
        let ids = words
            .iter()
            .map(|w| d.intern(w.as_bytes(), hasher))
            .collect();
        (d, ids)
    }

    #[test]
    fn first_occurrence_order_whatever_the_chunks_and_threads() {
        let words = ["b", "a", "b", "", "c", "a", "d", "", "e", "b"];
        let hasher = DefaultHashBuilder::default();
        let expected: Vec<&[u8]> = vec![b"b", b"a", b"", b"c", b"d", b"e"];
        for size in 1..=words.len() {
            for threads in [1, 2, 3, 8] {
                let (dicts, locals): (Vec<_>, Vec<_>) =
                    words.chunks(size).map(|c| dict(c, &hasher)).unzip();
                let (symbols, ids) = intern(&dicts, threads);
                let got: Vec<&[u8]> = (0..symbols.len())
                    .map(|i| {
                        &symbols.blob[symbols.offsets[i] as usize..symbols.offsets[i + 1] as usize]
                    })
                    .collect();
                let text = |strings: &[&[u8]]| -> Vec<String> {
                    strings
                        .iter()
                        .map(|s| s.escape_ascii().to_string())
                        .collect()
                };
                assert!(
                    got == expected,
                    "the symbols of {words:?} in chunks of {size} on {threads} threads, in \
                     id order:\n  got      {:?}\n  expected {:?} (first occurrence order)",
                    text(&got),
                    text(&expected)
                );
                // Every word maps to the symbol with its bytes.
                let flat: Vec<u32> = locals
                    .iter()
                    .zip(&ids)
                    .flat_map(|(l, m)| l.iter().map(|&i| m[i as usize]))
                    .collect();
                let expected = [0, 1, 0, 2, 3, 1, 4, 2, 5, 0];
                assert!(
                    flat == expected,
                    "the symbol id of each word of {words:?} in chunks of {size} on {threads} \
                     threads:\n  got      {flat:?}\n  expected {expected:?}"
                );
            }
        }
    }
}
