//! Every `f64`'s exact sum, and the exact sum's one rounding. A superaccumulator:
//! the integer that counts units of 2^-1074, the smallest `f64`, in 36 words, which
//! holds any sum of `f64`s exactly (Kulisch's long accumulator, as in Neal's "Fast
//! exact summation using small and large superaccumulators", 2015).
//!
//! ```text
//! x = m * 2^e  (m < 2^53, e >= -1074)      every finite f64
//!   = (m << (e + 1074)) units of 2^-1074  an integer: add it, carries rippling up
//! the sum's value  = wide * 2^-1074 + decimal * 10^-18      (decimal: the fixed part)
//!                  = (wide * 10^18 + decimal * 2^1074) / 10^18 * 2^-1074
//! ```
//!
//! The one rounding divides that integer by `10^18` (and by the count, for a mean)
//! and keeps 53 bits, the next bit and whether anything below it is not zero: the
//! nearest `f64`, ties to even, of the exact value, whatever the order the values
//! came in. An `f64` holds about 2^1024 at most; a larger exact value rounds to an
//! infinity, and the caller says so.

/// Words of the accumulator: 2^-1074 up to 2^(64 * 36 - 1074 - 1), so 2^1229,
/// room for 2^200 sums of the largest `f64`, in two's complement.
const WORDS: usize = 36;

/// Words of the integer the rounding divides: the accumulator times 10^18 and 2^64
/// more bits below the last one kept, or the decimal part times 2^1074 and 2^64.
const WIDE: usize = WORDS + 4;

/// The exact sum of some `f64`s, in units of 2^-1074, two's complement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wide {
    words: [u64; WORDS],
}

impl Default for Wide {
    fn default() -> Wide {
        Wide { words: [0; WORDS] }
    }
}

impl Wide {
    /// Adds the finite `x`, exactly.
    pub fn add_f64(&mut self, x: f64) {
        debug_assert!(x.is_finite());
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as usize;
        let fraction = bits & ((1 << 52) - 1);
        // A subnormal (exponent 0) counts units of 2^-1074 in its fraction alone; a
        // normal one has the implicit bit and is shifted by its exponent less one.
        let (m, shift) = match exponent {
            0 => (fraction, 0),
            e => (fraction | 1 << 52, e - 1),
        };
        let (word, bit) = (shift / 64, shift % 64);
        let spread = u128::from(m) << bit; // at most 53 + 63 bits: two words
        let (low, high) = (spread as u64, (spread >> 64) as u64);
        if bits >> 63 == 0 {
            add_at(&mut self.words, word, low, high);
        } else {
            sub_at(&mut self.words, word, low, high);
        }
    }

    /// Adds another exact sum.
    pub fn add(&mut self, other: &Wide) {
        let mut carry = false;
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            let (s, c1) = a.overflowing_add(b);
            let (s, c2) = s.overflowing_add(u64::from(carry));
            *a = s;
            carry = c1 || c2;
        }
    }
}

/// `words += (high, low) << (64 * at)`, the carry rippling up (two's complement).
fn add_at(words: &mut [u64], at: usize, low: u64, high: u64) {
    let mut carry;
    (words[at], carry) = words[at].overflowing_add(low);
    let (s, c1) = words[at + 1].overflowing_add(high);
    let (s, c2) = s.overflowing_add(u64::from(carry));
    words[at + 1] = s;
    carry = c1 || c2;
    let mut k = at + 2;
    while carry && k < words.len() {
        (words[k], carry) = words[k].overflowing_add(1);
        k += 1;
    }
}

/// `words -= (high, low) << (64 * at)`, the borrow rippling up.
fn sub_at(words: &mut [u64], at: usize, low: u64, high: u64) {
    let mut borrow;
    (words[at], borrow) = words[at].overflowing_sub(low);
    let (s, b1) = words[at + 1].overflowing_sub(high);
    let (s, b2) = s.overflowing_sub(u64::from(borrow));
    words[at + 1] = s;
    borrow = b1 || b2;
    let mut k = at + 2;
    while borrow && k < words.len() {
        (words[k], borrow) = words[k].overflowing_sub(1);
        k += 1;
    }
}

