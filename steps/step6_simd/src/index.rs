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
use harness::dialect::{CR, LF, QUOTE, bom_len};

#[cfg(target_arch = "aarch64")]
use crate::blocks::Neon;
#[cfg(target_arch = "x86_64")]
use crate::blocks::{Avx2, Sse2};
use crate::blocks::{BLOCK, Kernel, Masks, Portable, Tier};
use crate::{Parser, Record, Span, State};

/// What a pass did: printed by `--verbose`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The tier that ran.
    pub tier: Option<Tier>,
    /// Blocks walked by the bitmaps.
    pub blocks: u64,
    /// Times the walk handed over to the state machine.
    pub fallbacks: u64,
    /// Bytes the state machine parsed in those hand-overs.
    pub fallback_bytes: u64,
}

// ANCHOR: carry
/// What one block passes to the next, about its last byte; each field is 0 or 1 in
/// bit 0, except `inside`, which is all ones or all zeros.
#[derive(Clone, Copy, Debug)]
struct Carry {
    /// All ones when the last byte was inside quotes: XOR-ed into the next prefix XOR.
    inside: u64,
    /// 1 when the last byte was a separator (or there was none: the input's start).
    after_separator: u64,
    /// 1 when the last byte was a closing quote.
    after_close: u64,
}

impl Carry {
    /// At the input's start, or at a record's start.
    const START: Carry = Carry {
        inside: 0,
        after_separator: 1,
        after_close: 0,
    };
}

/// One block, understood.
struct Structure {
    /// Delimiters and LFs outside quotes.
    separators: u64,
    /// The second quote of each `""` pair (the fields that need unescaping).
    pairs: u64,
    /// Bytes where a quote is not where the prefix XOR assumes: not zero sends the
    /// block to the state machine.
    misplaced: u64,
    /// For the next block.
    carry: Carry,
}

/// The structure of a block with bitmaps `m`, of which the bits in `valid` are input
/// bytes, after `carry`; `next_is_lf` tells whether the byte after the block is an LF.
///
/// # Safety
/// The CPU has the features of `K`'s tier.
#[inline(always)]
unsafe fn structure<K: Kernel>(m: Masks, valid: u64, carry: Carry, next_is_lf: bool) -> Structure {
    // SAFETY: the caller's promise.
    let inside = unsafe { K::prefix_xor(m.quote) } ^ carry.inside;
    let opens = m.quote & inside;
    let closes = m.quote & !inside;
    let separators = (m.delimiter | m.lf) & !inside;
    let after_separator = separators << 1 | carry.after_separator;
    let after_close = closes << 1 | carry.after_close;
    let cr_lf = m.cr & (m.lf >> 1 | u64::from(next_is_lf) << 63);
    let may_follow_close = m.delimiter | m.lf | cr_lf | m.quote | !valid;
    Structure {
        separators,
        pairs: m.quote & after_close,
        misplaced: opens & !(after_separator | after_close) | after_close & !may_follow_close,
        carry: Carry {
            inside: (inside >> 63).wrapping_neg(),
            after_separator: separators >> 63,
            after_close: closes >> 63,
        },
    }
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
    Span::new(state, start, end, escaped)
}

