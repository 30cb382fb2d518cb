use super::*;

/// `same_answer` agrees with comparing the two answers' JSON, pair by pair: a
/// value of a shown aggregate, a key, a missing group, and a value of an
/// aggregate not shown.
#[test]
fn same_answer_is_the_same_json() {
    let group = |count, sum| Group {
        count,
        sum: Some(sum),
        min: Some(sum),
        ..Group::default()
    };
    let answer = |items: &[(&str, Group)]| -> Groups {
        items.iter().map(|(k, g)| (k.as_bytes(), *g)).collect()
    };
    let base = answer(&[("a", group(1, 0.5)), ("b", group(2, 1.5))]);
    let variants = [
        answer(&[("a", group(1, 0.5)), ("b", group(2, 1.5))]),
        answer(&[("a", group(1, 0.5)), ("b", group(2, 2.5))]),
        answer(&[("a", group(1, 0.5)), ("c", group(2, 1.5))]),
        answer(&[("a", group(1, 0.5))]),
        answer(&[
            ("a", group(1, 0.5)),
            (
                "b",
                Group {
                    min: None,
                    ..group(2, 1.5)
                },
            ),
        ]),
    ];
    for aggs in [Aggs::DEFAULT, Aggs::ALL] {
        for other in &variants {
            let by_json = groups_to_json_with(&base, aggs) == groups_to_json_with(other, aggs);
            assert_eq!(same_answer(&base, other, aggs), by_json);
        }
    }
    // The shown aggregates decide: the last variant differs in MIN alone.
    assert!(same_answer(&base, &variants[4], Aggs::DEFAULT));
    assert!(!same_answer(&base, &variants[4], Aggs::ALL));
    assert!(!same_answer(&base, &variants[1], Aggs::DEFAULT));
}

/// The difference of two answers is one line, whatever their sizes: never every
/// group (a debug print of 32 groups was 4.8 KB).
#[test]
fn the_first_difference_is_one_short_line() {
    let answer = |n: u64, odd: Option<(u64, u64)>| -> Groups {
        (0..n)
            .map(|i| {
                let count = match odd {
                    Some((at, count)) if at == i => count,
                    _ => i + 1,
                };
                let key = format!("key-{i:06}").into_bytes();
                let group = Group {
                    count,
                    sum: Some(i as f64),
                    ..Group::default()
                };
                (key, group)
            })
            .collect()
    };
    let names = ("step5", "step 1's parser");
    let base = answer(100_000, None);
    assert_eq!(
        first_difference(&base, &answer(100_000, None), Aggs::DEFAULT, names),
        None
    );
    let changed = first_difference(&base, &answer(100_000, Some((7, 99))), Aggs::DEFAULT, names);
    assert_eq!(
        changed.as_deref(),
        Some(
            "the group \"key-000007\" is {\"count\":8,\"sum\":7.0} in step5, \
             {\"count\":99,\"sum\":7.0} in step 1's parser (100000 groups in step5, \
             100000 in step 1's parser)"
        )
    );
    let longer = first_difference(&base, &answer(100_001, None), Aggs::DEFAULT, names);
    assert_eq!(
        longer.as_deref(),
        Some(
            "step 1's parser has the group \"key-100000\", step5 not (100000 groups in \
             step5, 100001 in step 1's parser)"
        )
    );
    let long_key: Groups = [(vec![b'x'; 1000], Group::default())].into_iter().collect();
    let message = first_difference(&long_key, &Groups::new(), Aggs::DEFAULT, names).unwrap();
    assert!(message.len() < 150, "{message}");
}

#[test]
fn json_and_table_of_groups() {
    let items = vec![
        (
            b"b".to_vec(),
            Group {
                count: 2,
                sum: Some(0.1 + 0.2),
                ..Group::default()
            },
        ),
        (
            b"a\xff".to_vec(),
            Group {
                count: 1,
                sum: None,
                ..Group::default()
            },
        ),
    ];
    let groups: Groups = items.into_iter().collect();
    let json = groups_to_json(&groups).to_string();
    assert_eq!(
        json,
        r#"{"a\\xff":{"count":1,"sum":null},"b":{"count":2,"sum":0.30000000000000004}}"#
    );
    let table = groups_to_table(&groups, "category", "value");
    assert_eq!(
        table,
        "category  count  sum(value)\na\\xff         1        NULL\nb             2    0.300000\n"
    );
}

#[test]
fn no_two_keys_print_alike_and_an_overflowed_sum_is_not_null() {
    let items = vec![
        (
            b"\xff".to_vec(),
            Group {
                count: 1,
                sum: Some(f64::INFINITY),
                ..Group::default()
            },
        ),
        (
            b"\\xff".to_vec(),
            Group {
                count: 2,
                sum: Some(f64::NEG_INFINITY),
                ..Group::default()
            },
        ),
        (
            b"a\\b".to_vec(),
            Group {
                count: 3,
                sum: None,
                ..Group::default()
            },
        ),
    ];
    let groups: Groups = items.into_iter().collect();
    let json = groups_to_json(&groups);
    assert_eq!(json.as_object().unwrap().len(), 3, "{json}");
    assert_eq!(json[r"\xff"]["sum"], "inf");
    assert_eq!(json[r"\\xff"]["sum"], "-inf");
    assert_eq!(json[r"a\\b"]["sum"], Value::Null);
}

#[test]
fn the_1brc_answer_refuses_nulls_and_temperatures_out_of_range() {
    let station = |values: &[Option<f64>]| {
        let seen: Vec<f64> = values.iter().flatten().copied().collect();
        let sum: f64 = seen.iter().sum();
        let some = |v: f64| (!seen.is_empty()).then_some(v);
        Group {
            count: values.len() as u64,
            sum: some(sum),
            min: some(seen.iter().copied().fold(f64::INFINITY, f64::min)),
            max: some(seen.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
            mean: some(sum / seen.len() as f64),
        }
    };
    let answer = |values: &[Option<f64>]| {
        let groups: Groups = [(b"Oslo".to_vec(), station(values))].into_iter().collect();
        groups_to_1brc(&groups)
    };
    assert_eq!(
        answer(&[Some(1.0), Some(3.0), Some(-99.9), Some(99.9)]).unwrap(),
        "{Oslo=-99.9/1.0/99.9}"
    );
    assert_eq!(
        answer(&[Some(0.1), Some(0.2)]).unwrap(),
        "{Oslo=0.1/0.2/0.2}"
    );
    let refused = |values: &[Option<f64>], why: &str| {
        let e = answer(values).unwrap_err().to_string();
        assert!(e.starts_with("station \"Oslo\"") && e.contains(why), "{e}");
    };
    refused(
        &[Some(1.0), None, Some(3.0)],
        "a line without a temperature",
    );
    refused(&[None, Some(-2.5)], "a line without a temperature");
    refused(&[None, None], "no temperature, only empty fields");
    refused(&[Some(1.0), Some(100.0)], "the temperature 100, outside");
    refused(&[Some(-100.0)], "the temperature -100, outside");
    refused(
        &[Some(9.2e18)],
        "outside the One Billion Row Challenge's range",
    );
    refused(
        &[Some(-0.05), Some(-0.05)],
        "the temperature -0.05, with more than",
    );
    refused(
        &[Some(1.0), Some(1.25), Some(3.0)],
        "more than the One Billion Row",
    );
}
