//! The exercises of the parser's steps (2 to 4): a record's fields, the state
//! machine, the quoted split, the cooked field, and the SWAR scanner.

use super::Exercise;

pub(super) const STEP2_RECORD_BUF_FIELD: Exercise = Exercise {
    name: "step2-record-buf-field",
    step: 2,
    step_dir: "steps/step2_mmap",
    file: "src/lib.rs",
    anchor: "record_buf_field",
    title: "One buffer for a whole record",
    level: 1,
    task: "`RecordBuf` keeps every cooked field of a record back to back in one `Vec<u8>`, \
           and `ends[k]` says where field `k` ends. Write `RecordBuf::field(k)`: the bytes \
           of field `k`, borrowed from that buffer.",
    tests: &[],
    checks: "the gate (every record the parser hands out is read through `field`) and \
             the step's unit tests",
    env: &[],
    hints: &[
        "field k runs from where field k-1 ends (0 for the first field) to ends[k]",
        "`ends` holds exclusive ends, so field 0 is `bytes[..ends[0]]`: borrow a range of the buffer, copy nothing",
    ],
};

pub(super) const STEP2_STATE_MACHINE: Exercise = Exercise {
    name: "step2-state-machine",
    step: 2,
    step_dir: "steps/step2_mmap",
    file: "src/lib.rs",
    anchor: "for_each_record",
    title: "The one-pass state machine",
    level: 3,
    task: "Write `for_each_record`: one pass over the bytes with the five `State`s, \
           pushing cooked bytes into one reused `RecordBuf`, ending fields at delimiters \
           and records at LF or CR LF, and calling `on_record` once per record. Blank \
           lines are no records; a quoted field still open at the end is a `ParseError` \
           naming its opening quote; the last record may lack a terminator.",
    tests: &[],
    checks: "the gate (every conformance case at every padding, and thousands of random \
             documents, against the reference parser) and the step's unit tests",
    env: &[],
    hints: &[
        "match on (state, byte): a quote in Quoted goes to QuoteInQuoted, a second quote there is a literal quote",
        "skip the input's BOM first (`bom_len`); a CR is part of the terminator only when an LF follows (look at input[i + 1])",
        "remember the byte offset of the last opening quote and the records produced, for `ParseError::unterminated_quote`",
        "at the end: StartRecord means nothing pending; Quoted is the error; any other state ends the last field and record",
    ],
};

pub(super) const STEP3_SPLIT_QUOTED: Exercise = Exercise {
    name: "step3-split-quoted",
    step: 3,
    step_dir: "steps/step3_zerocopy",
    file: "src/record.rs",
    anchor: "split_quoted",
    title: "Where a quoted field closes",
    level: 2,
    task: "A field that needs unescaping is kept as written, from its opening quote: \
           `\"a\"\"b\"c`. Write `split_quoted`: the bytes between the quotes (with `\"\"` \
           pairs still doubled) and the bytes after the closing quote.",
    tests: &[],
    checks: "the gate (every escaped field is cooked through `split_quoted`) and the \
             step's unit tests",
    env: &[],
    hints: &[
        "start after the opening quote; a quote followed by another quote is a pair, skip both",
        "the first quote that is not followed by a quote closes the field",
        "the inside excludes both quotes, and the rest starts right after the closing one; `raw.get(i + 1)` looks ahead without running past the end",
    ],
};

pub(super) const STEP3_COOKED: Exercise = Exercise {
    name: "step3-cooked",
    step: 3,
    step_dir: "steps/step3_zerocopy",
    file: "src/record.rs",
    anchor: "cooked",
    title: "Unescape only when you must",
    level: 2,
    task: "Write `Field::cooked`: the field's bytes as the dialect means them. A field \
           that needs no unescaping is borrowed from the input (no allocation); one that \
           does is built once: the quoted part with each `\"\"` pair made one quote, then \
           the bytes after the closing quote.",
    tests: &[],
    checks: "the gate (every field's cooked bytes against the reference parser) and \
             the step's unit tests (which also check that plain fields are borrowed)",
    env: &[],
    hints: &[
        "a field with nothing to unescape is its raw bytes, borrowed (`Cow::Borrowed`): no allocation",
        "split_quoted(self.raw) gives the inside (pairs doubled) and the tail",
        "inside the quotes every quote is half of a pair: keep one of each two; `cooked_len` tells the capacity to reserve",
    ],
};

pub(super) const STEP4_FLAG_BYTES: Exercise = Exercise {
    name: "step4-flag-bytes",
    step: 4,
    step_dir: "steps/step4_swar",
    file: "src/scan.rs",
    anchor: "flag_bytes",
    title: "The has-zero-byte test (SWAR)",
    level: 1,
    task: "Write `flag_bytes(word, byte)`: a `u64` with the high bit set in each byte of \
           `word` that equals `byte` (and perhaps in some bytes above a match), and zero \
           exactly when no byte equals `byte`. Eight bytes, three or four instructions, \
           no branch. The doc comment walks through the trick.",
    tests: &["scan"],
    checks: "the gate (the scanner finds every delimiter, quote, CR and LF) and the \
             scanner tests (`tests/scan.rs`: every position, every byte value)",
    env: &[],
    hints: &[
        "XOR with the byte broadcast to all eight bytes (LO * u64::from(byte)) turns the matches into zero bytes",
        "then the doc comment's zero-byte test on that word, with the constants `LO` and `HI`",
        "the subtraction borrows across bytes on purpose: `wrapping_sub`, or the dev build panics on the overflow",
    ],
};

pub(super) const STEP4_FIRST_FLAGGED: Exercise = Exercise {
    name: "step4-first-flagged",
    step: 4,
    step_dir: "steps/step4_swar",
    file: "src/scan.rs",
    anchor: "first_flagged",
    title: "Jump to the next special byte",
    level: 2,
    task: "Write `first_flagged`: read `haystack` eight bytes at a time as little-endian \
           `u64` words, and return the index of the first byte that `flags` flags; the \
           last under-eight bytes go to `tail`, which returns an index within them.",
    tests: &["scan"],
    checks: "the gate and the scanner tests (`tests/scan.rs`: a match at every position, \
             haystacks of every length up to a few words)",
    env: &[],
    hints: &[
        "chunks_exact(8) gives the words and, afterwards, the remainder",
        "u64::from_le_bytes puts the first byte lowest, so trailing_zeros() / 8 is the first flagged byte",
        "the tail's index is relative to the remainder: add haystack.len() - rest.len()",
    ],
};
