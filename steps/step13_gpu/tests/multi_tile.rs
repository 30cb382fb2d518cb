//! Random multi-tile documents against the reference parser, through every stage's
//! twin: tiles that all start inside quotes, a quoted field spanning many tiles,
//! CR LF and `""` at tile and slice edges, runs of blank lines across tiles, a lone
//! quote at the end, and starts shifted by 0..15 bytes.

use harness::Step;
use harness::reference;
use step13::machine::{QUOTED, START_RECORD};
use step13::tiles::{self, Geometry, scan_tile_states, speculate_tiles};

use crate::document;

fn check(input: &[u8], what: &str) {
    let expected = reference::parse(input);
    for g in [
        Geometry {
            slice: 4,
            slices: 2,
        },
        Geometry {
            slice: 32,
            slices: 4,
        },
        Geometry {
            slice: 7,
            slices: 3,
        },
    ] {
        let mut got = Vec::new();
        let parsed = step13::for_each_record(input, g, Default::default(), |fields| {
            got.push(
                fields
                    .iter()
                    .map(|f| f.cooked().into_owned())
                    .collect::<Vec<_>>(),
            );
        });
        match &expected {
            Ok(records) => {
                parsed.unwrap_or_else(|e| panic!("{what} {g:?}: {e}"));
                assert_eq!(&got, records, "{what} {g:?}");
            }
            Err(e) => assert_eq!(parsed.unwrap_err(), *e, "{what} {g:?}"),
        }
    }
}

#[test]
fn random_documents_of_many_tiles() {
    for seed in 0..60u64 {
        let len = 200 + (seed as usize * 37) % 700;
        let input = document(seed, len, b"ab,\"\r\n\n\"\"");
        check(&input, &format!("seed {seed}"));
    }
}

#[test]
fn every_tile_starts_inside_quotes() {
    // One record whose second field is quoted and holds LFs and delimiters: every
    // tile after the first starts inside it, and every speculation but tile 0's is
    // wrong.
    let mut input = b"k,\"".to_vec();
    input.extend(document(3, 4000, b"x,\n\r").iter());
    input.extend_from_slice(b"\"\nlast,row\n");
    check(&input, "one quoted field");
    let g = Geometry {
        slice: 8,
        slices: 4,
    };
    let tiles = speculate_tiles(&input, 0, g, b',');
    let scan = scan_tile_states(&tiles);
    let n = tiles.counts.len();
    assert!(n > 100);
    let inside = scan.exact.iter().filter(|&&s| s == QUOTED).count();
    assert!(inside >= n - 2, "{inside} of {n}");
    // Each tile is processed at most twice: the repair list has each tile once.
    assert!(scan.repair.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(scan.final_state, START_RECORD);
    assert_eq!(
        tiles::index(&input, g, b',').offsets,
        [0, input.len() as u64 - 9]
    );
}

#[test]
fn crlf_and_doubled_quotes_on_every_edge() {
    for shift in 0..40 {
        let mut input = vec![b'a'; shift];
        for _ in 0..30 {
            input.extend_from_slice(b"\"x\"\"\",\"\r\n\"\r\n\"\"\r\n");
        }
        check(&input, &format!("shift {shift}"));
    }
}

#[test]
fn runs_of_blank_lines_across_tiles_and_a_lone_quote_at_the_end() {
    let mut input = b"h\n".to_vec();
    input.extend(std::iter::repeat_n(b'\n', 300));
    input.extend_from_slice(b"a\r\n");
    input.extend(std::iter::repeat_n(&b"\r\n"[..], 200).flatten());
    input.extend_from_slice(b"b\n\"");
    check(&input, "blank runs");
    let e = step13::Step13::records(&input).unwrap_err();
    assert_eq!((e.record, e.byte), (3, input.len() as u64 - 1));
}

#[test]
fn unaligned_starts_0_to_15() {
    let body = document(11, 3000, b"ab,\"\r\n");
    let mut body = body;
    body.extend_from_slice(b"\"\n"); // close whatever is open, most of the time
    for start in 0..16 {
        // The same bytes at another address: a sub-slice of a larger buffer.
        let mut buffer = vec![b'z'; start];
        buffer.extend_from_slice(&body);
        check(&buffer[start..], &format!("start {start}"));
    }
}
