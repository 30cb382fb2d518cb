//! The projected walk: the query reads two fields of each record, so the walk keeps
//! only their bounds, not a span of every field ([`crate::structural`]'s record).
//!
//! ```text
//! record start r, n = 0 delimiters; for each block of the structural index:
//!     d = its delimiters, l = its LFs (outside quotes)
//!     for each LF bit j of l (trailing_zeros), and once more for the bits after the last:
//!         mine = the bits of d below j
//!         select: while n < last - 1 and mine has a bit: n += 1; next[n] = lowest bit + 1;
//!                 clear the lowest bit (the first fields' starts, one per bit)
//!         n += popcount(mine)                  (the later fields: only counted)
//!         at the LF: the width is n + 1; field f is next[f] .. next[f+1] - 1;
//!                    hand out (r, n + 1, key field, value field); r = j + 1, n = 0
//! ```
//!
//! Only the delimiters up to the last field the query reads are selected, so a record
//! of 7 fields and one of 700 cost the same loop turns: one per field read, one per
//! LF, and one popcount for the rest (the "select the k-th set bit" of succinct data
//! structures; simdjson's stage 2 walks every bit instead, as the full walk here
//! does). A field is handed out as written
//! (a quoted field with its quotes): the query reads a quoted field between its
//! quotes when it holds no other quote ([`plain_span`]), and cooks only the rare one
//! that does ([`raw_cooked`]). No `""` pairs are tracked here, unlike the full
//! walk, since [`plain_span`] and cooking find them. Blocks with a misplaced quote still go through the
//! state machine, whose records are projected the same way.

use std::borrow::Cow;

use harness::ParseError;
use harness::dialect::{CR, QUOTE};

use crate::blocks::{BLOCK, Tier};
use crate::key_words::KEY_MASKS;
use crate::machine::{Parser, State};
use crate::record::{Field, Record};
use crate::structural::{BATCH, Carry, Structure, stage1_in};

// ANCHOR: row
/// One record as the projected walk hands it out: where it starts, how many fields
/// it has, and the two fields the query reads, as byte ranges of the input
/// (`start..end`, a quoted field with its quotes; cook it with [`raw_cooked`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// Offset of the record's first byte.
    pub start: usize,
    /// Fields in the record.
    pub width: usize,
    /// The fields asked for, in the order asked; `(0, 0)` for one past the width.
    pub fields: [(usize, usize); 2],
}
// ANCHOR_END: row

/// Where each field of the current record starts, for the fields up to the one after
/// the last one asked for (whose start bounds it); no later field is kept.
struct Bounds {
    /// `next[f]` is the first byte of field `f` (`f < last`); `next[last]` is a spare
    /// slot, where [`Bounds::row`] puts a wide record's end, never read.
    next: Vec<usize>,
    last: usize,
    wanted: [usize; 2],
}

impl Bounds {
    /// Bounds for the fields `wanted`, of a record that starts at `record`.
    fn new(wanted: [usize; 2], record: usize) -> Bounds {
        let last = wanted[0].max(wanted[1]) + 2;
        Bounds {
            next: vec![record; last + 1],
            last,
            wanted,
        }
    }

    // ANCHOR: select
    /// Adds the current record's `delimiters` (bits of the block at `pos`, in order)
    /// to the `n` it has seen: the first ones give the next fields' starts, by
    /// selecting each lowest set bit in turn; the rest are only counted, since only
    /// the record's width needs them.
    #[inline(always)]
    fn select(&mut self, n: &mut usize, pos: usize, mut delimiters: u64) {
        while delimiters != 0 && *n < self.last - 1 {
            *n += 1;
            self.next[*n] = pos + delimiters.trailing_zeros() as usize + 1;
            delimiters &= delimiters - 1;
        }
        *n += delimiters.count_ones() as usize;
    }
    // ANCHOR_END: select

    /// The row of a record that starts at `start` and has `width` fields, the last
    /// of which ends at `end`.
    #[inline(always)]
    fn row(&mut self, start: usize, width: usize, end: usize) -> Row {
        self.next[width.min(self.last)] = end + 1;
        let field = |f: usize| match f < width {
            true => (self.next[f], self.next[f + 1] - 1),
            false => (0, 0),
        };
        Row {
            start,
            width,
            fields: [field(self.wanted[0]), field(self.wanted[1])],
        }
    }
}