// ANCHOR: round
/// `(wide * 2^-1074 + decimal * 10^-18) / n`, rounded once to the nearest `f64`
/// (ties to even); an infinity when that is beyond the largest `f64`. `decimal` is
/// the fixed part, a 192-bit integer given as `wraps * 2^128 + low` (`low`'s bits).
/// `n` is 1 for a sum and the count of values for a mean (at least 1).
pub fn round_exact(wide: Option<&Wide>, low: i128, wraps: i64, n: u64) -> f64 {
    // x = wide * 10^18 + decimal * 2^1074, then * 2^64: 64 bits below the last
    // unit of 2^-1074, so that a subnormal result rounds from them too.
    let mut x = [0u64; WIDE];
    if let Some(wide) = wide {
        let mut w = [0u64; WIDE];
        w[..WORDS].copy_from_slice(&wide.words);
        if wide.words[WORDS - 1] >> 63 == 1 {
            w[WORDS..].fill(u64::MAX); // sign-extended
        }
        mul_small(&mut w, 1_000_000_000_000_000_000);
        x = w;
    }
    let mut decimal = [0u64; WIDE];
    decimal[0] = low as u64;
    decimal[1] = (low >> 64) as u64;
    let high = (low >> 127) as u64; // 0 or all ones: `low`'s sign, extended
    decimal[2..].fill(high);
    add_shifted(&mut decimal, &sign_extended(i128::from(wraps)), 2);
    shift_left(&mut decimal, 1074);
    add_shifted(&mut x, &decimal, 0);
    shift_left(&mut x, 64);
    let negative = x[WIDE - 1] >> 63 == 1;
    if negative {
        negate(&mut x);
    }
    // The value is x / (10^18 * n) * 2^-1138; the remainders decide the last bit.
    let mut sticky = div_small(&mut x, 1_000_000_000_000_000_000) != 0;
    sticky |= div_small(&mut x, n) != 0;
    let magnitude = to_f64(&x, sticky, -1138);
    if negative { -magnitude } else { magnitude }
}
// ANCHOR_END: round

/// The 40-word two's complement of `v`.
fn sign_extended(v: i128) -> [u64; WIDE] {
    let mut out = [if v < 0 { u64::MAX } else { 0 }; WIDE];
    out[0] = v as u64;
    out[1] = (v >> 64) as u64;
    out
}

/// `x += y << (64 * words)`, modulo 2^(64 * WIDE).
fn add_shifted(x: &mut [u64; WIDE], y: &[u64; WIDE], words: usize) {
    let mut carry = false;
    for k in words..WIDE {
        let (s, c1) = x[k].overflowing_add(y[k - words]);
        let (s, c2) = s.overflowing_add(u64::from(carry));
        x[k] = s;
        carry = c1 || c2;
    }
}

/// `x <<= bits`, modulo 2^(64 * WIDE).
fn shift_left(x: &mut [u64; WIDE], bits: usize) {
    let (words, bit) = (bits / 64, bits % 64);
    for k in (0..WIDE).rev() {
        let from = |j: usize| if j < WIDE { x[j] } else { 0 };
        let high = k.checked_sub(words).map_or(0, from);
        let low = k.checked_sub(words + 1).map_or(0, from);
        x[k] = if bit == 0 {
            high
        } else {
            high << bit | low >> (64 - bit)
        };
    }
}

/// `x *= m`, modulo 2^(64 * WIDE) (two's complement: the sign comes along).
fn mul_small(x: &mut [u64; WIDE], m: u64) {
    let mut carry = 0u128;
    for w in x.iter_mut() {
        let p = u128::from(*w) * u128::from(m) + carry;
        *w = p as u64;
        carry = p >> 64;
    }
}

/// `x = -x`.
fn negate(x: &mut [u64; WIDE]) {
    let mut carry = true;
    for w in x.iter_mut() {
        (*w, carry) = (!*w).overflowing_add(u64::from(carry));
    }
}

/// `x /= d` (`x` unsigned), returning the remainder.
fn div_small(x: &mut [u64; WIDE], d: u64) -> u64 {
    let mut rest = 0u128;
    for w in x.iter_mut().rev() {
        let cur = rest << 64 | u128::from(*w);
        *w = (cur / u128::from(d)) as u64;
        rest = cur % u128::from(d);
    }
    rest as u64
}

/// `x * 2^scale` (`x` unsigned; plus a little more when `sticky`, less than one unit
/// of `x`) rounded to the nearest `f64`, ties to even; an infinity past the largest.
fn to_f64(x: &[u64; WIDE], sticky: bool, scale: i32) -> f64 {
    let Some(top) = x.iter().rposition(|&w| w != 0) else {
        return 0.0; // below half of 2^-1074 (the 64 extra bits are all zero)
    };
    let bits = 64 * top as i32 + 64 - x[top].leading_zeros() as i32;
    // The value is in [2^(bits - 1 + scale), 2^(bits + scale)). Keep 53 bits, or
    // fewer for a subnormal, whose last unit is 2^-1074.
    let exponent = bits - 1 + scale;
    let drop = if exponent >= -1022 {
        bits - 53
    } else {
        -1074 - scale
    };
    let bit = |i: i32| i >= 0 && (x[(i / 64) as usize] >> (i % 64)) & 1 == 1;
    let below = |i: i32| (0..i.max(0)).any(bit); // any bit under i set
    let mut kept: u64 = 0;
    for i in (drop.max(0)..bits).rev() {
        kept = kept << 1 | u64::from(bit(i));
    }
    let half = bit(drop - 1);
    let rest = sticky || below(drop - 1);
    if half && (rest || kept & 1 == 1) {
        kept += 1;
    }
    // kept * 2^(drop + scale); kept < 2^54, exact as an f64, and the power of two
    // is exact too.
    let power = drop + scale;
    if power + 64 - kept.leading_zeros() as i32 > 1024 {
        return f64::INFINITY;
    }
    kept as f64 * pow2(power)
}

