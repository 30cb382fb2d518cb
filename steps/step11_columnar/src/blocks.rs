//! The block kernel: 64 bytes in, one `u64` bitmap per character class out, and the
//! in-quote mask as the prefix XOR of the quote bits.
//!
//! ```text
//! block   = input[pos .. pos + 64]             (the tail: copied into 64 zero bytes)
//! quote   = bit i set where block[i] == '"'    (the same for ',', LF and CR)
//! inquote = prefix_xor(quote) ^ carry          bit i = odd number of quotes at or before i
//! ```
//!
//! Each tier computes the same bits: [`Tier::Portable`] in plain Rust (SWAR: eight
//! bytes per `u64`), [`Tier::Sse2`] with four 16-byte compares, [`Tier::Avx2`] with
//! two 32-byte compares, [`Tier::Avx512`] with one 64-byte compare straight into a
//! mask register, [`Tier::Neon`] on aarch64. The x86-64 tiers take the prefix
//! XOR with one carry-less multiply (PCLMULQDQ); the others with six shifts.
//! [`Tier::Scalar`] has no bitmaps at all: it is the byte-at-a-time state machine
//! that jumps with `memchr`, the parser of step 5.

use std::sync::OnceLock;

use harness::dialect::{CR, LF, QUOTE};

/// Bytes per block: one bit per byte in a `u64`.
pub const BLOCK: usize = 64;

// ANCHOR: masks
/// One block's bitmaps. Bit `i` stands for byte `i` of the block: the lowest bit is
/// the first byte, so `trailing_zeros` finds the first match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    /// Quotes.
    pub quote: u64,
    /// Delimiters.
    pub delimiter: u64,
    /// LFs.
    pub lf: u64,
    /// CRs.
    pub cr: u64,
}
// ANCHOR_END: masks

/// A way to make the bitmaps, or none at all ([`Tier::Scalar`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// No bitmaps: the state machine, jumping over field bytes with `memchr`.
    Scalar,
    /// SWAR in plain Rust; prefix XOR by shifts. Every CPU.
    Portable,
    /// SSE2 compares (16 bytes) and PCLMULQDQ. x86-64 with PCLMULQDQ.
    Sse2,
    /// AVX2 compares (32 bytes) and PCLMULQDQ. x86-64 with both.
    Avx2,
    /// AVX-512 compares (64 bytes, into a mask register: no movemask) and
    /// PCLMULQDQ. x86-64 with AVX512BW and PCLMULQDQ.
    Avx512,
    /// NEON compares (16 bytes); prefix XOR by shifts. aarch64.
    Neon,
}

impl Tier {
    /// Every tier, slowest first.
    pub const ALL: [Tier; 6] = [
        Tier::Scalar,
        Tier::Portable,
        Tier::Sse2,
        Tier::Avx2,
        Tier::Avx512,
        Tier::Neon,
    ];

    /// The name `CSV_TIER` takes and `--verbose` prints.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Scalar => "scalar",
            Tier::Portable => "portable",
            Tier::Sse2 => "sse2",
            Tier::Avx2 => "avx2",
            Tier::Avx512 => "avx512",
            Tier::Neon => "neon",
        }
    }

    /// The tier called `name`, if any.
    pub fn from_name(name: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.name() == name)
    }

    /// True when this CPU can run the tier (detected at run time, once: the standard
    /// library caches `is_x86_feature_detected!`).
    pub fn is_supported(self) -> bool {
        match self {
            Tier::Scalar | Tier::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Tier::Sse2 => is_x86_feature_detected!("pclmulqdq"),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("pclmulqdq"),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx512 => {
                is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("pclmulqdq")
            }
            #[cfg(target_arch = "aarch64")]
            Tier::Neon => true,
            #[allow(unreachable_patterns)] // which arms remain depends on the target
            _ => false,
        }
    }

    /// The tiers this CPU can run.
    pub fn supported() -> Vec<Tier> {
        Tier::ALL.into_iter().filter(|t| t.is_supported()).collect()
    }

    /// The fastest tier this CPU has.
    pub fn detect() -> Tier {
        [
            Tier::Avx512,
            Tier::Avx2,
            Tier::Neon,
            Tier::Sse2,
            Tier::Portable,
        ]
        .into_iter()
        .find(|t| t.is_supported())
        .unwrap_or(Tier::Portable)
    }

    /// The tier the parser uses: `CSV_TIER` when it names a tier this CPU has, else
    /// [`Tier::detect`]. Decided once per process (a bad `CSV_TIER` is reported once).
    pub fn chosen() -> Tier {
        static CHOSEN: OnceLock<Tier> = OnceLock::new();
        *CHOSEN.get_or_init(|| match std::env::var("CSV_TIER") {
            Err(_) => Tier::detect(),
            Ok(name) => match Tier::from_name(&name) {
                Some(tier) if tier.is_supported() => tier,
                _ => {
                    let detected = Tier::detect();
                    eprintln!(
                        "{}: CSV_TIER={name} is not a tier this CPU has (supported: {}); using {}",
                        env!("CARGO_PKG_NAME"),
                        Tier::supported()
                            .iter()
                            .map(|t| t.name())
                            .collect::<Vec<_>>()
                            .join(", "),
                        detected.name()
                    );
                    detected
                }
            },
        })
    }

    /// `self` when this CPU has it, else [`Tier::Portable`]: the parser never runs
    /// an instruction the CPU lacks, whatever it is asked.
    pub fn or_portable(self) -> Tier {
        if self.is_supported() {
            self
        } else {
            Tier::Portable
        }
    }
}

