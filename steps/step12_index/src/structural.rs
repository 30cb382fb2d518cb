//! The block walk: the structural index of each 64-byte block, walked with
//! `trailing_zeros`, and the check that sends a block to the state machine when its
//! quotes are not where the prefix XOR assumes.
//!
//! ```text
//! for each block (64 bytes; the tail copied into 64 zero bytes):
//!     inside     = prefix_xor(quote) ^ carry.inside      (1 = inside quotes)
//!     opens      = quote & inside;  closes = quote & !inside
//!     separators = (delimiter | lf) & !inside            (the structural index)
//!     misplaced  = opens not right after a separator, the start or a closing quote
//!                | bytes right after a closing quote that are not a delimiter, LF,
//!                  CR LF, a quote or the end of the input
//!     if misplaced: the state machine from the current field's start to the
//!                   first record start past this block; resume there
//!     else: for each separator bit (trailing_zeros): end a field, or at an LF a record
//! ```
//!
//! Why the prefix XOR needs no case for `""`: a doubled quote flips the parity twice,
//! so the bytes after the pair are inside again, as they should be; only the second
//! quote of the pair itself reads as "opening", and it is marked in `pairs` so that
//! its field is unescaped.

use harness::ParseError;
use harness::dialect::{CR, DELIMITER, LF, QUOTE};

#[cfg(target_arch = "aarch64")]
use crate::blocks::Neon;
#[cfg(target_arch = "x86_64")]
use crate::blocks::{Avx2, Avx512, Sse2};
use crate::blocks::{BLOCK, Kernel, Masks, Portable, Tier};
use crate::machine::{Parser, State};
use crate::record::{Record, Span};

// ANCHOR: carry
/// What one block passes to the next, about its last byte; each field is 0 or 1 in
/// bit 0, except `inside`, which is all ones or all zeros.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Carry {
    /// All ones when the last byte was inside quotes: XOR-ed into the next prefix XOR.
    pub(crate) inside: u64,
    /// 1 when the last byte was a separator (or there was none: the input's start).
    after_separator: u64,
    /// 1 when the last byte was a closing quote.
    after_close: u64,
}

impl Carry {
    /// At the input's start, or at a record's start.
    pub(crate) const START: Carry = Carry {
        inside: 0,
        after_separator: 1,
        after_close: 0,
    };
}

/// One block, understood.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Structure {
    /// Delimiters and LFs outside quotes.
    pub(crate) separators: u64,
    /// LFs (a separator that is an LF ends a record).
    pub(crate) lf: u64,
    /// The second quote of each `""` pair (the fields that need unescaping).
    pairs: u64,
    /// Bytes where a quote is not where the prefix XOR assumes: not zero sends the
    /// block to the state machine.
    pub(crate) misplaced: u64,
}

/// The structure of a block with bitmaps `m`, of which the bits in `valid` are input
/// bytes, after `carry`, and the carry for the next block; `next_is_lf` tells
/// whether the byte after the block is an LF.
///
/// # Safety
/// The CPU has the features of `K`'s tier.
#[inline(always)]
unsafe fn structure<K: Kernel>(
    m: Masks,
    valid: u64,
    carry: Carry,
    next_is_lf: bool,
) -> (Structure, Carry) {
    // SAFETY: the caller's promise.
    let inside = unsafe { K::prefix_xor(m.quote) } ^ carry.inside;
    let opens = m.quote & inside;
    let closes = m.quote & !inside;
    let separators = (m.delimiter | m.lf) & !inside;
    let after_separator = separators << 1 | carry.after_separator;
    let after_close = closes << 1 | carry.after_close;
    let cr_lf = m.cr & (m.lf >> 1 | u64::from(next_is_lf) << 63);
    let may_follow_close = m.delimiter | m.lf | cr_lf | m.quote | !valid;
    let structure = Structure {
        separators,
        lf: m.lf,
        pairs: m.quote & after_close,
        misplaced: opens & !(after_separator | after_close) | after_close & !may_follow_close,
    };
    let carry = Carry {
        inside: (inside >> 63).wrapping_neg(),
        after_separator: separators >> 63,
        after_close: closes >> 63,
    };
    (structure, carry)
}

/// Blocks per batch: stage 1 fills the structures of 4 KiB of input, stage 2 walks them.
pub(crate) const BATCH: usize = 64;

/// Stage 1: the structures of the blocks from `pos` on (up to [`BATCH`]), chaining the
/// carry from `carry`; returns how many it filled and the carry after the last.
///
/// # Safety
/// The CPU has the features of `K`'s tier.
#[inline(always)]
unsafe fn stage1<K: Kernel>(
    input: &[u8],
    delimiter: u8,
    mut pos: usize,
    mut carry: Carry,
    out: &mut [Structure; BATCH],
) -> (usize, Carry) {
    let mut filled = 0;
    while filled < BATCH && pos < input.len() {
        // SAFETY: the caller's promise, passed on.
        let (m, valid) = unsafe { load::<K>(input, pos, delimiter) };
        let next_is_lf = input.get(pos + BLOCK) == Some(&LF);
        // SAFETY: as above.
        (out[filled], carry) = unsafe { structure::<K>(m, valid, carry, next_is_lf) };
        filled += 1;
        pos += BLOCK;
    }
    (filled, carry)
}

