//! Eight or sixteen bytes at once: a short decimal (`-30822.57`, `7.627`, 1BRC's
//! `-12.3`) parsed without a loop over its bytes, with SWAR (SIMD within a register)
//! on one `u64` when its digits and '.' fit 8 bytes, else on one `u128`.
//!
//! ```text
//! "…,-30822.57"  the 8 bytes that end at the field's end    its last digit in the top byte
//! "30822.57"     masked to the body (the sign apart)        no byte past the field
//! '.' at byte 5  one compare of every byte at once          2 digits after it: the scale
//! "3082257"      the bytes below it moved up one, over it   right-aligned, zeros below
//! 3,0,8,2,2,5,7  each checked a digit, its low nibble kept  8 digit values, leading zeros
//! 3082257        pairs, quads, then the eight               the mantissa
//! -3082257e16    the mantissa times 10^(18-2), the sign     the exact fixed point, as parse_fixed
//! ```
//!
//! The algorithm is written once, over `Lanes`, a register of byte lanes. Most
//! values (every 1BRC temperature, two bench values in three) fit the `u64`, where
//! each step is one instruction; on the `u128` each is two or more.
//!
//! The pair-combining multiplies are Lemire's "eight digits at once" (Daniel Lemire,
//! "Quickly parsing eight digits", 2022, and simdjson's number parser), written here
//! as three steps of "times ten to the width, plus the neighbour". Whatever it does
//! not take (a `+`, an exponent, more than 16 bytes, a second `.`) it leaves to
//! [`crate::exact::parse_number`], which gives the same fixed point for everything
//! this takes.

use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

use crate::exact::{POWERS, SCALE};

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
#[inline(always)]
pub fn swar_decimal(input: &[u8], start: usize, end: usize) -> Option<Decimal> {
    let field = &input[start..end];
    let negative = field.first() == Some(&b'-');
    let len = field.len() - usize::from(negative); // the body: digits and the '.'
    // One branch on the width: taken the same way row after row where the values
    // are alike (1BRC: always the u64), and it halves the work when it is.
    let (mantissa, scale) = match len {
        1..=8 => body::<u64>(input, end, len)?,
        9..=16 => body::<u128>(input, end, len)?,
        _ => return None,
    };
    Some(Decimal {
        negative,
        mantissa,
        scale,
    })
}

/// The mantissa and scale of the plain body (digits and at most one '.', at least
/// one digit) of `len` bytes (1 ≤ `len` ≤ `W::BYTES`) that ends at `end`; `None`
/// when it is not plain.
#[inline(always)]
fn body<W: Lanes>(input: &[u8], end: usize, len: usize) -> Option<(u64, usize)> {
    // The W::BYTES bytes that end with the field's last byte: its digits are
    // right-aligned (the last digit in the top byte); the body is the top `len`.
    let body = W::ending(input, end) & !W::low_bytes(W::BYTES - len);
    let dots = equal_bytes(body, b'.');
    // The bytes below the '.' (the integer part) move up one byte, over it; with no
    // '.', nothing moves. (No branch on the sign or the '.': both vary row to row,
    // and a mispredicted branch costs more than this arithmetic.)
    let one_dot = dots != W::ZERO;
    let at = if one_dot {
        dots.trailing_zeros() as usize / 8
    } else {
        0
    };
    let below = body & W::low_bytes(at);
    let digits = body & !W::low_bytes(at + usize::from(one_dot)) | below << 8;
    // (The '.'s are not counted with `count_ones`: without the POPCNT feature, which
    // the default x86-64 target lacks, that is a dozen instructions.)
    let n = len - usize::from(one_dot);
    let plain = dots & dots.wrapping_sub(W::ONE) == W::ZERO // at most one '.'
        && n > 0
        && all_digits(digits | W::splat(b'0') & W::low_bytes(W::BYTES - n));
    if !plain {
        return None;
    }
    // The digits' values; the bytes below them are zero, so leading zeros.
    let mantissa = (digits & W::splat(0x0F)).number();
    Some((mantissa, (W::BYTES - 1 - at) * usize::from(one_dot)))
}

/// The exact value of `input[start..end]` in units of 10^-[`SCALE`] (as
/// [`crate::exact::parse_number`]'s fixed point) when [`swar_decimal`] reads it:
/// the mantissa times 10 to the missing scale, which 16 digits always fit.
///
/// # Panics
/// When `start..end` is not a range of `input`.
#[inline(always)]
pub fn parse_swar_fixed(input: &[u8], start: usize, end: usize) -> Option<i128> {
    Some(to_fixed(swar_decimal(input, start, end)?))
}

/// The exact value of the plain decimal `d` in units of 10^-[`SCALE`]: its mantissa
/// times 10 to the missing scale, which 16 digits always fit.
#[inline(always)]
pub fn to_fixed(d: Decimal) -> i128 {
    // The sign goes on the mantissa (under 10^16), and the power is under 10^18:
    // both fit an i64, so the product (under 10^34) is one signed 64 x 64 -> 128-bit
    // multiply, where an i128 multiply and negation take a dozen instructions.
    let mantissa = d.mantissa as i64;
    let signed = if d.negative { -mantissa } else { mantissa };
    let power = POWERS[SCALE as usize - d.scale] as i64;
    i128::from(signed) * i128::from(power)
}

