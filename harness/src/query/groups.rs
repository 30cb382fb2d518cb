//! The answer's groups, in key order, without a heap allocation per group.
//!
//! A query with a million distinct keys has a million groups. Held as a map from an
//! owned key to its group, the answer would ask the heap a million times for the
//! keys and sort them through a million pointers; building it would then cost more
//! than the query. So the keys lie back to back in one buffer, in the order the
//! table handed them over, a group's key is where the previous one ends up to its own
//! end, the groups are in one vector beside them, and a fourth vector holds their
//! numbers in key order:
//!
//! ```text
//! keys:   "fishbooksgames"        one buffer, keys back to back, as pushed
//! ends:   [4, 9, 14]              key j is keys[ends[j-1]..ends[j]]
//! groups: [fish, books, games]    the aggregates of key j
//! order:  [1, 0, 2]               the key order: books, fish, games
//! ```
//!
//! A step's table hands its groups to a [`GroupsBuilder`] in any order, and the answer
//! is complete when the last group is pushed: a query's timed pass ends there, as a
//! peer's (Polars, DuckDB) does with its groups unordered. The key order is made on
//! first use ([`Groups::sort`], or any read in key order), apart from the timed pass:
//! their numbers are sorted once, by their first 16 bytes as one big-endian `u128` (an
//! integer compare for nearly every pair, with the keys' bytes read only on a tie).
//! Nothing is moved into key order: with a million groups, copying every key and group
//! to its sorted place reads them all at random and writes a second answer, which
//! costs more than the sort. For the same reason a step that builds its answer in
//! parts, a builder per thread or partition, keeps the parts as they are
//! ([`GroupsBuilder::finish_parts`]): the answer is their segments, and `order` says
//! which part and which group in it come next.

use std::fmt;
use std::ops::Index;
use std::sync::OnceLock;

use rayon::iter::{IntoParallelRefIterator, ParallelIterator};

use crate::query::answer::{Group, key_text};
use crate::query::error::QueryError;
use crate::query::{Aggs, Query};

/// The groups of an answer, in key order (bytes compared as unsigned, shorter first
/// on a common prefix: the order of `[u8]`). Keys are distinct.
#[derive(Clone, Default)]
pub struct Groups {
    /// The builders the groups were pushed to, each a segment of the answer.
    parts: Vec<GroupsBuilder>,
    /// `(part, group number in it)` of each group, in key order: made on first use.
    order: OnceLock<Vec<(u32, u32)>>,
    /// Whether the order is sorted on every core of rayon's pool.
    parallel: bool,
}

/// Two answers are equal when they hold the same keys with equal groups, whatever
/// order their tables handed them over in.
impl PartialEq for Groups {
    fn eq(&self, other: &Groups) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Groups {
    /// No groups.
    pub fn new() -> Groups {
        Groups::default()
    }

    /// A builder for about `groups` groups whose keys hold `key_bytes` bytes in all
    /// (hints: it grows past them).
    pub fn builder(groups: usize, key_bytes: usize) -> GroupsBuilder {
        GroupsBuilder {
            keys: Vec::with_capacity(key_bytes),
            ends: Vec::with_capacity(groups),
            groups: Vec::with_capacity(groups),
            infinite: false,
        }
    }

    /// Groups in the answer.
    pub fn len(&self) -> usize {
        self.parts.iter().map(GroupsBuilder::len).sum()
    }

    /// True when the answer has no group.
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(GroupsBuilder::is_empty)
    }

    /// Orders the groups by key now, unless that was done already: every read in key
    /// order does it on first use, and a caller that times the query calls this after
    /// the timed pass, to time the ordering apart (`--verbose` shows it).
    pub fn sort(&self) {
        self.order();
    }

    /// `(part, group number in it)` of each group, in key order.
    fn order(&self) -> &[(u32, u32)] {
        self.order
            .get_or_init(|| Groups::sorted(&self.parts, self.parallel))
    }

    /// The part and the group number in it of the `i`-th group in key order.
    fn at(&self, i: usize) -> (&GroupsBuilder, usize) {
        let (part, j) = self.order()[i];
        (&self.parts[part as usize], j as usize)
    }

    /// The key of the `i`-th group in key order.
    fn key(&self, i: usize) -> &[u8] {
        let (part, j) = self.at(i);
        part.key(j)
    }

    /// The `i`-th group in key order.
    fn group(&self, i: usize) -> &Group {
        let (part, j) = self.at(i);
        &part.groups[j]
    }