/// [`stage1`] for `tier` (supported, not [`Tier::Scalar`]), with the delimiter as a
/// constant when it is one of the four the gate runs (`,` `;` tab `|`): a copy of
/// the stage for each. With the delimiter a run-time value, the compiler builds its
/// compare vector byte by byte inside the loop, a large share of the walk's time;
/// with a constant, the compare folds away. Any other delimiter takes the run-time
/// copy, which is slower.
#[inline(always)]
pub(crate) fn stage1_in(
    tier: Tier,
    input: &[u8],
    delimiter: u8,
    pos: usize,
    carry: Carry,
    out: &mut [Structure; BATCH],
) -> (usize, Carry) {
    match delimiter {
        DELIMITER => stage1_tier::<DELIMITER>(tier, input, delimiter, pos, carry, out),
        b';' => stage1_tier::<b';'>(tier, input, delimiter, pos, carry, out),
        b'\t' => stage1_tier::<b'\t'>(tier, input, delimiter, pos, carry, out),
        b'|' => stage1_tier::<b'|'>(tier, input, delimiter, pos, carry, out),
        _ => stage1_tier::<0>(tier, input, delimiter, pos, carry, out),
    }
}

/// The delimiter: `D` when it is not 0 (a constant for the compiler), else the
/// run-time `delimiter`.
#[inline(always)]
fn delimiter_of<const D: u8>(delimiter: u8) -> u8 {
    if D == 0 { delimiter } else { D }
}

#[inline(always)]
fn stage1_tier<const D: u8>(
    tier: Tier,
    input: &[u8],
    delimiter: u8,
    pos: usize,
    carry: Carry,
    out: &mut [Structure; BATCH],
) -> (usize, Carry) {
    let delimiter = delimiter_of::<D>(delimiter);
    match tier {
        // SAFETY: the portable tier needs no CPU feature.
        Tier::Portable => unsafe { stage1::<Portable>(input, delimiter, pos, carry, out) },
        // SAFETY: the parser checked `tier.is_supported()`: SSE2 and PCLMULQDQ.
        #[cfg(target_arch = "x86_64")]
        Tier::Sse2 => unsafe { stage1_sse2::<D>(input, delimiter, pos, carry, out) },
        // SAFETY: as above: AVX2 and PCLMULQDQ.
        #[cfg(target_arch = "x86_64")]
        Tier::Avx2 => unsafe { stage1_avx2::<D>(input, delimiter, pos, carry, out) },
        // SAFETY: as above: AVX512BW and PCLMULQDQ.
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 => unsafe { stage1_avx512::<D>(input, delimiter, pos, carry, out) },
        // SAFETY: NEON is part of every aarch64 CPU.
        #[cfg(target_arch = "aarch64")]
        Tier::Neon => unsafe { stage1::<Neon>(input, delimiter, pos, carry, out) },
        _ => unreachable!("the walk runs only a supported tier with bitmaps"),
    }
}

/// Stage 1 compiled for SSE2 and PCLMULQDQ, so that the kernel inlines into its loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2,pclmulqdq")]
fn stage1_sse2<const D: u8>(
    input: &[u8],
    delimiter: u8,
    pos: usize,
    carry: Carry,
    out: &mut [Structure; BATCH],
) -> (usize, Carry) {
    let delimiter = delimiter_of::<D>(delimiter);
    // SAFETY: this function has the tier's features, so its callers checked them.
    unsafe { stage1::<Sse2>(input, delimiter, pos, carry, out) }
}

/// Stage 1 compiled for AVX2 and PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
fn stage1_avx2<const D: u8>(
    input: &[u8],
    delimiter: u8,
    pos: usize,
    carry: Carry,
    out: &mut [Structure; BATCH],
) -> (usize, Carry) {
    let delimiter = delimiter_of::<D>(delimiter);
    // SAFETY: as in `stage1_sse2`.
    unsafe { stage1::<Avx2>(input, delimiter, pos, carry, out) }
}

/// Stage 1 compiled for AVX512BW and PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,pclmulqdq")]
fn stage1_avx512<const D: u8>(
    input: &[u8],
    delimiter: u8,
    pos: usize,
    carry: Carry,
    out: &mut [Structure; BATCH],
) -> (usize, Carry) {
    let delimiter = delimiter_of::<D>(delimiter);
    // SAFETY: as in `stage1_sse2`.
    unsafe { stage1::<Avx512>(input, delimiter, pos, carry, out) }
}
// ANCHOR_END: carry

