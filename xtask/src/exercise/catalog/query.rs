//! The exercises of the query's steps (5 to 9): the decimal parse, the table's entry,
//! the structural bitmaps, eight digits at once, the exact parse, and the merge of
//! the rows set aside.

use super::Exercise;

pub(super) const STEP5_PARSE_DECIMAL: Exercise = Exercise {
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
};

pub(super) const STEP5_TABLE_ENTRY: Exercise = Exercise {
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
};

pub(super) const STEP6_PREFIX_XOR: Exercise = Exercise {
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
};

pub(super) const STEP6_EQ_BITS: Exercise = Exercise {
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
};

pub(super) const STEP7_EIGHT_DIGITS: Exercise = Exercise {
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
};

pub(super) const STEP8_PARSE_FIXED: Exercise = Exercise {
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
};

pub(super) const STEP9_MERGE: Exercise = Exercise {
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
};