/// The bitmaps of `block` made by `tier`, the delimiter's for `delimiter`; `None`
/// when the CPU lacks the tier, or for [`Tier::Scalar`], which makes none.
pub fn masks(tier: Tier, block: &[u8; BLOCK], delimiter: u8) -> Option<Masks> {
    if !tier.is_supported() {
        return None;
    }
    match tier {
        Tier::Scalar => None,
        Tier::Portable => Some(Portable::masks(block, delimiter)),
        // SAFETY: `is_supported` checked above that the CPU has the tier's features.
        #[cfg(target_arch = "x86_64")]
        Tier::Sse2 => Some(unsafe { Sse2::masks(block, delimiter) }),
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Tier::Avx2 => Some(unsafe { Avx2::masks(block, delimiter) }),
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 => Some(unsafe { Avx512::masks(block, delimiter) }),
        #[cfg(target_arch = "aarch64")]
        Tier::Neon => Some(Neon::masks(block, delimiter)),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// The prefix XOR of `bits` the way `tier` takes it; `None` as for [`masks`].
pub fn prefix_xor(tier: Tier, bits: u64) -> Option<u64> {
    match tier {
        Tier::Scalar => None,
        _ if !tier.is_supported() => None,
        // SAFETY: the CPU has PCLMULQDQ (checked by `is_supported` above).
        #[cfg(target_arch = "x86_64")]
        Tier::Sse2 | Tier::Avx2 | Tier::Avx512 => Some(unsafe { x86::prefix_xor_clmul(bits) }),
        _ => Some(prefix_xor_shifts(bits)),
    }
}

/// A tier's kernel, for the block walk to be generic over.
pub trait Kernel {
    /// The tier this is.
    const TIER: Tier;
    /// The bitmaps of `block`, the delimiter's for `delimiter`.
    ///
    /// # Safety
    /// The CPU has the features of [`Kernel::TIER`] (see [`Tier::is_supported`]).
    unsafe fn masks(block: &[u8; BLOCK], delimiter: u8) -> Masks;
    /// The prefix XOR of `bits`: bit `i` of the result is the XOR of bits `0..=i`.
    ///
    /// # Safety
    /// As for [`Kernel::masks`].
    unsafe fn prefix_xor(bits: u64) -> u64;
}

// ANCHOR: prefix_xor_shifts
// ANCHOR: exercise_prefix_xor
/// The prefix XOR by doubling: after the step with shift `s`, bit `i` holds the XOR
/// of bits `i-2s+1..=i`; six steps reach 64.
#[inline(always)]
pub fn prefix_xor_shifts(mut bits: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        bits ^= bits << shift;
    }
    bits
}
// ANCHOR_END: exercise_prefix_xor
// ANCHOR_END: prefix_xor_shifts

/// The portable tier: SWAR, eight bytes in each `u64`.
pub struct Portable;

/// `0x01` in every byte.
const LO: u64 = u64::from_le_bytes([0x01; 8]);
/// `0x7F` in every byte.
const LOW7: u64 = u64::from_le_bytes([0x7F; 8]);

// ANCHOR: portable
// ANCHOR: exercise_eq_bits
/// One bit per byte of `word` that equals `byte`, in the low 8 bits, byte 0 lowest.
///
/// `v = word ^ byte…byte` is zero exactly in the matching bytes. Unlike step 4's
/// first-match test, every flag must be exact here, so no borrow may cross a byte:
/// `(v & 0x7F…) + 0x7F…` sets a byte's high bit when its low seven bits are not all
/// zero and cannot carry out of the byte; OR-ing `v` adds the byte's own high bit.
/// The bytes whose high bit is still clear are the zero bytes. Then one multiply
/// gathers the eight flags (bits 0, 8, …, 56) into the top byte: `0x0102…80` shifts
/// the flag of byte `k` up by `56 - 7k`, to bit `56 + k`, and no two partial
/// products meet, so nothing carries.
#[inline(always)]
fn eq_bits(word: u64, byte: u8) -> u64 {
    let v = word ^ (LO * u64::from(byte));
    let nonzero = ((v & LOW7) + LOW7) | v;
    let zero_flags = !nonzero >> 7 & LO; // bit 8k set where byte k equals `byte`
    zero_flags.wrapping_mul(0x0102_0408_1020_4080) >> 56
}
// ANCHOR_END: exercise_eq_bits

impl Kernel for Portable {
    const TIER: Tier = Tier::Portable;

    #[inline(always)]
    unsafe fn masks(block: &[u8; BLOCK], delimiter: u8) -> Masks {
        Portable::masks(block, delimiter)
    }

    #[inline(always)]
    unsafe fn prefix_xor(bits: u64) -> u64 {
        prefix_xor_shifts(bits)
    }
}

impl Portable {
    /// [`Kernel::masks`], safe: this tier needs no CPU feature.
    #[inline(always)]
    pub fn masks(block: &[u8; BLOCK], delimiter: u8) -> Masks {
        let mut m = Masks::default();
        for (k, word) in block.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let at = 8 * k;
            m.quote |= eq_bits(word, QUOTE) << at;
            m.delimiter |= eq_bits(word, delimiter) << at;
            m.lf |= eq_bits(word, LF) << at;
            m.cr |= eq_bits(word, CR) << at;
        }
        m
    }
}
// ANCHOR_END: portable

