//! Step 10's answer: the same as the same query on step 1's parser, and `gen`'s
//! reference with every sum exact, correctly rounded (`testkit::query_checks`); and
//! the same JSON on every number of threads and chunks.

use gen_csv::{Config, generate_in_memory};
use harness::query::{Groups, Query, QueryError, groups_to_json};
use step10::parallel::{self, Split};
use step10::step1_query;
use testkit::query_checks::{Sums, generated_shaped, shaped_configs};

testkit::query_tests!(step10::Step10, Sums::Exact);

/// The default query's answer over `csv` on `threads` threads, in chunks of `chunk`
/// bytes (0: the default size).
fn default_query(csv: &[u8], threads: usize, chunk: usize) -> Groups {
    parallel::run_split(csv, Query::default(), Split { threads, chunk }).unwrap()
}

/// The query of the tests of many keys: `k` grouped, with the sum of `v`.
fn by_k() -> Query<'static> {
    Query {
        group_by: "k",
        sum: "v",
        ..Query::default()
    }
}

/// The JSON of one thread on every generated file, the quoted ones included
/// (`shaped_configs`), on 1 to 8 threads and chunks whose boundaries fall anywhere.
#[test]
fn the_same_json_for_every_thread_count_and_chunk_size() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (name, config, shape) in shaped_configs() {
        let (path, csv, _) = generated_shaped(dir, "threads", name, &config, shape);
        let one = groups_to_json(&default_query(&csv, 1, 0));
        for threads in [1, 2, 3, 8] {
            for chunk in [0, 4096, 999, 100_003] {
                let got = groups_to_json(&default_query(&csv, threads, chunk));
                assert_eq!(got, one, "{name} on {threads} threads, chunks of {chunk}");
            }
        }
        std::fs::remove_file(path).unwrap();
    }
}

/// A file whose every string is quoted, cut into chunks of every size from 1 to 70
/// bytes and a few larger, on 1 to 3 threads: a chunk boundary falls at every byte
/// of every quoted field, its quotes included, and the JSON is one thread's in one
/// chunk, which is gen's reference.
#[test]
fn quoted_strings_at_every_chunk_boundary() {
    let config = Config {
        rows: 200,
        ..Config::default()
    };
    let shape = gen_csv::Shape {
        quote_strings: true,
        ..gen_csv::Shape::default()
    };
    let (csv, reference) = gen_csv::generate_in_memory_shaped(&config, shape);
    let one = default_query(&csv, 1, 0);
    assert_eq!(one.len(), reference.groups.len());
    for (key, r) in &reference.groups {
        assert_eq!(one[key.as_bytes()].count, r.count, "{key}");
    }
    let one = groups_to_json(&one);
    for threads in [1, 2, 3] {
        for chunk in (1..=70).chain([127, 1000, 4096]) {
            let got = groups_to_json(&default_query(&csv, threads, chunk));
            assert_eq!(got, one, "{threads} threads, chunks of {chunk}");
        }
    }
}

#[test]
fn many_more_chunks_than_cores() {
    // 64 threads over 3000 chunks of 100 bytes: the design for a 64-core machine,
    // run on whatever this one has.
    let (csv, _) = generate_in_memory(&Config {
        rows: 10_000,
        ..Config::default()
    });
    let one = default_query(&csv, 1, 0);
    let many = default_query(&csv, 64, 100);
    assert_eq!(groups_to_json(&many), groups_to_json(&one));
}

