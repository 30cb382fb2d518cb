//! The SIMD steps' tiers (6 and later), as one family of tests:
//! [`crate::simd_tier_tests!`]. Every tier the CPU has, against the reference parser
//! and against each other: the gate on each tier, identical bitmaps on the gate corpus
//! and on random bytes, and every input of 0..=200 bytes with a quote, CR, LF or
//! delimiter at each position around the 64-byte boundaries. A tier the CPU lacks
//! runs as `portable` (and says so on stderr).
//!
//! The family needs what steps 7 to 11 carry alike: `blocks::{masks, prefix_xor,
//! prefix_xor_shifts, BLOCK, Tier}`, a `Parser` with `for_each_record_in(tier, ..)`
//! and `stats()`, and `With<force::Scalar>` (and the other tiers) on the `Step`
//! interface.
//!
//! ```text
//! // steps/step7_cost/tests/tiers.rs
//! harness::simd_tier_tests!(step7, Step7);
//! ```

/// The family of tier tests for the crate `$krate`, whose `Step` is `$krate::$step`.
#[macro_export]
macro_rules! simd_tier_tests {
    ($krate:ident, $step:ident) => {
        use $crate::harness::reference;
        use $crate::harness::{ParseError, Record};
        use $krate::Parser;
        use $krate::blocks::{self, BLOCK, Tier};

        mod gate_scalar {
            $crate::gate_tests!($krate::With<$krate::force::Scalar>);
        }
        mod gate_portable {
            $crate::gate_tests!($krate::With<$krate::force::Portable>);
        }
        mod gate_sse2 {
            $crate::gate_tests!($krate::With<$krate::force::Sse2>);
        }
        mod gate_avx2 {
            $crate::gate_tests!($krate::With<$krate::force::Avx2>);
        }
        mod gate_avx512 {
            $crate::gate_tests!($krate::With<$krate::force::Avx512>);
        }

        fn records_in(tier: Tier, input: &[u8]) -> Result<Vec<Record>, ParseError> {
            let mut records = Vec::new();
            Parser::default().for_each_record_in(tier, input, |r| {
                records.push(r.fields().map(|f| f.cooked().into_owned()).collect());
            })?;
            Ok(records)
        }

        /// Every supported tier gives the reference parser's records (or error) for `input`.
        fn check(input: &[u8]) {
            let expected = reference::parse(input);
            for tier in Tier::supported() {
                let got = records_in(tier, input);
                assert_eq!(
                    got,
                    expected,
                    "{tier:?} on {:?}",
                    $crate::harness::gate::show(input, 300)
                );
            }
        }

        /// The bitmaps of every block of `input` (the tail zero-padded), from every tier,
        /// equal the portable tier's, which `blocks`' unit test checks against a naive loop.
        fn check_bitmaps(input: &[u8]) {
            for chunk in input.chunks(BLOCK) {
                let mut block = [0u8; BLOCK];
                block[..chunk.len()].copy_from_slice(chunk);
                for d in $crate::harness::dialect::GATE_DELIMITERS {
                    let portable = blocks::masks(Tier::Portable, &block, d).unwrap();
                    for tier in Tier::supported() {
                        if let Some(m) = blocks::masks(tier, &block, d) {
                            assert_eq!(m, portable, "{tier:?} {:?}", d as char);
                        }
                    }
                }
                let portable = blocks::masks(Tier::Portable, &block, b',').unwrap();
                for tier in Tier::supported() {
                    if let Some(x) = blocks::prefix_xor(tier, portable.quote) {
                        assert_eq!(x, blocks::prefix_xor_shifts(portable.quote), "{tier:?}");
                    }
                }
            }
        }

        #[test]
        fn the_tiers_this_cpu_has() {
            let tiers: Vec<_> = Tier::supported().iter().map(|t| t.name()).collect();
            eprintln!("tested tiers: {}", tiers.join(", "));
            assert!(tiers.contains(&"scalar") && tiers.contains(&"portable"));
        }

        #[test]
        fn identical_bitmaps_and_records_on_the_gate_corpus() {
            for case in $crate::harness::gate::cases::load_all().unwrap() {
                check_bitmaps(&case.input);
                for tier in Tier::supported() {
                    assert_eq!(
                        records_in(tier, &case.input),
                        case.expected,
                        "{tier:?} {}",
                        case.name
                    );
                }
            }
        }

        /// A small xorshift generator, so the test needs no dependency.
        struct Rng(u64);
        impl Rng {
            fn next(&mut self) -> u64 {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                self.0
            }
        }

        #[test]
        fn identical_bitmaps_and_records_on_random_inputs() {
            let alphabet = b"ab\",\r\n\"\",,";
            let mut rng = Rng(0x2545_F491_4F6C_DD1D);
            for _ in 0..20_000 {
                let len = (rng.next() % 300) as usize;
                let input: Vec<u8> = (0..len)
                    .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
                    .collect();
                check_bitmaps(&input);
                check(&input);
            }
        }

        #[test]
        fn random_bytes_give_identical_bitmaps() {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
            for _ in 0..5_000 {
                let input: Vec<u8> = (0..200).map(|_| rng.next() as u8).collect();
                check_bitmaps(&input);
            }
        }

        #[test]
        fn every_length_with_a_special_byte_at_every_position() {
            // Backgrounds: plain fields, and one inside a quoted field, so that the special
            // byte lands in both states around each boundary.
            for len in 0..=200usize {
                for background in [&b"ab,cd\n"[..], b"\"a,\nb\"\n"] {
                    let base: Vec<u8> = background.iter().copied().cycle().take(len).collect();
                    check(&base);
                    for at in 0..len {
                        for special in [b'"', b'\r', b'\n', b','] {
                            let mut input = base.clone();
                            input[at] = special;
                            check(&input);
                        }
                    }
                }
            }
        }

        #[test]
        fn lenient_quotes_fall_back_and_the_count_says_so() {
            let mut clean = b"a,\"b,c\",\"d\"\"e\"\n".repeat(20);
            let mut parser = Parser::default();
            for tier in Tier::supported().into_iter().filter(|&t| t != Tier::Scalar) {
                parser.for_each_record_in(tier, &clean, |_| {}).unwrap();
                assert_eq!(parser.stats().fallbacks, 0, "{tier:?}");
            }
            clean.extend_from_slice(b"x\"y,\"ab\"c\n");
            clean.extend(b"a,b\n".repeat(40));
            check(&clean);
            for tier in Tier::supported().into_iter().filter(|&t| t != Tier::Scalar) {
                parser.for_each_record_in(tier, &clean, |_| {}).unwrap();
                let stats = parser.stats();
                assert_eq!(stats.tier, Some(tier));
                assert_eq!(stats.fallbacks, 1, "{tier:?}: {stats:?}");
                assert!(stats.fallback_bytes < 3 * BLOCK as u64, "{stats:?}");
            }
        }

        #[test]
        fn a_closing_quote_then_cr_lf_across_a_block_boundary_needs_no_fallback() {
            // 60 bytes, then `"x"` with its closing quote at byte 62, CR at 63, LF at 64.
            let mut input = b"a,b\n".repeat(15);
            input.extend_from_slice(b"\"x\"\r\nc\n");
            assert_eq!(&input[62..65], b"\"\r\n");
            check(&input);
            let mut parser = Parser::default();
            for tier in Tier::supported().into_iter().filter(|&t| t != Tier::Scalar) {
                parser.for_each_record_in(tier, &input, |_| {}).unwrap();
                assert_eq!(parser.stats().fallbacks, 0, "{tier:?}");
            }
        }

        #[test]
        fn the_default_tier_is_the_fastest_supported_or_the_forced_one() {
            let chosen = Tier::chosen();
            assert!(chosen.is_supported());
            match std::env::var("CSV_TIER") {
                Ok(name) if Tier::from_name(&name).is_some_and(Tier::is_supported) => {
                    assert_eq!(chosen.name(), name)
                }
                _ => assert_eq!(chosen, Tier::detect()),
            }
            let mut parser = Parser::default();
            parser.for_each_record(b"a\n", |_| {}).unwrap();
            assert_eq!(parser.stats().tier, Some(chosen));
            assert!(<$krate::$step>::records(b"a").is_ok());
        }

        use $crate::harness::Step as _;
    };
}
