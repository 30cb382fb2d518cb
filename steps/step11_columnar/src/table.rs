//! The GROUP BY table, two ways, behind one trait ([`GroupBy`]): written by hand
//! ([`GroupTable`], open addressing with linear probing) and `hashbrown`'s
//! ([`Hashbrown`], Rust's SwissTable). Neither allocates per row: a key is copied
//! once, when its group is born. step 5's `benches/query.rs` times both inside the query,
//! and the query uses [`QueryTable`].
//!
//! The hand-written table is shaped by the data: a GROUP BY column has few distinct
//! keys, each seen many times, and most are short. So a key is compared as two words
//! and a length, read where it lies in the input ([`KeyWords`], in
//! [`crate::key_words`]), and looked up in 8-byte slots that keep 32 bits of its hash.
//!
//! The accumulator sums exactly ([`crate::exact`]). With many groups the table stops
//! taking rows and the rows are set aside by partition instead ([`crate::scatter`]);
//! the table then gives its groups partition by partition
//! ([`GroupTable::partitions`]), and a small table of the same kind adds up each
//! partition ([`crate::merge`], [`GroupTable::reset`]). Each thread has a table of its
//! own; with few groups they are merged whole ([`GroupBy::merge`]).

use harness::query::{Groups, GroupsBuilder};

use crate::acc::Acc;
use crate::key_words::KeyWords;

/// A GROUP BY table: finds or creates the accumulator of a key.
pub trait GroupBy: Default {
    /// The accumulator of `key`, created (zero) on first sight.
    fn entry(&mut self, key: &[u8]) -> &mut Acc;
    /// The accumulator of the key `input[start..end]`, which a table may read in
    /// place (beyond `end`, within `input`).
    #[inline]
    fn entry_at(&mut self, input: &[u8], start: usize, end: usize) -> &mut Acc {
        self.entry(&input[start..end])
    }
    /// Whether the key `input[start..end]` has a group, which this does not create.
    fn contains_at(&self, input: &[u8], start: usize, end: usize) -> bool;
    /// Adds every group of `other` (another thread's table) to this one.
    fn merge(&mut self, other: Self);
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

    fn contains_at(&self, input: &[u8], start: usize, end: usize) -> bool {
        self.0.contains_key(&input[start..end])
    }

    fn merge(&mut self, other: Self) {
        for (key, acc) in other.0 {
            self.0.entry(key).or_default().merge(&acc);
        }
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

    #[inline(always)]
    fn entry_at(&mut self, input: &[u8], start: usize, end: usize) -> &mut Acc {
        GroupTable::entry_at(self, input, start, end)
    }

    #[inline]
    fn contains_at(&self, input: &[u8], start: usize, end: usize) -> bool {
        GroupTable::contains_at(self, input, start, end)
    }

    fn merge(&mut self, other: Self) {
        for (key, acc) in other.iter() {
            self.entry(key).merge(acc);
        }
    }

    fn to_groups(&self) -> Groups {
        GroupTable::to_groups(self)
    }
}

/// The partition, of `2^bits`, of a key of hash `hash` ([`GroupTable::partitions`]).
#[inline(always)]
pub(crate) fn partition_of(hash: u64, bits: u32) -> usize {
    ((hash >> 32) & ((1 << bits) - 1)) as usize
}

/// A group's key: its words, and where its bytes lie in the table's key arena.
#[derive(Clone, Copy, Debug)]
struct Head {
    key: KeyWords,
    start: usize,
}

/// Groups by key bytes, written for GROUP BY keys: few, short, repeated.
///
/// ```text
/// slots:  [(tag, group + 1)], a power of two, at most a quarter full; 0: an empty slot
/// heads:  per group, its KeyWords and where its bytes start in `keys`
/// accs:   per group, its accumulator
/// ```
///
/// A probe reads 8-byte slots (413 keys fit in 16 KiB, in L1), compares 32 bits of
/// the hash before it looks at a group, and a key's two words and length before
/// its bytes, which only a key longer than 16 bytes needs.
pub struct GroupTable {
    slots: Vec<(u32, u32)>,
    heads: Vec<Head>,
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
            heads: Vec::new(),
            accs: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// Empties the table and makes room for `groups` groups without growing, keeping
    /// the memory it has: a table that adds up one partition after another then asks
    /// the allocator (and the kernel, for zeroed pages) for nothing new.
    pub fn reset(&mut self, groups: usize) {
        self.slots.clear();
        self.slots
            .resize((4 * groups + 1).next_power_of_two(), (0, 0));
        self.heads.clear();
        self.accs.clear();
        self.keys.clear();
        self.heads.reserve(groups);
        self.accs.reserve(groups);
    }

    /// Groups in the table.
    pub fn len(&self) -> usize {
        self.heads.len()
    }

    /// True when no group has been created.
    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// The accumulator of `key`, created (zero) on first sight.
    #[inline]
    pub fn entry(&mut self, key: &[u8]) -> &mut Acc {
        let group = self.find(KeyWords::of(key), key);
        &mut self.accs[group]
    }

    // ANCHOR: entry_at
    /// The accumulator of the key `input[start..end]`, its words read in place
    /// ([`KeyWords::at`]).
    #[inline(always)]
    pub fn entry_at(&mut self, input: &[u8], start: usize, end: usize) -> &mut Acc {
        let group = self.find(KeyWords::at(input, start, end), &input[start..end]);
        &mut self.accs[group]
    }
    // ANCHOR_END: entry_at

