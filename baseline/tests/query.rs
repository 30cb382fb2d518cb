//! The baseline's GROUP BY against step 5's and `gen`'s reference: the same answer,
//! bit for bit, wherever the two dialects agree; and on bad input, the same error
//! or one of the differences the crate docs list, pinned here case by case.

use std::path::PathBuf;

use baseline::query::{self, Query, QueryFailure};
use baseline::reference;
use gen_csv::{Config, generate_in_memory};
use harness::ParseError;
use harness::query::{Group, Groups, Place, QueryError, groups_to_json};
use testkit::query_checks::configs;

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("baseline-query-{name}-{}.csv", std::process::id()))
}

fn assert_same_bits(ours: &Groups, theirs: &Groups, what: &str) {
    assert_eq!(ours.len(), theirs.len(), "{what}: groups");
    for (key, g) in ours {
        let t = theirs
            .get(key)
            .unwrap_or_else(|| panic!("{what}: {key:?} missing"));
        assert_eq!(g.count, t.count, "{what} {key:?}: count");
        assert_eq!(
            g.sum.map(f64::to_bits),
            t.sum.map(f64::to_bits),
            "{what} {key:?}: sum"
        );
    }
    assert_eq!(groups_to_json(ours), groups_to_json(theirs), "{what}");
}

#[test]
fn same_answer_as_step_5_bit_for_bit() {
    for (name, config) in configs() {
        let (csv, _) = generate_in_memory(&config);
        let ours = query::run_bytes(&csv, Query::default()).unwrap();
        let step5 = step5::run(&csv, step5::query::Query::default()).unwrap();
        assert_eq!(ours.len(), gen_csv::CATEGORIES.len(), "{name}");
        assert_same_bits(&ours, &step5, name);
    }
}

