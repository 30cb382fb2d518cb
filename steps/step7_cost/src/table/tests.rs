//! The unit tests of [`super`]: the table against a `HashMap` as it grows, and keys
//! that must stay apart (shared prefixes, long keys, colliding hashes).

use super::*;
use harness::query::Group;
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
        b"abcdefghijklmnop",
        b"abcdefghijklmnop\0",
        b"abcdefghijklmnopq",
    ] {
        table.entry(key).add(None);
    }
    table.entry(b"a").add(Some(1.0));
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
            table.entry(key).add(Some(i as f64));
        }
    }
    assert_eq!(table.len(), keys.len(), "groups of {} keys", keys.len());
    for (i, key) in keys.iter().enumerate() {
        let acc = table.entry(key);
        let (count, sum) = ((i % 3 + 1) as u64, ((i % 3 + 1) * i) as f64);
        assert_eq!(
            (acc.count, acc.group().sum),
            (count, Some(sum)),
            "(count, sum) of key {:?}",
            String::from_utf8_lossy(key)
        );
    }
}

#[test]
fn a_million_distinct_keys() {
    let mut table = GroupTable::default();
    for round in 0..2 {
        for i in 0..1_000_000u32 {
            table.entry(i.to_string().as_bytes()).count += 1;
            if round == 0 {
                assert_eq!(table.len(), 1 + i as usize, "groups after the key {i}");
            }
        }
    }
    assert!(table.iter().all(|(_, acc)| acc.count == 2));
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
            table.entry(&keys[i]).add(Some(i as f64));
        }
    }
    assert_eq!(table.len(), chosen.len(), "groups of {} keys", chosen.len());
    for (round, &i) in chosen.iter().enumerate() {
        let acc = table.entry(&keys[i]);
        let key = String::from_utf8_lossy(&keys[i]);
        assert_eq!(
            acc.count,
            (round % 3 + 1) as u64,
            "the count of key {key:?}"
        );
    }
}
