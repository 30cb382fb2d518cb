//! The GROUP BY table, two ways, behind one trait ([`GroupBy`]): written by hand
//! ([`GroupTable`], open addressing with linear probing) and `hashbrown`'s
//! ([`Hashbrown`], Rust's SwissTable). Neither allocates per row: a key is copied
//! once, when its group is born. `benches/query.rs` times both inside the query, and
//! the query uses the winner, [`Winner`].
//!
//! The hand-written table:
//!
//! Slots are a power of two, so a hash becomes a slot with a mask; the table doubles
//! when half full, which keeps probe sequences short (Knuth's analysis of linear
//! probing: about 1.5 probes for a hit at load 1/2). Keys are copied once, when their
//! group is created, into one byte arena. A lookup compares the stored hash and length
//! first; a key of up to 8 bytes (every key of the bench file) is then compared as one
//! `u64` word kept in the slot, without a call to `memcmp`.

use harness::query::{Group, Groups};

/// A GROUP BY table: finds or creates the accumulator of a key.
pub trait GroupBy: Default {
    /// The accumulator of `key`, created (zero) on first sight.
    fn entry(&mut self, key: &[u8]) -> &mut Acc;
    /// The answer, in key order.
    fn to_groups(&self) -> Groups;
}

/// The table the query uses: the faster in `benches/query.rs` (see the crate docs).
pub type Winner = Hashbrown;

/// `hashbrown::HashMap` (the SwissTable design: 7-bit tags of the hash in a control
/// array, compared 16 at a time with SIMD, so most probes never touch a key) with its
/// default hasher, foldhash.
#[derive(Default)]
pub struct Hashbrown(hashbrown::HashMap<Vec<u8>, Acc>);

impl GroupBy for Hashbrown {
    #[inline]
    fn entry(&mut self, key: &[u8]) -> &mut Acc {
        self.0.entry_ref(key).or_default() // copies the key only when it is new
    }

    fn to_groups(&self) -> Groups {
        self.0
            .iter()
            .map(|(key, acc)| (key.clone(), acc.group()))
            .collect()
    }
}

impl GroupBy for GroupTable {
    #[inline]
    fn entry(&mut self, key: &[u8]) -> &mut Acc {
        GroupTable::entry(self, key)
    }

    fn to_groups(&self) -> Groups {
        GroupTable::to_groups(self)
    }
}

/// An accumulator: the row-order `f64` sum, as `gen`'s reference and step 1 compute it,
/// and the smallest and largest value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Acc {
    /// `COUNT(*)`.
    pub count: u64,
    /// Non-NULL values summed.
    pub values: u64,
    /// Their sum, added in row order from 0.0.
    pub sum: f64,
    /// The smallest value (`+inf` before the first).
    pub min: f64,
    /// The largest value (`-inf` before the first).
    pub max: f64,
}

impl Default for Acc {
    fn default() -> Acc {
        Acc::ZERO
    }
}

impl Acc {
    /// No row yet: counts and sum zero, MIN and MAX at their identities.
    pub const ZERO: Acc = Acc {
        count: 0,
        values: 0,
        sum: 0.0,
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
    };

    /// The group: the count, and the sum, extremes and mean (the row-order sum over
    /// the values: as exact as the sum) unless every value was NULL.
    pub fn group(&self) -> Group {
        let some = |v: f64| (self.values > 0).then_some(v);
        Group {
            count: self.count,
            sum: some(self.sum),
            min: some(self.min),
            max: some(self.max),
            mean: some(self.sum / self.values as f64),
        }
    }

    /// Adds one record's value (`None` for NULL).
    #[inline]
    pub fn add(&mut self, value: Option<f64>) {
        self.count += 1;
        if let Some(v) = value {
            self.values += 1;
            self.sum += v;
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// The key's first 8 bytes, zero-padded: the whole key when `key_len <= 8`.
    prefix: u64,
    /// Where the key starts in the arena; `u32::MAX` marks an empty slot.
    key_start: u32,
    key_len: u32,
    acc: Acc,
}

const EMPTY: u32 = u32::MAX;

/// Groups by key bytes. `entry` finds or creates a key's accumulator.
pub struct GroupTable {
    slots: Vec<Slot>,
    keys: Vec<u8>,
    len: usize,
}

impl Default for GroupTable {
    fn default() -> GroupTable {
        GroupTable::with_slots(64)
    }
}

impl GroupTable {
    /// An empty table of `slots` slots (rounded up to a power of two).
    pub fn with_slots(slots: usize) -> GroupTable {
        let empty = Slot {
            key_start: EMPTY,
            ..Slot::default()
        };
        GroupTable {
            slots: vec![empty; slots.next_power_of_two()],
            keys: Vec::new(),
            len: 0,
        }
    }

    /// Groups in the table.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no group has been created.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    // ANCHOR: entry
    // ANCHOR: exercise_table_entry
    /// The accumulator of `key`, created (zero) on first sight.
    #[inline]
    pub fn entry(&mut self, key: &[u8]) -> &mut Acc {
        let prefix = prefix_word(key);
        let hash = hash_with_prefix(key, prefix);
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let slot = &self.slots[i];
            // Equal length and prefix word: equal keys, unless they are longer than 8.
            // (An empty slot has no length to match: its `key_start` marks it.)
            if slot.prefix == prefix
                && slot.key_len as usize == key.len()
                && slot.key_start != EMPTY
                && (key.len() <= 8 || self.stored(slot) == key)
            {
                return &mut self.slots[i].acc;
            }
            if slot.key_start == EMPTY {
                break;
            }
            i = (i + 1) & mask; // linear probing: the next slot, wrapping around
        }
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
            return self.entry(key);
        }
        self.insert_at(i, prefix, key)
    }
    // ANCHOR_END: exercise_table_entry
    // ANCHOR_END: entry

