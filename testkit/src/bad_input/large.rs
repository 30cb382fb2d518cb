//! Inputs past the sizes a step could get wrong: one field of 100 MB, and a file
//! over 4 GiB (past a 32-bit offset).

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Instant;

use harness::run::measure::thousands;

use super::{Kind, TempFile, expect, run, run_on, text};

/// One quoted field of 100 MB (with delimiters, doubled quotes and CR LFs inside):
/// measured like any file, with the reference parser's fingerprint.
pub fn field_of_100_mb(bin: &Path) {
    // 1000 bytes, 999 cooked: `ab,""` CR LF and 993 x's; 100,000 of them.
    let block = [&b"ab,\"\"\r\n"[..], &[b'x'; 993]].concat();
    let mut bytes = b"category,value,blob\na,1,\"".to_vec();
    bytes.extend_from_slice(&block.repeat(100_000));
    bytes.extend_from_slice(b"\"\n");
    let file = TempFile::with(bin, "100mb", &bytes);
    drop(bytes);
    let cooked = 17 + 2 + 999 * 100_000;
    match Kind::of(bin) {
        Kind::Parse => {
            let line = format!(
                "fingerprint: 2 records, 6 fields, {} bytes",
                thousands(cooked)
            );
            expect(
                &run_on(bin, &file.0, &["--runs", "1"]),
                0,
                &[&line],
                "100 MB field",
            );
        }
        Kind::Query => {
            let out = run_on(bin, &file.0, &["--runs", "1", "--json"]);
            expect(&out, 0, &[], "100 MB field");
            assert_eq!(text(&out.stdout).trim(), r#"{"a":{"count":1,"sum":1.0}}"#);
        }
    }
}

/// A sparse file of 4 GiB and 16 MiB, with records every 16 MiB and real records past
/// 2^32 at its end, valid and then with a quote left open at byte 2^32 + 16 MiB - 2:
/// no step may overflow a 32-bit offset. Costs almost no disk, but every step reads
/// it all (`--records` and the reference parser hold it in memory: up to 8 GiB of RAM),
/// so it is opt-in:
/// `BAD_INPUT_4GIB=1 cargo test --release --test main -- --ignored over_4_gib` in a
/// step's directory (or `-p stepN`).
pub fn over_4_gib(bin: &Path) {
    if std::env::var_os("BAD_INPUT_4GIB").is_none() {
        eprintln!("SKIPPED over_4_gib: set BAD_INPUT_4GIB=1 (and use --release)");
        return;
    }
    const GAP: u64 = 16 << 20;
    let len = (1u64 << 32) + GAP;
    let tail = b"\na,1.5,x\nb,2,y\n";
    let file = TempFile::new(bin, "4gib");
    let mut f = File::create(&file.0).unwrap();
    f.set_len(len).unwrap();
    f.write_all(b"category,value,blob\nk,1,").unwrap();
    let mut records = 2; // the header, and the first record
    let mut at = GAP;
    while at + GAP < len {
        f.seek(SeekFrom::Start(at)).unwrap();
        f.write_all(b"\nk,1,").unwrap();
        records += 1;
        at += GAP;
    }
    let tail_at = len - tail.len() as u64;
    f.seek(SeekFrom::Start(tail_at)).unwrap();
    f.write_all(tail).unwrap();
    drop(f);
    records += 2;
    // Every record ends in an LF and has two delimiters; no quotes, no CR.
    let cooked = len - 3 * records;
    let start = Instant::now();
    match Kind::of(bin) {
        Kind::Parse => {
            let line = format!(
                "fingerprint: {} records, {} fields, {} bytes",
                thousands(records),
                thousands(3 * records),
                thousands(cooked)
            );
            expect(
                &run_on(bin, &file.0, &["--runs", "1"]),
                0,
                &[&line],
                "4 GiB",
            );
        }
        Kind::Query => {
            let out = run_on(bin, &file.0, &["--runs", "1", "--json"]);
            expect(&out, 0, &[], "4 GiB");
            let k = records - 3;
            let want = format!(
                r#"{{"a":{{"count":1,"sum":1.5}},"b":{{"count":1,"sum":2.0}},"k":{{"count":{k},"sum":{k}.0}}}}"#
            );
            assert_eq!(text(&out.stdout).trim(), want);
        }
    }
    eprintln!(
        "over_4_gib: valid file in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    // The same file with a quote left open in its last record, past 2^32: the step's
    // own error through `--records`, and the measuring mode's message.
    let mut f = File::options().write(true).open(&file.0).unwrap();
    f.seek(SeekFrom::Start(len - 2)).unwrap();
    f.write_all(b"\"y").unwrap();
    drop(f);
    let (record, byte) = (records - 1, len - 2);
    let out = run(bin, &["--records", file.0.to_str().unwrap()]);
    assert_eq!(
        text(&out.stdout),
        format!("{{\"error\":\"unterminated_quote\",\"record\":{record},\"byte\":{byte}}}\n")
    );
    let needle = format!("byte {byte} (line {records}, record {record})");
    expect(
        &run_on(bin, &file.0, &["--runs", "1"]),
        1,
        &["unterminated quote", &needle],
        "4 GiB open quote",
    );
    eprintln!(
        "over_4_gib: both files in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}