// ANCHOR_END: swar_decimal

// ANCHOR: lanes
/// A register of byte lanes, lane 0 the low byte: `u64` (8 lanes) or `u128` (16),
/// so that the parse is written once for both.
trait Lanes:
    Copy
    + Eq
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
{
    /// Lanes in the register.
    const BYTES: usize;
    /// No bit set.
    const ZERO: Self;
    /// The number 1.
    const ONE: Self;
    /// `byte` in every lane.
    fn splat(byte: u8) -> Self;
    /// Ones in the low `n` lanes (`n` ≤ `BYTES`), from a table: a `u128` shift by a
    /// variable amount is half a dozen instructions on a 64-bit CPU, a load is one.
    fn low_bytes(n: usize) -> Self;
    /// The `BYTES` bytes of `input` that end at `end` (exclusive), little-endian: one
    /// unaligned load, or near the input's start a copy into the top of zero bytes.
    fn ending(input: &[u8], end: usize) -> Self;
    /// Addition, wrapping.
    fn wrapping_add(self, other: Self) -> Self;
    /// Subtraction, wrapping.
    fn wrapping_sub(self, other: Self) -> Self;
    /// Zero bits below the lowest set one.
    fn trailing_zeros(self) -> u32;
    /// The number written by digit values (0-9) in the lanes, the most significant
    /// in lane 0 ([`eight`] on each 8 lanes).
    fn number(self) -> u64;
}

/// [`Lanes`] for an unsigned integer of `$bytes` bytes; `$number` combines its
/// digit values.
macro_rules! lanes {
    ($t:ty, $bytes:literal, $number:expr) => {
        impl Lanes for $t {
            const BYTES: usize = $bytes;
            const ZERO: $t = 0;
            const ONE: $t = 1;
            #[inline(always)]
            fn splat(byte: u8) -> $t {
                <$t>::from_le_bytes([byte; $bytes])
            }
            #[inline(always)]
            fn low_bytes(n: usize) -> $t {
                const TABLE: [$t; $bytes + 1] = {
                    let mut table = [0; $bytes + 1];
                    let mut n = 1;
                    while n < $bytes {
                        table[n] = (1 << (8 * n)) - 1;
                        n += 1;
                    }
                    table[$bytes] = <$t>::MAX;
                    table
                };
                TABLE[n.min($bytes)]
            }
            #[inline(always)]
            fn ending(input: &[u8], end: usize) -> $t {
                match end
                    .checked_sub($bytes)
                    .and_then(|start| input.get(start..end))
                {
                    Some(tail) => <$t>::from_le_bytes(tail.try_into().expect("whole")),
                    None => {
                        let rest = &input[..end];
                        let mut tail = [0u8; $bytes];
                        tail[$bytes - rest.len()..].copy_from_slice(rest);
                        <$t>::from_le_bytes(tail)
                    }
                }
            }
            #[inline(always)]
            fn wrapping_add(self, other: $t) -> $t {
                <$t>::wrapping_add(self, other)
            }
            #[inline(always)]
            fn wrapping_sub(self, other: $t) -> $t {
                <$t>::wrapping_sub(self, other)
            }
            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline(always)]
            fn number(self) -> u64 {
                $number(self)
            }
        }
    };
}

lanes!(u64, 8, |v: u64| u64::from(eight(v)));
lanes!(u128, 16, |v: u128| u64::from(eight(v as u64)) * 100_000_000
    + u64::from(eight((v >> 64) as u64)));
// ANCHOR_END: lanes

// ANCHOR: swar_tricks
/// 0x80 in each byte of `x` equal to `byte`, 0 elsewhere (exact: no false positives
/// from borrows, as `(x - 0x01..) & !x & 0x80..` would give).
#[inline(always)]
fn equal_bytes<W: Lanes>(x: W, byte: u8) -> W {
    let low7 = W::splat(0x7F);
    let zero_where_equal = x ^ W::splat(byte);
    // Adding 0x7F to the low 7 bits sets bit 7 for any non-zero low part; OR-ing
    // the byte keeps a high bit of its own. Neither carries into the next byte.
    !((zero_where_equal & low7).wrapping_add(low7) | zero_where_equal | low7)
}

/// True when every lane is an ASCII digit: the high nibble is 3, and still 3 after
/// adding 6 (which moves `:` to `?` past it). A carry out of one byte comes only
/// from a byte that fails the test itself.
#[inline(always)]
fn all_digits<W: Lanes>(x: W) -> bool {
    let high = W::splat(0xF0);
    (x & high) | ((x.wrapping_add(W::splat(0x06)) & high) >> 4) == W::splat(0x33)
}

/// The number written by 8 digit values (0-9), the most significant in the low byte:
/// pairs, then quads, then all eight, each step "times ten to the width of the
/// lower part, plus the next part" in every lane at once. No lane overflows into
/// the next: 99 < 2^8, 9999 < 2^16, 99999999 < 2^32.
// ANCHOR: exercise_eight
#[inline(always)]
fn eight(v: u64) -> u32 {
    let v = (v * 10 + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v * 100 + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    ((v * 10_000 + (v >> 32)) & 0xFFFF_FFFF) as u32
}
// ANCHOR_END: exercise_eight
// ANCHOR_END: swar_tricks

#[cfg(test)]
pub(crate) mod tests;
