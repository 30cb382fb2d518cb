//! A group's accumulator ([`Acc`]): what the query keeps of a group's rows, its count
//! and the sum, smallest and largest of its values.

use harness::query::Group;

/// An accumulator: the row-order `f64` sum, as `gen`'s reference and step 1 compute it,
/// and the smallest and largest value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Acc {
    /// `COUNT(*)`.
    pub count: u64,
    /// Non-NULL values summed.
    pub values: u64,
    /// Their sum, added in row order from 0.0.
    pub sum: f64,
    /// The smallest value (`+inf` before the first).
    pub min: f64,
    /// The largest value (`-inf` before the first).
    pub max: f64,
}

impl Default for Acc {
    fn default() -> Acc {
        Acc {
            count: 0,
            values: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Acc {
    /// The group: the count, and the sum, extremes and mean (the row-order sum over
    /// the values: as exact as the sum) unless every value was NULL.
    pub fn group(&self) -> Group {
        let some = |v: f64| (self.values > 0).then_some(v);
        Group {
            count: self.count,
            sum: some(self.sum),
            min: some(self.min),
            max: some(self.max),
            mean: some(self.sum / self.values as f64),
        }
    }

    /// Adds one record's value (`None` for NULL).
    #[inline(always)]
    pub fn add(&mut self, value: Option<f64>) {
        self.count += 1;
        if let Some(v) = value {
            self.values += 1;
            self.sum += v;
            // Values are finite (the parse rejects `nan`), so a compare is the
            // whole of MIN and MAX, without the NaN handling of `f64::min`; and a
            // branch, not a blend, since a new extreme is rare after the first rows
            // of a group, so the branch is predicted and the store skipped. On a
            // tie (`-0.0` against `0.0`) both keep the value seen first.
            if v < self.min {
                self.min = v;
            }
            if v > self.max {
                self.max = v;
            }
        }
    }
}