    fn stored(&self, slot: &Slot) -> &[u8] {
        &self.keys[slot.key_start as usize..][..slot.key_len as usize]
    }

    fn insert_at(&mut self, i: usize, prefix: u64, key: &[u8]) -> &mut Acc {
        let key_start = u32::try_from(self.keys.len()).expect("group keys fit in 4 GiB");
        let key_len = u32::try_from(key.len()).expect("a group key fits in 4 GiB");
        self.keys.extend_from_slice(key);
        self.len += 1;
        self.slots[i] = Slot {
            prefix,
            key_start,
            key_len,
            acc: Acc::default(),
        };
        &mut self.slots[i].acc
    }

    /// Doubles the slots and re-inserts every group at its new place.
    fn grow(&mut self) {
        let doubled = vec![
            Slot {
                key_start: EMPTY,
                ..Slot::default()
            };
            2 * self.slots.len()
        ];
        let old = std::mem::replace(&mut self.slots, doubled);
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|s| s.key_start != EMPTY) {
            let mut i = hash(self.stored(&slot)) as usize & mask;
            while self.slots[i].key_start != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }

    /// Every group with its key bytes, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Acc)> {
        self.slots.iter().filter(|s| s.key_start != EMPTY).map(|s| {
            (
                &self.keys[s.key_start as usize..][..s.key_len as usize],
                &s.acc,
            )
        })
    }

    /// The answer, in key order.
    pub fn to_groups(&self) -> Groups {
        self.iter()
            .map(|(key, acc)| (key.to_vec(), acc.group()))
            .collect()
    }
}

// ANCHOR: hash
/// A word that, with the key's length, determines a key of up to 8 bytes, read
/// without a `memcpy` call: two overlapping 4-byte loads cover 4 to 8 bytes (the
/// short-key trick of hash functions such as wyhash), three byte loads cover 1 to 3.
/// For a longer key it is its first 8 bytes, and the arena holds the rest.
#[inline]
fn prefix_word(key: &[u8]) -> u64 {
    let n = key.len();
    let u32_at = |i: usize| {
        u64::from(u32::from_le_bytes([
            key[i],
            key[i + 1],
            key[i + 2],
            key[i + 3],
        ]))
    };
    match n {
        0 => 0,
        1..=3 => u64::from(key[0]) | u64::from(key[n / 2]) << 8 | u64::from(key[n - 1]) << 16,
        4..=8 => u32_at(0) | u32_at(n - 4) << 32,
        _ => u64::from_le_bytes(key[..8].try_into().expect("8 bytes")),
    }
}

/// FxHash's step (the hash of rustc and Firefox: rotate, XOR a word, multiply by a
/// large odd constant) over the prefix word, the length and, for a key longer than
/// 8 bytes, its other words. The final fold brings the well-mixed high bits down,
/// since the mask keeps only the low ones.
#[inline]
pub fn hash(key: &[u8]) -> u64 {
    hash_with_prefix(key, prefix_word(key))
}

/// [`hash`], given the key's [`prefix_word`].
#[inline]
fn hash_with_prefix(key: &[u8], prefix: u64) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let step = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(K);
    let mut h = step(key.len() as u64, prefix);
    if key.len() > 8 {
        for w in key[8..].chunks(8) {
            h = step(h, w.iter().rev().fold(0, |acc, &b| acc << 8 | u64::from(b)));
        }
    }
    h ^ (h >> 32)
}
// ANCHOR_END: hash

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn matches_a_hashmap_through_growth() {
        let mut table = GroupTable::with_slots(2);
        let mut model: HashMap<Vec<u8>, (u64, f64)> = HashMap::new();
        for i in 0..10_000u64 {
            let key = format!("k{}", (i * 7919) % 1_000).into_bytes();
            let v = i as f64 * 0.5;
            table.entry(&key).add(Some(v));
            let e = model.entry(key).or_default();
            e.0 += 1;
            e.1 += v;
        }
        assert_eq!(table.len(), 1_000);
        for (key, acc) in table.iter() {
            let (count, sum) = model[key];
            assert_eq!((acc.count, acc.sum.to_bits()), (count, sum.to_bits()));
        }
    }

    #[test]
    fn keys_that_share_prefixes_or_are_empty_stay_apart() {
        let mut table = GroupTable::default();
        for key in [
            &b""[..],
            b"a",
            b"a\0",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghi",
        ] {
            table.entry(key).add(None);
        }
        table.entry(b"a").add(Some(1.0));
        let groups = table.to_groups();
        assert_eq!(groups.len(), 6);
        assert_eq!(
            groups[&b"a"[..]],
            Group {
                count: 2,
                sum: Some(1.0),
                min: Some(1.0),
                max: Some(1.0),
                mean: Some(1.0),
            }
        );
        assert_eq!(
            groups[&b""[..]],
            Group {
                count: 1,
                sum: None,
                ..Group::default()
            }
        );
    }
}
