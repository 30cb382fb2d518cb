//! A GROUP BY key as the hand-written table compares it ([`KeyWords`]): its first 16
//! bytes as two little-endian words and its length, read where the key lies in the
//! input with two masked loads, and hashed with one multiply. Two keys of up to 16
//! bytes are equal exactly when their words and lengths are, so the table compares
//! two words where step 5's called `memcmp`; only a longer key is compared byte for
//! byte, and hashed over all its bytes.

// ANCHOR: key_words
/// A key as the table compares it: its first 16 bytes as two little-endian words,
/// zero-padded, and its length. Two keys of up to 16 bytes are equal exactly when
/// their `KeyWords` are; a longer key is compared in full as well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyWords {
    words: [u64; 2],
    /// The key's length in bytes.
    pub(crate) len: usize,
}

impl KeyWords {
    /// The words of `key`, from loads inside it: overlapping ones for a key of 4 to
    /// 16 bytes, shifted so that the bytes past the key are zero (a copy into 16 zero
    /// bytes would call `memcpy`, slower than the whole lookup).
    #[inline]
    pub fn of(key: &[u8]) -> KeyWords {
        let n = key.len();
        let words = match n {
            0..4 => {
                let low = key.iter().rev().fold(0, |w, &b| w << 8 | u64::from(b));
                [low, 0]
            }
            4..8 => {
                let high = u64::from(half(key, n - 4)) >> (8 * (8 - n)); // bytes 4..n
                [u64::from(half(key, 0)) | high << 32, 0]
            }
            8..16 => [
                word(key, 0),
                word(key, n - 8)
                    .checked_shr(8 * (16 - n) as u32)
                    .unwrap_or(0),
            ],
            _ => [word(key, 0), word(key, 8)],
        };
        KeyWords { words, len: n }
    }

    /// The words of the key `input[start..end]`, read where it lies: two 8-byte
    /// loads masked to the key's length, with no branch on the length, which varies
    /// from row to row and would be mispredicted (the trick of the fastest One
    /// Billion Row Challenge entries). The same words as [`KeyWords::of`].
    #[inline(always)]
    pub fn at(input: &[u8], start: usize, end: usize) -> KeyWords {
        // One bounds check for both loads, and the masks of both words from one
        // row of a table: the checks and clamps of two separate loads cost a dozen
        // instructions a row.
        let Some(bytes) = input.get(start..start + 16) else {
            return KeyWords::of(&input[start..end]); // too near the input's end
        };
        let len = end - start;
        let mask = KEY_MASKS[len.min(16)];
        let (low, high) = bytes.split_at(8);
        KeyWords {
            words: [
                u64::from_le_bytes(low.try_into().expect("8 bytes")) & mask[0],
                u64::from_le_bytes(high.try_into().expect("8 bytes")) & mask[1],
            ],
            len,
        }
    }

    /// The key's hash: both words and the length folded by one 64 x 64 -> 128-bit
    /// multiply (foldhash's folded multiply), and for a longer key each further
    /// 8 bytes folded in ([`hash_rest`]), so that keys which share their first 16
    /// bytes still spread.
    #[inline(always)]
    pub(crate) fn hash(&self, key: &[u8]) -> u64 {
        let h = fold(
            self.words[0] ^ SEEDS[0],
            self.words[1] ^ SEEDS[1] ^ self.len as u64,
        );
        if self.len > 16 {
            hash_rest(h, &key[16..])
        } else {
            h
        }
    }
}

/// `h` with each 8 bytes of `rest` folded in. Kept out of line: the common short key
/// then needs no registers for it.
#[inline(never)]
fn hash_rest(mut h: u64, rest: &[u8]) -> u64 {
    for part in rest.chunks(8) {
        let mut w = [0u8; 8];
        w[..part.len()].copy_from_slice(part);
        h = fold(h ^ u64::from_le_bytes(w), SEEDS[2]);
    }
    h
}

/// The 4 bytes of `bytes` at `at`, little-endian.
#[inline(always)]
fn half(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// The 8 bytes of `bytes` at `at`, little-endian.
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// `KEY_MASKS[n]`: ones in the first `n` bytes of two little-endian words
/// (`n` ≤ 16), the first word's bytes first: the two words of a key of `n` bytes,
/// read from where it lies, masked to it (here, and in [`crate::project`]'s check
/// of a quoted key for quotes).
pub(crate) const KEY_MASKS: [[u64; 2]; 17] = {
    let mut table = [[0u64; 2]; 17];
    let mut n = 1;
    while n <= 16 {
        let low = if n >= 8 { 8 } else { n };
        table[n][0] = u64::MAX >> (64 - 8 * low);
        if n > 8 {
            table[n][1] = u64::MAX >> (64 - 8 * (n - 8));
        }
        n += 1;
    }
    table
};

/// Fixed constants (digits of pi, as in many hash functions), so that a run's table
/// is the same in every process. A file crafted to collide slows the table down;
/// it cannot change the answer, since keys are compared in full.
const SEEDS: [u64; 3] = [
    0x243f_6a88_85a3_08d3,
    0x1319_8a2e_0370_7344,
    0xa409_3822_299f_31d0,
];

/// The high and low halves of the 128-bit product, XORed: every bit of the result
/// depends on every bit of both inputs.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ (product >> 64) as u64
}
// ANCHOR_END: key_words
