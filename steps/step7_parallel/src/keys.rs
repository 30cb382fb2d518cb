//! The key lookup the projected query uses ([`KeyTable`]): a key is its length and
//! its first 16 bytes as two machine words, loaded straight from the input.
//!
//! Step 6's table, carried with step 7's exact accumulator and a merge of the
//! chunks' tables.
//!
//! GROUP BY columns mostly hold short keys from a small set (the bench file's
//! categories are 4-13 bytes, 1BRC's station names mostly under 16). So a slot keeps
//! a key's first 16 bytes as two `u64` words beside its length and its accumulator,
//! (in step 6, 64 bytes in all, one cache line); a lookup hashes the two words and the length
//! (two multiplies, no loop over bytes) and compares them with two word compares, no
//! call to `memcmp`. Only a key longer than 16 bytes also compares (and hashes) its
//! tail, kept in a byte arena. The words come from one unaligned 16-byte load at the
//! key's first byte when the input has 16 bytes there, masked to the key's length;
//! near the end of the input the key is copied into 16 zero bytes first.
//!
//! Open addressing with linear probing, as [`crate::table::GroupTable`]: slots a
//! power of two, doubled when half full.

use harness::query::Groups;

use crate::table::{Acc, GroupBy};

// ANCHOR: key
/// A key as [`KeyTable`] compares it: its bytes, and its first 16 bytes as two
/// little-endian words, zero past its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key<'k> {
    bytes: &'k [u8],
    words: [u64; 2],
}

impl<'k> Key<'k> {
    /// The key `bytes`, its first 16 bytes copied into 16 zero bytes.
    #[inline]
    pub fn new(bytes: &'k [u8]) -> Key<'k> {
        let mut head = [0u8; 16];
        let n = bytes.len().min(16);
        head[..n].copy_from_slice(&bytes[..n]);
        Key {
            bytes,
            words: words(u128::from_le_bytes(head)),
        }
    }

    /// The key `input[start..end]`. When 16 bytes from `start` lie in the input they
    /// are loaded at once and the bytes past the key masked off (the load reads
    /// bytes of the next fields, never past the input).
    ///
    /// # Panics
    /// When `start..end` is not a range of `input`.
    #[inline]
    pub fn in_input(input: &'k [u8], start: usize, end: usize) -> Key<'k> {
        let bytes = &input[start..end];
        let head = bytes16(input, start);
        let keep = match bytes.len() {
            n @ 0..16 => (1u128 << (8 * n)) - 1, // the low n bytes
            _ => u128::MAX,
        };
        Key {
            bytes,
            words: words(head & keep),
        }
    }

    /// The key's bytes.
    pub fn bytes(&self) -> &'k [u8] {
        self.bytes
    }

    /// A 64-bit hash of the key: its two words and its length mixed by multiplies
    /// (the constant is FxHash's), then its tail past 16 bytes, 8 bytes a step.
    #[inline]
    pub fn hash(&self) -> u64 {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let [a, b] = self.words;
        let mut h = (a ^ (self.bytes.len() as u64).rotate_left(48)).wrapping_mul(K);
        h = (h.rotate_left(23) ^ b).wrapping_mul(K);
        if self.bytes.len() > 16 {
            for chunk in self.bytes[16..].chunks(8) {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                h = (h.rotate_left(23) ^ u64::from_le_bytes(word)).wrapping_mul(K);
            }
        }
        h ^ h >> 29 // the multiplies mix upwards: bring high bits down to the mask
    }
}

/// The 16 bytes of `input` from `start` as one little-endian `u128`: one unaligned
/// load, or near the input's end a copy into 16 zero bytes (never a read past it).
#[inline(always)]
pub fn bytes16(input: &[u8], start: usize) -> u128 {
    match input.get(start..start + 16) {
        Some(head) => u128::from_le_bytes(head.try_into().expect("16 bytes")),
        None => {
            let rest = input.get(start..).unwrap_or_default();
            let mut head = [0u8; 16];
            head[..rest.len()].copy_from_slice(rest);
            u128::from_le_bytes(head)
        }
    }
}

/// The 16 bytes of `input` that end at `end` (exclusive) as one little-endian
/// `u128`: one unaligned load, or near the input's start a copy into the top of 16
/// zero bytes.
#[inline(always)]
pub fn bytes16_ending(input: &[u8], end: usize) -> u128 {
    match end.checked_sub(16).and_then(|start| input.get(start..end)) {
        Some(tail) => u128::from_le_bytes(tail.try_into().expect("16 bytes")),
        None => {
            let rest = &input[..end];
            let mut tail = [0u8; 16];
            tail[16 - rest.len()..].copy_from_slice(rest);
            u128::from_le_bytes(tail)
        }
    }
}

/// The two little-endian words of 16 bytes.
#[inline(always)]
fn words(head: u128) -> [u64; 2] {
    [head as u64, (head >> 64) as u64]
}
// ANCHOR_END: key

/// One slot: the key's words and length, and its accumulator (step 7's is exact,
/// and larger than a cache line).
#[derive(Clone, Debug)]
struct Slot {
    words: [u64; 2],
    len: u32,
    /// Where the key's bytes start in the arena; [`EMPTY`] for an empty slot.
    key_start: u32,
    acc: Acc,
}

const EMPTY: u32 = u32::MAX;

fn empty_slot() -> Slot {
    Slot {
        words: [0; 2],
        len: 0,
        key_start: EMPTY,
        acc: Acc::default(),
    }
}

/// The GROUP BY table of the projected query: see the module docs.
pub struct KeyTable {
    slots: Vec<Slot>,
    keys: Vec<u8>,
    len: usize,
}

impl Default for KeyTable {
    fn default() -> KeyTable {
        KeyTable {
            slots: vec![empty_slot(); 64],
            keys: Vec::new(),
            len: 0,
        }
    }
}

impl KeyTable {
    /// Groups in the table.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the table has no group.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    // ANCHOR: get
    /// The accumulator of `key`, created (zero) on first sight.
    #[inline]
    pub fn get(&mut self, key: Key<'_>) -> &mut Acc {
        let mask = self.slots.len() - 1;
        let mut i = key.hash() as usize & mask;
        loop {
            let slot = &self.slots[i];
            // Equal words and length: equal keys, unless they are longer than 16.
            // (An empty slot's words and length match the empty key: `key_start`
            // tells them apart.)
            if slot.words == key.words
                && slot.len as usize == key.bytes.len()
                && slot.key_start != EMPTY
                && (key.bytes.len() <= 16 || self.tail(slot) == &key.bytes[16..])
            {
                return &mut self.slots[i].acc;
            }
            if slot.key_start == EMPTY {
                break;
            }
            i = (i + 1) & mask;
        }
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
            return self.get(key);
        }
        self.insert_at(i, key)
    }
    // ANCHOR_END: get

