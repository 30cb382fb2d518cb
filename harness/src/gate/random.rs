//! Random documents for the gate's differential run: deterministic (ChaCha8 with fixed
//! seeds), drawn from an alphabet weighted towards the bytes that matter (`,` `"` CR LF),
//! with families for the places fast parsers break: long fields, blank-line runs, BOMs.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A family of random documents; each is one named gate test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// 2,000 documents of 0–300 bytes, each with its own mix of special bytes.
    Mixed,
    /// 8 documents that each hold a field over 64 KB (unquoted, quoted, or quoted with
    /// a lenient tail), so every word- and block-sized loop runs long.
    LongFields,
    /// 300 documents with runs of blank lines (LF and CR LF) between records.
    BlankRuns,
    /// 300 documents that start with a BOM, a partial BOM or a BOM then a quote.
    Bom,
}

impl Family {
    /// Every family, in the order the gate runs them.
    pub const ALL: [Family; 4] = [
        Family::Mixed,
        Family::LongFields,
        Family::BlankRuns,
        Family::Bom,
    ];

    /// The family's documents; the same on every machine and every run.
    pub fn documents(self) -> Vec<Vec<u8>> {
        let (seed, count) = match self {
            Family::Mixed => (1, 2_000),
            Family::LongFields => (2, 8),
            Family::BlankRuns => (3, 300),
            Family::Bom => (4, 300),
        };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..count).map(|i| self.document(&mut rng, i)).collect()
    }

    fn document(self, rng: &mut ChaCha8Rng, i: usize) -> Vec<u8> {
        match self {
            Family::Mixed => mixed(rng, 300),
            Family::LongFields => long_field(rng, i),
            Family::BlankRuns => {
                let mut doc = Vec::new();
                for _ in 0..rng.random_range(1..6) {
                    doc.extend(mixed(rng, 40));
                    for _ in 0..rng.random_range(0..5) {
                        doc.extend_from_slice(if rng.random_bool(0.5) { b"\n" } else { b"\r\n" });
                    }
                }
                doc
            }
            Family::Bom => {
                let starts: [&[u8]; 4] = [
                    b"\xEF\xBB\xBF",
                    b"\xEF\xBB\xBF\"",
                    b"\xEF\xBB",
                    b"\xEF\xBB\xBF\xEF\xBB\xBF",
                ];
                let mut doc = starts[rng.random_range(0..starts.len())].to_vec();
                doc.extend(mixed(rng, 100));
                doc
            }
        }
    }
}

/// Up to `max_len` bytes from a per-document weighting of `,` `"` CR LF, letters and
/// a few bytes that are not ASCII (NUL, 0xE9, 0xFF). Quotes are rarer in half of the
/// documents, so that not every document ends inside an unterminated quote.
fn mixed(rng: &mut ChaCha8Rng, max_len: usize) -> Vec<u8> {
    let specials = [b',', b'"', b'\r', b'\n'];
    let mut weights = [0u32; 4];
    for w in &mut weights {
        *w = rng.random_range(0..20);
    }
    if rng.random_bool(0.5) {
        weights[1] /= 4;
    }
    let special_total: u32 = weights.iter().sum();
    let len = rng.random_range(0..=max_len);
    (0..len)
        .map(|_| {
            let roll = rng.random_range(0..100);
            if roll < special_total.min(90) {
                let mut t = rng.random_range(0..special_total.max(1));
                for (k, &w) in weights.iter().enumerate() {
                    if t < w {
                        return specials[k];
                    }
                    t -= w;
                }
                b','
            } else if roll < 97 {
                rng.random_range(b'a'..=b'e')
            } else {
                [0x00, 0xE9, 0xFF][rng.random_range(0..3)]
            }
        })
        .collect()
}

/// Mixed bytes around one field of 64–80 KB.
fn long_field(rng: &mut ChaCha8Rng, i: usize) -> Vec<u8> {
    let mut doc = mixed(rng, 50);
    if !doc.is_empty() && rng.random_bool(0.7) {
        doc.push(b'\n'); // most long fields start a record; some follow arbitrary bytes
    }
    let len = rng.random_range(64 * 1024..80 * 1024);
    match i % 3 {
        0 => doc.extend((0..len).map(|_| rng.random_range(b'a'..=b'z'))),
        _ => {
            doc.push(b'"');
            for _ in 0..len {
                let roll = rng.random_range(0..100);
                let b: &[u8] = match roll {
                    0..5 => b",",
                    5..8 => b"\n",
                    8..10 => b"\r\n",
                    10..13 => b"\"\"",
                    _ => b"x",
                };
                doc.extend_from_slice(b);
            }
            doc.push(b'"');
            if i % 3 == 2 {
                doc.extend_from_slice(b"tail\"after"); // lenient: bytes after the closing quote
            }
        }
    }
    doc.extend(mixed(rng, 50).iter().filter(|&&b| b != b'"'));
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_deterministic_and_shaped() {
        assert_eq!(Family::Mixed.documents(), Family::Mixed.documents());
        let long = Family::LongFields.documents();
        assert!(long.iter().all(|d| d.len() > 64 * 1024));
        let mixed = Family::Mixed.documents();
        let quotes: usize = mixed
            .iter()
            .map(|d| d.iter().filter(|&&b| b == b'"').count())
            .sum();
        assert!(quotes > 10_000, "quotes are weighted up: {quotes}");
        assert!(
            Family::Bom
                .documents()
                .iter()
                .all(|d| d.starts_with(b"\xEF\xBB"))
        );
    }
}
