//! The value parse in one SIMD register: the sixteen bytes that end a field read as
//! sixteen lanes of SSE2, so that a value of 9 to 16 bytes costs what one of 1 to 8
//! does, with no branch on its width.
//!
//! ```text
//! "…,18.759428"   the 16 bytes that end at the field's end   the last digit in lane 15
//! - '0', masked   every lane minus '0', the body's lanes kept  '.' is 0xFE, others 0..9
//! '.' at lane 9   one compare of every lane, one movemask      2 digits before it
//! "18759428"      the lanes up to the '.' moved up one lane    right-aligned, zeros below
//! every lane ≤ 9  one saturating subtract, one compare         a second '.' is 0xFE: no
//! 18759428        pairs (multiply, add), quads, eights (madd)  the mantissa, scale 6
//! ```
//!
//! [`crate::digits`] does the same on a `u64` when the body fits 8 bytes and on a
//! `u128` when it fits 16, and the width decides which: a branch that the bench
//! file's values (5 to 10 bytes, at random) send each way, so the CPU mispredicts it
//! about every third row. Here every value takes the same 40-odd instructions. With
//! the branch, the same rows run clearly faster when every value is cut to 8 bytes
//! or fewer, so that it always goes one way (the chapter has the figures).
//!
//! Combining digit pairs, then quads, with multiply-adds in the lanes is the method
//! of simdjson's eight-digit parser (`parse_eight_digits_unrolled`, Langdale and
//! Lemire), here over 16 lanes and with SSE2 alone, the x86-64 baseline, so that no
//! CPU check is needed: SSSE3's `pmaddubsw` would make the pairs in one instruction
//! instead of four.

use crate::digits::{Decimal, to_fixed};

// ANCHOR: lanes16
/// The plain decimal `input[start..end]`, exactly as [`crate::digits::swar_decimal`]
/// reads it (an optional `-`, then 1 to 16 bytes of digits and at most one `.`, at
/// least one digit; `None` for anything else), from one 16-lane register. On other
/// CPUs than x86-64, and within 16 bytes of the input's start, it is
/// [`crate::digits::swar_decimal`].
///
/// # Panics
/// When `start..end` is not a range of `input`.
#[inline(always)]
pub fn simd_decimal(input: &[u8], start: usize, end: usize) -> Option<Decimal> {
    #[cfg(target_arch = "x86_64")]
    if end >= 16 {
        // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 CPU has it, and
        // the compiler assumes it for all code of this target.
        return unsafe { sse2::decimal(input, start, end) };
    }
    crate::digits::swar_decimal(input, start, end)
}

/// The exact value of `input[start..end]` in units of 10^-[`crate::exact::SCALE`]
/// when [`simd_decimal`] reads it ([`crate::digits::to_fixed`]); `None` for anything
/// else.
///
/// # Panics
/// When `start..end` is not a range of `input`.
#[inline(always)]
pub fn parse_simd_fixed(input: &[u8], start: usize, end: usize) -> Option<i128> {
    Some(to_fixed(simd_decimal(input, start, end)?))
}
// ANCHOR_END: lanes16

/// The tables of lane masks, 0xFF in the lanes named, as two `u64` halves (lane 0
/// the low byte of the first).
#[cfg(target_arch = "x86_64")]
mod masks {
    /// Lanes `16 - n ..= 15`: the top `n` lanes, where a body of `n` bytes lies.
    pub const TOP: [[u64; 2]; 17] = {
        let mut table = [[0u64; 2]; 17];
        let mut n = 0;
        while n <= 16 {
            table[n] = lanes_from(16 - n);
            n += 1;
        }
        table
    };

    /// Lanes above `at` (all 16 when `at` is 16: no '.'): the lanes that keep their
    /// digit when the lanes up to the '.' at `at` move up one.
    pub const ABOVE: [[u64; 2]; 17] = {
        let mut table = [[0u64; 2]; 17];
        let mut at = 0;
        while at < 16 {
            table[at] = lanes_from(at + 1);
            at += 1;
        }
        table[16] = lanes_from(0);
        table
    };

