//! Dates as days since 1970-01-01 (an `i32`, as Arrow's `Date32`), from and to the
//! one text form this step accepts, `YYYY-MM-DD`.
//!
//! The parse counts days directly: 365 a year, the leap days before the year (every
//! 4th year, not every 100th, again every 400th), the days before the month from a
//! table, and one more past February of a leap year. Every division is by a
//! constant, on an unsigned number, so it compiles to a multiply and a shift. The
//! way back ([`format()`]) is Howard Hinnant's `civil_from_days` ("chrono-Compatible
//! Low-Level Date Algorithms"), and the tests hold each against the other.

/// Days from 0000-01-01 (proleptic Gregorian) to 1970-01-01.
const EPOCH: u32 = 719_528;

/// Days in the months before month `m` (index `m - 1`), in a year of 365 days.
const DAYS_BEFORE_MONTH: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

// ANCHOR: parse
/// The days since 1970-01-01 of a field `YYYY-MM-DD` (four, two and two ASCII digits,
/// a real day of the proleptic Gregorian calendar); `None` for any other field. Only
/// this form is accepted, so [`format()`] gives back the field's exact bytes.
///
/// Both passes of the load call it on every field of a date column, so it is written
/// to be branch-light: the eight digits tested and combined in one word, and the
/// day counted with divisions by constants.
#[inline(always)]
pub fn parse(field: &[u8]) -> Option<i32> {
    let (y, m, d) = digits(field.try_into().ok()?)?;
    let leap = y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400));
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(m, leap) {
        return None;
    }
    let day_of_year = DAYS_BEFORE_MONTH[m as usize - 1] + u32::from(leap && m > 2) + d - 1;
    Some((days_before_year(y) + day_of_year) as i32 - EPOCH as i32)
}

/// The year, month and day numbers of `YYYY-MM-DD`, with all eight digits read as
/// one word (SWAR): `None` unless the dashes are dashes and the digits digits.
fn digits(field: &[u8; 10]) -> Option<(u32, u32, u32)> {
    let head = u64::from_le_bytes(field[..8].try_into().expect("8 bytes")); // YYYY-MM-
    let tail = u64::from(u16::from_le_bytes([field[8], field[9]])); // DD
    if (head >> 32) as u8 != b'-' || (head >> 56) as u8 != b'-' {
        return None;
    }
    // The eight digit bytes side by side, little-endian: Y Y Y Y M M D D.
    let v = head & 0xFFFF_FFFF | (head >> 40 & 0xFFFF) << 32 | tail << 48;
    // A byte is a digit exactly when its high nibble is 3 and stays 3 after adding
    // 6 ('9' + 6 is 0x3F, ':' + 6 is 0x40): Lemire's test for eight digits at once.
    // (A byte of 0xFA or more carries into the next, but it fails on its own.)
    let low = 0x0606_0606_0606_0606u64;
    let high = 0xF0F0_F0F0_F0F0_F0F0u64;
    if (v & high) | ((v.wrapping_add(low) & high) >> 4) != 0x3333_3333_3333_3333 {
        return None;
    }
    let x = v & 0x0F0F_0F0F_0F0F_0F0F; // the digits' values
    // Each even byte becomes tens * 10 + units, the odd byte beside it added in:
    // at most 99, so no byte carries into the next.
    let pairs = (x * 10 + (x >> 8)) & 0x00FF_00FF_00FF_00FF;
    let pair = |k: u32| (pairs >> (16 * k)) as u32 & 0xFF;
    Some((pair(0) * 100 + pair(1), pair(2), pair(3)))
}

/// Days from 0000-01-01 to January 1st of year `y` (0..=9999): 365 a year and a
/// leap day for each leap year before `y`. Year 0 is a leap year; counting from
/// `y + 399` (that is `y - 1 + 400`) keeps the divisions unsigned, and the 400 added
/// years hold 100 - 4 + 1 leap years to take off again, plus year 0's.
fn days_before_year(y: u32) -> u32 {
    let z = y + 399;
    365 * y + z / 4 - z / 100 + z / 400 - 96
}
// ANCHOR_END: parse

