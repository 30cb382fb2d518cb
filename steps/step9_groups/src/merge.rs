//! The answer of a query that set rows aside ([`crate::scatter`]): the table's groups
//! and the rows set aside, added up partition by partition.
//!
//! A key's partition is bits of its hash, the same bits for the table's groups
//! ([`GroupTable::partitions`]) and for the rows ([`crate::scatter::Scattered`]), so
//! every row of a key and the key's group in the table, if it has one, are in the
//! same partition, and no key is in two. Each partition is added up alone, into a
//! table of that partition's groups only, small enough to stay in the core's cache,
//! and turned into its part of the answer; the next partition reuses the same table
//! ([`GroupTable::reset`]). The parts are the answer as they are
//! ([`GroupsBuilder::finish_parts`]): no group is copied into one list, and the order
//! by key is made apart, after the query.
//!
//! ```text
//! table:         T[0..P)       (the table's groups, by bits of their hash)
//! rows set aside: S[0..P)      (by the same bits)
//! partition p:   add T[p] and S[p] into a small table, then its groups
//! answer:        every partition's groups
//! ```

use harness::query::{Groups, GroupsBuilder};

use crate::exact::Number;
use crate::scatter::Scattered;
use crate::table::GroupTable;

// ANCHOR: merge
// ANCHOR: exercise_merge
/// The answer of `table` and of `scattered`, the rows set aside, whose keys lie in
/// `input`: partition by partition.
pub fn merge(table: GroupTable, scattered: Scattered, input: &[u8]) -> Groups {
    scattered.seal();
    let bits = scattered.bits();
    let partitions = table.partitions(bits);
    let mut merged = GroupTable::default();
    let mut parts = Vec::with_capacity(1 << bits);
    for (p, groups) in partitions.iter().enumerate() {
        let rows = scattered.part(p);
        merged.reset(groups.len() + rows.len());
        for &group in groups {
            let (key, acc) = table.group(group);
            merged.entry(key).merge(acc);
        }
        for row in rows.iter() {
            let value = Number::Fixed(row.value);
            merged.entry(row.key(input)).add(Some(value));
        }
        parts.push(merged.to_builder());
    }
    GroupsBuilder::finish_parts(parts)
}
// ANCHOR_END: exercise_merge
// ANCHOR_END: merge

#[cfg(test)]
mod tests {
    use super::*;

    /// `got` is `expected`; else the first group where they differ.
    fn assert_same(got: &Groups, expected: &Groups, what: &str) {
        let names = ("the merge", "one table that took every row");
        assert!(
            got == expected,
            "{what}: {}",
            harness::query::first_difference(got, expected, harness::query::Aggs::ALL, names)
                .unwrap_or_else(|| "the same groups, yet not equal".to_string())
        );
    }

    /// Rows set aside by partition merge as if the table had added them: short keys,
    /// a key past 32 bytes (read back from the input), a key that the table holds
    /// too, and one at the input's very end, after its value.
    #[test]
    fn rows_set_aside_merge_as_if_added_in_place() {
        let input = b"k1,1,k2,2.5,the-same-thirty-two-bytes-and-then-more,-3,k2,4,k1,5,\
            the-same-thirty-two-bytes-and-then-other,6,-7.25,z";
        let mut spans = Vec::new();
        let mut start = 0;
        for field in input.split(|&b| b == b',') {
            spans.push((start, start + field.len()));
            start += field.len() + 1;
        }
        let pairs = spans.chunks(2).enumerate().map(|(i, pair)| match i {
            6 => (pair[1], pair[0]), // the last value comes before its key
            _ => (pair[0], pair[1]),
        });
        let table = || {
            let mut table = GroupTable::default();
            table.entry(b"k2").add(Some(Number::Fixed(7)));
            table.entry(b"other").add(None);
            table
        };
        let mut whole = table();
        let mut rows = Scattered::new(3);
        for ((start, end), (value_start, value_end)) in pairs {
            let value = crate::lanes16::parse_simd_fixed(input, value_start, value_end);
            whole
                .entry(&input[start..end])
                .add(value.map(Number::Fixed));
            rows.push(input, (start, end), value.unwrap(), || false);
        }
        let expected = whole.to_groups();
        assert_eq!(expected.len(), 6);
        assert_eq!(expected[b"z"].sum, Some(-7.25));
        assert_same(&merge(table(), rows, input), &expected, "rows set aside");
    }

    /// Keys that all fall in one partition, among them keys whose hashes share their
    /// low 32 bits (the tag): that partition holds every group, and the rest none,
    /// and the answer is still the one table's.
    #[test]
    fn keys_of_one_partition_and_one_tag_merge_apart() {
        let bits = 3;
        let mut by_tag = std::collections::HashMap::<u32, usize>::new();
        let mut input = String::new();
        let mut spans = Vec::new();
        for i in 0..400_000u32 {
            let key = format!("c{i}");
            let hash = crate::key_words::KeyWords::of(key.as_bytes()).hash(key.as_bytes());
            let tagged = by_tag.insert(hash as u32, spans.len()).is_some();
            if crate::table::partition_of(hash, bits) == 0 && (tagged || spans.len() < 20_000) {
                spans.push((input.len(), input.len() + key.len()));
                input += &key;
                input.push(',');
            }
        }
        let input = input.as_bytes();
        let (mut whole, mut table, mut rows) = (
            GroupTable::default(),
            GroupTable::default(),
            Scattered::new(bits),
        );
        for (i, &(start, end)) in spans.iter().chain(&spans[..5_000]).enumerate() {
            let value = i as i128 * 1_000;
            whole
                .entry(&input[start..end])
                .add(Some(Number::Fixed(value)));
            match i % 3 {
                0 => table
                    .entry(&input[start..end])
                    .add(Some(Number::Fixed(value))),
                _ => rows.push(input, (start, end), value, || false),
            }
        }
        assert!(rows.part(0).len() > 10_000 && rows.part(1).is_empty());
        let expected = whole.to_groups();
        assert_same(&merge(table, rows, input), &expected, "one partition");
    }
}
