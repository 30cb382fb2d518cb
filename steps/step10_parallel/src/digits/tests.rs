//! The tests of the two number parses, and the inputs that `lanes16`'s tests share.

use super::*;
use crate::exact::parse_fixed;

/// `text` read alone (the copy near the input's start) and after 20 bytes of
/// digits (the unaligned load, with digits that a wrong mask would let in).
fn check(text: &str) {
    check_at(text, "");
    check_at(text, "9999999999999999999,");
}

fn check_at(text: &str, before: &str) {
    let input = format!("{before}{text}").into_bytes();
    let input = &input[..];
    let start = before.len();
    let expected = parse_fixed(&input[start..]);
    match parse_swar_fixed(input, start, input.len()) {
        Some(v) => assert!(
            Some(v) == expected,
            "{text:?} after {before:?}, in units of 10^-18: parse_swar_fixed gives {v}, \
             parse_fixed gives {expected:?}"
        ),
        None => assert!(
            expected.is_none() || text.starts_with('+') || text.len() > 16,
            "{text:?} not taken, though parse_fixed gives {expected:?}"
        ),
    }
}

#[test]
fn takes_what_parse_fixed_takes_and_gives_the_same_value() {
    for text in [
        "0",
        "7",
        "-7",
        "7.627",
        "-30822.57",
        "-12.3",
        "99.9",
        "1.",
        ".5",
        "-.5",
        "007",
        "1234567890123456",
        "9007199254740992",
        "9007199254740993",
        "123456789012345.6",
        "-123456789012345.",
        "0.000000000000001",
        "",
        "-",
        ".",
        "-.",
        "1..2",
        "1.2.3",
        "1e5",
        "+1",
        "1-",
        "12a",
        " 1",
        "1 ",
        "--1",
        "1/2",
        "1:2",
        "12345678901234567",
    ] {
        check(text);
    }
}

/// Every string of up to `max` bytes over `alphabet`, shortest first.
pub(crate) fn short_strings(alphabet: &[u8], max: usize) -> Vec<Vec<u8>> {
    let mut strings = vec![Vec::new()];
    let mut longest = 0..1; // the strings of the greatest length so far
    for _ in 0..max {
        for i in longest.clone() {
            for &b in alphabet {
                let longer = [&strings[i][..], &[b]].concat();
                strings.push(longer);
            }
        }
        longest = longest.end..strings.len();
    }
    strings
}

#[test]
fn every_short_string_of_digit_like_bytes() {
    // The bytes that matter (and neighbours of '0'-'9' and '.', which catch an
    // off-by-one in the SWAR tests).
    for text in short_strings(b"0159.-/:+e", 5) {
        check(std::str::from_utf8(&text).expect("ASCII"));
    }
}

/// Number bodies at every length and dot position, for the parses' tests: 0 to 18
/// bytes of digits, which cross the `u64`'s end (8 and 9 bytes) and the `u128`'s
/// and the SIMD register's (16 and 17), with the `.` at every place or none, whole
/// or with one byte spoiled (the first, the middle or the last, by `/` or `:`,
/// the bytes just outside `0`..`9`, or by a second `.`), each signed and not.
pub(crate) fn number_bodies() -> Vec<Vec<u8>> {
    let mut bodies = Vec::new();
    for len in 0..=18 {
        for dot in 0..=len {
            let mut body: Vec<u8> = (0..len).map(|i| b"1234567890"[i % 10]).collect();
            if dot < len {
                body[dot] = b'.';
            }
            let mut spoiled = vec![body.clone()];
            let places = [0, len / 2, len.saturating_sub(1)];
            for k in places.into_iter().filter(|&k| k < len) {
                for byte in [b'/', b':', b'.'] {
                    let mut body = body.clone();
                    body[k] = byte;
                    spoiled.push(body);
                }
            }
            for body in spoiled {
                bodies.push([b"-", &body[..]].concat());
                bodies.push(body);
            }
        }
    }
    bodies
}

#[test]
fn both_widths_at_every_length_and_dot_position() {
    // `check` reads each alone and after other digits.
    for body in number_bodies() {
        check(std::str::from_utf8(&body).expect("ASCII"));
    }
}

#[test]
fn reads_only_its_field_even_at_the_input_s_end() {
    let input = b"1,-2.5,3.25";
    let e = |x: i128| x * POWERS[SCALE as usize - 2];
    assert_eq!(parse_swar_fixed(input, 0, 1), Some(e(100)));
    assert_eq!(parse_swar_fixed(input, 2, 6), Some(e(-250)));
    assert_eq!(parse_swar_fixed(input, 7, 11), Some(e(325)));
}