/// Days in month `m` (1–12).
fn days_in_month(m: u32, leap: bool) -> u32 {
    match m {
        2 => 28 + u32::from(leap),
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The field `YYYY-MM-DD` of a day count made by [`parse`], into `out` (10 bytes).
pub fn format(days: i32, out: &mut Vec<u8>) {
    let (y, m, d) = civil_from_days(i64::from(days));
    out.extend_from_slice(format!("{y:04}-{m:02}-{d:02}").as_bytes());
}

/// The year, month and day of `z` days since 1970-01-01: Hinnant's
/// `civil_from_days`, the inverse of [`parse`]'s count.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parse written plainly, a digit at a time, with Hinnant's
    /// `days_from_civil`: the reference for [`parse`]'s word-at-a-time one.
    fn parse_plain(field: &[u8]) -> Option<i32> {
        let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = *field else {
            return None;
        };
        let number = |bytes: &[u8]| {
            bytes.iter().try_fold(0i64, |n, &b| {
                b.is_ascii_digit().then(|| n * 10 + i64::from(b - b'0'))
            })
        };
        let (y, m, d) = (
            number(&[y0, y1, y2, y3])?,
            number(&[m0, m1])?,
            number(&[d0, d1])?,
        );
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let month_days = [
            31,
            28 + i64::from(leap),
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        if !(1..=12).contains(&m) || d == 0 || d > month_days[m as usize - 1] {
            return None;
        }
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        Some((era * 146_097 + doe - 719_468) as i32)
    }

    #[test]
    fn the_word_parse_agrees_with_the_plain_one_on_every_byte_at_every_place() {
        for date in [
            "2024-02-29",
            "1999-12-31",
            "0000-01-01",
            "9999-12-31",
            "2023-03-01",
        ] {
            assert_eq!(
                parse(date.as_bytes()),
                parse_plain(date.as_bytes()),
                "{date}"
            );
            for at in 0..10 {
                for byte in 0..=255u8 {
                    let mut field = date.as_bytes().to_vec();
                    field[at] = byte;
                    assert_eq!(parse(&field), parse_plain(&field), "{field:?}");
                }
            }
        }
        // Every month and day number 00..=99 of a leap and a common year.
        for (m, d) in (0..100).flat_map(|m| (0..100).map(move |d| (m, d))) {
            for y in ["2000", "1900", "2023"] {
                let field = format!("{y}-{m:02}-{d:02}");
                assert_eq!(
                    parse(field.as_bytes()),
                    parse_plain(field.as_bytes()),
                    "{field}"
                );
            }
        }
    }

    #[test]
    fn known_days_and_every_day_round_trips() {
        assert_eq!(parse(b"1970-01-01"), Some(0));
        assert_eq!(parse(b"2000-03-01"), Some(11_017));
        assert_eq!(parse(b"1969-12-31"), Some(-1));
        assert_eq!(parse(b"0000-01-01"), Some(-719_528));
        // Every day of years 0000..=9999 (the four-digit years), a week apart, and
        // every day of 1999..=2001 (leap years by the 400 and the 4 rule).
        let every_week = (-719_528..2_932_897).step_by(7);
        for days in every_week.chain(10_592..11_688) {
            let mut text = Vec::new();
            format(days, &mut text);
            assert_eq!(
                parse(&text),
                Some(days),
                "{}",
                String::from_utf8_lossy(&text)
            );
        }
    }

    #[test]
    fn only_real_days_in_the_one_form() {
        for bad in [
            "2023-02-29",
            "2024-02-30",
            "2024-13-01",
            "2024-00-10",
            "2024-01-00",
            "2024-1-01",
            "24-01-01",
            "2024/01/01",
            "2024-01-01 ",
            "+024-01-01",
            "",
        ] {
            assert_eq!(parse(bad.as_bytes()), None, "{bad}");
        }
        assert_eq!(parse(b"2024-02-29"), Some(19_782));
    }
}