    /// The groups with their keys, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Group)> {
        (0..self.len()).map(|i| (self.key(i), self.group(i)))
    }

    /// The keys, in key order.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len()).map(|i| self.key(i))
    }

    /// The groups, in key order.
    pub fn values(&self) -> impl Iterator<Item = &Group> {
        (0..self.len()).map(|i| self.group(i))
    }

    /// The group of `key`, found by binary search.
    pub fn get(&self, key: &[u8]) -> Option<&Group> {
        self.position(key).map(|i| self.group(i))
    }

    /// The group of `key`, to change it (tests make wrong answers so).
    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut Group> {
        let (part, j) = self.order()[self.position(key)?];
        let part = &mut self.parts[part as usize];
        part.infinite = true; // the caller may change the sum: look again
        Some(&mut part.groups[j as usize])
    }

    /// The place of `key` in key order, by binary search.
    fn position(&self, key: &[u8]) -> Option<usize> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match self.key(mid).cmp(key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The first group (in key order) whose sum is infinite, as an error, when `query`
    /// asks for SUM: for a step whose sums are exact, where an infinite sum means an
    /// exact sum past `f64`'s range, not an `f64` addition that overflowed. A query
    /// that does not show SUM is answered: its COUNT, MIN and MAX do not depend on the
    /// sum, and its mean is rounded from the exact sum, so it lies between the group's
    /// MIN and MAX (the mean of three `1e308` is `1e308`). The error names
    /// `query.sum`, the SUM column.
    ///
    /// # Errors
    /// [`QueryError::SumOutOfRange`].
    pub fn check_exact_sums(&self, query: Query<'_>) -> Result<(), QueryError> {
        if !query.aggs.has(Aggs::SUM) {
            return Ok(());
        }
        let infinite = |g: &Group| g.sum.is_some_and(f64::is_infinite);
        // Each builder noted an infinite sum as it was pushed: nearly every answer
        // has none, and is not read again for it (nor ordered, which the first
        // such key in key order needs).
        if !self.parts.iter().any(|part| part.infinite) {
            return Ok(());
        }
        match self.iter().find(|(_, g)| infinite(g)) {
            Some((key, _)) => Err(QueryError::SumOutOfRange {
                column: query.sum.to_string(),
                key: key.to_vec(),
            }),
            None => Ok(()),
        }
    }

    /// True when `key` has a group.
    pub fn contains_key(&self, key: &[u8]) -> bool {
        self.get(key).is_some()
    }
}

/// The groups of a table, in the table's order, then sorted once ([`Groups::builder`]).
#[derive(Clone, Default)]
pub struct GroupsBuilder {
    keys: Vec<u8>,
    ends: Vec<usize>,
    groups: Vec<Group>,
    /// Whether a group with an infinite sum was pushed ([`Groups::check_exact_sums`]).
    infinite: bool,
}

impl GroupsBuilder {
    /// Adds the group of `key`, a key no other group of this builder has.
    #[inline]
    pub fn push(&mut self, key: &[u8], group: Group) {
        self.keys.extend_from_slice(key);
        self.ends.push(self.keys.len());
        self.infinite |= group.sum.is_some_and(f64::is_infinite);
        self.groups.push(group);
    }

    /// Groups pushed so far.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// True when no group was pushed.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The answer of the groups pushed, whose keys must be distinct; ordered by key
    /// on first use ([`Groups::sort`]).
    pub fn finish(self) -> Groups {
        Groups {
            parts: vec![self],
            order: OnceLock::new(),
            parallel: false,
        }
    }

    /// The answer of the groups of every builder of `parts` (keys distinct across all
    /// of them), ordered on first use on every core of rayon's pool: for a step that
    /// builds its answer in parts on every core. The parts become the answer's
    /// segments as they are: no group or key is copied.
    pub fn finish_parts(parts: Vec<GroupsBuilder>) -> Groups {
        Groups {
            parts,
            order: OnceLock::new(),
            parallel: true,
        }
    }

    fn key(&self, i: usize) -> &[u8] {
        key_of(&self.keys, &self.ends, i)
    }

    /// Every group's key's first 16 bytes, with `part` and the group's number, at the
    /// end of `order`.
    fn prefixes(&self, part: u32, order: &mut Vec<Sortable>) {
        let mut start = 0;
        for (j, &end) in self.ends.iter().enumerate() {
            let j = u32::try_from(j).expect("fewer than 2^32 groups in a part");
            order.push((prefix_at(&self.keys, start, end), part, j));
            start = end;
        }
    }
}

/// A group as the sort sees it: its key's first 16 bytes, its part and its number.
type Sortable = (u128, u32, u32);