#[cfg(target_arch = "x86_64")]
pub use x86::{Avx2, Avx512, Sse2};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{BLOCK, Kernel, Masks, Tier};
    use harness::dialect::{CR, LF, QUOTE};

    /// SSE2 compares and PCLMULQDQ.
    pub struct Sse2;
    /// AVX2 compares and PCLMULQDQ.
    pub struct Avx2;
    /// AVX-512 compares and PCLMULQDQ.
    pub struct Avx512;

    // ANCHOR: sse2
    /// The bits of the 16 bytes of `v` that equal `byte`.
    #[target_feature(enable = "sse2")]
    fn eq16(v: __m128i, byte: u8) -> u64 {
        let eq = _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8)); // 0xFF where equal
        u64::from(_mm_movemask_epi8(eq) as u16) // each byte's top bit, byte 0 lowest
    }

    #[target_feature(enable = "sse2")]
    fn masks_sse2(block: &[u8; BLOCK], delimiter: u8) -> Masks {
        let at = |offset: usize| {
            // SAFETY: offset + 16 <= 64: the 16 bytes lie inside `block`; `loadu`
            // takes any alignment.
            unsafe { _mm_loadu_si128(block.as_ptr().add(offset).cast()) }
        };
        let v = [at(0), at(16), at(32), at(48)];
        let class = |byte: u8| {
            eq16(v[0], byte)
                | eq16(v[1], byte) << 16
                | eq16(v[2], byte) << 32
                | eq16(v[3], byte) << 48
        };
        Masks {
            quote: class(QUOTE),
            delimiter: class(delimiter),
            lf: class(LF),
            cr: class(CR),
        }
    }
    // ANCHOR_END: sse2

    // ANCHOR: avx2
    /// The bits of the 32 bytes of `v` that equal `byte`.
    #[target_feature(enable = "avx2")]
    fn eq32(v: __m256i, byte: u8) -> u64 {
        // One vpbroadcastb: `_mm256_set1_epi8` of a byte known only at run time (the
        // delimiter) compiles to 32 byte inserts, redone for every block.
        let needle = _mm256_broadcastb_epi8(_mm_cvtsi32_si128(i32::from(byte)));
        let eq = _mm256_cmpeq_epi8(v, needle);
        u64::from(_mm256_movemask_epi8(eq) as u32)
    }

    #[target_feature(enable = "avx2")]
    fn masks_avx2(block: &[u8; BLOCK], delimiter: u8) -> Masks {
        let ptr = block.as_ptr();
        // SAFETY: bytes 0..32 and 32..64 lie inside `block`; `loadu` takes any alignment.
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(ptr.cast()),
                _mm256_loadu_si256(ptr.add(32).cast()),
            )
        };
        let class = |byte: u8| eq32(lo, byte) | eq32(hi, byte) << 32;
        Masks {
            quote: class(QUOTE),
            delimiter: class(delimiter),
            lf: class(LF),
            cr: class(CR),
        }
    }
    // ANCHOR_END: avx2

    // ANCHOR: avx512
    /// The bits of the 64 bytes of `v` that equal `byte`. AVX-512's compares write a
    /// mask register, one bit per byte lane, which is the bitmap itself: no
    /// movemask, and no halves to shift and join.
    #[target_feature(enable = "avx512bw")]
    fn eq64(v: __m512i, byte: u8) -> u64 {
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8))
    }

    #[target_feature(enable = "avx512bw")]
    fn masks_avx512(block: &[u8; BLOCK], delimiter: u8) -> Masks {
        // SAFETY: bytes 0..64 are `block`; `loadu` takes any alignment.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        Masks {
            quote: eq64(v, QUOTE),
            delimiter: eq64(v, delimiter),
            lf: eq64(v, LF),
            cr: eq64(v, CR),
        }
    }
    // ANCHOR_END: avx512

    // ANCHOR: clmul
    /// The prefix XOR in one instruction: the carry-less product of `bits` and
    /// `0xFFFF…FF` has, at bit `i`, the XOR of `bits[j]` for every `j <= i` (each
    /// partial product is `bits` shifted left, and carry-less addition is XOR). The
    /// low 64 bits of the 128-bit product are the answer.
    #[target_feature(enable = "pclmulqdq")]
    pub(super) fn prefix_xor_clmul(bits: u64) -> u64 {
        let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, bits as i64), _mm_set1_epi8(-1), 0);
        _mm_cvtsi128_si64(product) as u64
    }
    // ANCHOR_END: clmul

    impl Kernel for Sse2 {
        const TIER: Tier = Tier::Sse2;

        #[inline(always)]
        unsafe fn masks(block: &[u8; BLOCK], delimiter: u8) -> Masks {
            // SAFETY: the caller promises SSE2 (every x86-64 CPU has it).
            unsafe { masks_sse2(block, delimiter) }
        }

        #[inline(always)]
        unsafe fn prefix_xor(bits: u64) -> u64 {
            // SAFETY: the caller promises PCLMULQDQ, part of this tier.
            unsafe { prefix_xor_clmul(bits) }
        }
    }

    impl Kernel for Avx512 {
        const TIER: Tier = Tier::Avx512;

        #[inline(always)]
        unsafe fn masks(block: &[u8; BLOCK], delimiter: u8) -> Masks {
            // SAFETY: the caller promises AVX512BW.
            unsafe { masks_avx512(block, delimiter) }
        }

        #[inline(always)]
        unsafe fn prefix_xor(bits: u64) -> u64 {
            // SAFETY: the caller promises PCLMULQDQ, part of this tier.
            unsafe { prefix_xor_clmul(bits) }
        }
    }

    impl Kernel for Avx2 {
        const TIER: Tier = Tier::Avx2;

        #[inline(always)]
        unsafe fn masks(block: &[u8; BLOCK], delimiter: u8) -> Masks {
            // SAFETY: the caller promises AVX2.
            unsafe { masks_avx2(block, delimiter) }
        }

        #[inline(always)]
        unsafe fn prefix_xor(bits: u64) -> u64 {
            // SAFETY: the caller promises PCLMULQDQ, part of this tier.
            unsafe { prefix_xor_clmul(bits) }
        }
    }
}

