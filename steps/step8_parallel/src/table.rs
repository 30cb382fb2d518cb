//! The GROUP BY table, two ways, behind one trait ([`GroupBy`]): written by hand
//! ([`GroupTable`], open addressing with linear probing) and `hashbrown`'s
//! ([`Hashbrown`], Rust's SwissTable). Neither allocates per row: a key is copied
//! once, when its group is born. step 5's `benches/query.rs` times both inside the query,
//! and the query uses [`Winner`].
//!
//! The hand-written table is shaped by the data: a GROUP BY column has few distinct
//! keys, each seen many times, and most are short. So a key is compared as two words
//! and a length, read where it lies in the input ([`KeyWords`], in
//! [`crate::key_words`]), and looked up in 8-byte slots that keep 32 bits of its hash.
//!
//! Each thread has a table of its own, merged at the end ([`GroupBy::merge`]), and
//! the accumulator sums exactly ([`crate::exact`]).

use harness::query::{Group, Groups, GroupsBuilder};

use crate::exact::{ExactSum, Number};
use crate::extremes::MinMax;
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
pub type Winner = GroupTable;

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

// ANCHOR: acc
/// An accumulator: the count, the exact sum of the values, and their extremes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Acc {
    /// `COUNT(*)`.
    pub count: u64,
    /// Non-NULL values summed.
    pub values: u64,
    /// Their exact sum, whatever the order they came in.
    pub sum: ExactSum,
    /// Their smallest and largest.
    pub range: MinMax,
}

impl Acc {
    /// The group: the count, and the sum and mean (each rounded once) and the
    /// extremes, unless every value was NULL.
    pub fn group(&self) -> Group {
        let some = self.values > 0;
        Group {
            count: self.count,
            sum: some.then(|| self.sum.to_f64()),
            min: self.range.min(),
            max: self.range.max(),
            mean: some.then(|| self.sum.mean(self.values)),
        }
    }

    /// Adds one record's value (`None` for NULL).
    #[inline(always)]
    pub fn add(&mut self, value: Option<Number>) {
        self.count += 1;
        if let Some(v) = value {
            self.values += 1;
            self.sum.add(v);
            self.range.add(v);
        }
    }