/// The projected walk (each chunk's) against step 1's parser with the same
/// aggregation, on documents that take each of the walk's paths: quoted and escaped
/// keys and values, CR LF, blank lines, lenient quotes (the state machine's blocks),
/// records wider than the fields asked for, a last record without a terminator, and
/// errors; at several thread counts and chunk sizes.
#[test]
fn the_projected_walk_gives_step_1_s_answer() {
    let long = "x".repeat(100);
    let documents = [
        "k,v\na,1\nb,2.5\na,-3\n".to_string(),
        "k,v\r\na,1\r\n\r\nb,2\r\n\n\na,3".to_string(),
        "k,v\n\"a\",\"1.5\"\n\"a\"\"b\",2\n\"a,b\",3\n\"\",4\n,5\nc,\n".to_string(),
        "k,v\nab\"c,1\n\"ab\"c,2\nab\"c,3\n".to_string(),
        format!("x,k,y,v,z\n1,a,2,3,4\n1,{long},2,3,4\n1,{long},2,-1.25e2,4\n"),
        "k,v\na,1\nb\nc,x\n".to_string(),
        "k,v\na,1\nb,\"2\n".to_string(),
        "x,k,v,y,z\n1,a,1,2,3\n1,b,2,3,\"4\n5\n".to_string(), // open past the fields read
        "k,v\n12345678901234567,9007199254740993\nk,0.1\nk,1234567890123456\n".to_string(),
    ];
    let query = by_k();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (d, document) in documents.iter().enumerate() {
        let padded = format!("{document}{}", "a,1\n".repeat(40));
        let path = dir.join(format!("projected-{d}-{}.csv", std::process::id()));
        std::fs::write(&path, &padded).unwrap();
        let expected = step1_query::run(&path, query).ok();
        for (threads, chunk) in [(1, 0), (2, 7), (2, 64), (3, 1)] {
            let got = parallel::run_split(padded.as_bytes(), query, Split { threads, chunk }).ok();
            assert_eq!(
                got, expected,
                "{padded:?} on {threads} threads, chunks of {chunk}"
            );
        }
        std::fs::remove_file(path).unwrap();
    }
}

/// The query of the tests of many keys ([`by_k`]), and step 1's answer to it over
/// `csv` (written to a file named after `test`, for its parser).
fn by_k_on_step_1(csv: &str, test: &str) -> (Query<'static>, Groups) {
    let query = by_k();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("{test}-{}.csv", std::process::id()));
    std::fs::write(&path, csv).unwrap();
    let expected = step1_query::run(&path, query).unwrap();
    std::fs::remove_file(path).unwrap();
    (query, expected)
}

/// Far more distinct keys than a thread's table keeps before it sets its rows aside
/// by partition ([`step10::scatter`]), so that most rows are merged from there: the
/// answer of step 1's parser, whose one table takes every row, on every thread
/// count and chunk size. Keys of 1 to 40 bytes, long ones sharing their first 16;
/// the same key plain (set aside) and quoted or with a NULL value (both of which the
/// table takes); every aggregate; and a short key as the input's last bytes.
#[test]
fn many_keys_set_aside_by_partition_give_step_1_s_answer() {
    let keys = 3 * step10::scatter::SCATTER_FROM;
    let key = |i: usize| match i % 3 {
        0 => format!("{i}"),
        1 => format!("the-same-sixteen-{i:08}"),
        _ => format!("k{i:0width$}", width = i % 40),
    };
    let mut csv = String::from("k,v\n");
    for round in 0..3 {
        for i in (0..keys).filter(|i| i % (round + 1) == 0) {
            let k = key(i);
            let row = match (round, i % 7) {
                (1, 0) => format!("\"{k}\",{i}.25\n"),
                (1, 1) => format!("{k},\n"),
                (_, r) => format!("{k},{}{}.{r}\n", ["", "-"][i % 2], i % 1000),
            };
            csv.push_str(&row);
        }
    }
    csv.push_str(&format!("{},1.5", key(3))); // a repeated short key, no terminator
    let (query, expected) = by_k_on_step_1(&csv, "many-keys");
    assert_eq!(expected.len(), keys);
    for (threads, chunk) in [(1, 0), (1, 4096), (2, 0), (2, 65_536), (3, 4099), (8, 0)] {
        let got = parallel::run_split(csv.as_bytes(), query, Split { threads, chunk }).unwrap();
        assert!(
            got == expected,
            "{threads} threads, chunks of {chunk}: {} groups",
            got.len()
        );
    }
}

