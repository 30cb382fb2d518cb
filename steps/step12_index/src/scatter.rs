//! Rows set aside by partition, for the groups that are too many to add up where
//! they arrive.
//!
//! The table pays off when its keys repeat: each row then finds its group in a table
//! small enough to stay in the core's cache. With a million distinct keys the table
//! holds a million groups, far past the cache, and each row misses three times (its
//! slot, its key, its accumulator). So once the table has grown large and its last
//! rows still brought mostly new keys, the query stops adding rows to it: each
//! further row's key (where it lies in the input) and value go to the end of its
//! partition's list, chosen by bits of the key's hash, which is writing in order,
//! with no miss. At the end each partition's rows are added into a table of that
//! partition alone, small enough to stay in the cache ([`crate::merge`]).
//!
//! Rows can look like many keys when they are only the first sight of a few: a file
//! that cycles through 100,000 keys brings a new key in every row of its first
//! 100,000. So while it sets rows aside, the query still looks up one row in
//! [`SAMPLE`] in its table, without adding it. When nearly all of those keys are
//! there at a review, the table reduces the rows after all, and the next rows are
//! added to it again (the rows already set aside stay where they are). Nearly all,
//! not most: a table past the cache still misses on the keys it holds but sees
//! seldom, which a skewed file's long tail is made of.
//!
//! This is the adaptive radix-partitioned aggregation of DuckDB's hash aggregate
//! (Mühleisen and Raasveldt, "Parallel Grouped Aggregation in DuckDB", 2022: a table
//! that is not reducing its rows is given up for radix-partitioned data), and the
//! radix partitioning that keeps each partition in the cache (Manegold, Boncz and
//! Kersten, "Optimizing Main-Memory Join on Modern Hardware", 2002; Müller, Sanders,
//! Lacurie, Lehner and Färber, "Cache-Efficient Aggregation: Hashing Is Sorting",
//! SIGMOD 2015).

use crate::key_words::KeyWords;
use crate::table::partition_of;

/// Groups the table holds before it may give up adding rows in place.
pub const SCATTER_FROM: usize = 1 << 14;

/// Input bytes a partition is cut for: a partition's rows and groups, from about this
/// much input, then fit in a core's own cache.
const PART_INPUT: usize = 1 << 18;

/// While rows are set aside, one in this many is also looked up in the table.
pub const SAMPLE: u32 = 256;

/// Partitions of at most this many, `2^bits`: more would write to more places at
/// once than the core keeps open lines and pages for.
const MOST_BITS: u32 = 10;

/// The partitions of an `input_len`-byte input on `threads` threads, as `bits`:
/// a partition for each 256 KiB of input, at least eight a thread, at most 1,024.
pub fn bits(input_len: usize, threads: usize) -> u32 {
    (input_len / PART_INPUT)
        .max(8 * threads)
        .next_power_of_two()
        .trailing_zeros()
        .min(MOST_BITS)
}

/// A row set aside, one cache line: the key's first 32 bytes, copied, so that the
/// merge reads the key here, in order, and not at random in the input (only a longer
/// key is read back from there); where the key lies and its length; and the value, in
/// the exact fixed point. Its own line, and aligned to it, so that a row is written
/// whole without reading the line first ([`Rows`]).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Parked {
    /// The key's first bytes, as many as [`Parked::SHORT`]; the bytes past the key
    /// are whatever followed it in the input.
    head: [u8; Parked::SHORT],
    /// Where the key starts in the input.
    start: usize,
    /// The key's length in bytes.
    len: usize,
    /// The value, in units of 10^-[`crate::exact::SCALE`].
    pub value: i128,
}

impl Parked {
    /// The longest key kept whole in the row.
    pub const SHORT: usize = 32;

    /// The row of the key `input[start..end]` and the value `value`.
    #[inline(always)]
    pub fn new(input: &[u8], (start, end): (usize, usize), value: i128) -> Parked {
        let mut head = [0; Parked::SHORT];
        match input.get(start..start + Parked::SHORT) {
            Some(bytes) => head.copy_from_slice(bytes), // two 16-byte copies
            None => {
                let short = (end - start).min(Parked::SHORT); // near the input's end
                head[..short].copy_from_slice(&input[start..start + short]);
            }
        }
        Parked {
            head,
            start,
            len: end - start,
            value,
        }
    }

    /// The key, from the row when it is short, else from `input`.
    #[inline(always)]
    pub fn key<'a>(&'a self, input: &'a [u8]) -> &'a [u8] {
        match self.head.get(..self.len) {
            Some(key) => key,
            None => &input[self.start..][..self.len],
        }
    }
}

/// Rows a block of a partition's list holds.
pub const BLOCK: usize = 1024;