    /// Adds another thread's accumulator of the same group.
    pub fn merge(&mut self, other: &Acc) {
        self.count += other.count;
        self.values += other.values;
        self.sum.merge(&other.sum);
        self.range.merge(&other.range);
    }
}
// ANCHOR_END: acc

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
    /// the memory it has: a worker that merges one partition after another then asks
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

    /// The accumulator of the key `input[start..end]`, its words read in place
    /// ([`KeyWords::at`]).
    #[inline(always)]
    pub fn entry_at(&mut self, input: &[u8], start: usize, end: usize) -> &mut Acc {
        let group = self.find(KeyWords::at(input, start, end), &input[start..end]);
        &mut self.accs[group]
    }

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

    /// For each of the `2^bits` partitions (`bits` at most 16), the numbers of the
    /// groups whose keys fall in it: a key falls in the same partition in every
    /// thread's table, so that each partition can be merged alone ([`crate::merge`]).
    /// The partition is the hash's bits from bit 32 up: not its top bits, which pick
    /// the slot (a partition's keys would all want the same slots of its table), nor
    /// its low 32, the tag.
    pub(crate) fn partitions(&self, bits: u32) -> Vec<Vec<u32>> {
        let mut parts = vec![Vec::new(); 1 << bits];
        for (group, head) in self.heads.iter().enumerate() {
            let hash = head.key.hash(&self.keys[head.start..][..head.key.len]);
            parts[partition_of(hash, bits)].push(group as u32);
        }
        parts
    }

    /// The key and accumulator of group number `group`.
    pub(crate) fn group(&self, group: u32) -> (&[u8], &Acc) {
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
mod tests {
    use super::*;
    use crate::exact::POWERS;
    use std::collections::HashMap;

    #[test]
    fn matches_a_hashmap_through_growth() {
        let mut table = GroupTable::with_slots(2);
        let mut model: HashMap<Vec<u8>, (u64, f64)> = HashMap::new();
        for i in 0..10_000u64 {
            let key = format!("k{}", (i * 7919) % 1_000).into_bytes();
            let v = i as f64 * 0.5;
            table.entry(&key).add(Some(Number::Float(v)));
            let e = model.entry(key).or_default();
            e.0 += 1;
            e.1 += v;
        }
        assert_eq!(table.len(), 1_000);
        for (key, acc) in table.iter() {
            let (count, sum) = model[key];
            assert_eq!(
                (acc.count, acc.sum.to_f64().to_bits()),
                (count, sum.to_bits())
            );
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
            b"abcdefghijklmnop",
            b"abcdefghijklmnop\0",
            b"abcdefghijklmnopq",
        ] {
            table.entry(key).add(None);
        }
        table.entry(b"a").add(Some(Number::Fixed(POWERS[18])));
        let groups = table.to_groups();
        assert_eq!(groups.len(), 9);
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

    /// Keys of `n` bytes, each a different number written in the middle of a run of
    /// `-`, so that they share both their first and their last bytes when long.
    fn middle_keys(count: usize, n: usize) -> Vec<Vec<u8>> {
        (0..count)
            .map(|i| {
                let mut key = vec![b'-'; n];
                let digits = format!("{i:07}");
                let at = n.saturating_sub(7) / 2;
                for (k, d) in digits.bytes().enumerate().take(n) {
                    key[at + k] = d;
                }
                key
            })
            .collect()
    }

    #[test]
    fn entry_at_finds_the_group_that_entry_made() {
        // Every key length from 0 to 40, at every offset that puts its end near the
        // input's end (where the two loads would not fit) and far from it.
        for n in 0..=40 {
            let keys = middle_keys(50, n.max(7));
            let mut input = Vec::new();
            let mut spans = Vec::new();
            for key in &keys {
                spans.push((input.len(), input.len() + n));
                input.extend_from_slice(&key[..n]);
                input.push(b',');
            }
            input.pop(); // the last key ends the input
            let mut table = GroupTable::default();
            for &(start, end) in &spans {
                table.entry(&input[start..end]).count += 1;
            }
            let groups = table.len();
            for &(start, end) in &spans {
                table.entry_at(&input, start, end).count += 1;
            }
            assert_eq!(table.len(), groups, "key length {n}");
            assert!(table.iter().all(|(_, acc)| acc.count % 2 == 0), "{n}");
        }
    }

    #[test]
    fn long_keys_that_differ_only_in_the_middle_stay_apart() {
        let mut table = GroupTable::default();
        let keys = middle_keys(10_000, 48);
        for (i, key) in keys.iter().enumerate() {
            for _ in 0..=i % 3 {
                table.entry(key).add(Some(Number::Float(i as f64)));
            }
        }
        assert_eq!(table.len(), keys.len());
        for (i, key) in keys.iter().enumerate() {
            let acc = table.entry(key);
            let (count, sum) = ((i % 3 + 1) as u64, ((i % 3 + 1) * i) as f64);
            assert_eq!((acc.count, acc.group().sum), (count, Some(sum)));
        }
    }

    #[test]
    fn a_million_distinct_keys() {
        let mut table = GroupTable::default();
        for round in 0..2 {
            for i in 0..1_000_000u32 {
                table.entry(i.to_string().as_bytes()).count += 1;
                if round == 0 {
                    assert_eq!(table.len(), 1 + i as usize);
                }
            }
        }
        assert!(table.iter().all(|(_, acc)| acc.count == 2));
    }

    #[test]
    fn merged_tables_hold_every_group_once() {
        let keys = middle_keys(3_000, 20);
        let (mut a, mut b) = (GroupTable::default(), GroupTable::default());
        for (i, key) in keys.iter().enumerate() {
            let table = if i % 2 == 0 { &mut a } else { &mut b };
            table.entry(key).add(Some(Number::Fixed(i as i128)));
            b.entry(&key[..7]).count += 1; // keys of the other table too
        }
        a.merge(b);
        assert_eq!(a.len(), keys.len() + 1);
        assert_eq!(a.entry(&keys[0][..7]).count, keys.len() as u64);
        for (i, key) in keys.iter().enumerate().skip(1) {
            assert_eq!(a.entry(key).count, 1, "{i}");
        }
    }

    /// Keys chosen for their hashes: pairs whose low 32 bits (the tag) are equal,
    /// and runs whose top 16 bits (the first slot, in any table of up to 2^16
    /// slots) are equal. Each still gets a group of its own, found again.
    #[test]
    fn keys_that_collide_in_the_hash_s_low_or_high_bits_stay_apart() {
        let keys: Vec<Vec<u8>> = (0..300_000u32)
            .map(|i| format!("c{i}").into_bytes())
            .collect();
        let mut by_tag = std::collections::HashMap::<u32, Vec<usize>>::new();
        let mut by_top = std::collections::HashMap::<u64, Vec<usize>>::new();
        for (i, key) in keys.iter().enumerate() {
            let h = KeyWords::of(key).hash(key);
            by_tag.entry(h as u32).or_default().push(i);
            by_top.entry(h >> 48).or_default().push(i);
        }
        let tags: Vec<usize> = by_tag
            .into_values()
            .filter(|v| v.len() > 1)
            .flatten()
            .collect();
        let mut tops: Vec<Vec<usize>> = by_top.into_values().filter(|v| v.len() > 8).collect();
        tops.sort();
        let tops: Vec<usize> = tops.into_iter().take(50).flatten().collect();
        assert!(
            tags.len() >= 2 && tops.len() >= 400,
            "{} {}",
            tags.len(),
            tops.len()
        );
        let mut chosen = tags;
        for i in tops {
            if !chosen.contains(&i) {
                chosen.push(i);
            }
        }
        let mut table = GroupTable::default();
        for (round, &i) in chosen.iter().enumerate() {
            for _ in 0..=round % 3 {
                table
                    .entry(&keys[i])
                    .add(Some(crate::exact::Number::Fixed(i as i128)));
            }
        }
        assert_eq!(table.len(), chosen.len());
        for (round, &i) in chosen.iter().enumerate() {
            let acc = table.entry(&keys[i]);
            assert_eq!(acc.count, (round % 3 + 1) as u64, "{:?}", keys[i]);
        }
    }
}