impl Parser {
    // ANCHOR: walk_projected
    /// The records from `from` (a record start) to the end of `input`, each handed to
    /// `on_row` as the fields `wanted` (0-based), with `tier` (supported, not
    /// [`Tier::Scalar`]).
    ///
    /// # Errors
    /// [`ParseError`] on an unterminated quote, after every record before it.
    pub fn walk_projected(
        &mut self,
        tier: Tier,
        input: &[u8],
        from: usize,
        wanted: [usize; 2],
        on_row: impl FnMut(&Row),
    ) -> Result<(), ParseError> {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT, as just checked.
            return unsafe { self.walk_popcnt(tier, input, from, wanted, on_row) };
        }
        self.walk(tier, input, from, wanted, on_row)
    }

    /// [`Parser::walk_projected`] compiled with POPCNT, so that counting a record's
    /// delimiters is one instruction (without it, `count_ones` is a dozen).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn walk_popcnt(
        &mut self,
        tier: Tier,
        input: &[u8],
        from: usize,
        wanted: [usize; 2],
        on_row: impl FnMut(&Row),
    ) -> Result<(), ParseError> {
        self.walk(tier, input, from, wanted, on_row)
    }

    /// [`Parser::walk_projected`], for the CPU's features where it is inlined.
    #[inline(always)]
    fn walk(
        &mut self,
        tier: Tier,
        input: &[u8],
        from: usize,
        wanted: [usize; 2],
        mut on_row: impl FnMut(&Row),
    ) -> Result<(), ParseError> {
        let mut bounds = Bounds::new(wanted, from);
        let (mut record, mut n) = (from, 0); // the record's first byte; separators seen
        let mut pos = from; // the next block's first byte
        let mut carry = Carry::START;
        let mut batch = [Structure::default(); BATCH];
        'batches: while pos < input.len() {
            let (filled, carry_after) =
                stage1_in(tier, input, self.delimiter, pos, carry, &mut batch);
            for s in &batch[..filled] {
                if s.misplaced != 0 {
                    // The record's start is a known state: parse from there to the
                    // first record start past this block, and resume.
                    let block_end = (pos + BLOCK).min(input.len());
                    let resume =
                        self.project_fall_back(input, record, block_end, wanted, &mut on_row)?;
                    let Some(resume) = resume else { return Ok(()) };
                    (record, n, pos, carry) = (resume, 0, resume, Carry::START);
                    bounds.next[0] = record;
                    continue 'batches;
                }
                // Outside quotes: the delimiters, and the LFs that end records.
                let mut delimiters = s.separators & !s.lf;
                let mut lfs = s.separators & s.lf;
                loop {
                    // The delimiters before the next LF (all of them after the last
                    // one) are the current record's: select the first few, count
                    // the rest. `lfs - 1 & !lfs`: the bits below the lowest LF.
                    let below = lfs.wrapping_sub(1) & !lfs;
                    bounds.select(&mut n, pos, delimiters & below);
                    delimiters &= !below;
                    if lfs == 0 {
                        break;
                    }
                    let j = pos + lfs.trailing_zeros() as usize;
                    lfs &= lfs - 1;
                    // (The byte before the LF is the record's when `j > record`: a
                    // CR there is the terminator's, since a field's own CR would be
                    // inside quotes.)
                    let end = if j > record && input[j - 1] == CR {
                        j - 1
                    } else {
                        j
                    };
                    if !(n == 0 && end == record) {
                        // (else a blank line: no record)
                        on_row(&bounds.row(record, n + 1, end));
                        self.produced += 1;
                    }
                    (record, n) = (j + 1, 0);
                    bounds.next[0] = record;
                }
                pos += BLOCK;
            }
            self.stats.blocks += filled as u64;
            carry = carry_after;
        }
        if carry.inside != 0 {
            // The walk did not keep the open field's start: the state machine finds
            // it, parsing the last record again (it ends in the same error).
            self.spans.clear();
            let reparse =
                self.state_machine(input, record, State::StartRecord, usize::MAX, &mut |_| {});
            return Err(reparse.expect_err("the walk saw a quote still open"));
        }
        if !(n == 0 && record == input.len()) {
            // The last record may lack a terminator.
            on_row(&bounds.row(record, n + 1, input.len()));
            self.produced += 1;
        }
        Ok(())
    }
    // ANCHOR_END: walk_projected

    /// The state machine from the current record's first byte `record` to the first
    /// record start at or after `block_end`, its records projected into rows; `None`
    /// when it finished the input. The record is parsed again from its start, as
    /// the walk kept only its bounds, not its quote history.
    fn project_fall_back(
        &mut self,
        input: &[u8],
        record: usize,
        block_end: usize,
        wanted: [usize; 2],
        on_row: &mut impl FnMut(&Row),
    ) -> Result<Option<usize>, ParseError> {
        self.stats.fallbacks += 1;
        self.spans.clear();
        let mut on_record = |r: Record<'_, '_>| on_row(&row_of(&r, wanted));
        let resume =
            self.state_machine(input, record, State::StartRecord, block_end, &mut on_record)?;
        self.stats.fallback_bytes += (resume.unwrap_or(input.len()) - record) as u64;
        Ok(resume)
    }
}