/// A partition's rows, in blocks of [`BLOCK`] rows: a list that grows a block at a
/// time has room to spare in its last block only, where a `Vec` that doubles has
/// room for up to as many rows again as it holds. Past a million keys the rows set
/// aside are most of what the query holds, so the room to spare is its peak.
#[derive(Clone, Debug, Default)]
pub struct Rows {
    blocks: Vec<Vec<Parked>>,
}

impl Rows {
    /// Adds `row` at the end.
    #[inline(always)]
    fn push(&mut self, row: Parked) {
        match self.blocks.last_mut() {
            Some(block) if block.len() < block.capacity() => stream(block, row),
            _ => self.push_block(row),
        }
    }

    /// Adds `row` in a new block: the first grows as a `Vec` does, up to a block's
    /// rows, so that a short list stays short; the others are made whole.
    #[cold]
    #[inline(never)]
    fn push_block(&mut self, row: Parked) {
        match self.blocks.as_mut_slice() {
            [first] if first.len() < BLOCK => first.push(row), // grows as a `Vec` does
            _ => {
                let mut block = Vec::with_capacity(if self.blocks.is_empty() { 1 } else { BLOCK });
                stream(&mut block, row);
                self.blocks.push(block);
            }
        }
    }

    /// The rows, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = &Parked> {
        self.blocks.iter().flatten()
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(Vec::len).sum()
    }

    /// True when no row was added.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

// ANCHOR: stream
/// Appends `row` to `block`, which has room for it. With a few hundred partitions,
/// each row lands in another partition's block, and a plain store of it would first
/// read the line it goes to (a write to a line not in the cache reads it first), a
/// miss for every row that the core waits on once its store buffer is full. So on
/// x86-64 the row is written with non-temporal stores (SSE2's `movntdq`, four of 16
/// bytes): they fill one write-combining buffer with the whole line and send it to
/// memory without reading it, and without pushing lines the query still uses out of
/// the cache. The rows are read back only after [`Scattered::seal`]. (Partitioning
/// with streaming stores: Balkesen, Teubner, Alonso and Özsu, "Main-Memory Hash Joins
/// on Multi-Core CPUs: Tuning to the Underlying Hardware", ICDE 2013.)
#[inline(always)]
fn stream(block: &mut Vec<Parked>, row: Parked) {
    assert!(block.len() < block.capacity());
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_load_si128, _mm_stream_si128};
        let to = block.spare_capacity_mut()[0].as_mut_ptr().cast::<__m128i>();
        let from = (&raw const row).cast::<__m128i>();
        // SAFETY: `to` is the first free slot of `block` (its capacity is past its
        // length, checked above), 64 bytes long and aligned to 64 like every
        // `Parked` (`repr(align(64))`), so both `to` and `from` are valid for four
        // 16-byte-aligned reads or writes; a `Parked` is plain bytes, so its four
        // parts are too. SSE2 is part of x86-64. Once its 64 bytes are written the
        // slot holds an initialized `Parked`, and the length may count it.
        unsafe {
            for k in 0..4 {
                _mm_stream_si128(to.add(k), _mm_load_si128(from.add(k)));
            }
            block.set_len(block.len() + 1);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    block.push(row);
}
// ANCHOR_END: stream

/// One thread's rows set aside, in `2^bits` partitions by bits of the key's hash, the
/// bits by which each thread's table gives its groups by partition
/// ([`crate::table::GroupTable::partitions`]), so that a partition of every thread
/// is merged by one worker ([`crate::merge`]).
#[derive(Clone)]
pub struct Scattered {
    bits: u32,
    parts: Vec<Rows>,
    /// Whether rows are set aside now, or added to the table again.
    on: bool,
    /// Rows set aside since the last [`Scattered::review`]; of them, the ones looked
    /// up in the table (one in [`SAMPLE`]), and of those, the ones it held.
    since: u32,
    sampled: u32,
    held: u32,
}

impl Scattered {
    /// No rows yet, in `2^bits` partitions, setting rows aside.
    pub fn new(bits: u32) -> Scattered {
        Scattered {
            bits,
            parts: vec![Rows::default(); 1 << bits],
            on: true,
            since: 0,
            sampled: 0,
            held: 0,
        }
    }