#[test]
fn same_answer_as_gens_reference_from_a_file() {
    for (name, config) in configs() {
        let (csv, reference) = generate_in_memory(&config);
        let path = temp_path(name);
        std::fs::write(&path, &csv).unwrap();
        let ours = query::run_path(&path, Query::default()).unwrap();
        assert_eq!(ours.len(), reference.groups.len(), "{name}");
        for (key, r) in &reference.groups {
            let g = ours[key.as_bytes()];
            assert_eq!(g.count, r.count, "{name} {key}");
            assert_eq!(
                g.sum.map(f64::to_bits),
                Some(r.sum_f64.to_bits()),
                "{name} {key}"
            );
        }
        // No reference file next to it: nothing to check against.
        assert_eq!(reference::check_reference(&path, &ours), None);
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn the_reference_file_next_to_the_csv_is_checked() {
    let config = Config {
        rows: 5_000,
        ..Config::default()
    };
    let path = temp_path("with-ref");
    gen_csv::write_files(&config, &path).unwrap();
    let mut groups = query::run_path(&path, Query::default()).unwrap();
    assert_eq!(reference::check_reference(&path, &groups), Some(Ok(())));
    groups.get_mut(&b"books"[..]).unwrap().count += 1;
    let differs = reference::check_reference(&path, &groups)
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(differs.contains("\"books\""), "{differs}");
    std::fs::remove_file(gen_csv::reference_path(&path)).unwrap();
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_file_that_cannot_be_read_is_an_io_error() {
    let e = query::run_path(&temp_path("never-written"), Query::default()).unwrap_err();
    assert!(matches!(e, QueryFailure::Io(_)), "{e:?}");
    assert!(e.to_string().starts_with("cannot read the input: "), "{e}");
}

/// What the baseline gives on a bad input, beside step 5's answer.
enum Expect {
    /// The same answer or the same error as step 5's.
    Same,
    /// Another line in an error that is otherwise step 5's: the csv crate's
    /// `Position::line`, where its reader stood when the record began.
    OtherLine(u64),
    /// Something else, because the dialects differ on the input.
    Differs(Result<Groups, QueryError>),
}

fn group_of(count: u64, sum: Option<f64>) -> Group {
    Group {
        count,
        sum,
        ..Group::default()
    }
}

fn group(count: u64, sum: f64) -> Group {
    Group {
        count,
        sum: Some(sum),
        ..Group::default()
    }
}

fn groups(entries: &[(&str, Group)]) -> Groups {
    entries
        .iter()
        .map(|(k, g)| (k.as_bytes().to_vec(), *g))
        .collect()
}

/// `e` with its byte offset 0: the csv crate names a record's first byte where the
/// steps name the field's (`query::invalid`), so the offsets are not compared.
fn without_byte(mut e: QueryError) -> QueryError {
    if let QueryError::FieldCount {
        place: Some(place), ..
    }
    | QueryError::InvalidNumber {
        place: Some(place), ..
    } = &mut e
    {
        place.byte = 0;
    }
    e
}

#[test]
fn bad_input_gives_step_5s_answer_or_a_documented_difference() {
    use Expect::*;
    let field_count = |record, line, expected, found| QueryError::FieldCount {
        record,
        place: Some(Place { line, byte: 0 }),
        expected,
        found,
    };
    let cases: Vec<(&[u8], Expect)> = vec![
        // Where the dialects agree, the answer or the error is step 5's.
        (b"category,value\n\na,1\nb,abc\n", Same),
        (b"category,value,x\na,1,x\nb,2\n", Same),
        (b"category,value\na,1,extra\n", Same),
        (b"category,amount\na,1\n", Same),
        (b"category,value\n", Same),
        (b"", Same),
        (b"\n\r\n", Same),
        (b"category,value\ncaf\xe9,1\n", Same),
        (b"\xEF\xBB\xBFcategory,value\na,1\n", Same),
        (b"category,value\na,\na,2\na,\"\"\nb,\n", Same),
        (
            b"category,value\na,+3\na,.5\na,5.\na,\"2.5\"\na,1e-400\na,-0\n",
            Same,
        ),
        (b"category,value\na,12345678901234567890\n", Same),
        (b"category,value\na,\"multi\nline\"\nb,x\n", Same),
        // Line numbers: the csv crate's position is where its reader stood when the
        // record began: before the blank lines above it, and, in a CR LF file,
        // before the LF of the previous record's CR LF.
        (b"category,value\na,1\n\n\nb,abc\n", OtherLine(3)),
        (b"category,value,x\na,1,x\n\n\nb,2\n", OtherLine(3)),
        (b"category,value\r\na,1\r\nb,x\r\n", OtherLine(2)),
        // A quote open at the end is closed, not an error: the record it ends is then
        // too short, or its value is not a number, or it is fine.
        (
            b"category,value\na,1\n\"b,2\n",
            Differs(Err(field_count(2, 3, 2, 1))),
        ),
        (
            b"category,value\na,\"1\n",
            Differs(Err(QueryError::InvalidNumber {
                record: 1,
                place: Some(Place { line: 2, byte: 0 }),
                column: "value".into(),
                text: b"1\n".to_vec(),
            })),
        ),
        (
            b"category,value\na,\"1",
            Differs(Ok(groups(&[("a", group(1, 1.0))]))),
        ),
        // A lone CR ends a record in the csv crate, where it is data for us.
        (
            b"category,value\na,1\rb,2\n",
            Differs(Ok(groups(&[("a", group(1, 1.0)), ("b", group(1, 2.0))]))),
        ),
        (b"category,value\r", Differs(Ok(Groups::new()))),
    ];
    for (input, expect) in cases {
        let what = String::from_utf8_lossy(input);
        let ours = match query::run_bytes(input, Query::default()) {
            Ok(groups) => Ok(groups),
            Err(QueryFailure::Query(e)) => Err(without_byte(e)),
            Err(other) => panic!("{what:?}: not a query error: {other:?}"),
        };
        // The yardstick computes COUNT and SUM only: compare those.
        let step5 = step5::run(input, step5::query::Query::default())
            .map(|groups| {
                groups
                    .into_iter()
                    .map(|(k, g)| (k, group_of(g.count, g.sum)))
                    .collect::<Groups>()
            })
            .map_err(without_byte);
        match expect {
            Same => assert_eq!(ours, step5, "{what:?}"),
            OtherLine(line) => {
                let mut theirs = step5.clone();
                if let Err(
                    QueryError::FieldCount { place: Some(p), .. }
                    | QueryError::InvalidNumber { place: Some(p), .. },
                ) = &mut theirs
                {
                    assert_ne!(p.line, line, "{what:?}: the same line after all");
                    p.line = line;
                }
                assert_eq!(ours, theirs, "{what:?}");
            }
            Differs(expected) => {
                assert_ne!(ours, step5, "{what:?}: the same as step 5's after all");
                assert_eq!(ours, expected, "{what:?}");
            }
        }
    }
    // Values that are not finite decimal numbers: the same error, at the same place.
    for bad in [
        "1e400", "-1e400", "NaN", "nan", "inf", "-inf", "infinity", " 3", "3 ", "1,5", "0x10",
        "abc", "1e", ".", "-", "1.2.3",
    ] {
        let input = format!("category,value\na,1\nb,\"{bad}\"\n");
        let ours = query::run_bytes(input.as_bytes(), Query::default());
        let Err(QueryFailure::Query(e)) = ours else {
            panic!("{bad:?}: {ours:?}")
        };
        assert!(
            matches!(
                e,
                QueryError::InvalidNumber {
                    record: 2,
                    place: Some(Place { line: 3, .. }),
                    ..
                }
            ),
            "{bad:?}: {e:?}"
        );
        let step5 = step5::run(input.as_bytes(), step5::query::Query::default());
        assert_eq!(Err(without_byte(e)), step5.map_err(without_byte), "{bad:?}");
    }
    // Every `Differs` above with a quote open at the end is step 5's parse error.
    let step5 = step5::run(b"category,value\na,\"1", step5::query::Query::default());
    assert!(matches!(
        step5,
        Err(QueryError::Parse(ParseError { record: 1, .. }))
    ));
}