    /// Lanes `first ..= 15`.
    const fn lanes_from(first: usize) -> [u64; 2] {
        let all = u128::MAX;
        let bits = if first >= 16 { 0 } else { all << (8 * first) };
        [bits as u64, (bits >> 64) as u64]
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    use super::masks::{ABOVE, TOP};
    use crate::digits::Decimal;

    /// A table row as a register (one 16-byte load).
    #[target_feature(enable = "sse2")]
    #[inline]
    fn lanes(row: [u64; 2]) -> __m128i {
        _mm_set_epi64x(row[1] as i64, row[0] as i64)
    }

    // ANCHOR: sse2
    /// [`super::simd_decimal`] for `end >= 16`.
    #[target_feature(enable = "sse2")]
    #[inline]
    pub fn decimal(input: &[u8], start: usize, end: usize) -> Option<Decimal> {
        let field = &input[start..end];
        let negative = field.first() == Some(&b'-');
        let len = field.len() - usize::from(negative); // the body: digits and the '.'
        if !(1..=16).contains(&len) {
            return None;
        }
        // The 16 bytes that end with the field's last byte, lane 15 the last.
        let tail = &input[end - 16..end];
        let low = u64::from_le_bytes(tail[..8].try_into().expect("8 bytes"));
        let high = u64::from_le_bytes(tail[8..].try_into().expect("8 bytes"));
        let bytes = _mm_set_epi64x(high as i64, low as i64);
        let body = lanes(TOP[len]);
        // Each lane's value minus '0' (digits 0..9, '.' 0xFE), outside the body 0.
        let values = _mm_and_si128(_mm_sub_epi8(bytes, _mm_set1_epi8(b'0' as i8)), body);
        let dots = _mm_and_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'.' as i8)), body);
        let dots = _mm_movemask_epi8(dots) as u32;
        // The first '.' (lane 16: none). The lanes up to it move up one lane, over
        // it; the lane below the body's bottom is 0, so a zero comes in.
        let at = (dots | (1 << 16)).trailing_zeros() as usize;
        let above = lanes(ABOVE[at]);
        let moved = _mm_slli_si128::<1>(values);
        let digits = _mm_or_si128(_mm_and_si128(values, above), _mm_andnot_si128(above, moved));
        // Every lane is now 0..9 for a plain decimal: a second '.', a sign or any
        // other byte is over 9, and a saturating subtract of 9 leaves it non-zero.
        let over = _mm_subs_epu8(digits, _mm_set1_epi8(9));
        let all_digits = _mm_movemask_epi8(_mm_cmpeq_epi8(over, _mm_setzero_si128())) == 0xFFFF;
        let one_dot = dots != 0;
        if !all_digits || len == usize::from(one_dot) {
            return None; // not plain, or a '.' alone
        }
        Some(Decimal {
            negative,
            mantissa: number(digits),
            scale: if one_dot { 15 - at } else { 0 },
        })
    }

    /// The number written by 16 digit values (0-9), the most significant in lane 0:
    /// pairs in 16-bit lanes (each lane's low byte times ten, plus its high byte),
    /// quads and eights by `pmaddwd` (multiply 16-bit lanes, add neighbours), then
    /// the two eights joined. No lane overflows: 99, 9999 < 2^15, 99999999 < 2^31.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn number(digits: __m128i) -> u64 {
        let tens = _mm_and_si128(
            _mm_mullo_epi16(digits, _mm_set1_epi16(10)),
            _mm_set1_epi16(0x00FF),
        );
        let pairs = _mm_add_epi16(tens, _mm_srli_epi16::<8>(digits));
        let quads = _mm_madd_epi16(pairs, _mm_set1_epi32(100 | (1 << 16)));
        let quads = _mm_packs_epi32(quads, quads);
        let eights = _mm_madd_epi16(quads, _mm_set1_epi32(10_000 | (1 << 16)));
        let both = _mm_cvtsi128_si64(eights) as u64;
        (both & 0xFFFF_FFFF) * 100_000_000 + (both >> 32)
    }
    // ANCHOR_END: sse2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digits::swar_decimal;
    use crate::digits::tests::{number_bodies, short_strings};

    /// `text` alone, after 20 bytes of digits (the register's load, with digits in
    /// the lanes below the body that a wrong mask would let in) and after 20 bytes
    /// of other bytes: the same answer as the SWAR parse in each.
    fn check(text: &[u8]) {
        for before in [&b""[..], b"99999999999999999999", b"...--/:e+ ..--/:9,x,"] {
            let input = [before, text].concat();
            let start = before.len();
            assert_eq!(
                simd_decimal(&input, start, input.len()),
                swar_decimal(&input, start, input.len()),
                "{:?} after {:?}",
                String::from_utf8_lossy(text),
                String::from_utf8_lossy(before),
            );
        }
    }

    #[test]
    fn the_same_as_the_swar_parse_at_every_length_and_dot_position() {
        // Past the register's 16 bytes too.
        for body in number_bodies() {
            check(&body);
        }
    }

    #[test]
    fn every_short_string_of_digit_like_bytes() {
        for text in short_strings(b"09.-/:+e", 5) {
            check(&text);
        }
    }

    #[test]
    fn the_largest_mantissas_and_scales() {
        for text in [
            &b"9999999999999999"[..],
            b"-9999999999999999",
            b"999999999999999.9",
            b".999999999999999",
            b"0.000000000000001",
            b"1234567890123456",
            b"12345678.90123456",
            b"00000000000000000",
        ] {
            check(text);
        }
        let input = b"xxxxxxxxxxxxxxxx,-1234567.8901234";
        let d = simd_decimal(input, 17, input.len()).expect("plain");
        assert_eq!(
            (d.negative, d.mantissa, d.scale),
            (true, 12_345_678_901_234, 7)
        );
    }
}
