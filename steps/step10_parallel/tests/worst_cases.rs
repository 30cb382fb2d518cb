//! The worst cases for chunking: the whole file one quoted field, every chunk
//! boundary inside quotes, and boundaries inside CR LF, inside `""`, right after an
//! opening quote and right after a closing quote (the gate at one-byte chunks, in
//! `chunks.rs`, puts a boundary at every byte of every case; these are large).

use harness::Step;
use harness::reference;
use step10::chunks::plan;
use step10::{Chunked, Tier, fingerprint_chunked};

fn check(input: &[u8], chunk: usize, threads: usize) -> step10::chunks::SpanStats {
    let expected = reference::parse(input).map(|records| {
        let mut fp = harness::Fingerprint::default();
        for r in &records {
            fp.add_record(r.iter().map(Vec::len));
        }
        fp
    });
    let got = fingerprint_chunked(Tier::chosen(), input, chunk, threads, Default::default())
        .map_err(|e| *Box::new(e));
    assert_eq!(got.ok(), expected.ok());
    plan(input, chunk, threads, b',').stats
}

#[test]
fn the_whole_file_one_quoted_field() {
    let mut input = b"\"".to_vec();
    input.extend(b"a,b\r\nc\"\"d\n".repeat(100_000));
    input.extend(b"\"\n");
    // Inside and outside quotes read every `""` as two quotes of their own: the
    // machines never meet, and each chunk's transition function reads it whole; and
    // so does the scan's one machine over the first chunk, for its end state.
    let stats = check(&input, 4096, 2);
    assert_eq!((stats.met, stats.ends_found), (0, 1), "{stats:?}");
    assert_eq!(stats.read, input.len() as u64, "{stats:?}");
    assert_eq!(Chunked::<4096, 2>::records(&input).unwrap().len(), 1);
}

#[test]
fn every_chunk_boundary_inside_quotes() {
    // Records of 64 bytes: a short field and a quoted one of 58 bytes, chunks of 64:
    // every boundary falls inside the quoted field.
    let field = format!("\"{}\"", "x,\n".repeat(19) + "z");
    let input = format!("k,v\n{}", format!("ab,{field}\n").repeat(10_000));
    // The machines meet at the next record's opening quote, after a delimiter in
    // both; but in the last chunk, 4 bytes without a quote.
    let stats = check(input.as_bytes(), 64, 2);
    assert_eq!(stats.met, stats.chunks - 2, "{stats:?}");
}

#[test]
fn boundaries_at_every_offset_of_crlf_pairs_and_quotes() {
    let input = b"a,\"b\"\"c\"\r\n\"\",\"x\r\ny\"z\r\nq\"r,s\r\n\r\n".repeat(500);
    for chunk in 1..=40 {
        check(&input, chunk, 3);
    }
}

#[test]
fn an_unterminated_quote_names_the_right_record_at_every_chunk_size() {
    let input = b"a,b\nc\n\nd,\"e\nf,\"\"g\r\nh";
    let expected = reference::parse(input).unwrap_err();
    for chunk in 1..=input.len() + 1 {
        let e =
            fingerprint_chunked(Tier::chosen(), input, chunk, 2, Default::default()).unwrap_err();
        assert_eq!(
            (e.record, e.byte, e.line),
            (expected.record, expected.byte, expected.line)
        );
    }
}