    /// Whether rows are set aside now.
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        self.on
    }

    // ANCHOR: scatter
    /// Whether a query whose table has `groups` groups, `new` of them born from the
    /// `rows` rows since the last review, should set aside its further rows: once
    /// its table is past the cache and at least a quarter of the rows still bring a
    /// new key.
    pub fn pays(groups: usize, new: usize, rows: u64) -> bool {
        groups >= SCATTER_FROM && 4 * new as u64 >= rows
    }

    /// At a review, after `rows` rows that made `new` of the table's `groups` groups:
    /// whether the next rows are set aside. Setting aside stops when at least
    /// seven in eight of the keys looked up were in the table (a review with none
    /// looked up leaves it on), and starts again when [`Scattered::pays`] says so.
    pub fn review(&mut self, groups: usize, new: usize, rows: u64) {
        self.on = if self.on {
            8 * self.held < 7 * self.sampled || self.sampled == 0
        } else {
            Scattered::pays(groups, new, rows)
        };
        (self.since, self.sampled, self.held) = (0, 0, 0);
    }

    /// Sets aside a row whose key is `input[start..end]` and whose value is `value`;
    /// `held` says whether the table has a group for the key, asked for one row in
    /// [`SAMPLE`].
    #[inline(always)]
    pub fn push(
        &mut self,
        input: &[u8],
        (start, end): (usize, usize),
        value: i128,
        held: impl FnOnce() -> bool,
    ) {
        self.since = self.since.wrapping_add(1);
        if self.since.is_multiple_of(SAMPLE) {
            self.sampled += 1;
            self.held += u32::from(held());
        }
        let hash = KeyWords::at(input, start, end).hash(&input[start..end]);
        let row = Parked::new(input, (start, end), value);
        self.parts[partition_of(hash, self.bits)].push(row);
    }

    /// Makes every row set aside visible to the loads that follow, on this thread
    /// and others (the non-temporal stores of [`Rows`] are not ordered with later ones until a
    /// fence): called by the thread that set them aside, before another reads them.
    pub fn seal(&self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE (`sfence`) is part of the x86-64 baseline.
        unsafe {
            std::arch::x86_64::_mm_sfence();
        }
    }
    // ANCHOR_END: scatter

    /// The partitions: `2^bits` of them.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The rows of partition `p`.
    pub fn part(&self, p: usize) -> &Rows {
        &self.parts[p]
    }

    /// Rows set aside, in all partitions.
    pub fn len(&self) -> usize {
        self.parts.iter().map(Rows::len).sum()
    }

    /// True when no row was set aside.
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(Rows::is_empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Setting aside stays on while many of the keys looked up are new to the table,
    /// stops once seven in eight are in it, and starts again when a review finds many
    /// new groups; no row set aside is lost on the way.
    #[test]
    fn setting_aside_follows_what_the_looked_up_keys_find() {
        let input = b"k0,1\n";
        let mut rows = Scattered::new(2);
        let push = |rows: &mut Scattered, n: u32, held: bool| {
            for _ in 0..n {
                rows.push(input, (0, 2), 1, || held);
            }
        };
        push(&mut rows, SAMPLE - 1, true); // none looked up
        rows.review(SCATTER_FROM, 0, 1_000);
        assert!(rows.is_on());
        push(&mut rows, 2 * SAMPLE, false);
        push(&mut rows, 6 * SAMPLE, true); // six of eight held
        rows.review(SCATTER_FROM, 0, 1_000);
        assert!(rows.is_on());
        push(&mut rows, SAMPLE, false);
        push(&mut rows, 7 * SAMPLE, true); // seven of eight held
        rows.review(SCATTER_FROM, 0, 1_000);
        assert!(!rows.is_on());
        rows.review(SCATTER_FROM + 10, 10, 1_000); // few new groups: the table pays
        assert!(!rows.is_on());
        rows.review(SCATTER_FROM + 260, 250, 1_000);
        assert!(rows.is_on());
        assert_eq!(rows.len(), 17 * SAMPLE as usize - 1);
    }

    /// A partition's rows come back in the order they were set aside, across the
    /// blocks they fill, and only the last block has room to spare.
    #[test]
    fn rows_keep_their_order_across_blocks() {
        let input = b"key,1\n";
        let mut rows = Scattered::new(0);
        let n = 2 * BLOCK + 5;
        for value in 0..n as i128 {
            rows.push(input, (0, 3), value, || false);
        }
        let part = rows.part(0);
        assert_eq!(part.len(), n);
        let values: Vec<i128> = part.iter().map(|r| r.value).collect();
        assert_eq!(values, (0..n as i128).collect::<Vec<_>>());
        assert!(part.iter().all(|r| r.key(input) == b"key"));
        assert_eq!(part.blocks.len(), 3);
        assert!(part.blocks.iter().all(|b| b.capacity() == BLOCK));
        assert!(Scattered::new(2).part(3).is_empty());
    }

    /// A key of up to 32 bytes is read from its row, a longer one from the input, and
    /// a key at the input's very end is copied without reading past it.
    #[test]
    fn short_keys_are_in_the_row_and_long_ones_in_the_input() {
        let input = b"k,0123456789abcdefghijklmnopqrstuvwxyz,end";
        for (start, end) in [(0, 1), (2, 34), (2, 38), (39, 42)] {
            let row = Parked::new(input, (start, end), 7);
            assert_eq!(row.key(input), &input[start..end], "{start}..{end}");
            let elsewhere = [b'-'; 64];
            let from_row = end - start <= Parked::SHORT;
            assert_eq!(row.key(&elsewhere) == &input[start..end], from_row);
        }
        assert_eq!(std::mem::size_of::<Parked>(), 64);
    }
}
