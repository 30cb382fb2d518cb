//! The answer of a query: its groups, and how they are printed (JSON, a table, the
//! One Billion Row Challenge's line), the same for every query step so that any two
//! can be compared from outside (`--json`).

use serde_json::{Map, Value, json};

use crate::json::hex;
use crate::query::Aggs;

/// One group of the answer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Group {
    /// `COUNT(*)`: every record of the group, NULL values included.
    pub count: u64,
    /// `SUM(value)` over the non-NULL values; `None` when there were none (SQL NULL).
    pub sum: Option<f64>,
    /// `MIN(value)`; `None` when there was no non-NULL value (or the step did not
    /// compute it: the baseline, step 13's device without `--agg min`).
    pub min: Option<f64>,
    /// `MAX(value)`, as `min`.
    pub max: Option<f64>,
    /// `AVG(value)`: the sum over the non-NULL values divided by their number; from
    /// an exact sum (steps 8 to 13) rounded once.
    pub mean: Option<f64>,
}

impl Group {
    /// The aggregate `agg` (one of [`Aggs::NAMES`]) as JSON: a number, `null`, or
    /// `"inf"`/`"-inf"` for a sum that overflowed.
    fn json(&self, agg: Aggs) -> Value {
        match agg {
            Aggs::COUNT => json!(self.count),
            Aggs::SUM => sum_to_json(self.sum),
            Aggs::MIN => sum_to_json(self.min),
            Aggs::MAX => sum_to_json(self.max),
            _ => sum_to_json(self.mean),
        }
    }

    /// The aggregate `agg` as the table shows it: six decimals, or `NULL`.
    fn text(&self, agg: Aggs) -> String {
        let number = |v: Option<f64>| v.map_or("NULL".into(), |s| format!("{s:.6}"));
        match agg {
            Aggs::COUNT => self.count.to_string(),
            Aggs::SUM => number(self.sum),
            Aggs::MIN => number(self.min),
            Aggs::MAX => number(self.max),
            _ => number(self.mean),
        }
    }
}

pub use crate::query::groups::{Groups, GroupsBuilder};

/// A key (or any field) as text, without losing a byte: valid UTF-8 as it is but for
/// the backslash, written `\\`; each byte of an invalid sequence as `\xNN`. So the
/// key of the byte `0xFF` (`\xff`) and the key of the four characters `\xff`
/// (`\\xff`) stay two keys. The same text in the table and in JSON.
pub fn key_text(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{}", hex(&[*b])));
        }
    }
    out
}

/// The answer as JSON: `{"<key>": {"count": N, "sum": S}, …}`, keys as
/// [`key_text`] in the order of that text, `sum` `null` for a group without a
/// non-NULL value (SQL NULL). A finite sum prints as the shortest decimal that reads
/// back to the same bits; a sum that overflowed `f64` prints as the string `"inf"` or
/// `"-inf"` (JSON has no infinity, and `null` would read as SQL NULL).
pub fn groups_to_json(groups: &Groups) -> Value {
    groups_to_json_with(groups, Aggs::DEFAULT)
}

/// [`groups_to_json`] with the aggregates `aggs` (`--agg`), named as in
/// [`Aggs::NAMES`], in that order.
pub fn groups_to_json_with(groups: &Groups, aggs: Aggs) -> Value {
    let map: Map<String, Value> = groups
        .iter()
        .map(|(key, g)| (key_text(key), group_to_json(g, aggs)))
        .collect();
    Value::Object(map)
}

/// One group's JSON object, with the aggregates `aggs`.
fn group_to_json(g: &Group, aggs: Aggs) -> Value {
    let fields: Map<String, Value> = Aggs::NAMES
        .iter()
        .filter(|(_, agg)| aggs.has(*agg))
        .map(|(name, agg)| (name.to_string(), g.json(*agg)))
        .collect();
    Value::Object(fields)
}

