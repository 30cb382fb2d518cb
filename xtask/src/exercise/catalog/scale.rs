//! The exercises of the steps that scale (10 to 13): the transition function, the
//! merge of the threads' tables, interning and its numbering in file order, the
//! index's slots, and the GPU's tile.

use super::Exercise;

pub(super) const STEP10_TRANSITION: Exercise = Exercise {
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
};

pub(super) const STEP10_MERGE: Exercise = Exercise {
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
};

pub(super) const STEP11_INTERN: Exercise = Exercise {
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
};

pub(super) const STEP11_NUMBER_IN_ORDER: Exercise = Exercise {
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
};

pub(super) const STEP12_SLOTS: Exercise = Exercise {
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
};

pub(super) const STEP13_PROCESS_TILE: Exercise = Exercise {
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
};