/// The span of the field `start..end` seen by the block walk, where a field that
/// starts with a quote ends with its closing quote (anything else was misplaced).
#[inline(always)]
fn span(input: &[u8], start: usize, end: usize, escaped: bool) -> Span {
    let quoted = end > start && input[start] == QUOTE;
    let state = if quoted {
        State::QuoteInQuoted
    } else {
        State::Unquoted
    };
    Span::new(state == State::QuoteInQuoted, start, end, escaped)
}

impl Parser {
    // ANCHOR: walk
    /// Stage 2, the block walk with `tier` (supported, not [`Tier::Scalar`]): each
    /// separator of a block's structural index ends a field, or at an LF a record.
    pub(crate) fn walk_blocks<'a>(
        &mut self,
        tier: Tier,
        input: &'a [u8],
        from: usize,
        stop: usize,
        on_record: &mut impl FnMut(Record<'_, 'a>),
    ) -> Result<usize, ParseError> {
        let mut start = from; // the current field's first byte
        let mut escaped = false; // the current field holds a `""` pair
        let mut pos = start; // the next block's first byte
        let mut carry = Carry::START;
        let mut batch = [Structure::default(); BATCH];
        'batches: while pos < input.len() {
            let (filled, carry_after) =
                stage1_in(tier, input, self.delimiter, pos, carry, &mut batch);
            for s in &batch[..filled] {
                if s.misplaced != 0 {
                    // The state at `start`, a field's first byte, is known: parse from
                    // there to the first record start past this block, and resume.
                    let block_end = (pos + BLOCK).min(input.len());
                    let resume_at = block_end.min(stop);
                    let Some(resume) = self.fall_back(input, start, resume_at, on_record)? else {
                        return Ok(input.len());
                    };
                    if resume >= stop {
                        return Ok(resume); // the next record is the next chunk's
                    }
                    (start, escaped, pos, carry) = (resume, false, resume, Carry::START);
                    continue 'batches;
                }
                let mut pairs = s.pairs;
                let mut separators = s.separators;
                while separators != 0 {
                    let k = separators.trailing_zeros();
                    separators &= separators - 1;
                    let j = pos + k as usize;
                    let before = (1u64 << k) - 1;
                    let field_escaped = escaped || pairs & before != 0;
                    pairs &= !before;
                    if s.lf >> k & 1 == 0 {
                        self.spans.push(span(input, start, j, field_escaped));
                    } else {
                        let end = if j > start && input[j - 1] == CR {
                            j - 1
                        } else {
                            j
                        };
                        if !(self.spans.is_empty() && end == start) {
                            // (else a blank line: no record)
                            self.spans.push(span(input, start, end, field_escaped));
                            self.emit(input, on_record);
                        }
                        if j + 1 >= stop {
                            return Ok(j + 1); // a record start at or past `stop`: the next chunk's
                        }
                    }
                    (start, escaped) = (j + 1, false);
                }
                escaped |= pairs != 0;
                pos += BLOCK;
            }
            self.stats.blocks += filled as u64;
            carry = carry_after;
        }
        if carry.inside != 0 {
            return Err(ParseError::unterminated_quote(input, self.produced, start));
        }
        if !(self.spans.is_empty() && start == input.len()) {
            // The last record may lack a terminator.
            self.spans.push(span(input, start, input.len(), escaped));
            self.emit(input, on_record);
        }
        Ok(input.len())
    }
    // ANCHOR_END: walk

    /// The state machine from the current field's `start` to the first record start
    /// at or after `block_end`, counted in the stats; `None` when it finished the input.
    fn fall_back<'a>(
        &mut self,
        input: &'a [u8],
        start: usize,
        block_end: usize,
        on_record: &mut impl FnMut(Record<'_, 'a>),
    ) -> Result<Option<usize>, ParseError> {
        self.stats.fallbacks += 1;
        let state = match self.spans.is_empty() {
            true => State::StartRecord,
            false => State::StartField,
        };
        let resume = self.state_machine(input, start, state, block_end, on_record)?;
        self.stats.fallback_bytes += (resume.unwrap_or(input.len()) - start) as u64;
        Ok(resume)
    }
}

// ANCHOR: load
/// The bitmaps of the block at `pos`, and which of its bits are input bytes. The
/// tail (under 64 bytes) is copied into 64 zero bytes first: no byte past the input
/// is read, and a zero byte is in no class.
///
/// # Safety
/// The CPU has the features of `K`'s tier.
#[inline(always)]
unsafe fn load<K: Kernel>(input: &[u8], pos: usize, delimiter: u8) -> (Masks, u64) {
    if let Some(block) = input.get(pos..pos + BLOCK) {
        let block: &[u8; BLOCK] = block.try_into().expect("64 bytes");
        // SAFETY: the caller's promise.
        return (unsafe { K::masks(block, delimiter) }, u64::MAX);
    }
    let n = input.len() - pos;
    let mut tail = [0u8; BLOCK];
    tail[..n].copy_from_slice(&input[pos..]);
    // SAFETY: as above.
    (unsafe { K::masks(&tail, delimiter) }, (1u64 << n) - 1)
}
// ANCHOR_END: load