    /// The bytes past the first 16 of a long key's slot.
    fn tail(&self, slot: &Slot) -> &[u8] {
        &self.keys[slot.key_start as usize..][16..slot.len as usize]
    }

    fn stored(&self, slot: &Slot) -> &[u8] {
        &self.keys[slot.key_start as usize..][..slot.len as usize]
    }

    fn insert_at(&mut self, i: usize, key: Key<'_>) -> &mut Acc {
        let key_start = u32::try_from(self.keys.len()).expect("group keys fit in 4 GiB");
        let len = u32::try_from(key.bytes.len()).expect("a group key fits in 4 GiB");
        assert!(key_start != EMPTY, "group keys fit in 4 GiB");
        self.keys.extend_from_slice(key.bytes);
        self.len += 1;
        self.slots[i] = Slot {
            words: key.words,
            len,
            key_start,
            acc: Acc::default(),
        };
        &mut self.slots[i].acc
    }

    fn grow(&mut self) {
        let doubled = vec![empty_slot(); 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, doubled);
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|s| s.key_start != EMPTY) {
            let mut i = Key::new(self.stored(&slot)).hash() as usize & mask;
            while self.slots[i].key_start != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }

    /// The groups, each key with its accumulator, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Acc)> {
        self.slots
            .iter()
            .filter(|s| s.key_start != EMPTY)
            .map(|s| (self.stored(s), &s.acc))
    }
}

impl GroupBy for KeyTable {
    #[inline]
    fn entry(&mut self, key: &[u8]) -> &mut Acc {
        self.get(Key::new(key))
    }

    #[inline]
    fn entry_key(&mut self, key: Key<'_>) -> &mut Acc {
        self.get(key)
    }

    fn merge(&mut self, other: KeyTable) {
        for (key, acc) in other.iter() {
            self.get(Key::new(key)).merge(acc);
        }
    }

    fn to_groups(&self) -> Groups {
        self.iter()
            .map(|(key, acc)| (key.to_vec(), acc.group()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_loaded_from_the_input_is_the_key_copied() {
        let input = b"abcdefghijklmnopqrstuvwxyz0123456789";
        for start in 0..input.len() {
            for end in start..=input.len() {
                let loaded = Key::in_input(input, start, end);
                let copied = Key::new(&input[start..end]);
                assert_eq!(loaded, copied, "{start}..{end}");
                assert_eq!(loaded.hash(), copied.hash());
            }
        }
    }
}
