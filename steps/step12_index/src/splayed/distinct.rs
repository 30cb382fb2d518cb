//! How many distinct strings a column holds, estimated in one pass, in parallel,
//! from the `K` smallest hashes of its fields: the "k minimum values" sketch
//! (Bar-Yossef et al., "Counting distinct elements in a data stream", RANDOM 2002;
//! Beyer et al., "On synopses for distinct-value estimation", SIGMOD 2007).
//!
//! ```text
//! hash every field to a u64 spread evenly over 0..2^64
//! keep the K smallest distinct hashes
//! fewer than K kept: that is the exact count of distinct hashes
//! else: K distinct values fell below the K-th smallest hash h, so the values are
//!       spread with a gap of about h / K, and there are about (K - 1) * 2^64 / h
//! ```
//!
//! The kept hashes are a function of the set of values, not of their order or of
//! how the file was cut: two sketches merge into the sketch of both chunks, so the
//! load infers the same storage on any number of threads and chunk sizes. With
//! `K` = 256 the estimate's relative error is about 1/sqrt(K), 6%.
//!
//! The load uses it to choose how a string column is stored ([`crate::splayed::infer`]):
//! interned when its values repeat, as plain text when nearly every one is new.

/// Hashes kept.
pub const K: usize = 256;

/// The `K` smallest distinct hashes seen, in increasing order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Distinct {
    smallest: Vec<u64>,
}

// ANCHOR: spread
/// A value's hash for the sketch, at a fixed cost whatever its length: up to 16
/// bytes it reads every byte, with overlapping loads (wyhash's trick for short
/// inputs, after Wang Yi's wyhash), and beyond that the first and last eight and
/// the length. Two values that differ only in their middle past 16 bytes hash
/// alike, and count once: the estimate can only come out low, which keeps a column
/// interned, as it was before this choice existed. The bits are then spread by the
/// finaliser of SplitMix64 (Steele, Lea and Flood, OOPSLA 2014), so that the
/// smallest hashes are a fair sample of the values.
#[inline]
pub fn spread_hash(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let half = |i: usize| u64::from(u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4")));
    let (first, last) = match n {
        0 => (0, 0),
        // Bytes 0, n/2 and n-1 are all of them when n <= 3.
        1..=3 => {
            let byte = |i: usize| u64::from(bytes[i]);
            (byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16, 0)
        }
        4..=8 => (half(0) | half(n - 4) << 32, 0),
        _ => (word(0), word(n - 8)),
    };
    let mut z = first ^ (last.rotate_left(32) ^ n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
// ANCHOR_END: spread

impl Distinct {
    // ANCHOR: add
    /// Looks at one value's hash. Once `K` are kept, nearly every hash is above the
    /// largest of them and costs one compare.
    #[inline]
    pub fn add(&mut self, hash: u64) {
        if self.smallest.len() == K && hash >= self.smallest[K - 1] {
            return;
        }
        if let Err(at) = self.smallest.binary_search(&hash) {
            self.smallest.insert(at, hash);
            self.smallest.truncate(K);
        }
    }
    // ANCHOR_END: add

    /// Both sketches' values together.
    pub fn merge(&mut self, other: &Distinct) {
        for &hash in &other.smallest {
            self.add(hash);
        }
    }

    /// The estimated number of distinct values: exact below `K` (barring two values
    /// of one hash), within a few percent above.
    pub fn estimate(&self) -> u64 {
        match self.smallest.get(K - 1) {
            None => self.smallest.len() as u64,
            Some(&largest) => ((K as u128 - 1) << 64).div_ceil(u128::from(largest).max(1)) as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sketch(values: impl Iterator<Item = u64>) -> Distinct {
        let mut d = Distinct::default();
        for v in values {
            d.add(spread_hash(&v.to_le_bytes()));
        }
        d
    }

    #[test]
    fn exact_below_k_and_repeats_do_not_count() {
        assert_eq!(sketch(0..0).estimate(), 0);
        assert_eq!(sketch((0..1000).map(|i| i % 10)).estimate(), 10);
        assert_eq!(sketch((0..10_000).map(|i| i % 255)).estimate(), 255);
    }

    #[test]
    fn within_a_fifth_of_the_truth_above_k() {
        for n in [300u64, 5_000, 100_000, 1_000_000] {
            // Each value three times: only the distinct ones count.
            let d = sketch((0..3 * n).map(|i| i % n)).estimate();
            let error = (d as f64 - n as f64).abs() / n as f64;
            assert!(error < 0.2, "{n} distinct estimated as {d}");
        }
    }

    #[test]
    fn every_byte_of_a_short_value_counts() {
        let text = b"abcdefghijklmnop";
        for len in 0..=16 {
            let base = spread_hash(&text[..len]);
            for i in 0..len {
                let mut other = *text;
                other[i] ^= 0x20;
                assert_ne!(spread_hash(&other[..len]), base, "byte {i} of {len}");
            }
        }
        // The length counts too: zeros of two lengths differ.
        let zeros = [0u8; 17];
        for len in 0..16 {
            assert_ne!(spread_hash(&zeros[..len]), spread_hash(&zeros[..len + 1]));
        }
    }

    #[test]
    fn merging_in_any_split_is_the_whole_sketch() {
        let whole = sketch(0..50_000);
        for cut in [0, 1, 17, 25_000, 49_999] {
            let mut a = sketch(0..cut);
            a.merge(&sketch(cut..50_000));
            assert_eq!(a, whole, "cut at {cut}");
        }
    }
}