/// The [`Row`] of a record of the state machine: its fields as written (a quoted
/// field that needs no unescaping is shown without its quotes, which [`raw_cooked`]
/// leaves as they are).
fn row_of(record: &Record<'_, '_>, wanted: [usize; 2]) -> Row {
    let spans = record.spans();
    let field = |f: usize| spans.get(f).map_or((0, 0), |s| (s.start, s.end));
    Row {
        start: spans[0].start,
        width: spans.len(),
        fields: [field(wanted[0]), field(wanted[1])],
    }
}

// ANCHOR: plain_span
/// The bytes of a field as the projected walk hands it out (`start..end` of `input`)
/// that are its cooked bytes as they lie, with no copy: the field itself when it
/// does not start with a quote; the bytes between its quotes when it starts and ends
/// with one and holds no other (no `""` pair, nothing after the closing quote).
/// `None` for any other field, which only [`raw_cooked`] can cook.
///
/// In a file whose every string is quoted (pandas' `QUOTE_NONNUMERIC`, R's
/// `write.csv`) every key is quoted, so this runs on every row: a key of up to 16
/// bytes is checked in the two words that the table reads again for its hash
/// ([`crate::key_words::KeyWords::at`]), with no loop.
#[inline(always)]
pub fn plain_span(input: &[u8], (start, end): (usize, usize)) -> Option<(usize, usize)> {
    if input.get(start) != Some(&QUOTE) {
        return Some((start, end));
    }
    // (`end > start` here: the field's first byte is the quote.)
    if end - start < 2 || input[end - 1] != QUOTE || holds_quote(input, start + 1, end - 1) {
        return None;
    }
    Some((start + 1, end - 1))
}

/// Whether `input[start..end]` holds a quote. Up to 16 bytes, where 16 can be read
/// from `start`: two words, each quote byte flagged by the zero-byte test of step
/// 4's SWAR scanner (`flag_bytes`: XOR with the quote in every byte, then
/// `(v - 0x01…01) & !v & 0x80…80`), the flags past `end` masked off by the table's
/// masks ([`KEY_MASKS`]). A flag there may be false (the borrow of a true match
/// below it), but a false flag needs a true match at a lower byte of its word, so
/// the masked flags are zero exactly when no byte of the field is a quote.
#[inline(always)]
fn holds_quote(input: &[u8], start: usize, end: usize) -> bool {
    const LO: u64 = u64::from_le_bytes([0x01; 8]);
    const HI: u64 = u64::from_le_bytes([0x80; 8]);
    let flags = |word: &[u8]| {
        let v = u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ (LO * u64::from(QUOTE));
        v.wrapping_sub(LO) & !v & HI
    };
    let n = end - start;
    match input.get(start..start + 16) {
        Some(bytes) if n <= 16 => {
            let [low, high] = KEY_MASKS[n];
            flags(&bytes[..8]) & low | flags(&bytes[8..]) & high != 0
        }
        _ => input[start..end].contains(&QUOTE), // longer, or near the input's end
    }
}
// ANCHOR_END: plain_span

// ANCHOR: raw_cooked
/// The cooked bytes of a field as the projected walk hands it out: the bytes as they
/// are unless the field starts with a quote; then the bytes between the quotes,
/// borrowed when they hold no `""` pair and nothing follows the closing quote, else
/// unescaped into a new `Vec` ([`Field::cooked`]).
#[inline]
pub fn raw_cooked(raw: &[u8]) -> Cow<'_, [u8]> {
    if raw.first() != Some(&QUOTE) {
        return Cow::Borrowed(raw);
    }
    if let [QUOTE, inside @ .., QUOTE] = raw
        && !inside.contains(&QUOTE)
    {
        return Cow::Borrowed(inside);
    }
    Field {
        raw,
        needs_unescape: true,
    }
    .cooked()
}
// ANCHOR_END: raw_cooked
