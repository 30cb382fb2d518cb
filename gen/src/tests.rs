use super::*;

fn small(seed: u64, quoted_pct: f64, crlf: bool) -> (Vec<u8>, Reference) {
    let config = Config {
        rows: 2_000,
        seed,
        quoted_pct,
        crlf,
    };
    let mut out = Vec::new();
    let reference = generate(&config, &mut out, &ProgressBar::hidden()).unwrap();
    (out, reference)
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    assert_eq!(small(7, 1.0, false).0, small(7, 1.0, false).0);
    assert_ne!(small(7, 1.0, false).0, small(8, 1.0, false).0);
}

#[test]
fn reference_counts_every_row_and_the_size() {
    let (csv, reference) = small(1, 1.0, false);
    assert_eq!(
        reference.groups.values().map(|g| g.count).sum::<u64>(),
        2_000
    );
    assert_eq!(reference.bytes, csv.len() as u64);
    assert!(csv.starts_with(b"id,category,value,name,date,qty,flag\n"));
}

#[test]
fn categories_are_skewed() {
    let (_, reference) = small(3, 1.0, false);
    assert!(reference.groups["books"].count > 5 * reference.groups["maps"].count);
}

#[test]
fn quoted_pct_and_crlf_shape_the_file() {
    let quotes = |csv: &[u8]| csv.iter().filter(|&&b| b == b'"').count();
    assert_eq!(quotes(&small(1, 0.0, false).0), 0);
    assert!(quotes(&small(1, 100.0, false).0) >= 2 * 2_000);
    let (crlf, _) = small(1, 0.0, true);
    assert_eq!(crlf.windows(2).filter(|w| w == b"\r\n").count(), 2_001);
}

#[test]
fn exact_sum_matches_f64_sum_within_rounding() {
    let (_, reference) = small(5, 1.0, false);
    for g in reference.groups.values() {
        let exact = g.sum_micros as f64 / 1e6;
        assert!((exact - g.sum_f64).abs() <= 1e-6 * exact.abs().max(1.0));
    }
}

fn keyed(rows: u64, distinct: u64, zipf: bool) -> (Vec<u8>, Reference) {
    let config = Config {
        rows,
        ..Config::default()
    };
    let keys = Some(Keys { distinct, zipf });
    let mut out = Vec::new();
    let reference = generate_keyed(&config, keys, &mut out, &ProgressBar::hidden()).unwrap();
    (out, reference)
}

#[test]
fn uniform_keys_are_all_there_in_turn() {
    for distinct in [1, 2, 32, 33, 1_000, 4_096] {
        let (csv, reference) = keyed(3 * distinct + 1, distinct, false);
        assert_eq!(reference.groups.len() as u64, distinct, "{distinct}");
        let counts: Vec<u64> = reference.groups.values().map(|g| g.count).collect();
        assert!(
            counts.iter().all(|&c| c == 3 || c == 4),
            "{distinct}: {counts:?}"
        );
        assert_eq!(reference.bytes, csv.len() as u64);
        // The same rows as keys: `category` is the second field of every record.
        let seen: BTreeMap<&[u8], u64> = csv
            .split(|&b| b == b'\n')
            .skip(1)
            .filter(|l| !l.is_empty() && !l.contains(&b'"'))
            .fold(BTreeMap::new(), |mut m, l| {
                *m.entry(l.split(|&b| b == b',').nth(1).unwrap())
                    .or_default() += 1;
                m
            });
        assert!(seen.len() as u64 <= distinct);
    }
    assert_eq!(
        keyed(100, 7, false).0,
        keyed(100, 7, false).0,
        "deterministic"
    );
}

#[test]
fn zipf_keys_are_skewed_and_key_texts_distinct() {
    let (_, reference) = keyed(20_000, 1_000, true);
    let mut counts: Vec<u64> = reference.groups.values().map(|g| g.count).collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    assert!(
        counts[0] > 50 * counts[counts.len() / 2].max(1),
        "{:?}",
        &counts[..5]
    );
    let texts: std::collections::BTreeSet<String> = (0..100_000).map(key_text).collect();
    assert_eq!(texts.len(), 100_000);
    assert_eq!(
        (key_text(0), key_text(32), key_text(65)),
        ("books".into(), "books-1".into(), "games-2".into())
    );
}

#[test]
fn decimal_formatting() {
    assert_eq!(decimal_from_micros(-1_234_567), "-1.234567");
    assert_eq!(decimal_from_micros(5), "0.000005");
    assert_eq!(decimal_from_micros(0), "0.000000");
}

#[test]
fn quote_strings_quotes_every_string_and_keeps_the_rows() {
    let config = Config {
        rows: 2_000,
        ..Config::default()
    };
    let made = |shape: Shape| {
        let mut out = Vec::new();
        let reference = generate_shaped(&config, shape, &mut out, &ProgressBar::hidden()).unwrap();
        (out, reference)
    };
    for keys in [
        None,
        Some(Keys {
            distinct: 100,
            zipf: false,
        }),
    ] {
        let (plain, plain_ref) = made(Shape {
            keys,
            quote_strings: false,
        });
        let (quoted, quoted_ref) = made(Shape {
            keys,
            quote_strings: true,
        });
        assert_eq!(quoted_ref.groups, plain_ref.groups, "the same answer");
        assert_eq!(quoted_ref.bytes, quoted.len() as u64);
        let header = b"\"id\",\"category\",\"value\",\"name\",\"date\",\"qty\",\"flag\"\n";
        assert!(quoted.starts_with(header));
        // Rows whose name holds nothing special: the same fields, the strings
        // quoted, the numbers bare.
        let lines = |csv: &[u8]| -> Vec<Vec<u8>> {
            csv.split(|&b| b == b'\n')
                .skip(1)
                .map(<[u8]>::to_vec)
                .collect()
        };
        let (plain, quoted) = (lines(&plain), lines(&quoted));
        let mut compared = 0;
        for (p, q) in plain.iter().zip(&quoted) {
            if p.contains(&b'"') || p.is_empty() {
                break; // a special name: lines no longer pair up past its LF
            }
            let p: Vec<&[u8]> = p.split(|&b| b == b',').collect();
            let q: Vec<&[u8]> = q.split(|&b| b == b',').collect();
            assert_eq!(p.len(), 7);
            for (k, (pf, qf)) in p.iter().zip(&q).enumerate() {
                match k {
                    0 | 2 | 5 => assert_eq!(pf, qf),
                    _ => assert_eq!(*qf, [b"\"", *pf, b"\""].concat()),
                }
            }
            compared += 1;
        }
        assert!(compared > 10, "{compared}");
    }
}
