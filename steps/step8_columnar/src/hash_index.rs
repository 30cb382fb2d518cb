//! The hash index of a column: each distinct value's rows, the groups numbered by
//! first occurrence, built in parallel by hash partitions.
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
//! `rows[offsets[g]..offsets[g + 1]]`) and `col{k}.index.rows` (u64 LE row numbers).
//! A group's key is the value of its first row.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashMap};

use crate::chunks::map_chunks;

/// Hash partitions of the build.
pub const PARTITIONS: usize = 64;

/// A built index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HashIndex {
    /// Groups + 1 offsets into `rows`.
    pub offsets: Vec<u64>,
    /// Row numbers, grouped, in row order within each group.
    pub rows: Vec<u64>,
}

// ANCHOR: build
/// The index of `keys` (one key per row: a row's value as 16 bytes, NULL distinct
/// from every value) on `threads` threads.
pub fn build(keys: &[[u8; 16]], threads: usize) -> HashIndex {
    let hasher = DefaultHashBuilder::default();
    let n = keys.len();
    let ranges = (threads * 4).clamp(1, n.max(1));
    let partition_of = map_chunks(
        threads,
        ranges,
        || (),
        |(), r| {
            let (from, to) = (n * r / ranges, n * (r + 1) / ranges);
            keys[from..to]
                .iter()
                .map(|k| ((hasher.hash_one(k) >> 32) as usize % PARTITIONS) as u8)
                .collect::<Vec<u8>>()
        },
    )
    .0
    .concat();
    let lists = rows_by_partition(&partition_of);
    let parts = map_chunks(threads, PARTITIONS, || (), |(), p| group(keys, &lists[p]));
    number_in_order(n, &lists, &parts.0)
}
// ANCHOR_END: build

/// Each partition's rows, in row order.
fn rows_by_partition(partition_of: &[u8]) -> Vec<Vec<u64>> {
    let mut counts = [0usize; PARTITIONS];
    for &p in partition_of {
        counts[p as usize] += 1;
    }
    let mut lists: Vec<Vec<u64>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    for (row, &p) in partition_of.iter().enumerate() {
        lists[p as usize].push(row as u64);
    }
    lists
}

/// One partition's groups: each group's (first row, size), and each row's group.
struct Groups {
    firsts: Vec<(u64, u64)>,
    group_of: Vec<u32>,
}

fn group(keys: &[[u8; 16]], rows: &[u64]) -> Groups {
    let mut ids: HashMap<[u8; 16], u32> = HashMap::new();
    let mut firsts: Vec<(u64, u64)> = Vec::new();
    let group_of = rows
        .iter()
        .map(|&row| {
            let id = *ids.entry(keys[row as usize]).or_insert_with(|| {
                firsts.push((row, 0));
                (firsts.len() - 1) as u32
            });
            firsts[id as usize].1 += 1;
            id
        })
        .collect();
    Groups { firsts, group_of }
}

/// Groups numbered by first row; each row at its group's next slot.
fn number_in_order(n: usize, lists: &[Vec<u64>], parts: &[Groups]) -> HashIndex {
    let mut order: Vec<(u64, u32, u32)> = parts
        .iter()
        .enumerate()
        .flat_map(|(p, g)| (0..g.firsts.len()).map(move |i| (g.firsts[i].0, p as u32, i as u32)))
        .collect();
    order.sort_unstable();
    let mut offsets = Vec::with_capacity(order.len() + 1);
    let mut next: Vec<Vec<u64>> = parts.iter().map(|g| vec![0; g.firsts.len()]).collect();
    let mut at = 0u64;
    for &(_, p, i) in &order {
        offsets.push(at);
        next[p as usize][i as usize] = at;
        at += parts[p as usize].firsts[i as usize].1;
    }
    offsets.push(at);
    let mut rows = vec![0u64; n];
    for (p, list) in lists.iter().enumerate() {
        for (&row, &g) in list.iter().zip(&parts[p].group_of) {
            let slot = &mut next[p][g as usize];
            rows[*slot as usize] = row;
            *slot += 1;
        }
    }
    HashIndex { offsets, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious one-thread build: groups in order of first occurrence.
    fn serial(keys: &[[u8; 16]]) -> HashIndex {
        let mut order: Vec<[u8; 16]> = Vec::new();
        let mut rows: std::collections::HashMap<[u8; 16], Vec<u64>> = Default::default();
        for (row, k) in keys.iter().enumerate() {
            rows.entry(*k).or_insert_with(|| {
                order.push(*k);
                Vec::new()
            });
            rows.get_mut(k).unwrap().push(row as u64);
        }
        let mut index = HashIndex {
            offsets: vec![0],
            rows: Vec::new(),
        };
        for k in order {
            index.rows.extend(&rows[&k]);
            index.offsets.push(index.rows.len() as u64);
        }
        index
    }

    #[test]
    fn the_same_as_the_serial_build_on_any_thread_count() {
        let mut x = 7u64;
        for distinct in [1u64, 3, 100, 5_000] {
            let keys: Vec<[u8; 16]> = (0..20_000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (u128::from(x % distinct)).to_le_bytes()
                })
                .collect();
            let expected = serial(&keys);
            for threads in [1, 2, 3, 8] {
                assert_eq!(
                    build(&keys, threads),
                    expected,
                    "{distinct} keys, {threads} threads"
                );
            }
        }
        assert_eq!(
            build(&[], 2),
            HashIndex {
                offsets: vec![0],
                rows: vec![]
            }
        );
    }
}
