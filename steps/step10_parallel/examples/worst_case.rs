//! Writes a file whose chunk boundaries fall inside quoted fields as often as they
//! can, for timing step 10 on it against the bench file (the tests in
//! `tests/worst_cases.rs` check its correctness on small versions of the same shape).
//!
//! `cargo run --release -p step10 --example worst_case -- OUT [MB] [RECORD_BYTES]`
//! writes about `MB` × 10^6 bytes (default 1,000) of records of `RECORD_BYTES` bytes
//! (default 4,096): `category,value,"note"` where the quoted note fills all but a few
//! bytes of the record and holds a delimiter and an LF every 8 bytes and a `""` every
//! 64. Whatever the chunk size, a chunk boundary falls inside a note with probability
//! close to 1, and there a parse that guessed "this chunk starts outside quotes"
//! would take the note's next LF for a record start: wrong. The machines of the start
//! states meet at the next record's opening quote, after up to one record. The
//! query's answer is known in advance: every record is in category `c<k mod 32>`
//! with value 1.25.

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: worst_case OUT [MB] [RECORD_BYTES]");
        std::process::exit(2);
    };
    let number = |i: usize, default: usize| args.get(i).map_or(Ok(default), |s| s.parse());
    let (Ok(mb), Ok(record_bytes)) = (number(1, 1000), number(2, 4096)) else {
        eprintln!("worst_case: MB and RECORD_BYTES are whole numbers");
        std::process::exit(2);
    };
    let mut file = BufWriter::new(std::fs::File::create(out)?);
    file.write_all(b"category,value,note\n")?;
    let records = mb * 1_000_000 / record_bytes.max(16);
    for k in 0..records {
        let head = format!("c{},1.25,\"", k % 32);
        file.write_all(head.as_bytes())?;
        file.write_all(&note(record_bytes.saturating_sub(head.len() + 2)))?;
        file.write_all(b"\"\n")?;
    }
    file.flush()?;
    println!("wrote {out}: {records} records of about {record_bytes} bytes");
    Ok(())
}

/// `len` bytes of a quoted field's content: a delimiter and an LF every 8 bytes (each
/// a false record start for a chunk that guesses "outside quotes"), and a `""` every
/// 64 (an escaped quote, which flips a parity-only guess too).
fn note(len: usize) -> Vec<u8> {
    // A `""` only where both quotes fit: a lone quote before the closing one would
    // end the field early.
    let whole_group = |i: usize| (i / 64 + 1) * 64 <= len;
    (0..len)
        .map(|i| match i % 64 {
            62 | 63 if whole_group(i) => b'"',
            _ if i % 8 == 3 => b',',
            _ if i % 8 == 7 => b'\n',
            _ => b'x',
        })
        .collect()
}
