//! The workshop's exercises: which function of which step, what the learner is asked,
//! what the check runs, and the hints. The function itself is marked in the step's
//! source by `// ANCHOR: exercise_<anchor>` and `// ANCHOR_END: exercise_<anchor>`
//! (comments: the step builds as before, `start` finds the body to stub between
//! them, and the book includes the solution through the same anchor).

/// One exercise.
pub struct Exercise {
    /// What a learner types: `cargo x exercise check step4-flag-bytes`. Also the
    /// folder of its state under `target/exercises/`.
    pub name: &'static str,
    /// The step it comes from: 2..=13.
    pub step: u32,
    /// The step's folder, from the workspace root.
    pub step_dir: &'static str,
    /// The file that holds the function, from the step's folder.
    pub file: &'static str,
    /// The anchor name after `exercise_`.
    pub anchor: &'static str,
    /// A title for the book and the list.
    pub title: &'static str,
    /// How hard it is, for a workshop's plan: 1, a warm-up of a few lines; 2, one
    /// idea in tens of lines; 3, the longest (for the fast, or a second day).
    pub level: u8,
    /// The task, as the book states it (Markdown).
    pub task: &'static str,
    /// The test families the check runs, besides the step's unit tests and the gate:
    /// modules of the step's test binary `main` (`tests/main.rs`), which the check
    /// filters on (`scan` runs `scan::…`).
    pub tests: &'static [&'static str],
    /// What those tests check, in words (Markdown).
    pub checks: &'static str,
    /// Environment of the check: the portable SIMD tier for the bitmap exercises, so
    /// that the gate runs the learner's code on every machine, ARM included.
    pub env: &'static [(&'static str, &'static str)],
    /// Hints, gentlest first; the first is also the stub's `todo!` message. They guide
    /// (where to look, what to watch for) and never spell out the body; every name
    /// they use is one of the step's ([`super::names`] checks).
    pub hints: &'static [&'static str],
}

impl Exercise {
    /// The anchor as written in the source: `exercise_flag_bytes`.
    pub fn anchor_name(&self) -> String {
        format!("exercise_{}", self.anchor)
    }

    /// The level in words: `warm-up`, `core`, `long`.
    pub fn level_name(&self) -> &'static str {
        match self.level {
            1 => "warm-up",
            2 => "core",
            _ => "long",
        }
    }

    /// The book chapter of its step, from `book/src`.
    pub fn chapter(&self) -> String {
        format!("step{}.md", self.step)
    }
}

