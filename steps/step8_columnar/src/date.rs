//! Dates as days since 1970-01-01 (an `i32`, as Arrow's `Date32`), from and to the
//! one text form this step accepts, `YYYY-MM-DD`.
//!
//! The day count is Howard Hinnant's `days_from_civil` ("chrono-Compatible Low-Level
//! Date Algorithms"): shift the year to start in March, so that the leap day is the
//! last day of the year, then count 400-year eras of 146,097 days.

/// The days since 1970-01-01 of a field `YYYY-MM-DD` (four, two and two ASCII digits,
/// a real day of the proleptic Gregorian calendar); `None` for any other field. Only
/// this form is accepted, so [`format()`] gives back the field's exact bytes.
pub fn parse(field: &[u8]) -> Option<i32> {
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = *field else {
        return None;
    };
    let digits = |bytes: &[u8]| {
        bytes.iter().try_fold(0u32, |n, &b| {
            b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))
        })
    };
    let (y, m, d) = (
        digits(&[y0, y1, y2, y3])?,
        digits(&[m0, m1])?,
        digits(&[d0, d1])?,
    );
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(i64::from(y), m, d) as i32)
}

/// The field `YYYY-MM-DD` of a day count made by [`parse`], into `out` (10 bytes).
pub fn format(days: i32, out: &mut Vec<u8>) {
    let (y, m, d) = civil_from_days(i64::from(days));
    out.extend_from_slice(format!("{y:04}-{m:02}-{d:02}").as_bytes());
}

fn days_in_month(y: u32, m: u32) -> u32 {
    let leap = y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400));
    match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to year `y`, month `m` (1–12), day `d`.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400; // 0..=399
    let mp = i64::from((m + 9) % 12); // March is 0
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1; // 0..=365
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; // 0..=146096
    era * 146_097 + doe - 719_468
}

/// The inverse of [`days_from_civil`].
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
