//! Sixteen bytes at once: a short decimal (`-30822.57`, `7.627`, 1BRC's `-12.3`)
//! parsed without a loop over its bytes, with SWAR (SIMD within a register) on one
//! `u128`.
//!
//! ```text
//! "…,-30822.57"  the 16 bytes that end at the field's end   its last digit in the top byte
//! "30822.57"     masked to the body (the sign apart)        no byte past the field
//! '.' at byte 13 one compare of every byte at once          2 digits after it: the scale
//! "3082257"      the bytes below it moved up one, over it   right-aligned, zeros below
//! 3,0,8,2,2,5,7  each checked a digit, its low nibble kept  16 digit values, leading zeros
//! 3082257        pairs, quads, eights, then the two halves  the mantissa
//! -30822.57      the mantissa over 10^2, the sign set       Clinger's fast path, as parse_decimal
//! ```
//!
//! The pair-combining multiplies are Lemire's "eight digits at once" (Daniel Lemire,
//! "Quickly parsing eight digits", 2022, and simdjson's number parser), written here
//! as three steps of "times ten to the width, plus the neighbour". Whatever it does
//! not take (a `+`, an exponent, more than 16 bytes, a second `.`, a mantissa past
//! 2^53) it leaves to [`crate::value::parse_value`], which gives the same bits for
//! everything this takes: the same mantissa over the same power of ten.

// ANCHOR: swar_decimal
/// A plain decimal as [`swar_decimal`] reads it: `-` if `negative`, then `mantissa`
/// over 10 to the `scale` (the digits after the '.').
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal {
    /// A `-` came first.
    pub negative: bool,
    /// The digits, without the '.': under 10^16.
    pub mantissa: u64,
    /// Digits after the '.': 0 to 15.
    pub scale: usize,
}

/// The decimal `input[start..end]` when it is plain (an optional `-`, digits, at
/// most one `.`, at least one digit) and at most 16 bytes after the sign; `None`
/// for anything else.
///
/// # Panics
/// When `start..end` is not a range of `input`.
#[inline]
pub fn swar_decimal(input: &[u8], start: usize, end: usize) -> Option<Decimal> {
    let field = &input[start..end];
    let negative = field.first() == Some(&b'-');
    let len = field.len() - usize::from(negative); // the body: digits and the '.'
    // The 16 bytes that end with the field's last byte: its digits are right-aligned
    // (the last digit in the top byte); the body is the top `len` bytes.
    let body = bytes16_ending(input, end) & high_bytes(len);
    let dots = equal_bytes(body, b'.');
    // The bytes below the '.' (the integer part) move up one byte, over it; with no
    // '.', nothing moves. (No branch on the sign or the '.': both vary row to row,
    // and a mispredicted branch costs more than this arithmetic.)
    let one_dot = dots != 0;
    let at = if one_dot {
        dots.trailing_zeros() as usize / 8
    } else {
        0
    };
    let below = body & low_bytes(at);
    let digits = body & !low_bytes(at + usize::from(one_dot)) | below << 8;
    // (The '.'s are not counted with `count_ones`: without the POPCNT feature, which
    // the default x86-64 target lacks, that is a dozen instructions.)
    let n = len - usize::from(one_dot);
    let plain = dots & dots.wrapping_sub(1) == 0 // at most one '.'
        && (1..=16).contains(&len)
        && n > 0
        && all_digits(digits | ASCII_ZEROS & low_bytes(16 - n));
    if !plain {
        return None;
    }
    // The digits' values; the bytes below them are zero, so leading zeros.
    let values = digits & LOW_NIBBLES;
    let high = u64::from(eight(values as u64));
    Some(Decimal {
        negative,
        mantissa: high * 100_000_000 + u64::from(eight((values >> 64) as u64)),
        scale: (15 - at) * usize::from(one_dot),
    })
}

/// The value of `input[start..end]` when [`swar_decimal`] reads it and its mantissa
/// is at most 2^53 (Clinger's fast path, as [`crate::value::parse_decimal`]: one
/// correctly rounded division); `None` for anything else.
///
/// # Panics
/// When `start..end` is not a range of `input`.
#[inline]
pub fn parse_swar(input: &[u8], start: usize, end: usize) -> Option<f64> {
    let d = swar_decimal(input, start, end)?;
    if d.mantissa > 1 << 53 {
        return None;
    }
    let value = d.mantissa as f64 / POWERS_OF_TEN[d.scale];
    // The sign set with a bit, not a branch: the same bits as `-value`.
    Some(f64::from_bits(
        value.to_bits() | u64::from(d.negative) << 63,
    ))
}
// ANCHOR_END: swar_decimal

/// 0x01 in every byte: `ONES * b` is the byte `b` in every byte.
const ONES: u128 = 0x0101_0101_0101_0101_0101_0101_0101_0101;
const ASCII_ZEROS: u128 = ONES * 0x30;
const LOW_NIBBLES: u128 = ONES * 0x0F;

const POWERS_OF_TEN: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// Ones in the high `n` bytes (`n` ≤ 16).
#[inline(always)]
fn high_bytes(n: usize) -> u128 {
    !low_bytes(16 - n.min(16))
}

