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
