//! Every tier against a naive byte loop, at every length from 0 to 80 bytes, with the
//! byte being looked for at each position of the last word (the field ends exactly
//! at the end of the buffer) and nowhere. Inputs are allocated to their exact length,
//! so a tier that read past the end would read outside the allocation (a tool such
//! as AddressSanitizer or Miri would catch it; safe Rust panics on the index first).
//!
//! The filler holds the bytes one above each special byte (`-`, 0x0B, 0x0E, `#`):
//! right above a match they are exactly the false flags of the SWAR zero-byte test.

use harness::dialect::{CR, DELIMITER, LF, QUOTE};
use step4::scan::{Memchr, Scalar, Scanner, Swar};

fn naive_field_end(h: &[u8], delimiter: u8) -> Option<usize> {
    (0..h.len()).find(|&i| h[i] == delimiter || h[i] == LF || h[i] == CR)
}

fn naive_quote(h: &[u8]) -> Option<usize> {
    (0..h.len()).find(|&i| h[i] == QUOTE)
}

const FILLER: &[u8] = b"a-\x0b\x0e#b\x01\xff\x80z";

/// `n` bytes of filler with `special` at `at`, and (when `second` is given) another
/// special byte right after it; allocated to exactly `n` bytes.
fn input(n: usize, special: Option<(usize, u8)>, second: Option<u8>) -> Box<[u8]> {
    let mut v = Vec::with_capacity(n);
    v.extend((0..n).map(|i| FILLER[i % FILLER.len()]));
    if let Some((at, b)) = special {
        v[at] = b;
        if let (Some(b2), true) = (second, at + 1 < n) {
            v[at + 1] = b2;
        }
    }
    let boxed = v.into_boxed_slice();
    assert_eq!(boxed.len(), n);
    boxed
}

fn check<S: Scanner>(h: &[u8], what: &str) {
    let report = |scan: &str, got: Option<usize>, expected: Option<usize>| {
        format!(
            "{}::{scan}, {what}:\n  haystack b\"{}\"\n  got      {got:?}\n  expected {expected:?} (a byte loop)",
            S::NAME,
            h.escape_ascii()
        )
    };
    // The comma, and a delimiter the filler does not sit next to.
    for d in [DELIMITER, b';'] {
        let (got, expected) = (S::find_field_end(h, d), naive_field_end(h, d));
        let scan = format!("find_field_end with {:?}", d as char);
        assert!(got == expected, "{}", report(&scan, got, expected));
    }
    let (got, expected) = (S::find_quote(h), naive_quote(h));
    assert!(got == expected, "{}", report("find_quote", got, expected));
}

fn check_all(h: &[u8], what: &str) {
    check::<Scalar>(h, what);
    check::<Swar>(h, what);
    check::<Memchr>(h, what);
}

#[test]
fn every_tier_agrees_with_the_byte_loop_at_every_length_and_position() {
    let specials = [DELIMITER, LF, CR, QUOTE];
    for n in 0..=80 {
        check_all(
            &input(n, None, None),
            &format!("length {n}, no special byte"),
        );
        let last_word = n.saturating_sub(8)..n;
        for at in last_word {
            for &b in &specials {
                for second in [None, Some(b + 1), Some(DELIMITER), Some(QUOTE)] {
                    let h = input(n, Some((at, b)), second);
                    let then = match second {
                        Some(b2) if at + 1 < n => format!(", then {b2:#04x} at {}", at + 1),
                        _ => String::new(),
                    };
                    check_all(&h, &format!("length {n}, {b:#04x} at {at}{then}"));
                    // Every suffix too: scans start anywhere in the input.
                    for from in 1..=n {
                        check_all(&h[from..], &format!("length {n} from {from}"));
                    }
                }
            }
        }
    }
}

#[test]
fn a_match_in_every_position_of_every_word() {
    for n in [8, 16, 24, 64] {
        for at in 0..n {
            for b in [DELIMITER, LF, CR, QUOTE] {
                check_all(
                    &input(n, Some((at, b)), Some(b + 1)),
                    &format!("{b:#x} at {at} of {n}"),
                );
            }
        }
    }
}