/// The order of two groups of `parts` whose keys share their first 16 bytes: by the
/// whole keys, then by part and number.
#[cold]
#[inline(never)]
fn tie(parts: &[GroupsBuilder], a: &Sortable, b: &Sortable) -> std::cmp::Ordering {
    let key = |&(_, p, j): &Sortable| parts[p as usize].key(j as usize);
    key(a).cmp(key(b)).then((a.1, a.2).cmp(&(b.1, b.2)))
}

impl Groups {
    /// The groups of `parts` sorted by key (`parallel`: on every core), a group's
    /// place in its part breaking a tie between equal keys.
    fn sort_prefixes(parts: &[GroupsBuilder], parallel: bool) -> Vec<Sortable> {
        use rayon::slice::ParallelSliceMut;
        let mut order = Vec::with_capacity(parts.iter().map(GroupsBuilder::len).sum());
        for (p, part) in parts.iter().enumerate() {
            part.prefixes(u32::try_from(p).expect("fewer than 2^32 parts"), &mut order);
        }
        // Only the prefixes in the sort's loop: a tie is rare, and out of line.
        let compare = |a: &Sortable, b: &Sortable| a.0.cmp(&b.0).then_with(|| tie(parts, a, b));
        if parallel {
            order.par_sort_unstable_by(compare);
        } else {
            order.sort_unstable_by(compare);
        }
        order
    }

    /// The key order of `parts`, whose keys are distinct.
    fn sorted(parts: &[GroupsBuilder], parallel: bool) -> Vec<(u32, u32)> {
        let order = Groups::sort_prefixes(parts, parallel);
        let key = |&(_, p, j): &Sortable| parts[p as usize].key(j as usize);
        debug_assert!(
            order.windows(2).all(|w| key(&w[0]) != key(&w[1])),
            "a key was pushed twice"
        );
        if parallel {
            order.par_iter().map(|&(_, p, j)| (p, j)).collect()
        } else {
            order.iter().map(|&(_, p, j)| (p, j)).collect()
        }
    }
}

/// Key `j` of an arena: `keys[ends[j-1]..ends[j]]`.
#[inline]
fn key_of<'k>(keys: &'k [u8], ends: &[usize], j: usize) -> &'k [u8] {
    let start = if j == 0 { 0 } else { ends[j - 1] };
    &keys[start..ends[j]]
}

/// The first 16 bytes of the key `keys[start..end]` as a big-endian integer,
/// zero-padded: two keys whose prefixes differ compare as their prefixes do. Read as
/// one 16-byte load where the arena has 16 bytes from `start`, the bytes past the key
/// masked off, so that a short key costs no copy of a variable length.
#[inline]
fn prefix_at(keys: &[u8], start: usize, end: usize) -> u128 {
    let n = end - start;
    if let Some(bytes) = keys.get(start..start + 16) {
        let word = u128::from_be_bytes(bytes.try_into().expect("16 bytes"));
        return match n {
            0 => 0,
            1..16 => word & !(u128::MAX >> (8 * n)),
            _ => word,
        };
    }
    let mut bytes = [0u8; 16];
    let n = n.min(16);
    bytes[..n].copy_from_slice(&keys[start..start + n]);
    u128::from_be_bytes(bytes)
}

/// A map's collection: a key given twice keeps the group given last, as a
/// `BTreeMap` would. For tests and small answers; a table uses [`GroupsBuilder`].
impl FromIterator<(Vec<u8>, Group)> for Groups {
    fn from_iter<I: IntoIterator<Item = (Vec<u8>, Group)>>(items: I) -> Groups {
        let map: std::collections::BTreeMap<Vec<u8>, Group> = items.into_iter().collect();
        let mut builder = Groups::builder(map.len(), 0);
        for (key, group) in map {
            builder.push(&key, group);
        }
        builder.finish()
    }
}

/// [`FromIterator`] of owned keys, for borrowed ones.
impl<'a> FromIterator<(&'a [u8], Group)> for Groups {
    fn from_iter<I: IntoIterator<Item = (&'a [u8], Group)>>(items: I) -> Groups {
        items.into_iter().map(|(k, g)| (k.to_vec(), g)).collect()
    }
}

impl Index<&[u8]> for Groups {
    type Output = Group;

    /// The group of `key`.
    ///
    /// # Panics
    /// When `key` has no group.
    fn index(&self, key: &[u8]) -> &Group {
        self.get(key)
            .unwrap_or_else(|| panic!("no group {:?}", key_text(key)))
    }
}

impl<'a> IntoIterator for &'a Groups {
    type Item = (&'a [u8], &'a Group);
    type IntoIter = Box<dyn Iterator<Item = (&'a [u8], &'a Group)> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl fmt::Debug for Groups {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(k, g)| (key_text(k), g)))
            .finish()
    }
}

#[cfg(test)]
mod tests;
