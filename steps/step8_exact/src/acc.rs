//! A group's accumulator ([`Acc`]): what the query keeps of a group's rows, its count
//! and the sum, smallest and largest of its values.

use harness::query::Group;

use crate::exact::{ExactSum, Number};
use crate::extremes::MinMax;

// ANCHOR: acc
/// An accumulator: the count, the exact sum of the values, and their extremes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Acc {
    /// `COUNT(*)`.
    pub count: u64,
    /// Non-NULL values summed.
    pub values: u64,
    /// Their exact sum, whatever the order they came in.
    pub sum: ExactSum,
    /// Their smallest and largest.
    pub range: MinMax,
}

impl Acc {
    /// The group: the count, and the sum and mean (each rounded once) and the
    /// extremes, unless every value was NULL.
    pub fn group(&self) -> Group {
        let some = self.values > 0;
        Group {
            count: self.count,
            sum: some.then(|| self.sum.to_f64()),
            min: self.range.min(),
            max: self.range.max(),
            mean: some.then(|| self.sum.mean(self.values)),
        }
    }

    /// Adds one record's value (`None` for NULL).
    #[inline(always)]
    pub fn add(&mut self, value: Option<Number>) {
        self.count += 1;
        if let Some(v) = value {
            self.values += 1;
            self.sum.add(v);
            self.range.add(v);
        }
    }
}
// ANCHOR_END: acc