/// Keys that cycle: a thread's first chunks bring only new keys, so it sets its rows
/// aside, then finds the keys again in its table and adds to it once more, and sets
/// rows aside again when a run of new keys comes. Whatever it does when, the answer
/// is step 1's.
#[test]
fn keys_that_come_back_after_rows_were_set_aside_give_step_1_s_answer() {
    let keys = 2 * step10::scatter::SCATTER_FROM;
    let cycle = |from: usize, to: usize| (from..to).map(|i| format!("k{i},{}.5\n", i % 97));
    let mut csv = String::from("k,v\n");
    let a = cycle(0, keys).collect::<String>();
    csv += &a;
    csv += &a;
    csv.extend(cycle(keys, 2 * keys)); // new keys: setting aside pays again
    csv.extend(cycle(0, 2 * keys));
    let (query, expected) = by_k_on_step_1(&csv, "cycling-keys");
    assert_eq!(expected.len(), 2 * keys);
    let whole = a.len();
    for (threads, chunk) in [(1, whole), (1, whole / 2), (1, 0), (2, whole / 2), (3, 0)] {
        let got = parallel::run_split(csv.as_bytes(), query, Split { threads, chunk }).unwrap();
        assert!(got == expected, "{threads} threads, chunks of {chunk}");
    }
}

/// An unterminated quote that opens in a field past the ones the query reads (the
/// walk only counts those fields' delimiters) is named at its opening quote, on every
/// split.
#[test]
fn an_open_quote_past_the_fields_read_is_named_at_its_quote() {
    let input = b"x,k,v,y,z\n1,a,1,2,3\n1,b,2,3,\"4\n5\n";
    let quote = input.iter().position(|&b| b == b'"').unwrap();
    let query = by_k();
    for (threads, chunk) in [(1, 0), (2, 7), (2, 64), (3, 1)] {
        let got = parallel::run_split(input, query, Split { threads, chunk });
        let expected = harness::ParseError {
            record: 2,
            byte: quote as u64,
            line: 3,
        };
        assert_eq!(
            got,
            Err(QueryError::Parse(expected)),
            "{threads} threads, chunks of {chunk}"
        );
    }
}

/// Sums whose partial values overflow `f64`: the same answer in every order of the
/// rows, on every thread count and chunk size, and the exact one, rounded once
/// (1e308 + 1e308 - 1e308 is 1e308; an `f64` sum in this order is `inf`). A sum
/// whose exact value is beyond `f64` is an error on every path alike, naming its
/// group.
#[test]
fn sums_past_f64s_range_are_the_same_in_every_order_and_split() {
    let rows = |values: &[&str], padding: usize| {
        let mut csv = String::from("category,value\n");
        for (i, v) in values.iter().enumerate() {
            csv += &format!("b,{v}\n");
            // Rows of another key between them, so that chunks cut between the values.
            for _ in 0..padding * (i + 1) {
                csv += "pad,1\n";
            }
        }
        csv.into_bytes()
    };
    let answer = |csv: &[u8], split: Split| {
        let groups = parallel::run_split(csv, Query::default(), split).unwrap();
        let b = groups[&b"b"[..]];
        (b.sum, b.mean)
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
    ] {
        for padding in [0, 300] {
            let csv = rows(values, padding);
            for threads in [1, 2, 3] {
                for chunk in [0, 64, 4096] {
                    let split = Split { threads, chunk };
                    let (got_sum, got_mean) = answer(&csv, split);
                    assert_eq!(got_sum, Some(sum), "{values:?} {padding} {split:?}");
                    assert_eq!(got_mean, Some(mean), "{values:?} {padding} {split:?}");
                }
            }
        }
    }
    let csv = rows(&["1e308", "1e308", "1e308"], 300);
    for threads in [1, 2, 3] {
        for chunk in [0, 64, 4096] {
            let split = Split { threads, chunk };
            let e = parallel::run_split(&csv, Query::default(), split).unwrap_err();
            assert_eq!(
                e.to_string(),
                "SUM(value) of the group \"b\" is past the range of a 64-bit float: its exact \
                 value is beyond 1.8e308 in magnitude",
                "{split:?}"
            );
            assert_eq!(
                e.to_json(),
                serde_json::json!({"error": "sum_out_of_range", "column": "value", "key": "b"})
            );
        }
    }
}
