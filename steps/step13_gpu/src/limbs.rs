//! The device's exact integer sum: order-independent with 64-bit atomics.
//!
//! ```text
//! a plain decimal x (step 10's Number::Fixed: |x| < 10^37 < 2^123, units of 10^-18)
//!   -> its two's complement over 160 bits, cut into five 32-bit limbs
//!   -> limb j added (atomicAdd) to a 64-bit accumulator acc[j]
//! at the end, on the host: S = sum of acc[j] * 2^(32 j), modulo 2^160
//! ```
//!
//! Each accumulator takes fewer than 2^32 limbs below 2^32, so it never overflows a
//! `u64` (the query refuses the device for 2^32 rows or more), and integer addition
//! does not care about the order of the atomics. `|S| < 2^123 * 2^32 < 2^159`, so the
//! 160 bits hold it exactly; it is then split as step 10 keeps it (an `i128` that wraps
//! and a count of wraps), and [`crate::exact::ExactSum`] rounds it once, the same bits
//! as step 10 for any order of the rows.

use crate::exact::ExactSum;

/// Limbs of a value, and accumulators of a group.
pub const LIMBS: usize = 5;

// ANCHOR: limbs
/// The five 32-bit limbs (low first) of `x` in two's complement over 160 bits.
#[inline]
pub fn limbs_of(x: i128) -> [u32; LIMBS] {
    let bits = x as u128;
    let sign = if x < 0 { u32::MAX } else { 0 };
    [
        bits as u32,
        (bits >> 32) as u32,
        (bits >> 64) as u32,
        (bits >> 96) as u32,
        sign,
    ]
}

/// A group's accumulators: `acc[j]` is the sum of the rows' limb `j`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limbs(pub [u64; LIMBS]);

impl Limbs {
    /// Adds one value, limb by limb (on the device: five `atomicAdd`s).
    #[inline]
    pub fn add(&mut self, x: i128) {
        for (acc, limb) in self.0.iter_mut().zip(limbs_of(x)) {
            *acc = acc.wrapping_add(u64::from(limb));
        }
    }

    /// The sum as step 10 keeps it: `wraps * 2^128 + fixed`, `fixed` an `i128`.
    pub fn to_exact(self) -> ExactSum {
        // Carry the accumulators into five 32-bit words: S modulo 2^160.
        let (mut words, mut carry) = ([0u32; LIMBS], 0u128);
        for (word, &acc) in words.iter_mut().zip(&self.0) {
            let t = u128::from(acc) + carry;
            *word = t as u32;
            carry = t >> 32;
        }
        let low = words[..4]
            .iter()
            .rev()
            .fold(0u128, |v, &w| (v << 32) | u128::from(w));
        let high = i64::from(words[4] as i32); // bits 128..160, signed: S's sign
        let fixed = low as i128;
        // S = high * 2^128 + low; with `fixed` signed, low = fixed + 2^128 when fixed < 0.
        let wraps = if fixed < 0 { high + 1 } else { high };
        ExactSum::from_fixed(fixed, wraps)
    }
}
// ANCHOR_END: limbs

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{Number, parse_number};

    fn fixed(text: &str) -> i128 {
        match parse_number(text.as_bytes()).unwrap().unwrap() {
            Number::Fixed(x) => x,
            Number::Float(_) => panic!("{text} is not a plain decimal"),
        }
    }

    #[test]
    fn the_limbs_give_step_7s_sum_whatever_the_order() {
        let values = [
            "9999999999999999999",
            "-0.000000000000000001",
            "9999999999999999999",
            "-9999999999999999999",
            "123.456",
            "-0",
            "9999999999999999999",
            "9999999999999999999",
        ];
        let mut exact = ExactSum::default();
        let (mut forward, mut backward) = (Limbs::default(), Limbs::default());
        for v in values {
            exact.add(Number::Fixed(fixed(v)));
            forward.add(fixed(v));
        }
        for v in values.iter().rev() {
            backward.add(fixed(v));
        }
        assert_eq!(forward, backward);
        assert_eq!(
            forward.to_exact().to_f64().to_bits(),
            exact.to_f64().to_bits()
        );
        assert_eq!(forward.to_exact(), exact); // the same (fixed, wraps) as step 10
    }

    #[test]
    fn sums_past_i128_wrap_like_step_7() {
        let big = fixed("9999999999999999999");
        for (n, sign) in [(40, 1), (40, -1), (3, -1)] {
            let (mut limbs, mut exact) = (Limbs::default(), ExactSum::default());
            for _ in 0..n {
                limbs.add(sign * big);
                exact.add(Number::Fixed(sign * big));
            }
            assert_eq!(limbs.to_exact(), exact, "{n} x {sign}");
        }
        assert_eq!(Limbs::default().to_exact(), ExactSum::default());
    }
}