/// Where the answers `a` and `b`, named `names`, first differ for the aggregates
/// `aggs`, in one line whatever their sizes: the first key in key order that one of
/// them lacks or whose JSON differs (both objects given), and how many groups each
/// has; `None` when they are the same answer ([`same_answer`]). A key is shown up to
/// 60 characters of its [`key_text`].
pub fn first_difference(a: &Groups, b: &Groups, aggs: Aggs, names: (&str, &str)) -> Option<String> {
    let short = |key: &[u8]| {
        let text = key_text(key);
        match text.char_indices().nth(60) {
            Some((cut, _)) => format!("{:?}…", &text[..cut]),
            None => format!("{text:?}"),
        }
    };
    let (mut ia, mut ib) = (a.iter().peekable(), b.iter().peekable());
    let first = loop {
        match (ia.peek(), ib.peek()) {
            (None, None) => return None,
            (Some(&(key, _)), None) => {
                break format!("{} has the group {}, {} not", names.0, short(key), names.1);
            }
            (None, Some(&(key, _))) => {
                break format!("{} has the group {}, {} not", names.1, short(key), names.0);
            }
            (Some(&(ka, ga)), Some(&(kb, gb))) => match ka.cmp(kb) {
                std::cmp::Ordering::Less => {
                    break format!("{} has the group {}, {} not", names.0, short(ka), names.1);
                }
                std::cmp::Ordering::Greater => {
                    break format!("{} has the group {}, {} not", names.1, short(kb), names.0);
                }
                std::cmp::Ordering::Equal => {
                    let (ja, jb) = (group_to_json(ga, aggs), group_to_json(gb, aggs));
                    if ja != jb {
                        break format!(
                            "the group {} is {ja} in {}, {jb} in {}",
                            short(ka),
                            names.0,
                            names.1
                        );
                    }
                    ia.next();
                    ib.next();
                }
            },
        }
    };
    Some(format!(
        "{first} ({} groups in {}, {} in {})",
        a.len(),
        names.0,
        b.len(),
        names.1
    ))
}

/// Whether `a` and `b` are the same answer for the aggregates `aggs`: what comparing
/// their [`groups_to_json_with`] says, without building either JSON, which takes
/// hundreds of bytes a group. Both are in key order, and [`key_text`] loses no byte,
/// so the same JSON is the same keys pair by pair, each with the same JSON of every
/// aggregate in `aggs`.
pub fn same_answer(a: &Groups, b: &Groups, aggs: Aggs) -> bool {
    let shown = || Aggs::NAMES.iter().filter(|(_, agg)| aggs.has(*agg));
    a.len() == b.len()
        && a.iter()
            .zip(b.iter())
            .all(|((key_a, group_a), (key_b, group_b))| {
                key_a == key_b && shown().all(|(_, agg)| group_a.json(*agg) == group_b.json(*agg))
            })
}

fn sum_to_json(sum: Option<f64>) -> Value {
    match sum {
        None => Value::Null,
        Some(s) if s.is_finite() => json!(s),
        Some(s) => Value::String(s.to_string()),
    }
}

/// The answer as the One Billion Row Challenge prints it: `{name=min/mean/max, ...}`,
/// sorted by name, one decimal each, the mean rounded half up as the challenge's
/// `Math.round(x * 10.0) / 10.0` ([`gen_csv::brc::answer_text`] writes the reference).
/// The values have one decimal, so ten times the sum and the extremes are integers
/// that the `f64`s hold exactly (to 2^53 / 10: about 9e14 degrees); the mean is then
/// computed from integers, rounded once.
///
/// # Errors
/// [`BrcError`]: what the challenge's input cannot hold, naming the station: a
/// temperature outside -99.9 to 99.9 or with more than one decimal, or a line without
/// one (an empty field is NULL here; the challenge has none). A station with some NULL lines is found by its
/// mean, which is its sum over its values, not over its lines: the two differ by at
/// least one part in its number of lines unless the sum is zero, when the mean
/// printed is 0.0 either way.
pub fn groups_to_1brc(groups: &Groups) -> Result<String, BrcError> {
    let tenths_of = |v: f64| (v * 10.0).round() as i64;
    let mut parts = Vec::with_capacity(groups.len());
    for (key, g) in groups.iter() {
        let station = key_text(key);
        let (Some(sum), Some(min), Some(max), Some(mean)) = (g.sum, g.min, g.max, g.mean) else {
            return Err(BrcError::NoTemperature { station });
        };
        if (mean * g.count as f64 - sum).abs() > sum.abs() * 1e-12 {
            return Err(BrcError::LineWithoutTemperature { station });
        }
        for v in [min, max] {
            if !(-99.9..=99.9).contains(&v) {
                return Err(BrcError::OutOfRange { station, value: v });
            }
        }
        // One decimal, as the challenge writes them: a value with more would be
        // rounded twice (the extremes and the mean differently). The extremes are
        // checked, and the sum, which a value of more decimals among the others
        // leaves off the tenths (up to the rounding of a sum of f64s).
        let off_tenths = |v: f64, slack: f64| ((v * 10.0).round() - v * 10.0).abs() > slack;
        if let Some(v) = [min, max].into_iter().find(|&v| off_tenths(v, 1e-9)) {
            return Err(BrcError::Decimals { station, value: v });
        }
        if off_tenths(sum, 1e-8 * (sum * 10.0).abs().max(1.0)) {
            return Err(BrcError::SumDecimals { station, sum });
        }
        let mean =
            gen_csv::brc::round_half_up(i128::from(tenths_of(sum)), i128::from(g.count.max(1)));
        parts.push(format!(
            "{station}={}/{}/{}",
            gen_csv::brc::tenths(tenths_of(min)),
            gen_csv::brc::tenths(mean as i64),
            gen_csv::brc::tenths(tenths_of(max))
        ));
    }
    Ok(format!("{{{}}}", parts.join(", ")))
}