/// The 16 bytes of `input` that end at `end` (exclusive) as one little-endian
/// `u128`: one unaligned load, or near the input's start a copy into the top of 16
/// zero bytes.
#[inline(always)]
fn bytes16_ending(input: &[u8], end: usize) -> u128 {
    match end.checked_sub(16).and_then(|start| input.get(start..end)) {
        Some(tail) => u128::from_le_bytes(tail.try_into().expect("16 bytes")),
        None => {
            let rest = &input[..end];
            let mut tail = [0u8; 16];
            tail[16 - rest.len()..].copy_from_slice(rest);
            u128::from_le_bytes(tail)
        }
    }
}

/// Ones in the low `n` bytes (`n` ≤ 16), from a table: a `u128` shift by a variable
/// amount is half a dozen instructions on a 64-bit CPU, a table load is one or two.
#[inline(always)]
fn low_bytes(n: usize) -> u128 {
    LOW_BYTES[n.min(16)]
}

/// `LOW_BYTES[n]`: ones in the low `n` bytes.
const LOW_BYTES: [u128; 17] = {
    let mut table = [0u128; 17];
    let mut n = 1;
    while n < 16 {
        table[n] = (1u128 << (8 * n)) - 1;
        n += 1;
    }
    table[16] = u128::MAX;
    table
};

// ANCHOR: swar_tricks
/// 0x80 in each byte of `x` equal to `byte`, 0 elsewhere (exact: no false positives
/// from borrows, as `(x - 0x01..) & !x & 0x80..` would give).
#[inline(always)]
fn equal_bytes(x: u128, byte: u8) -> u128 {
    const LOW7: u128 = ONES * 0x7F;
    let zero_where_equal = x ^ (ONES * u128::from(byte));
    // Adding 0x7F to the low 7 bits sets bit 7 for any non-zero low part; OR-ing
    // the byte keeps a high bit of its own. Neither carries into the next byte.
    !((zero_where_equal & LOW7).wrapping_add(LOW7) | zero_where_equal | LOW7)
}

/// True when every one of the 16 bytes is an ASCII digit: the high nibble is 3, and
/// still 3 after adding 6 (which moves `:` to `?` past it). A carry out of one byte
/// comes only from a byte that fails the test itself.
#[inline(always)]
fn all_digits(x: u128) -> bool {
    const HIGH: u128 = ONES * 0xF0;
    const SIXES: u128 = ONES * 0x06;
    (x & HIGH) | ((x.wrapping_add(SIXES) & HIGH) >> 4) == ONES * 0x33
}

/// The number written by 8 digit values (0-9), the most significant in the low byte:
/// pairs, then quads, then all eight, each step "times ten to the width of the
/// lower part, plus the next part" in every lane at once. No lane overflows into
/// the next: 99 < 2^8, 9999 < 2^16, 99999999 < 2^32.
#[inline(always)]
fn eight(v: u64) -> u32 {
    let v = (v * 10 + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v * 100 + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    ((v * 10_000 + (v >> 32)) & 0xFFFF_FFFF) as u32
}
// ANCHOR_END: swar_tricks

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::parse_decimal;

    fn check(text: &str) {
        let input = text.as_bytes();
        let expected = parse_decimal(input);
        match parse_swar(input, 0, input.len()) {
            Some(v) => assert_eq!(Some(v.to_bits()), expected.map(f64::to_bits), "{text:?}"),
            None => assert!(
                expected.is_none() || text.starts_with('+') || text.len() > 16,
                "{text:?} not taken, though parse_decimal gives {expected:?}"
            ),
        }
    }

    #[test]
    fn takes_what_parse_decimal_takes_and_gives_the_same_bits() {
        for text in [
            "0",
            "7",
            "-7",
            "7.627",
            "-30822.57",
            "-12.3",
            "99.9",
            "1.",
            ".5",
            "-.5",
            "007",
            "1234567890123456",
            "9007199254740992",
            "9007199254740993",
            "123456789012345.6",
            "-123456789012345.",
            "0.000000000000001",
            "",
            "-",
            ".",
            "-.",
            "1..2",
            "1.2.3",
            "1e5",
            "+1",
            "1-",
            "12a",
            " 1",
            "1 ",
            "--1",
            "1/2",
            "1:2",
            "12345678901234567",
        ] {
            check(text);
        }
    }

    #[test]
    fn every_short_string_of_digit_like_bytes() {
        // All strings of up to 5 bytes over the bytes that matter (and neighbours of
        // '0'-'9' and '.', which catch an off-by-one in the SWAR tests).
        let alphabet = b"0159.-/:+e";
        let mut text = Vec::new();
        fn all(text: &mut Vec<u8>, alphabet: &[u8], left: usize) {
            check(std::str::from_utf8(text).unwrap());
            if left == 0 {
                return;
            }
            for &b in alphabet {
                text.push(b);
                all(text, alphabet, left - 1);
                text.pop();
            }
        }
        all(&mut text, alphabet, 5);
    }

    #[test]
    fn reads_only_its_field_even_at_the_input_s_end() {
        let input = b"1,-2.5,3.25";
        assert_eq!(parse_swar(input, 0, 1), Some(1.0));
        assert_eq!(parse_swar(input, 2, 6), Some(-2.5));
        assert_eq!(parse_swar(input, 7, 11), Some(3.25));
    }
}
