//! Step 8's answer, cross-checked three ways (the gate is the third, in `gate.rs`):
//! against the same query on step 1's parser, and against `gen`'s reference with
//! every sum exact, correctly rounded (`testkit::query_checks`); and its two tables
//! against each other. And the exact sum's promise: the same answer in every order.

use harness::query::Query;
use step8::serial;
use step8::table::{GroupTable, Hashbrown};
use testkit::query_checks::{Sums, configs, generated};

testkit::query_tests!(step8::Step8, Sums::Exact);

#[test]
fn both_tables_give_the_same_answer() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (name, config) in configs() {
        let (path, csv, _) = generated(dir, "tables", name, &config);
        let hand = serial::run_with::<GroupTable>(&csv, Query::default()).unwrap();
        let hashbrown = serial::run_with::<Hashbrown>(&csv, Query::default()).unwrap();
        assert_eq!(hand, hashbrown, "{name}");
        std::fs::remove_file(path).unwrap();
    }
}

/// The projected walk (the query's) against the full walk (every field's span), on
/// documents that take each of its paths: quoted and escaped keys and values, CR LF,
/// blank lines, lenient quotes (the state machine's blocks), records wider than the
/// fields asked for, a last record without a terminator, and every kind of error.
#[test]
fn the_projected_walk_gives_the_full_walk_s_answer() {
    let long = "x".repeat(100);
    let documents = [
        "k,v\na,1\nb,2.5\na,-3\n".to_string(),
        "k,v\r\na,1\r\n\r\nb,2\r\n\n\na,3".to_string(),
        "k,v\n\"a\",\"1.5\"\n\"a\"\"b\",2\n\"a,b\",3\n\"\",4\n,5\nc,\n".to_string(),
        "k,v\nab\"c,1\n\"ab\"c,2\nab\"c,3\n".to_string(),
        format!("x,k,y,v,z\n1,a,2,3,4\n1,{long},2,3,4\n1,{long},2,-1.25e2,4\n"),
        format!(
            "k,v,{}\n",
            (0..300)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
        "k,v\na,1\nb\nc,x\n".to_string(),
        "k,v\na,1\nb,NaN\n".to_string(),
        "k,v\na,1\nb,\"2\n".to_string(),
        "x,k,v,y,z\n1,a,1,2,3\n1,b,2,3,\"4\n5\n".to_string(), // open past the fields read
        "k\na\n".to_string(),
        "\n\nk,v\n".to_string(),
        "k,v".to_string(),
        "k,v\n12345678901234567,9007199254740993\nk,0.1\nk,1234567890123456\n".to_string(),
    ];
    for document in &documents {
        for padding in [0, 1, 17, 63, 64, 100] {
            // Padding moves the records across block boundaries.
            let padded = format!("{}{document}", "\n".repeat(padding));
            let input = padded.as_bytes();
            let query = Query {
                group_by: "k",
                sum: "v",
                ..Query::default()
            };
            let projected = serial::run_projected(input, query);
            let full = serial::run_with::<GroupTable>(input, query);
            assert_eq!(projected, full, "{padded:?}");
        }
    }
}

/// `--null` texts, as keys and as values, give the full walk's answer, on the fast
/// path (a number whose key is a `--null` text) and off it. `7` is a `--null` text
/// here, which the CLI refuses (a value would be both) but the library takes: the
/// fast path must not sum it.
#[test]
fn null_texts_give_the_full_walk_s_answer() {
    let nulls = ["NA".to_string(), "-".to_string(), "7".to_string()];
    let query = Query {
        nulls: &nulls,
        ..Query::default()
    };
    let input = b"category,value\nNA,1\na,NA\n,2\na,-\n-,3\na,4\na,7\n7,5\n";
    let projected = serial::run_projected(input, query).unwrap();
    assert_eq!(
        projected,
        serial::run_with::<GroupTable>(input, query).unwrap()
    );
    assert_eq!(projected.len(), 2, "{projected:?}"); // the NULL key and `a`
    let (null, a) = (&projected[&b""[..]], &projected[&b"a"[..]]);
    assert_eq!((null.count, null.sum), (4, Some(11.0)), "{projected:?}");
    assert_eq!((a.count, a.sum), (4, Some(4.0)), "{projected:?}");
}

/// Sums whose partial values overflow `f64`: the same answer in every order of the
/// rows, and the exact one, rounded once (1e308 + 1e308 - 1e308 is 1e308; an `f64`
/// sum in this order is `inf`). A sum whose exact value is beyond `f64` is an error
/// in every order alike, naming its group.
#[test]
fn sums_past_f64s_range_are_the_same_in_every_order() {
    let csv = |values: &[&str]| {
        let mut csv = String::from("category,value\n");
        for v in values {
            csv += &format!("b,{v}\npad,1\n");
        }
        csv.into_bytes()
    };
    for (values, sum, mean) in [
        (&["1e308", "1e308", "-1e308"][..], 1e308, 1e308 / 3.0),
        (&["1e308", "-1e308", "1e308"][..], 1e308, 1e308 / 3.0),
        (&["-1e308", "1e308", "1e308"][..], 1e308, 1e308 / 3.0),
        (
            &["-1.7e308", "-1.7e308", "1.7e308"][..],
            -1.7e308,
            -1.7e308 / 3.0,
        ),
        (&["0.1", "0.2", "-0.3", "1e-20"][..], 1e-20, 1e-20 / 4.0),
        (&["-0.3", "1e-20", "0.2", "0.1"][..], 1e-20, 1e-20 / 4.0),
    ] {
        let groups = step8::run(&csv(values), Query::default()).unwrap();
        let b = groups[&b"b"[..]];
        assert_eq!((b.sum, b.mean), (Some(sum), Some(mean)), "{values:?}");
    }
    for values in [["1e308", "1e308", "1e308"], ["1e308", "-1e300", "1e308"]] {
        let e = step8::run(&csv(&values), Query::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "SUM(value) of the group \"b\" is past the range of a 64-bit float: its exact \
             value is beyond 1.8e308 in magnitude",
            "{values:?}"
        );
        assert_eq!(
            e.to_json(),
            serde_json::json!({"error": "sum_out_of_range", "column": "value", "key": "b"})
        );
    }
}

/// The keys a quoted file has: every length from 0 to 40 bytes, bare and quoted, and
/// quoted with a `""` pair, a delimiter, an LF or text after the closing quote (the
/// last three take the general path), each also as the input's last record, where no
/// 16 bytes can be read from the key: the full walk's answer.
#[test]
fn quoted_keys_give_the_full_walk_s_answer() {
    let query = Query {
        group_by: "k",
        sum: "v",
        ..Query::default()
    };
    for len in 0..=40 {
        let word: String = (0..len)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let keys = [
            word.clone(),
            format!("\"{word}\""),
            format!("\"{word}\"\"\""),
            format!("\"\"\"{word}\""),
            format!("\"{word},\""),
            format!("\"{word}\nx\""),
            format!("\"{word}\"x"),
        ];
        let rows: String = keys
            .iter()
            .enumerate()
            .map(|(i, k)| format!("{k},{i}.5\n"))
            .collect();
        for last in &keys {
            let csv = format!("k,v\n{rows}{last},1");
            let input = csv.as_bytes();
            let projected = serial::run_projected(input, query);
            assert_eq!(
                projected,
                serial::run_with::<GroupTable>(input, query),
                "{csv:?}"
            );
        }
    }
}

/// [`step8::project::plain_span`] gives the cooked bytes where they lie exactly when
/// [`step8::project::raw_cooked`] borrows them: every field of up to 6 bytes over
/// `a`, `,` and `"` that the reference parser reads as one field, with 0 to 20 bytes
/// after it in the input.
#[test]
fn plain_span_is_the_cooked_bytes_where_they_lie() {
    use harness::reference;
    use std::borrow::Cow;
    use step8::project::{plain_span, raw_cooked};
    let alphabet = [b'a', b',', b'"'];
    let mut checked = 0;
    for len in 1..=6u32 {
        for n in 0..3usize.pow(len) {
            let field: Vec<u8> = (0..len).map(|k| alphabet[n / 3usize.pow(k) % 3]).collect();
            let records = reference::parse(&field).unwrap_or_default();
            let [cooked] = records.as_slice() else {
                continue; // not one record
            };
            let [cooked] = cooked.as_slice() else {
                continue; // not one field
            };
            for after in 0..=20 {
                let mut input = field.clone();
                input.extend(std::iter::repeat_n(b'x', after));
                let span = plain_span(&input, (0, field.len()));
                let expected = match raw_cooked(&field) {
                    Cow::Borrowed(b) => Some(b),
                    Cow::Owned(_) => None,
                };
                assert_eq!(
                    span.map(|(s, e)| &input[s..e]),
                    expected,
                    "{field:?} {after}"
                );
                if let Some((s, e)) = span {
                    assert_eq!(&input[s..e], cooked.as_slice());
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
