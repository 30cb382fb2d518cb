//! Finding the next byte that can change the parser's state, three ways.
//!
//! Inside an unquoted field only a delimiter, an LF or a CR can change the state (a
//! quote there is data); inside a quoted field only a quote can. Every byte in
//! between is data, and the parser can jump over it:
//!
//! ```text
//! state Unquoted: i += first index of {DELIMITER, LF, CR} in input[i..]   (or the end)
//! state Quoted:   i += first index of QUOTE in input[i..]                 (or the end)
//! ```
//!
//! A [`Scanner`] answers those two questions. [`Scalar`] looks at one byte per
//! iteration, [`Swar`] at eight (SIMD Within A Register: one `u64` holds eight
//! bytes), [`Memchr`] calls the `memchr` crate, which uses SSE2/AVX2 (16 or 32 bytes)
//! where the CPU has them. The three give the same answers (`tests/scan.rs` checks
//! every length from 0 to 80); `benches/scan.rs` times them, and [`Best`] is the one
//! the parser uses.

use harness::dialect::{CR, LF, QUOTE};

// ANCHOR: scanner
/// A way to find the next byte that can change the parser's state.
pub trait Scanner {
    /// The tier's name: `scalar`, `swar`, `memchr`.
    const NAME: &'static str;
    /// Index of the first `delimiter`, LF or CR in `haystack` (the bytes that can
    /// end an unquoted field), or `None` when it has none.
    fn find_field_end(haystack: &[u8], delimiter: u8) -> Option<usize>;
    /// Index of the first quote in `haystack`, or `None`.
    fn find_quote(haystack: &[u8]) -> Option<usize>;
}

/// The tier the parser uses: the fastest in `benches/scan.rs` (see the crate docs).
pub type Best = Swar;

/// One byte per iteration: the oracle the other tiers are tested against.
pub struct Scalar;

impl Scanner for Scalar {
    const NAME: &'static str = "scalar";

    fn find_field_end(haystack: &[u8], delimiter: u8) -> Option<usize> {
        haystack
            .iter()
            .position(|&b| b == delimiter || b == LF || b == CR)
    }

    fn find_quote(haystack: &[u8]) -> Option<usize> {
        haystack.iter().position(|&b| b == QUOTE)
    }
}
// ANCHOR_END: scanner

// ANCHOR: swar
/// Eight bytes per iteration in a `u64`, in safe, portable Rust.
pub struct Swar;

/// `0x01` in every byte.
const LO: u64 = u64::from_le_bytes([0x01; 8]);
/// `0x80` (the high bit) in every byte.
const HI: u64 = u64::from_le_bytes([0x80; 8]);

// ANCHOR: exercise_flag_bytes
/// The high bit of every byte of `word` that equals `byte`, and perhaps of some
/// bytes above a match (see below); zero exactly when no byte equals `byte`.
///
/// XOR with `byte` broadcast to all eight bytes turns each matching byte into zero;
/// then the zero-byte test ("haszero", from Bit Twiddling Hacks, after Alan Mycroft):
/// `(v - 0x01…01) & !v & 0x80…80`. For a byte `x` with no borrow coming in, `x - 1`
/// has its high bit set only for `x = 0` or `x > 0x80`, and `& !x` drops the second
/// case: only zero bytes are flagged. But `0x00 - 1` borrows from the byte above, so
/// that byte loses one more, and a `0x01` above a zero becomes `0xFF` and is flagged
/// although it is not zero. A worked example, looking for `,` (0x2C) in `ab,-cdef`
/// (`-` is 0x2D, one more than `,`), bytes written lowest first as they are in memory:
///
/// ```text
/// bytes        a  b  ,  -  c  d  e  f
/// word ^ 2C…   4D 4E 00 01 4F 48 49 4A
/// v - 01…01    4C 4D FF FF 4D 47 48 49   (byte 2 borrows from byte 3: 01-01-1 = FF,
///                                       and byte 3 from byte 4: 4F-01-1 = 4D)
/// & !v & 80…   00 00 80 80 00 00 00 00   byte 2: a match; byte 3: a false flag
/// ```
///
/// A false flag needs a borrow, and a borrow needs a true zero byte below it (at a
/// lower address, as `from_le_bytes` puts the first byte lowest). So the lowest flag
/// is always a true match, and `trailing_zeros() / 8` (the flags in increasing order
/// of address) is the exact index of the first match; OR-ing the flags of several
/// bytes keeps that true, as each one's lowest flag is a true match of its own byte.
fn flag_bytes(word: u64, byte: u8) -> u64 {
    let v = word ^ (LO * u64::from(byte));
    v.wrapping_sub(LO) & !v & HI
}
// ANCHOR_END: exercise_flag_bytes

