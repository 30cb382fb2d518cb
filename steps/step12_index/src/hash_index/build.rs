//! The index's build: each distinct value's rows, the groups numbered by first
//! occurrence, in parallel by hash partitions; and the slots that find a value's
//! group ([`crate::hash_index`] has the layout).

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashMap};

use crate::pool::map_chunks;

/// Hash partitions of the build.
pub const PARTITIONS: usize = 64;

/// A built index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HashIndex {
    /// Groups + 1 offsets into `rows`.
    pub offsets: Vec<u64>,
    /// Row numbers, grouped, in row order within each group.
    pub rows: Vec<u64>,
    /// The open-addressed slots (group + 1, 0 when empty), from [`slots`].
    pub slots: Vec<u32>,
}

// ANCHOR: hash_key
/// The slots' hash of a key's bytes: eight bytes at a time, each word mixed in with a
/// rotate, an xor and a multiply by an odd constant (the scheme of Firefox's and
/// rustc's FxHash), then the length; the high bits folded down, since the slot is
/// taken from the low ones. The same bits in every process and on every machine.
pub fn hash_key(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    let mut h = words.by_ref().fold(0, |h, w| {
        mix(h, u64::from_le_bytes(w.try_into().expect("8")))
    });
    // The last 0..=7 bytes as a little-endian word padded with zeros, built a byte
    // at a time: a copy of a variable length would be a `memcpy` call per key.
    let tail = (words.remainder().iter().rev()).fold(0, |w, &b| w << 8 | u64::from(b));
    h = mix(mix(h, tail), bytes.len() as u64);
    h ^ (h >> 29)
}
// ANCHOR_END: hash_key

impl HashIndex {
    /// Groups in the index.
    pub fn groups(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The key of group `g`: its first row's.
    pub fn first_row(&self, g: usize) -> usize {
        self.rows[self.offsets[g] as usize] as usize
    }
}

// ANCHOR: slots
// ANCHOR: exercise_slots
/// The slots of `groups` groups, group `g` under `hash_of(g)`, put in group order, so
/// that they are the same bytes whatever the build's threads.
pub fn slots(groups: usize, hash_of: impl Fn(usize) -> u64) -> Vec<u32> {
    let len = (2 * groups).next_power_of_two().max(2);
    let mut slots = vec![0u32; len];
    for g in 0..groups {
        let mut s = hash_of(g) as usize & (len - 1);
        while slots[s] != 0 {
            s = (s + 1) & (len - 1);
        }
        slots[s] = g as u32 + 1;
    }
    slots
}
// ANCHOR_END: exercise_slots
// ANCHOR_END: slots

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
    HashIndex {
        offsets,
        rows,
        slots: Vec::new(),
    }
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
            ..HashIndex::default()
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
                ..HashIndex::default()
            }
        );
    }

    #[test]
    fn every_group_is_found_from_its_slot() {
        let keys: Vec<[u8; 16]> = (0..3_000u128)
            .map(|i| (i * i % 1_009).to_le_bytes())
            .collect();
        let mut index = build(&keys, 2);
        let hashes: Vec<u64> = (0..index.groups())
            .map(|g| hash_key(&keys[index.first_row(g)]))
            .collect();
        index.slots = slots(index.groups(), |g| hashes[g]);
        assert!(
            index.slots.len() >= 2 * index.groups(),
            "{} slots for {} groups: at least twice as many",
            index.slots.len(),
            index.groups()
        );
        let taken = index.slots.iter().filter(|&&s| s != 0).count();
        assert!(
            taken == index.groups(),
            "{taken} slots taken (not 0) for {} groups: one slot a group",
            index.groups()
        );
        let len = index.slots.len();
        for (g, &hash) in hashes.iter().enumerate() {
            let mut s = hash as usize & (len - 1);
            while index.slots[s] != g as u32 + 1 {
                assert_ne!(index.slots[s], 0, "group {g} is not on its probe path");
                s = (s + 1) & (len - 1);
            }
        }
    }

    #[test]
    fn the_hash_is_fixed_and_sees_every_byte_and_the_length() {
        // Fixed: a saved index is read by other processes.
        assert_eq!(hash_key(b"books"), hash_key(b"books"));
        let base = hash_key(b"abcdefghijk");
        for i in 0..11 {
            let mut other = *b"abcdefghijk";
            other[i] ^= 1;
            assert_ne!(hash_key(&other), base, "byte {i}");
        }
        assert_ne!(hash_key(b"a"), hash_key(b"a\0"));
        assert_ne!(hash_key(b""), hash_key(b"\0"));
    }

    #[test]
    fn the_tail_is_the_zero_padded_little_endian_word() {
        let text = b"the quick brown fox";
        for len in 0..=text.len() {
            let bytes = &text[..len];
            let (whole, rest) = bytes.split_at(len / 8 * 8);
            let mut tail = [0u8; 8];
            tail[..rest.len()].copy_from_slice(rest);
            let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
            let words = whole
                .chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().unwrap()));
            let h = mix(
                mix(words.fold(0, mix), u64::from_le_bytes(tail)),
                len as u64,
            );
            assert_eq!(hash_key(bytes), h ^ (h >> 29), "{len} bytes");
        }
    }
}