#[cfg(target_arch = "aarch64")]
pub use arm::Neon;

#[cfg(target_arch = "aarch64")]
mod arm {
    //! Not compiled on the machine this step was written on (x86-64, no aarch64
    //! standard library installed): kept as simple as the x86 tiers, and
    //! tested by the same tests wherever it is built on aarch64.
    use std::arch::aarch64::*;

    use super::{BLOCK, Kernel, Masks, Tier, prefix_xor_shifts};
    use harness::dialect::{CR, LF, QUOTE};

    /// NEON compares; prefix XOR by shifts (PMULL would need the `aes` feature).
    pub struct Neon;

    /// The bits of the 64 bytes of `v` that equal `byte` (simdjson's NEON movemask:
    /// keep one distinct bit per byte lane, then three pairwise adds).
    fn eq64(v: &[uint8x16_t; 4], byte: u8) -> u64 {
        let weights: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
        // SAFETY: `weights` is 16 bytes.
        let w = unsafe { vld1q_u8(weights.as_ptr()) };
        let b = vdupq_n_u8(byte);
        let m = v.map(|x| vandq_u8(vceqq_u8(x, b), w));
        let s = vpaddq_u8(vpaddq_u8(m[0], m[1]), vpaddq_u8(m[2], m[3]));
        let s = vpaddq_u8(s, s);
        vgetq_lane_u64(vreinterpretq_u64_u8(s), 0)
    }

