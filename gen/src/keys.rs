//! The key column at any number of groups: which key each row takes ([`Keys`]), and
//! how a key is spelled ([`key_text`]).

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::CATEGORIES;

/// Another key column for the GROUP BY at any number of groups: `category` holds
/// `distinct` keys instead of the 32 [`CATEGORIES`] ([`key_text`] spells them).
/// Uniform: the rows take the keys in a scrambled order that repeats every
/// `distinct` rows, so a file of at least `distinct` rows holds every key, each
/// `rows / distinct` times (give or take one). Zipf: each row draws its key with
/// probability proportional to `1 / (rank + 1)`, the skew of real GROUP BY
/// columns (a few keys hold most rows; most keys are rare).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keys {
    /// Distinct keys, at least 1.
    pub distinct: u64,
    /// Zipf-skewed draws instead of every key in turn.
    pub zipf: bool,
}

/// The text of key `k` of a [`Keys`] file: the first 32 are the [`CATEGORIES`]; key
/// `k` past them is `CATEGORIES[k % 32]`, a `-` and `k / 32` (`books-1`, `games-1`,
/// …), so that keys are 4 to 15 bytes long, like real names, and distinct.
pub fn key_text(k: u64) -> String {
    let word = CATEGORIES[(k % CATEGORIES.len() as u64) as usize];
    match k / CATEGORIES.len() as u64 {
        0 => word.to_string(),
        n => format!("{word}-{n}"),
    }
}

/// Which key each row takes, for a [`Keys`] file.
pub(crate) struct KeyPicker {
    /// The keys, `distinct` at least 1.
    pub(crate) keys: Keys,
    /// `a` of the bijection `i -> (a * i + b) mod distinct`: coprime to `distinct`.
    a: u64,
    b: u64,
    /// Zipf: the cumulative weights of the ranks, scaled to `u64`.
    cdf: Vec<u64>,
}

impl KeyPicker {
    pub(crate) fn new(keys: Keys) -> KeyPicker {
        let n = keys.distinct.max(1);
        // A multiplier near n times the golden ratio scatters neighbours; step it up
        // until it is coprime to n, so the map is a bijection.
        let mut a = ((n as f64 * 0.618_033_988_749_895) as u64).max(1) | 1;
        while gcd(a, n) != 1 {
            a += 2;
        }
        let cdf = if keys.zipf {
            let mut total = 0.0;
            let weights: Vec<f64> = (0..n).map(|r| 1.0 / (r + 1) as f64).collect();
            let sum: f64 = weights.iter().sum();
            weights
                .iter()
                .map(|w| {
                    total += w / sum;
                    (total.min(1.0) * u64::MAX as f64) as u64
                })
                .collect()
        } else {
            Vec::new()
        };
        KeyPicker {
            keys: Keys {
                distinct: n,
                ..keys
            },
            a: a % n.max(2),
            b: n / 3,
            cdf,
        }
    }

    /// The key of row `id`.
    pub(crate) fn pick(&self, id: u64, rng: &mut ChaCha8Rng) -> u64 {
        let n = self.keys.distinct;
        let rank = if self.keys.zipf {
            let ticket: u64 = rng.random();
            (self.cdf.partition_point(|&c| c < ticket) as u64).min(n - 1)
        } else {
            id % n
        };
        ((u128::from(self.a) * u128::from(rank) + u128::from(self.b)) % u128::from(n)) as u64
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
