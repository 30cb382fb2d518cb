//! The threads' tables merged into one answer. Each thread aggregated its chunks
//! into a table of its own; a key can be in every one of them, and the answer must
//! not depend on which thread saw it first (the exact sums see to the values).
//!
//! With few groups, the tables are merged into the largest on one thread: a few
//! hundred lookups. With many, that one thread would do a second pass of the whole
//! GROUP BY while the other cores wait, so the merge runs on every core too, split
//! the way DuckDB's parallel aggregation splits it (Mühleisen and Raasveldt,
//! "Parallel Grouped Aggregation in DuckDB", 2022): by bits of the keys' hash, which put a key in the same partition in every table. Each partition is
//! merged alone, by one worker, into a small table, and turned into its part of the
//! answer; the parts are sorted into key order once, on every core. A thread that
//! set rows aside ([`crate::scatter`]) set them aside in the same partitions, so each
//! partition's rows are added into the same small table.
//!
//! ```text
//! thread tables:   T0            T1
//! partitions:      T0[0..P)      T1[0..P)      (the groups' numbers, by bits of their hash)
//! rows set aside:  S0[0..P)      S1[0..P)      (by the same bits)
//! worker p:        merge T0[p] and T1[p], add S0[p] and S1[p], into a table, then its groups
//! answer:          every partition's groups, sorted by key
//! ```

use harness::query::{Groups, GroupsBuilder};

use crate::exact::Number;
use crate::pool::map_chunks;
use crate::scatter::Scattered;
use crate::table::{GroupBy, GroupTable};

/// Fewer groups than this in all tables: merged on one thread, where the partitions'
/// set-up would cost more than the merge.
const ON_EVERY_CORE_FROM: usize = 1 << 14;

/// Partitions a worker's share is cut into: several a worker, so that an unlucky
/// partition does not leave the other workers idle.
const PARTS_PER_WORKER: usize = 8;

/// Groups a partition holds at most, where there are enough of them: a partition's
/// table is then small enough to stay in the core's own cache while it is merged.
const PART_GROUPS: usize = 1 << 13;

// ANCHOR: merge
// ANCHOR: exercise_merge
/// The answer of `tables`, the tables of the threads that aggregated the chunks,
/// and of `scattered`, the rows they set aside ([`crate::scatter`]), whose keys lie
/// in `input`, merged on `threads` workers.
pub fn merge(
    mut tables: Vec<GroupTable>,
    scattered: Vec<Scattered>,
    input: &[u8],
    threads: usize,
) -> Groups {
    tables.retain(|t| !t.is_empty());
    let scattered: Vec<Scattered> = scattered.into_iter().filter(|s| !s.is_empty()).collect();
    let groups: usize = tables.iter().map(GroupTable::len).sum();
    let bits = match scattered.first() {
        Some(rows) => rows.bits(), // the partitions the rows are already in
        None if threads <= 1 || tables.len() <= 1 || groups < ON_EVERY_CORE_FROM => {
            // Into the largest table: its groups need no second lookup.
            tables.sort_by_key(|t| std::cmp::Reverse(t.len()));
            let mut tables = tables.into_iter();
            let mut merged = tables.next().unwrap_or_default();
            for table in tables {
                merged.merge(table);
            }
            return merged.to_groups();
        }
        None => (threads * PARTS_PER_WORKER)
            .max(groups / PART_GROUPS)
            .next_power_of_two()
            .trailing_zeros()
            .min(16),
    };
    let (partitions, _) = map_chunks(
        threads,
        tables.len(),
        || (),
        |_, t| tables[t].partitions(bits),
    );
    let (parts, _) = map_chunks(threads, 1 << bits, GroupTable::default, |merged, p| {
        let size: usize = partitions.iter().map(|parts| parts[p].len()).sum();
        let rows: usize = scattered.iter().map(|s| s.part(p).len()).sum();
        merged.reset(size + rows);
        for (table, parts) in tables.iter().zip(&partitions) {
            for &group in &parts[p] {
                let (key, acc) = table.group(group);
                merged.entry(key).merge(acc);
            }
        }
        for row in scattered.iter().flat_map(|s| s.part(p).iter()) {
            let value = Number::Fixed(row.value);
            merged.entry(row.key(input)).add(Some(value));
        }
        merged.to_builder()
    });
    // The threads' tables and rows are in the parts now: freed before the sort
    // allocates its order, so that the two are never held at once.
    drop((tables, partitions, scattered));
    GroupsBuilder::finish_parts(parts)
}
// ANCHOR_END: exercise_merge
// ANCHOR_END: merge

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::parse_number;

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

    /// The same groups, merged on one thread and on several, from tables that share
    /// keys, at fewer and at more groups than the partitioned merge starts from.
    #[test]
    fn every_core_merges_to_the_one_thread_answer() {
        for keys in [10, ON_EVERY_CORE_FROM + 1000] {
            // Table t holds the keys t, t + 2, t + 4, ...: every key is in two of
            // the three tables but the first and the last.
            let tables = || {
                (0..3)
                    .map(|t| {
                        let mut table = GroupTable::default();
                        for k in (t..keys).step_by(2) {
                            let value = format!("{t}.5");
                            let number = parse_number(value.as_bytes()).unwrap();
                            table.entry(format!("key-{k}").as_bytes()).add(number);
                        }
                        table
                    })
                    .collect::<Vec<_>>()
            };
            let one = merge(tables(), Vec::new(), &[], 1);
            assert_eq!(one.len(), keys, "{keys}");
            for threads in [2, 3, 8] {
                let got = merge(tables(), Vec::new(), &[], threads);
                assert_same(&got, &one, &format!("{keys} keys, {threads} threads"));
            }
            // key-2 is in tables 0 and 2 (0.5 + 2.5); key-1 in table 1 alone.
            assert_eq!((one[b"key-2"].count, one[b"key-2"].sum), (2, Some(3.0)));
            assert_eq!((one[b"key-1"].count, one[b"key-1"].sum), (1, Some(1.5)));
        }
        assert!(merge(Vec::new(), Vec::new(), &[], 2).is_empty());
    }

    /// Rows set aside by partition ([`Scattered`]) merge as if their threads' tables
    /// had added them: short keys, a key past 16 bytes (read back from the input), a
    /// key that a table holds too, and one at the input's very end.
    #[test]
    fn rows_set_aside_merge_as_if_added_in_place() {
        let input =
            b"k1,k2,the-same-sixteen-bytes-and-more,k2,k1,the-same-sixteen-bytes-but-other,z";
        let mut spans = Vec::new();
        let mut start = 0;
        for field in input.split(|&b| b == b',') {
            spans.push((start, start + field.len()));
            start += field.len() + 1;
        }
        let fixed = |v: i128| Some(Number::Fixed(v));
        let table = || {
            let mut table = GroupTable::default();
            table.entry(b"k2").add(fixed(7));
            table.entry(b"other").add(None);
            table
        };
        let mut whole = table();
        let (mut one, mut two) = (Scattered::new(3), Scattered::new(3));
        for (i, &(start, end)) in spans.iter().enumerate() {
            let value = 10 * i as i128 - 25;
            whole.entry(&input[start..end]).add(fixed(value));
            let rows = if i % 2 == 0 { &mut one } else { &mut two };
            rows.push(input, (start, end), value, || false);
        }
        let expected = whole.to_groups();
        assert_eq!(expected.len(), 6);
        for threads in [1, 2, 3] {
            let tables = vec![table(), GroupTable::default()];
            let got = merge(tables, vec![one.clone(), two.clone()], input, threads);
            assert_same(&got, &expected, &format!("{threads} threads"));
        }
    }
}