    /// Whether the key `input[start..end]` has a group: [`GroupTable::entry_at`]'s
    /// probe, stopping at an empty slot instead of filling it.
    pub fn contains_at(&self, input: &[u8], start: usize, end: usize) -> bool {
        let (words, key) = (KeyWords::at(input, start, end), &input[start..end]);
        let hash = words.hash(key);
        let mask = self.slots.len() - 1;
        let mut i = self.slot_of(hash);
        loop {
            match self.slots[i] {
                (_, 0) => return false,
                (tag, group)
                    if tag == hash as u32 && self.holds(group as usize - 1, words, key) =>
                {
                    return true;
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    // ANCHOR: entry
    // ANCHOR: exercise_table_entry
    /// The group of `key` (whose words are `words`), created on first sight: linear
    /// probing from the hash's slot to the key's slot or the first empty one.
    #[inline(always)]
    fn find(&mut self, words: KeyWords, key: &[u8]) -> usize {
        let hash = words.hash(key);
        let tag = hash as u32;
        let mask = self.slots.len() - 1;
        let mut i = self.slot_of(hash);
        loop {
            let (slot_tag, group) = self.slots[i];
            if group == 0 {
                return self.insert(i, tag, words, key); // an empty slot: a new key
            }
            let group = group as usize - 1;
            if slot_tag == tag && self.holds(group, words, key) {
                return group;
            }
            i = (i + 1) & mask; // the next slot, wrapping around
        }
    }
    // ANCHOR_END: exercise_table_entry
    // ANCHOR_END: entry

    /// The slot where a key of hash `hash` is looked for first: the hash's top bits.
    /// Its low bits would cluster: the low bits of a product depend only on the
    /// factors' low bits, and short keys that share their first bytes share those,
    /// so the bench file's keys would probe past their slot far more often. The low
    /// 32 bits are the tag, which only filters.
    #[inline]
    fn slot_of(&self, hash: u64) -> usize {
        (hash >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    /// Whether `group`'s key is `key`: equal words and length decide a key of up to
    /// 16 bytes; a longer one is compared byte for byte.
    #[inline]
    fn holds(&self, group: usize, words: KeyWords, key: &[u8]) -> bool {
        let head = &self.heads[group];
        head.key == words && (key.len() <= 16 || self.key(head) == key)
    }

    fn key(&self, head: &Head) -> &[u8] {
        &self.keys[head.start..][..head.key.len]
    }

    /// A new group in the empty slot `i`; the slots double once more than a quarter
    /// are taken. Linear probing takes about (1 + 1/(1 - a)) / 2 probes for a hit at
    /// load a (Knuth): 1.5 at a half, 1.17 at a quarter. Every probe past the first
    /// is a branch the CPU can mispredict, and the slots are only 8 bytes each.
    // (Out of line, so that the inlined lookup carries none of its code.)
    #[cold]
    #[inline(never)]
    fn insert(&mut self, i: usize, tag: u32, words: KeyWords, key: &[u8]) -> usize {
        let group = self.heads.len();
        let number = u32::try_from(group + 1).expect("fewer than 2^32 groups");
        self.heads.push(Head {
            key: words,
            start: self.keys.len(),
        });
        self.keys.extend_from_slice(key);
        self.accs.push(Acc::default());
        self.slots[i] = (tag, number);
        if 4 * self.heads.len() > self.slots.len() {
            self.grow();
        }
        group
    }

    // ANCHOR: grow
    /// Doubles the slots and puts every group at its new place. The groups are
    /// read in their own order, so that the heads and keys stream from memory and
    /// only the writes to the new slots land at random: with a million groups the
    /// old slots' order would read every head at random as well.
    fn grow(&mut self) {
        self.slots = vec![(0u32, 0u32); 2 * self.slots.len()];
        let mask = self.slots.len() - 1;
        for (group, head) in self.heads.iter().enumerate() {
            let hash = head.key.hash(&self.keys[head.start..][..head.key.len]);
            let mut i = (hash >> (64 - self.slots.len().trailing_zeros())) as usize;
            while self.slots[i].1 != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = (hash as u32, group as u32 + 1);
        }
    }
    // ANCHOR_END: grow

    /// For each of the `2^bits` partitions (`bits` at most 16), the numbers of the
    /// groups whose keys fall in it, so that each partition can be added up alone
    /// with the rows set aside in it ([`crate::merge`]), and merged with the same
    /// partition of every other thread's table. The partition is the hash's
    /// bits from bit 32 up: not its top bits, which pick the slot (a partition's keys
    /// would all want the same slots of its table), nor its low 32, the tag.
    pub fn partitions(&self, bits: u32) -> Vec<Vec<u32>> {
        let mut parts = vec![Vec::new(); 1 << bits];
        for (group, head) in self.heads.iter().enumerate() {
            let hash = head.key.hash(&self.keys[head.start..][..head.key.len]);
            parts[partition_of(hash, bits)].push(group as u32);
        }
        parts
    }

    /// The key and accumulator of group number `group`.
    pub fn group(&self, group: u32) -> (&[u8], &Acc) {
        let head = &self.heads[group as usize];
        (self.key(head), &self.accs[group as usize])
    }

    /// Every group with its key bytes, in the order they were first seen.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Acc)> {
        self.heads
            .iter()
            .zip(&self.accs)
            .map(|(head, acc)| (self.key(head), acc))
    }

    /// The answer, in key order: the groups in the order they were first seen,
    /// sorted once by the builder, with no allocation per group.
    pub fn to_groups(&self) -> Groups {
        self.to_builder().finish()
    }

    /// Every group, in the order they were first seen, in a builder sized for them.
    pub fn to_builder(&self) -> GroupsBuilder {
        let mut groups = Groups::builder(self.len(), self.keys.len());
        for (key, acc) in self.iter() {
            groups.push(key, acc.group());
        }
        groups
    }
}

#[cfg(test)]
mod tests;