// ANCHOR: exercise_first_flagged
/// The index of the first flagged byte in the words of `haystack`, with the tail of
/// under eight bytes left to `tail`, which reads only what is there.
#[inline(always)]
fn first_flagged(
    haystack: &[u8],
    flags: impl Fn(u64) -> u64,
    tail: impl Fn(&[u8]) -> Option<usize>,
) -> Option<usize> {
    let mut words = haystack.chunks_exact(8);
    for (k, word) in words.by_ref().enumerate() {
        let found = flags(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        if found != 0 {
            return Some(k * 8 + found.trailing_zeros() as usize / 8);
        }
    }
    let rest = words.remainder();
    tail(rest).map(|j| haystack.len() - rest.len() + j)
}
// ANCHOR_END: exercise_first_flagged

impl Scanner for Swar {
    const NAME: &'static str = "swar";

    fn find_field_end(haystack: &[u8], delimiter: u8) -> Option<usize> {
        first_flagged(
            haystack,
            |w| flag_bytes(w, delimiter) | flag_bytes(w, LF) | flag_bytes(w, CR),
            |rest| Scalar::find_field_end(rest, delimiter),
        )
    }

    fn find_quote(haystack: &[u8]) -> Option<usize> {
        first_flagged(haystack, |w| flag_bytes(w, QUOTE), Scalar::find_quote)
    }
}
// ANCHOR_END: swar

// ANCHOR: memchr
/// The `memchr` crate: `memchr3` and `memchr`, with SSE2/AVX2 on x86-64 (chosen at
/// run time) and its own SWAR fallback elsewhere.
pub struct Memchr;

impl Scanner for Memchr {
    const NAME: &'static str = "memchr";

    fn find_field_end(haystack: &[u8], delimiter: u8) -> Option<usize> {
        memchr::memchr3(delimiter, LF, CR, haystack)
    }

    fn find_quote(haystack: &[u8]) -> Option<usize> {
        memchr::memchr(QUOTE, haystack)
    }
}
// ANCHOR_END: memchr

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags as the doc comment writes them: each byte in hex, lowest first.
    fn bytes(flags: u64) -> String {
        let hex: Vec<String> = flags
            .to_le_bytes()
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect();
        hex.join(" ")
    }

    #[test]
    fn the_worked_example_has_one_false_flag_above_the_match() {
        let word = u64::from_le_bytes(*b"ab,-cdef");
        let flags = flag_bytes(word, b',');
        let expected = u64::from_le_bytes([0, 0, 0x80, 0x80, 0, 0, 0, 0]);
        assert!(
            flags == expected,
            "flag_bytes(b\"ab,-cdef\", b','), bytes lowest first:\n  got      {}\n  expected {}",
            bytes(flags),
            bytes(expected)
        );
        let first = Swar::find_field_end(b"ab,-cdef", b',');
        assert_eq!(first, Some(2), "Swar::find_field_end(b\"ab,-cdef\", b',')");
    }

    #[test]
    fn without_a_borrow_the_flags_are_exact() {
        for x in 0..=255u8 {
            for b in 0..=255u8 {
                let flags = flag_bytes(u64::from_le_bytes([x; 8]), b);
                let expected = if x == b { HI } else { 0 };
                assert!(
                    flags == expected,
                    "flag_bytes(eight bytes {x:#04X}, byte {b:#04X}), bytes lowest first:\n  \
                     got      {}\n  expected {}",
                    bytes(flags),
                    bytes(expected)
                );
            }
        }
    }
}
