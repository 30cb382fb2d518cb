//! The GROUP BY table, two ways, behind one trait ([`GroupBy`]): written by hand
//! ([`GroupTable`], open addressing with linear probing) and `hashbrown`'s
//! ([`Hashbrown`], Rust's SwissTable). Neither allocates per row: a key is copied
//! once, when its group is born. step 5's `benches/query.rs` times both inside the query,
//! and the query uses [`QueryTable`].
//!
//! The hand-written table is the plainest one that does the job: a key's bytes are
//! hashed, the hash picks a slot, and the probe walks the slots until it finds a
//! group whose key bytes are equal, or an empty slot, where the key's group is born.

use harness::query::Groups;

use crate::acc::Acc;

/// A GROUP BY table: finds or creates the accumulator of a key.
pub trait GroupBy: Default {
    /// The accumulator of `key`, created (zero) on first sight.
    fn entry(&mut self, key: &[u8]) -> &mut Acc;
    /// The answer, in key order.
    fn to_groups(&self) -> Groups;
}

/// The table the query uses: the hand-written one (the chapter times both).
pub type QueryTable = GroupTable;

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
        let mut groups = Groups::builder(self.0.len(), 0);
        for (key, acc) in &self.0 {
            groups.push(key, acc.group());
        }
        groups.finish()
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

// ANCHOR: hash
/// The hash of a key: FNV-1a (Fowler, Noll and Vo) over its bytes, one multiply a
/// byte. Plain and good enough to spread short keys; later steps hash faster.
#[inline]
pub fn hash(key: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
// ANCHOR_END: hash

/// Groups by key bytes.
///
/// ```text
/// slots:  [(tag, group + 1)], a power of two, at most half full; 0: an empty slot
/// keys:   every group's key bytes, back to back; ends[g] is where group g's ends
/// accs:   per group, its accumulator
/// ```
///
/// A probe compares 32 bits of the hash (the slot's tag) before it looks at a
/// group's key bytes, so a slot of another key costs one compare, not a `memcmp`.
pub struct GroupTable {
    slots: Vec<(u32, u32)>,
    ends: Vec<usize>,
    accs: Vec<Acc>,
    keys: Vec<u8>,
}

impl Default for GroupTable {
    fn default() -> GroupTable {
        GroupTable::with_slots(64)
    }
}

impl GroupTable {
    /// An empty table of `slots` slots (rounded up to a power of two).
    pub fn with_slots(slots: usize) -> GroupTable {
        GroupTable {
            slots: vec![(0, 0); slots.next_power_of_two().max(2)],
            ends: Vec::new(),
            accs: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// Groups in the table.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when no group has been created.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    // ANCHOR: entry
    // ANCHOR: exercise_table_entry
    /// The accumulator of `key`, created (zero) on first sight: linear probing from
    /// the hash's slot to the key's slot or the first empty one.
    #[inline]
    pub fn entry(&mut self, key: &[u8]) -> &mut Acc {
        let hash = hash(key);
        let tag = hash as u32;
        let mask = self.slots.len() - 1;
        let mut i = self.slot_of(hash);
        loop {
            let (slot_tag, group) = self.slots[i];
            if group == 0 {
                let group = self.insert(i, tag, key); // an empty slot: a new key
                return &mut self.accs[group];
            }
            let group = group as usize - 1;
            if slot_tag == tag && self.key(group) == key {
                return &mut self.accs[group];
            }
            i = (i + 1) & mask; // the next slot, wrapping around
        }
    }
    // ANCHOR_END: exercise_table_entry
    // ANCHOR_END: entry

    /// The slot where a key of hash `hash` is looked for first: the hash's top bits
    /// (the low 32 bits are the tag, which only filters).
    #[inline]
    fn slot_of(&self, hash: u64) -> usize {
        (hash >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    /// The key bytes of `group`.
    fn key(&self, group: usize) -> &[u8] {
        let start = if group == 0 { 0 } else { self.ends[group - 1] };
        &self.keys[start..self.ends[group]]
    }

    /// A new group in the empty slot `i`; the slots double once more than half are
    /// taken. Linear probing takes about (1 + 1/(1 - a)) / 2 probes for a hit at
    /// load a (Knuth, TAOCP vol. 3, 6.4): 1.5 at a half.
    #[cold]
    #[inline(never)]
    fn insert(&mut self, i: usize, tag: u32, key: &[u8]) -> usize {
        let group = self.ends.len();
        let number = u32::try_from(group + 1).expect("fewer than 2^32 groups");
        self.keys.extend_from_slice(key);
        self.ends.push(self.keys.len());
        self.accs.push(Acc::default());
        self.slots[i] = (tag, number);
        if 2 * self.ends.len() > self.slots.len() {
            self.grow();
        }
        group
    }

    /// Doubles the slots and puts every group at its new place.
    fn grow(&mut self) {
        let doubled = vec![(0u32, 0u32); 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, doubled);
        let mask = self.slots.len() - 1;
        for &(tag, number) in old.iter().filter(|(_, number)| *number != 0) {
            let mut i = self.slot_of(hash(self.key(number as usize - 1)));
            while self.slots[i].1 != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = (tag, number);
        }
    }

    /// Every group with its key bytes, in the order they were first seen.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Acc)> {
        (0..self.len()).map(|g| (self.key(g), &self.accs[g]))
    }

    /// The answer, in key order: the groups in the order they were first seen,
    /// sorted once by the builder, with no allocation per group.
    pub fn to_groups(&self) -> Groups {
        let mut groups = Groups::builder(self.len(), self.keys.len());
        for (key, acc) in self.iter() {
            groups.push(key, acc.group());
        }
        groups.finish()
    }
}

#[cfg(test)]
mod tests;
