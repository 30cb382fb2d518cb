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
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match self.key(mid).cmp(key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(self.group(mid)),
            }
        }
        None
    }

    /// The group of `key`, to change it (tests make wrong answers so).
    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut Group> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match self.key(mid).cmp(key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => {
                    let (part, j) = self.order()[mid];
                    let part = &mut self.parts[part as usize];
                    part.infinite = true; // the caller may change the sum: look again
                    return Some(&mut part.groups[j as usize]);
                }
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
mod tests {
    use super::*;

    fn group(count: u64) -> Group {
        Group {
            count,
            ..Group::default()
        }
    }

    #[test]
    fn keys_come_out_in_byte_order_whatever_order_they_went_in() {
        // Shared 16-byte prefixes, a prefix of another key, the empty key, bytes
        // above 0x7f, and a NUL that zero-padding must not confuse with the end.
        let keys: Vec<&[u8]> = vec![
            b"abcdefghijklmnopq",
            b"abcdefghijklmnop",
            b"abcdefghijklmnopa",
            b"",
            b"\xff",
            b"ab\0",
            b"ab",
            b"b",
            b"abcdefghijklmnoZ",
        ];
        let mut builder = Groups::builder(0, 0);
        for (i, k) in keys.iter().enumerate() {
            builder.push(k, group(i as u64));
        }
        let groups = builder.finish();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(groups.keys().collect::<Vec<_>>(), sorted);
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(groups[k].count, i as u64);
        }
        assert_eq!(groups.get(b"abc"), None);
        assert_eq!(groups.len(), keys.len());
    }

    /// A finished answer is complete but unordered: the order is made on first use
    /// (or by `sort`), once, and reads the same groups either way.
    #[test]
    fn the_key_order_is_made_on_first_use() {
        let mut builder = Groups::builder(0, 0);
        for (i, key) in [&b"c"[..], b"a", b"b"].iter().enumerate() {
            builder.push(key, group(i as u64));
        }
        let groups = builder.finish();
        assert_eq!(groups.len(), 3);
        assert!(groups.order.get().is_none());
        groups.sort();
        assert_eq!(groups.order.get().map(Vec::len), Some(3));
        let keys: Vec<&[u8]> = groups.keys().collect();
        assert_eq!(keys, [b"a", b"b", b"c"]);
        let parts = GroupsBuilder::finish_parts(vec![Groups::builder(0, 0); 2]);
        assert!(parts.order.get().is_none() && parts.is_empty());
        assert_eq!(parts.len(), 0);
    }

    #[test]
    fn an_infinite_sum_is_named_by_the_first_such_key_in_key_order() {
        let sum = |count, sum| Group {
            sum: Some(sum),
            ..group(count)
        };
        let mut builder = Groups::builder(0, 0);
        builder.push(b"d", sum(1, f64::INFINITY));
        builder.push(b"a", sum(2, 1.0));
        builder.push(b"c", sum(3, f64::NEG_INFINITY));
        builder.push(b"b", group(4));
        let groups = builder.finish();
        match groups.check_exact_sums(Query::default()) {
            Err(QueryError::SumOutOfRange { column, key }) => {
                assert_eq!((column.as_str(), key.as_slice()), ("value", &b"c"[..]))
            }
            other => panic!("{other:?}"),
        }
        let finite: Groups = [(b"a".to_vec(), sum(1, 1e308))].into_iter().collect();
        assert!(finite.check_exact_sums(Query::default()).is_ok());
    }

    /// Only a query that shows SUM is refused for a sum it cannot show: COUNT, MIN,
    /// MAX and the mean are answered whatever the sum.
    #[test]
    fn an_infinite_sum_is_an_error_only_when_sum_is_asked_for() {
        let groups: Groups = [(
            b"a".to_vec(),
            Group {
                sum: Some(f64::INFINITY),
                mean: Some(1e308),
                ..group(3)
            },
        )]
        .into_iter()
        .collect();
        let asking = |aggs| Query {
            aggs,
            ..Query::default()
        };
        for aggs in ["mean", "count", "min,max", "count,min,max,mean"] {
            let aggs = Aggs::parse(aggs).unwrap();
            assert_eq!(groups.check_exact_sums(asking(aggs)), Ok(()), "{aggs:?}");
        }
        for aggs in ["sum", "mean,sum", "count,sum"] {
            let aggs = Aggs::parse(aggs).unwrap();
            assert!(groups.check_exact_sums(asking(aggs)).is_err(), "{aggs:?}");
        }
    }

    #[test]
    fn collecting_keeps_the_last_group_of_a_repeated_key() {
        let groups: Groups = [
            (b"b".to_vec(), group(1)),
            (b"a".to_vec(), group(2)),
            (b"b".to_vec(), group(3)),
            (b"b".to_vec(), group(4)),
        ]
        .into_iter()
        .collect();
        assert_eq!(groups.len(), 2);
        assert_eq!((groups[b"a"].count, groups[b"b"].count), (2, 4));
        let empty: Groups = std::iter::empty::<(Vec<u8>, Group)>().collect();
        assert!(empty.is_empty() && empty == Groups::new());
    }

    #[test]
    fn many_random_keys_sort_as_a_btreemap_would() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut model = std::collections::BTreeMap::new();
        let mut builder = Groups::builder(0, 0);
        for i in 0..20_000u64 {
            let len = (next() % 24) as usize;
            let key: Vec<u8> = (0..len).map(|_| b"ab\0z"[(next() % 4) as usize]).collect();
            if !model.contains_key(&key) {
                model.insert(key.clone(), i);
                builder.push(&key, group(i));
            }
        }
        let groups = builder.finish();
        let got: Vec<(&[u8], u64)> = groups.iter().map(|(k, g)| (k, g.count)).collect();
        let want: Vec<(&[u8], u64)> = model.iter().map(|(k, &i)| (&k[..], i)).collect();
        assert_eq!(got, want);
    }

    /// Groups pushed to several builders, some empty, answer as the same groups
    /// pushed to one: the same order, the same lookups, the same first infinite sum.
    #[test]
    fn parts_answer_as_one_builder_would() {
        let keys: Vec<Vec<u8>> = (0..5_000u64)
            .map(|i| format!("shared-prefix-16{}", i * 7919 % 5_000).into_bytes())
            .chain((0..300u64).map(|i| i.to_be_bytes()[5..].to_vec()))
            .collect();
        let group_of = |i: usize| Group {
            sum: Some(if i % 1_000 == 999 {
                f64::INFINITY
            } else {
                i as f64
            }),
            ..group(i as u64)
        };
        let mut one = Groups::builder(0, 0);
        let mut parts = vec![Groups::builder(0, 0); 7];
        for (i, key) in keys.iter().enumerate() {
            one.push(key, group_of(i));
            parts[i % 5].push(key, group_of(i)); // parts 5 and 6 stay empty
        }
        let (one, parts) = (one.finish(), GroupsBuilder::finish_parts(parts));
        assert_eq!(parts.len(), keys.len());
        assert!(parts.iter().eq(one.iter()));
        assert_eq!(parts, one);
        for (i, key) in keys.iter().enumerate().step_by(97) {
            assert_eq!(parts.get(key).map(|g| g.count), Some(i as u64));
        }
        let query = Query {
            sum: "v",
            ..Query::default()
        };
        assert_eq!(
            format!("{:?}", parts.check_exact_sums(query)),
            format!("{:?}", one.check_exact_sums(query))
        );
        assert!(parts.check_exact_sums(query).is_err());
    }
}
