//! The baseline's answer against `gen`'s reference answer of the same file: every
//! group's count, and its row-order `f64` sum bit for bit.

use std::path::Path;

use harness::query::Groups;

/// Compares `groups` with `gen`'s reference answer of the file at `csv_path` (the
/// `.ref.json` next to it): `None` when there is none, or when its byte count is not
/// the file's (then it is another file's); `Some(Ok(()))` when every group has the
/// reference's count and, bit for bit, its row-order `f64` sum; `Some(Err(_))` with
/// the first difference otherwise.
pub fn check_reference(csv_path: &Path, groups: &Groups) -> Option<Result<(), Mismatch>> {
    let reference_path = gen_csv::reference_path(csv_path);
    let text = std::fs::read_to_string(&reference_path).ok()?;
    let reference: serde_json::Value = serde_json::from_str(&text).ok()?;
    let size = std::fs::metadata(csv_path).ok()?.len();
    if reference["bytes"].as_u64() != Some(size) {
        return None;
    }
    Some(compare_with_reference(&reference, groups))
}

/// The first difference between an answer and `gen`'s reference.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Mismatch {
    /// The reference lists no groups.
    #[error("the reference has no groups")]
    NoGroups,
    /// Another number of groups.
    #[error("{ours} groups, the reference has {theirs}")]
    GroupCount {
        /// The answer's.
        ours: usize,
        /// The reference's.
        theirs: usize,
    },
    /// A group of the reference that the answer lacks.
    #[error("no group {0:?}")]
    MissingGroup(String),
    /// A group whose count or sum differs.
    #[error(
        "group {key:?}: count {count} and sum {sum:?}, the reference has count {} and sum {} ({})",
        reference["count"],
        reference["sum"],
        reference["sum_bits"]
    )]
    Group {
        /// The group's key.
        key: String,
        /// The answer's count.
        count: u64,
        /// The answer's sum.
        sum: Option<f64>,
        /// The reference's group: its `count`, `sum` and `sum_bits`.
        reference: serde_json::Value,
    },
}

fn compare_with_reference(reference: &serde_json::Value, groups: &Groups) -> Result<(), Mismatch> {
    let expected = reference["groups"].as_object().ok_or(Mismatch::NoGroups)?;
    if expected.len() != groups.len() {
        return Err(Mismatch::GroupCount {
            ours: groups.len(),
            theirs: expected.len(),
        });
    }
    for (key, want) in expected {
        let got = groups
            .get(key.as_bytes())
            .ok_or_else(|| Mismatch::MissingGroup(key.clone()))?;
        let bits = want["sum_bits"]
            .as_str()
            .and_then(|b| u64::from_str_radix(b.trim_start_matches("0x"), 16).ok());
        if want["count"].as_u64() != Some(got.count) || bits != got.sum.map(f64::to_bits) {
            return Err(Mismatch::Group {
                key: key.clone(),
                count: got.count,
                sum: got.sum,
                reference: want.clone(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use harness::query::Group;

    use super::*;

    #[test]
    fn the_reference_is_compared_bit_for_bit() {
        let reference = serde_json::json!({"groups": {
            "a": {"count": 2, "sum": 0.30000000000000004, "sum_bits": "0x3fd3333333333334"},
        }});
        let group = |count, sum| Group {
            count,
            sum,
            ..Group::default()
        };
        let answer = |groups: &[(&[u8], Group)]| groups.iter().copied().collect::<Groups>();
        let right = answer(&[(b"a", group(2, Some(0.1 + 0.2)))]);
        assert_eq!(compare_with_reference(&reference, &right), Ok(()));
        let wrong = answer(&[(b"a", group(2, Some(0.3)))]);
        let e = compare_with_reference(&reference, &wrong).unwrap_err();
        assert_eq!(
            e.to_string(),
            "group \"a\": count 2 and sum Some(0.3), the reference has count 2 and sum \
             0.30000000000000004 (\"0x3fd3333333333334\")"
        );
        let more = answer(&[(b"a", group(2, Some(0.3))), (b"b", group(1, None))]);
        assert_eq!(
            compare_with_reference(&reference, &more)
                .unwrap_err()
                .to_string(),
            "2 groups, the reference has 1"
        );
    }
}
