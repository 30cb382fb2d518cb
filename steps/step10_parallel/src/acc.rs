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
    /// extremes, unless every value was NULL. With many groups most have one value,
    /// which is then its sum, its mean and both its extremes: rounded once, not four
    /// times (but for a zero, whose sign the sum and MIN may round apart).
    pub fn group(&self) -> Group {
        if self.values == 1
            && let Some(v) = self.range.min()
            && v != 0.0
        {
            let v = Some(v);
            let (count, sum, min, max, mean) = (self.count, v, v, v, v);
            return Group {
                count,
                sum,
                min,
                max,
                mean,
            };
        }
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

    /// Adds another accumulator of the same group (the table's, to a partition's, or
    /// another thread's).
    pub fn merge(&mut self, other: &Acc) {
        self.count += other.count;
        self.values += other.values;
        self.sum.merge(&other.sum);
        self.range.merge(&other.range);
    }
}
// ANCHOR_END: acc
