//! A ratio of two integers rounded once to the nearest `f64`: the mean of an exact
//! sum ([`crate::exact`]) and an exact value's conversion ([`crate::extremes`]) are
//! both `a / q` with `a` and `q` integers, and rounding the ratio once, rather than
//! each of them and then the quotient, is what makes the answer the same in any
//! order of the rows.

// ANCHOR: ratio
/// `a / q` rounded to the nearest `f64`, ties to even, for `0 < q < 2^126`: a
/// quotient of at least 64 significant bits, then the 53 kept, the next bit and a
/// sticky remainder decide the rounding, as IEEE division does. For `q < 2^64` (a
/// sum's scale, `10^18`, and a mean's for fewer than about 18 million values) one
/// division gives those bits: `a` shifted left first, so that the quotient of the
/// shifted `a` has 64 bits or more; a larger `q` takes long division, a bit a step.
/// First, when `a` and `q` are exact `f64`s once divided by 10^12, as most sums of
/// plain decimals and their scale are, one `f64` division (`exact_operands`).
// (Inlined, so that a constant `q`, a sum's scale, folds at compile time; the long
// division is out of line.)
#[inline]
pub fn ratio_to_f64(a: u128, q: u128) -> f64 {
    if a == 0 {
        return 0.0;
    }
    exact_operands(a, q).unwrap_or_else(|| long_ratio(a, q))
}

/// [`ratio_to_f64`] by long division, for `0 < a` and `0 < q < 2^126`.
#[cold]
#[inline(never)]
fn long_ratio(a: u128, q: u128) -> f64 {
    let bits = |x: u128| 128 - x.leading_zeros() as i32;
    let shift = if q >> 64 == 0 {
        (64 + bits(q) - bits(a)).clamp(0, a.leading_zeros() as i32)
    } else {
        0
    };
    let a = a << shift; // at most 64 + bits(q) <= 128 bits: no overflow
    let (mut m, mut r, mut e) = (a / q, a % q, -shift);
    while m < 1 << 63 {
        r <<= 1; // r < q < 2^126: no overflow
        m = m << 1 | u128::from(r >= q);
        if r >= q {
            r -= q;
        }
        e -= 1;
    }
    let shift = 128 - m.leading_zeros() - 53; // at least 11
    let (kept, rest, half) = (m >> shift, m & ((1 << shift) - 1), 1u128 << (shift - 1));
    let up = rest > half || (rest == half && (r != 0 || kept & 1 == 1));
    // At most 2^53: exact as an f64, and so is the scaling by a power of two.
    (kept + u128::from(up)) as f64 * 2f64.powi(e + shift as i32)
}

/// `a / q` by one `f64` division, when both are exact `f64`s (under 2^53) once each is
/// divided by 10^12, which a plain decimal of up to six digits after the point and
/// its scale, 10^18, both are multiples of: IEEE division then rounds the exact
/// quotient once, correctly (Clinger's fast path, "How to Read Floating Point Numbers
/// Accurately", PLDI 1990). `None` for any other pair.
#[inline]
fn exact_operands(a: u128, q: u128) -> Option<f64> {
    let (a, q) = tera_fold(a).zip(tera_fold(q)).unwrap_or((a, q));
    // Through `u64`: a `u128` has no conversion instruction, and both are under 2^53.
    (a < 1 << 53 && q < 1 << 53).then(|| a as u64 as f64 / q as u64 as f64)
}

/// `x / 10^12` when `x` is a multiple of 10^12 = 2^12 x 5^12, found without a
/// division of `u128`s: `x / 2^12` times the inverse of 5^12 modulo 2^128 is the
/// quotient when 5^12 divides it, and, because multiplying by that inverse permutes
/// the `u128`s and sends the multiples of 5^12 to `0..=u128::MAX / 5^12` in order, a
/// number past that range when 5^12 does not divide it (Granlund and Montgomery,
/// "Division by Invariant Integers using Multiplication", PLDI 1994, section 9).
#[inline]
fn tera_fold(x: u128) -> Option<u128> {
    const P: u128 = 244_140_625; // 5^12
    const INVERSE: u128 = inverse_mod_2_128(P);
    let q = (x >> 12).wrapping_mul(INVERSE);
    (x.trailing_zeros() >= 12 && q <= u128::MAX / P).then_some(q)
}

/// The inverse of the odd `p` modulo 2^128, by Newton's iteration: each step doubles
/// the bits that are right, from the 3 that `p` itself gets right (`p x p = 1` modulo 8).
const fn inverse_mod_2_128(p: u128) -> u128 {
    let mut x = p;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u128.wrapping_sub(p.wrapping_mul(x)));
        i += 1;
    }
    x
}
// ANCHOR_END: ratio

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path against the long division it skips, on multiples of 10^12 of
    /// every size around 2^53 and on the means of such sums.
    #[test]
    fn the_fast_path_rounds_as_the_long_division() {
        let slow = long_ratio;
        let tera = 1_000_000_000_000u128;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for bits in 1..=60 {
            for _ in 0..300 {
                // Knuth's MMIX generator: its top bits are the well-mixed ones.
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let m = (u128::from(x) >> (64 - bits)).max(1);
                for n in [1u128, 3, 7, 1000, 999_983] {
                    let (a, q) = (m * tera, n * 10u128.pow(18));
                    assert_eq!(ratio_to_f64(a, q), slow(a, q), "{a}/{q}");
                    let a = a + 1; // not a multiple: the long division
                    assert_eq!(ratio_to_f64(a, q), slow(a, q), "{a}/{q}");
                }
            }
        }
        // Against the division it replaces, at every size of quotient.
        for bits in 0..=87 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let m = (u128::from(x) << 64 | u128::from(x.rotate_left(17))) >> (128 - bits.max(1));
            for r in [0, 1, 4096, 244_140_625, tera / 2, tera - 1] {
                let n = m * tera + r;
                assert_eq!(
                    tera_fold(n),
                    n.is_multiple_of(tera).then(|| n / tera),
                    "{n}"
                );
            }
        }
        assert_eq!(tera_fold(5 * tera), Some(5));
        assert_eq!(tera_fold(u128::MAX / tera * tera), Some(u128::MAX / tera));
        assert_eq!(tera_fold(tera / 2), None);
        assert_eq!(tera_fold(tera * 5 + 4096), None);
        assert_eq!(inverse_mod_2_128(244_140_625).wrapping_mul(244_140_625), 1);
    }
}