/// Why an answer cannot be printed as the One Billion Row Challenge's: each names the
/// station (its key, as [`key_text`] prints it).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BrcError {
    /// Every line of the station has an empty field.
    #[error(
        "station {station:?} has no temperature, only empty fields (an empty field \
         is NULL, and the One Billion Row Challenge has none)"
    )]
    NoTemperature {
        /// The station.
        station: String,
    },
    /// Some line of the station has an empty field.
    #[error(
        "station {station:?} has a line without a temperature (an empty field is \
         NULL, and the One Billion Row Challenge has none)"
    )]
    LineWithoutTemperature {
        /// The station.
        station: String,
    },
    /// A temperature outside -99.9 to 99.9.
    #[error(
        "station {station:?} has the temperature {value}, outside the One Billion \
         Row Challenge's range, -99.9 to 99.9"
    )]
    OutOfRange {
        /// The station.
        station: String,
        /// Its lowest or highest temperature.
        value: f64,
    },
    /// A lowest or highest temperature with more than one decimal.
    #[error(
        "station {station:?} has the temperature {value}, with more than the One Billion \
         Row Challenge's one decimal"
    )]
    Decimals {
        /// The station.
        station: String,
        /// The temperature.
        value: f64,
    },
    /// A sum off the tenths: some temperature has more than one decimal.
    #[error(
        "station {station:?} has a temperature with more than the One Billion Row \
         Challenge's one decimal (its sum is {sum})"
    )]
    SumDecimals {
        /// The station.
        station: String,
        /// Its sum.
        sum: f64,
    },
}

/// The answer as an aligned text table: key, count, sum, one group a line.
pub fn groups_to_table(groups: &Groups, key_column: &str, sum_column: &str) -> String {
    groups_to_table_with(groups, key_column, sum_column, Aggs::DEFAULT)
}

/// [`groups_to_table`] with the aggregates `aggs`, one column each.
pub fn groups_to_table_with(
    groups: &Groups,
    key_column: &str,
    sum_column: &str,
    aggs: Aggs,
) -> String {
    let chosen: Vec<(&str, Aggs)> = Aggs::NAMES
        .iter()
        .copied()
        .filter(|(_, agg)| aggs.has(*agg))
        .collect();
    let mut headers = vec![key_column.to_string()];
    headers.extend(chosen.iter().map(|(name, agg)| match *agg {
        Aggs::COUNT => "count".to_string(),
        _ => format!("{name}({sum_column})"),
    }));
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|(key, g)| {
            let mut row = vec![key_text(key)];
            row.extend(chosen.iter().map(|(_, agg)| g.text(*agg)));
            row
        })
        .collect();
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([headers[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let mut out = format!("{:<w$}", cells[0], w = widths[0]);
        for (cell, w) in cells.iter().zip(&widths).skip(1) {
            out += &format!("  {cell:>w$}");
        }
        out + "\n"
    };
    let mut out = line(&headers);
    for row in &rows {
        out += &line(row);
    }
    out
}

#[cfg(test)]
mod tests;