/// 2^k as an `f64`, for -1074 <= k <= 1023 (in two steps where one would leave the
/// normal range).
fn pow2(k: i32) -> f64 {
    let normal = |k: i32| f64::from_bits(((k + 1023) as u64) << 52);
    match k {
        -1022..=1023 => normal(k),
        k if k < -1022 => normal(k + 60) * normal(-60),
        _ => f64::INFINITY,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A xorshift generator (Marsaglia's shifts 13, 7, 17) from `seed`, not 0: the
    /// tests' deterministic random words, with no dependency.
    pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    fn sum(values: &[f64]) -> f64 {
        let mut wide = Wide::default();
        for &v in values {
            wide.add_f64(v);
        }
        round_exact(Some(&wide), 0, 0, 1)
    }

    #[test]
    fn sums_past_the_largest_f64_are_exact_whatever_the_order() {
        let big = 1e308;
        assert_eq!(sum(&[big, big, -big]), big);
        assert_eq!(sum(&[big, -big, big]), big);
        assert_eq!(sum(&[-big, big, big]), big);
        assert_eq!(sum(&[big, big]), f64::INFINITY);
        assert_eq!(sum(&[-big, -big]), f64::NEG_INFINITY);
        assert_eq!(sum(&[f64::MAX, f64::MAX, -f64::MAX]), f64::MAX);
        let mut wide = Wide::default();
        for v in [big, big, big] {
            wide.add_f64(v);
        }
        assert_eq!(round_exact(Some(&wide), 0, 0, 3), big, "the mean of three");
    }

    #[test]
    fn tiny_values_and_cancellation() {
        let tiny = f64::from_bits(1); // 2^-1074
        assert_eq!(sum(&[tiny, tiny]), 2.0 * tiny);
        assert_eq!(sum(&[1.0, tiny, -1.0]), tiny);
        assert_eq!(sum(&[0.1, 0.2]), 0.30000000000000004); // the exact sum, rounded
        assert_eq!(sum(&[1e16, 1.0, -1e16]), 1.0);
        assert_eq!(sum(&[]), 0.0);
        assert_eq!(sum(&[-0.0]), 0.0);
        // Half of 2^-1074 rounds to even (zero); a hair more rounds up.
        let mut wide = Wide::default();
        wide.add_f64(tiny);
        assert_eq!(round_exact(Some(&wide), 0, 0, 2), 0.0);
        assert_eq!(round_exact(Some(&wide), 0, 0, 1), tiny);
    }

    #[test]
    fn random_sums_equal_a_sum_of_integers() {
        // Values k * 2^-20 with |k| < 2^40: their exact sum is an integer count of
        // 2^-20, held by an i128, whose f64 is the reference.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2_000 {
            let n = (next() % 50) as usize + 1;
            let ks: Vec<i64> = (0..n).map(|_| (next() >> 24) as i64 - (1 << 39)).collect();
            let values: Vec<f64> = ks.iter().map(|&k| k as f64 / (1u64 << 20) as f64).collect();
            let exact: i128 = ks.iter().map(|&k| i128::from(k)).sum();
            let reference = exact as f64 / (1u64 << 20) as f64; // one rounding: exact / 2^20
            assert_eq!(sum(&values), reference, "{ks:?}");
        }
    }

    #[test]
    fn the_decimal_part_joins_before_the_rounding() {
        // 0.1 (decimal, exact) + 0.2 (decimal, exact) = 0.3 exactly: the f64 nearest.
        let tenth = 100_000_000_000_000_000i128; // 0.1 in units of 10^-18
        assert_eq!(round_exact(None, 3 * tenth, 0, 1), 0.3);
        assert_eq!(round_exact(None, -3 * tenth, 0, 1), -0.3);
        // A decimal past i128: 2^128 units (wraps = 1) is 2^128 * 10^-18.
        let expected: f64 = "340282366920938463463.374607431768211456".parse().unwrap();
        assert_eq!(round_exact(None, 0, 1, 1), expected);
        // An f64 and a decimal together: 1e308 (float) + 1 (decimal) - 1e308 (float).
        let mut wide = Wide::default();
        wide.add_f64(1e308);
        wide.add_f64(-1e308);
        assert_eq!(round_exact(Some(&wide), 10 * tenth, 0, 1), 1.0);
        // The mean: 1 / 3 from a decimal sum of 1 and n = 3.
        assert_eq!(round_exact(None, 10 * tenth, 0, 3), 1.0 / 3.0);
    }
}