impl Parser {
    /// The block walk with `tier` (supported, not [`Tier::Scalar`]).
    pub(crate) fn walk_blocks<'a>(
        &mut self,
        tier: Tier,
        input: &'a [u8],
        on_record: &mut impl FnMut(Record<'_, 'a>),
    ) -> Result<(), ParseError> {
        match tier {
            // SAFETY: the portable tier needs no CPU feature.
            Tier::Portable => unsafe { self.walk::<Portable>(input, on_record) },
            // SAFETY: the caller checked `tier.is_supported()`: SSE2 and PCLMULQDQ.
            #[cfg(target_arch = "x86_64")]
            Tier::Sse2 => unsafe { self.walk_sse2(input, on_record) },
            // SAFETY: as above: AVX2 and PCLMULQDQ.
            #[cfg(target_arch = "x86_64")]
            Tier::Avx2 => unsafe { self.walk_avx2(input, on_record) },
            // SAFETY: NEON is part of every aarch64 CPU.
            #[cfg(target_arch = "aarch64")]
            Tier::Neon => unsafe { self.walk::<Neon>(input, on_record) },
            _ => unreachable!("the walk runs only a supported tier with bitmaps"),
        }
    }

    /// The walk compiled for SSE2 and PCLMULQDQ, so that the kernel inlines into it.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2,pclmulqdq")]
    fn walk_sse2<'a>(
        &mut self,
        input: &'a [u8],
        on_record: &mut impl FnMut(Record<'_, 'a>),
    ) -> Result<(), ParseError> {
        // SAFETY: this function has the tier's features, so its callers checked them.
        unsafe { self.walk::<Sse2>(input, on_record) }
    }

    /// The walk compiled for AVX2 and PCLMULQDQ.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,pclmulqdq")]
    fn walk_avx2<'a>(
        &mut self,
        input: &'a [u8],
        on_record: &mut impl FnMut(Record<'_, 'a>),
    ) -> Result<(), ParseError> {
        // SAFETY: as in `walk_sse2`.
        unsafe { self.walk::<Avx2>(input, on_record) }
    }

    // ANCHOR: walk
    /// The block walk with kernel `K`.
    ///
    /// # Safety
    /// The CPU has the features of `K`'s tier.
    #[inline(always)]
    unsafe fn walk<'a, K: Kernel>(
        &mut self,
        input: &'a [u8],
        on_record: &mut impl FnMut(Record<'_, 'a>),
    ) -> Result<(), ParseError> {
        let mut start = bom_len(input); // the current field's first byte
        let mut escaped = false; // the current field holds a `""` pair
        let mut pos = start; // the current block's first byte
        let mut carry = Carry::START;
        while pos < input.len() {
            let n = (input.len() - pos).min(BLOCK);
            // SAFETY: the caller's promise, passed on.
            let (m, valid) = unsafe { load::<K>(input, pos) };
            let next_is_lf = input.get(pos + BLOCK) == Some(&LF);
            // SAFETY: as above.
            let s = unsafe { structure::<K>(m, valid, carry, next_is_lf) };
            if s.misplaced != 0 {
                // The state at `start`, a field's first byte, is known: parse from
                // there to the first record start past this block, and resume.
                self.stats.fallbacks += 1;
                let state = match self.spans.is_empty() {
                    true => State::StartRecord,
                    false => State::StartField,
                };
                let Some(resume) = self.state_machine(input, start, state, pos + n, on_record)?
                else {
                    self.stats.fallback_bytes += (input.len() - start) as u64;
                    return Ok(());
                };
                self.stats.fallback_bytes += (resume - start) as u64;
                (start, escaped, pos, carry) = (resume, false, resume, Carry::START);
                continue;
            }
            self.stats.blocks += 1;
            let mut pairs = s.pairs;
            let mut separators = s.separators;
            while separators != 0 {
                let k = separators.trailing_zeros();
                separators &= separators - 1;
                let j = pos + k as usize;
                let before = (1u64 << k) - 1;
                let field_escaped = escaped || pairs & before != 0;
                pairs &= !before;
                if m.lf >> k & 1 == 0 {
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
                }
                (start, escaped) = (j + 1, false);
            }
            escaped |= pairs != 0;
            carry = s.carry;
            pos += BLOCK;
        }
        if carry.inside != 0 {
            return Err(ParseError::unterminated_quote(input, self.produced, start));
        }
        if !(self.spans.is_empty() && start == input.len()) {
            // The last record may lack a terminator.
            self.spans.push(span(input, start, input.len(), escaped));
            self.emit(input, on_record);
        }
        Ok(())
    }
    // ANCHOR_END: walk
}

// ANCHOR: load
/// The bitmaps of the block at `pos`, and which of its bits are input bytes. The
/// tail (under 64 bytes) is copied into 64 zero bytes first: no byte past the input
/// is read, and a zero byte is in no class.
///
/// # Safety
/// The CPU has the features of `K`'s tier.
#[inline(always)]
unsafe fn load<K: Kernel>(input: &[u8], pos: usize) -> (Masks, u64) {
    if let Some(block) = input.get(pos..pos + BLOCK) {
        let block: &[u8; BLOCK] = block.try_into().expect("64 bytes");
        // SAFETY: the caller's promise.
        return (unsafe { K::masks(block) }, u64::MAX);
    }
    let n = input.len() - pos;
    let mut tail = [0u8; BLOCK];
    tail[..n].copy_from_slice(&input[pos..]);
    // SAFETY: as above.
    (unsafe { K::masks(&tail) }, (1u64 << n) - 1)
}
// ANCHOR_END: load