/// Every exercise, in ladder order.
pub const EXERCISES: &[Exercise] = &[
    Exercise {
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
    },
    Exercise {
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
    },
    Exercise {
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
    },
    Exercise {
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
    },
    Exercise {
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
    },
    Exercise {
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
    },
    Exercise {
        name: "step5-parse-decimal",
        step: 5,
        step_dir: "steps/step5_typed",
        file: "src/value.rs",
        anchor: "parse_decimal",
        title: "A decimal straight from bytes",
        level: 2,
        task: "Write `parse_decimal`: `[+-]digits[.digits]` to the correctly rounded `f64` \
               by Clinger's fast path, or `None` for anything else (the caller then asks \
               `fast-float2`). The doc comment says when the fast path is exact.",
        tests: &["query"],
        checks: "the step's unit tests (the documented table, and bit-for-bit agreement with \
                 `str::parse` on many decimals) and the query tests (every sum of the \
                 generated files, bit for bit)",
        env: &[],
        hints: &[
            "read the digits into a u64 mantissa and count the digits after the point",
            "give up (None) when there is no digit, a second point, another byte, or the mantissa passes 2^53",
            "m / 10^s with s <= 22 is correctly rounded: both are exact f64s and IEEE division rounds once",
        ],
    },
    Exercise {
        name: "step5-table-entry",
        step: 5,
        step_dir: "steps/step5_typed",
        file: "src/table.rs",
        anchor: "table_entry",
        title: "The GROUP BY table's probe",
        level: 2,
        task: "Write `GroupTable::entry`: the accumulator of `key`, by linear probing. \
               The key's `hash` (FNV-1a over its bytes) picks the first slot (`slot_of`); a \
               slot holds a tag, the hash's low 32 bits, and a group number plus one (0: \
               empty). Walk the slots from there: a slot whose tag differs is another key's; \
               where the tag matches, compare the key's bytes with the group's (`key`); at \
               the first empty slot the key is new, and its group is created there \
               (`insert`).",
        tests: &["query"],
        checks: "the step's unit tests (the table against a `HashMap` through growth; keys \
                 that share prefixes; long keys that differ in the middle; keys whose hashes \
                 collide; a million keys) and the query tests",
        env: &[],
        hints: &[
            "hash the key once: the tag and the first slot both come from that hash, and the slot after i is i + 1 masked to the table's power-of-two size",
            "an empty slot ends the probe: the key is new, and `insert` creates its group there (growing the slots when they are half full) and returns its number",
            "compare tags before bytes: a slot of another key then costs one compare of 32 bits, and the bytes are compared only for a likely match",
        ],
    },
    Exercise {
        name: "step6-prefix-xor",
        step: 6,
        step_dir: "steps/step6_simd",
        file: "src/blocks.rs",
        anchor: "prefix_xor",
        title: "The quote mask by prefix XOR",
        level: 1,
        task: "Write `prefix_xor_shifts(bits)`: bit `i` of the result is the XOR of bits \
               `0..=i` of `bits`. Applied to a block's quote bits it sets exactly the bytes \
               inside quotes (simdjson's quote mask). The SIMD tiers get it from one \
               carry-less multiply; the portable tier needs six shifts.",
        tests: &["tiers"],
        checks: "the gate on the portable tier (`CSV_TIER=portable`), the step's unit tests \
                 (the running parity of random words) and the tier tests",
        env: &[("CSV_TIER", "portable")],
        hints: &[
            "bits ^= bits << 1 makes bit i the XOR of bits i-1 and i",
            "after a step with shift s, bit i holds the XOR of the 2s bits that end at i: double the shift until that covers 64",
        ],
    },
    Exercise {
        name: "step6-eq-bits",
        step: 6,
        step_dir: "steps/step6_simd",
        file: "src/blocks.rs",
        anchor: "eq_bits",
        title: "Structural bitmaps, eight bytes at a time",
        level: 2,
        task: "Write `eq_bits(word, byte)`: one bit per byte of `word` that equals `byte`, \
               in the low 8 bits, byte 0 lowest; every flag exact. It is the portable tier's \
               compare and movemask, and builds the quote, delimiter, CR and LF bitmaps \
               of each 64-byte block.",
        tests: &["tiers"],
        checks: "the gate on the portable tier (`CSV_TIER=portable`, so it runs your code on \
                 any machine), the step's unit tests (every byte value at every position \
                 against a naive oracle) and the tier tests",
        env: &[("CSV_TIER", "portable")],
        hints: &[
            "broadcast and XOR (word ^ LO * u64::from(byte)) so that matching bytes become zero; no borrow may cross a byte this time",
            "((v & 0x7F..) + 0x7F..) | v sets each byte's high bit unless the byte is zero",
            "gather bit 8k of each byte into bit k: multiply by 0x0102_0408_1020_4080 and shift right by 56",
        ],
    },
    Exercise {
        name: "step7-eight-digits",
        step: 7,
        step_dir: "steps/step7_cost",
        file: "src/digits.rs",
        anchor: "eight",
        title: "Eight digits in three multiplies",
        level: 2,
        task: "Write `eight(v)`: the number written by the eight digit values (0-9) in the \
               bytes of `v`, the most significant digit in the low byte. Combine neighbours \
               in every lane at once: pairs (times 10), then quads (times 100), then the two \
               halves (times 10,000), masking after each step, with no loop over the digits.",
        tests: &["query"],
        checks: "the gate, the step's unit tests (every decimal form against the plain \
                 `parse_decimal`, the same bits) and the query tests",
        env: &[],
        hints: &[
            "the first digit is in the low byte, so a digit's successor is the byte above it: a shift right by 8 brings each next digit down onto the one before",
            "one step makes each even byte ten times its digit plus the next; mask away the odd bytes, which now hold sums that mean nothing, before the next step",
            "the next steps do the same on 16-bit lanes (times 100) and on the two 32-bit halves (times 10,000); 99,999,999 < 2^32, so nothing spills",
        ],
    },
    Exercise {
        name: "step8-parse-fixed",
        step: 8,
        step_dir: "steps/step8_exact",
        file: "src/exact.rs",
        anchor: "parse_fixed",
        title: "Decimals as exact integers",
        level: 2,
        task: "Write `parse_fixed`: a plain decimal (`[+-]digits[.digits]`, at most 19 \
               digits, at most `SCALE` of them after the point) as an `i128` in units of \
               10^-18, so that the sum is exact whatever the order of the rows; `None` \
               for anything else.",
        tests: &["query"],
        checks: "the step's unit tests (exact sums, order independence) and the query tests \
                 (every sum correctly rounded, in any order)",
        env: &[],
        hints: &[
            "sign first, then the digits into a u64 and the count of digits after the point",
            "refuse: no digit, a second point, another byte, more than 19 digits, or more than SCALE after the point",
            "scale up: mantissa * 10^(SCALE - scale), with the POWERS table",
        ],
    },
    Exercise {
        name: "step9-merge",
        step: 9,
        step_dir: "steps/step9_groups",
        file: "src/merge.rs",
        anchor: "merge",
        title: "Each partition added up alone",
        level: 2,
        task: "Write `merge`: the answer of the table and of the rows set aside, partition \
               by partition. A key's partition is the same bits of its hash for the table's \
               groups (`GroupTable::partitions`) and for the rows (`Scattered::part`), so each \
               partition can be added up alone, in one small table that is reset for the \
               next (`GroupTable::reset`), and handed to the answer as one builder \
               (`GroupsBuilder::finish_parts`).",
        tests: &["query"],
        checks: "the step's unit tests (rows set aside merge as if added in place; keys that \
                 all fall in one partition) and the query tests (many keys set aside, keys that \
                 come back, every answer against step 1's parser)",
        env: &[],
        hints: &[
            "the rows were written with non-temporal stores: `scattered.seal()` before reading them",
            "`table.partitions(bits)` gives, for each partition, the numbers of the table's groups in it; `table.group(n)` gives a group's key and accumulator",
            "one small table serves every partition in turn (`reset` to the partition's size); the table's groups come with their accumulators (`Acc::merge`), the rows with a key in the input (`row.key(input)`) and a value parsed already (`Number::Fixed`)",
        ],
    },
    Exercise {
        name: "step10-transition",
        step: 10,
        step_dir: "steps/step10_parallel",
        file: "src/chunks/transition.rs",
        anchor: "transition",
        title: "A chunk's transition function",
        level: 3,
        task: "Write `transition`: what the state machine does over the chunk `from..to` \
               for each of the five states it might start in, so that the chunks can be \
               parsed before anyone knows the state they start in (ParPaRaw's transition \
               functions). `run` runs the start states it is given side by side, in one \
               pass over the chunk's quotes, and stops where they meet (`Runs::Met`: then \
               the chunk's first record start is the one after that byte, `first_from`); \
               else it gives each one's end state and first record start (`Runs::Apart`). \
               The fast version notices that after most first bytes four of the five runs \
               are the same.",
        tests: &["chunks"],
        checks: "the gate (step 10 parses in chunks, so every case crosses chunk boundaries), \
                 the step's unit tests (against a byte-at-a-time oracle, and the machines \
                 meeting in a file whose strings are all quoted) and the chunk tests",
        env: &[],
        hints: &[
            "each entry answers one question: had the chunk started in that state, where would it end, and where would its first record start? `run` answers it for the start states it is given, and says where they meet (after that byte they are one machine)",
            "write a correct version first, whatever it costs, and check it; then make it fast: which start states can still differ after the chunk's first byte?",
            "after a first byte that is neither a quote nor a CR, StartRecord, StartField, Unquoted and QuoteInQuoted all end up in the same state",
            "only StartRecord may have its first record start at `from` itself, and only when from is the origin or follows an LF",
        ],
    },
    Exercise {
        name: "step10-merge",
        step: 10,
        step_dir: "steps/step10_parallel",
        file: "src/merge.rs",
        anchor: "merge",
        title: "The threads' tables merged on every core",
        level: 3,
        task: "Write `merge`: one answer from the threads' tables and the rows they set \
               aside. With no rows set aside and few groups (fewer than \
               `ON_EVERY_CORE_FROM` in all, or one table, or one thread), merge the tables \
               into the largest (`GroupBy::merge`) on this thread. Otherwise do what step \
               9's `merge` does for one table, partition by partition, but on every core: \
               each table's groups by partition (`GroupTable::partitions`), then each \
               partition on a worker (`map_chunks`), which merges every table's groups of \
               that partition and adds its rows set aside into one small table of its own; \
               the parts are the answer (`GroupsBuilder::finish_parts`). The rows set aside \
               chose the partitions' bits already (`Scattered::bits`); without them, choose \
               enough partitions for `PARTS_PER_WORKER` a worker and about `PART_GROUPS` \
               groups each.",
        tests: &["query"],
        checks: "the step's unit tests (the same answer on one thread and on several, at \
                 fewer and at more groups than the merge on every core starts from; rows set \
                 aside merge as if added in place) and the query tests (many keys set aside, keys that come back, every answer against \
                 step 1's parser)",
        env: &[],
        hints: &[
            "two paths: few groups merge into the largest table, whose groups then need no second lookup; many go partition by partition, as in step 9, with a worker per partition",
            "`map_chunks` runs a closure for each number in `0..n` on the workers, each worker with a state of its own (`init`), and returns the results in order: once for the tables (their partitions), once for the partitions (their parts)",
            "a partition's worker keeps one table as its state and `reset`s it for each partition it takes, to the sum of that partition's groups and rows over every thread",
            "free the threads' tables and rows before `finish_parts` sorts the parts, so that the two are never held at once",
        ],
    },
    Exercise {
        name: "step11-intern",
        step: 11,
        step_dir: "steps/step11_columnar",
        file: "src/splayed/symbols.rs",
        anchor: "local_intern",
        title: "A chunk's dictionary",
        level: 2,
        task: "Write `LocalDict::intern`: the local id of `bytes`, a new one (the next \
               number) on first sight, with its bytes appended to the one blob and its hash \
               kept for the partitions. Look up with hashbrown's `HashTable`, which stores \
               only the ids.",
        tests: &["round_trip", "query"],
        checks: "the step's unit tests (first-occurrence order whatever the chunks and \
                 threads), the round-trip tests (load then query against step 10's answer) and the \
                 query tests",
        env: &[],
        hints: &[
            "hash once with hasher.hash_one(bytes); find compares the candidate id's bytes with `bytes`",
            "a new id is self.ends.len(); push the bytes, the end and the hash",
            "insert_unique needs the hash of any id it moves: give it |&id| hashes[id as usize]",
        ],
    },
    Exercise {
        name: "step11-number-in-order",
        step: 11,
        step_dir: "steps/step11_columnar",
        file: "src/splayed/symbols.rs",
        anchor: "number_in_order",
        title: "Symbols numbered by first occurrence",
        level: 3,
        task: "Write `number_in_order`: walk the chunks in file order and each chunk's local \
               ids in order; a string that is its own first occurrence becomes the next \
               symbol (its bytes appended), any other takes the id of its first occurrence. \
               The table is then the same bytes on any number of threads.",
        tests: &["round_trip", "query"],
        checks: "the step's unit tests (first-occurrence order whatever the chunks and \
                 threads) and the round-trip tests",
        env: &[],
        hints: &[
            "first[c][l] is the key (chunk << 32 | local id) of the first string with the same bytes",
            "it is new when first[c][l] == key(c, l): push its bytes and offset; its id is offsets.len() - 2",
            "an earlier one is in this chunk (chunk_ids[fl]) or an earlier chunk (ids[fc][fl])",
        ],
    },
    Exercise {
        name: "step12-slots",
        step: 12,
        step_dir: "steps/step12_index",
        file: "src/hash_index/build.rs",
        anchor: "slots",
        title: "The index's slots: open addressing",
        level: 1,
        task: "Write `slots`: a table of a power of two slots, at least twice the groups \
               (and at least 2), each 0 (empty) or a group number + 1. Put the groups in \
               order, each at the slot its hash picks (`hash & (len - 1)`) or, when that one \
               is taken, the next free one after it (linear probing), so that the slots are \
               the same bytes on any number of threads.",
        tests: &["index"],
        checks: "the step's unit tests (every group found on its probe path) and the index \
                 tests (its files the same bytes on 1, 2, 3 and 8 threads; `--where` through \
                 the index and by a scan give one answer)",
        env: &[],
        hints: &[
            "the length is a power of two (`next_power_of_two`) of at least twice the groups, and at least 2; every slot starts empty",
            "with a power-of-two length, `& (len - 1)` is the remainder: it picks a group's first slot from hash_of(g), and wraps the probe around the end",
            "a slot holds the group number plus one, since 0 is kept for an empty slot",
        ],
    },
    Exercise {
        name: "step13-process-tile",
        step: 13,
        step_dir: "steps/step13_gpu",
        file: "src/tiles.rs",
        anchor: "process_tile",
        title: "A tile's transition function and row bitmap (CPU twin)",
        level: 3,
        task: "Write `process_tile`, the CPU twin of one thread block: from the tile's start \
               state, set one bit per byte that starts a row (one `u32` word a slice), count \
               them, and return the tile's transition function over all five start states. \
               The device splits it over threads; here it is a loop.",
        tests: &["tiles", "query"],
        checks: "the gate (on the CPU twin), the step's unit tests (every geometry against \
                 the slow row starts; a tile inside quotes repaired once) and the tile and \
                 query tests",
        env: &[],
        hints: &[
            "the simple way: keep the current state, and per byte its class, class(input, i, delimiter); starts_row(state, class) is the bit",
            "for the function, run all five start states side by side, or compose with the Compact tables",
            "Compact::get() has `then[f * 5 + c]` (the function after one more byte) and `state[f * 5 + s]`; tables.packed(f) gives a Packed",
        ],
    },
];

/// The exercise called `name`.
pub fn find(name: &str) -> Option<&'static Exercise> {
    EXERCISES.iter().find(|e| e.name == name)
}