    impl Neon {
        /// [`Kernel::masks`], safe: NEON is part of every aarch64 CPU.
        pub fn masks(block: &[u8; BLOCK], delimiter: u8) -> Masks {
            // SAFETY: each 16-byte load lies inside the 64-byte `block`.
            let v = [0, 16, 32, 48].map(|o| unsafe { vld1q_u8(block.as_ptr().add(o)) });
            Masks {
                quote: eq64(&v, QUOTE),
                delimiter: eq64(&v, delimiter),
                lf: eq64(&v, LF),
                cr: eq64(&v, CR),
            }
        }
    }

    impl Kernel for Neon {
        const TIER: Tier = Tier::Neon;

        #[inline(always)]
        unsafe fn masks(block: &[u8; BLOCK], delimiter: u8) -> Masks {
            Neon::masks(block, delimiter)
        }

        #[inline(always)]
        unsafe fn prefix_xor(bits: u64) -> u64 {
            prefix_xor_shifts(bits)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle: one byte at a time.
    fn naive(block: &[u8; BLOCK], delimiter: u8) -> Masks {
        let bits = |c: u8| {
            (0..BLOCK)
                .filter(|&i| block[i] == c)
                .fold(0u64, |m, i| m | 1 << i)
        };
        Masks {
            quote: bits(QUOTE),
            delimiter: bits(delimiter),
            lf: bits(LF),
            cr: bits(CR),
        }
    }

    /// A bitmap as a row of 64 columns, bit 0 first: `1` set, `.` clear.
    fn row(bits: u64) -> String {
        (0..64)
            .map(|i| if bits >> i & 1 == 1 { '1' } else { '.' })
            .collect()
    }

    /// The four bitmaps, one row each.
    fn show(m: &Masks) -> String {
        format!(
            "  quote     {}\n  delimiter {}\n  lf        {}\n  cr        {}",
            row(m.quote),
            row(m.delimiter),
            row(m.lf),
            row(m.cr)
        )
    }

    #[test]
    fn every_tier_gives_the_oracles_bits_for_every_byte_at_every_position() {
        let tiers = Tier::supported();
        eprintln!("tiers on this CPU: {tiers:?}");
        for delimiter in harness::dialect::GATE_DELIMITERS {
            for byte in 0..=255u8 {
                for at in 0..BLOCK {
                    let mut block = [b'x'; BLOCK];
                    block[at] = byte;
                    let quote = (at * 7 + 3) % BLOCK;
                    block[quote] = b'"';
                    for &tier in &tiers {
                        if let Some(m) = masks(tier, &block, delimiter) {
                            let expected = naive(&block, delimiter);
                            assert!(
                                m == expected,
                                "{tier:?}, delimiter {delimiter:?}: byte {byte:#04x} at {at} (and a quote at {quote}); \
                                 one column a byte, byte 0 first:\n got\n{}\n expected (a byte loop)\n{}",
                                show(&m),
                                show(&expected)
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_prefix_xor_is_the_running_parity() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut parity = 0;
            let expected = (0..64).fold(0u64, |acc, i| {
                parity ^= x >> i & 1;
                acc | parity << i
            });
            for tier in Tier::supported() {
                if let Some(got) = prefix_xor(tier, x) {
                    assert!(
                        got == expected,
                        "{tier:?}: the prefix XOR, one column a bit, bit 0 first:\n  bits     {}\n  got      {}\n  expected {}",
                        row(x),
                        row(got),
                        row(expected)
                    );
                }
            }
        }
    }
}
