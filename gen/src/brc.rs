//! The One Billion Row Challenge's input and answer (Gunnar Morling, 2024,
//! github.com/gunnarmorling/1brc): lines of `station;temperature`, no header; the
//! answer is every station's minimum, mean and maximum, one decimal each, as
//! `{name=min/mean/max, ...}` sorted by name.
//!
//! The rules kept: station names of 1 to 100 bytes of UTF-8 (here characters of the
//! Basic Multilingual Plane only, so that the challenge's sort by UTF-16 code units
//! and a sort by bytes agree), at most 10,000 stations, temperatures from -99.9 to
//! 99.9 with exactly one fractional digit. The names are made here (the challenge's
//! list of 413 real stations is its data, not this repository's): a fixed list for
//! `--stations 413`, more of the same kind for 10,000. The same seed gives the same
//! bytes on every machine.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::output;

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BrcConfig {
    /// Lines.
    pub rows: u64,
    /// Distinct stations: 413 as the challenge's file, up to 10,000.
    pub stations: usize,
    /// Seed of the ChaCha8 generator.
    pub seed: u64,
}

impl Default for BrcConfig {
    fn default() -> BrcConfig {
        BrcConfig {
            rows: 1_000_000,
            stations: 413,
            seed: 1,
        }
    }
}

/// One station's answer so far, in tenths of a degree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extremes {
    /// The lowest temperature.
    pub min: i64,
    /// The highest.
    pub max: i64,
    /// Their sum.
    pub sum: i64,
    /// Lines.
    pub count: u64,
}

/// The answer: stations by name.
pub type BrcAnswer = BTreeMap<String, Extremes>;

const SYLLABLES: [&str; 40] = [
    "ka", "lo", "mi", "ne", "ra", "su", "to", "vi", "ber", "dor", "fen", "gal", "hav", "ist",
    "jun", "ke", "lan", "mor", "nor", "os", "pel", "quin", "ros", "sal", "tam", "ur", "val", "wes",
    "yor", "zé", "bø", "mü", "ña", "å", "çi", "ŝa", "łó", "ğu", "ħa", "ŧe",
];

/// `n` distinct station names (1 to 100 bytes, no `;`, quote, CR or LF): the first is
/// one byte, the second 100 bytes, the rest one to four syllables, capitalised.
pub fn station_names(n: usize) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(413);
    let mut names = vec!["X".to_string(), "Longname".repeat(13)[..100].to_string()];
    let mut seen: std::collections::HashSet<String> = names.iter().cloned().collect();
    while names.len() < n {
        let parts = rng.random_range(1..=4);
        let mut name: String = (0..parts)
            .map(|_| SYLLABLES[rng.random_range(0..SYLLABLES.len())])
            .collect();
        let mut chars = name.chars();
        let first = chars.next().expect("a syllable is not empty");
        name = first.to_uppercase().chain(chars).collect();
        if rng.random_bool(0.2) {
            name.push(' ');
            name.push_str(SYLLABLES[rng.random_range(0..SYLLABLES.len())]);
        }
        if seen.insert(name.clone()) {
            names.push(name);
        }
    }
    names.truncate(n);
    names
}

/// Writes `config.rows` lines to `out` and returns the answer.
///
/// # Errors
/// Whatever writing to `out` fails with.
pub fn write_brc(config: &BrcConfig, mut out: impl Write) -> io::Result<BrcAnswer> {
    let names = station_names(config.stations.clamp(1, 10_000));
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    // Each station's typical temperature, then each line's around it.
    let means: Vec<i64> = names.iter().map(|_| rng.random_range(-300..=350)).collect();
    let mut stats: Vec<Option<Extremes>> = vec![None; names.len()];
    let mut line = Vec::with_capacity(128);
    for _ in 0..config.rows {
        let s = rng.random_range(0..names.len());
        let t = (means[s] + rng.random_range(-250..=250)).clamp(-999, 999);
        line.clear();
        line.extend_from_slice(names[s].as_bytes());
        line.push(b';');
        line.extend_from_slice(tenths(t).as_bytes());
        line.push(b'\n');
        out.write_all(&line)?;
        let e = stats[s].get_or_insert(Extremes {
            min: t,
            max: t,
            sum: 0,
            count: 0,
        });
        e.min = e.min.min(t);
        e.max = e.max.max(t);
        e.sum += t;
        e.count += 1;
    }
    out.flush()?;
    Ok(names
        .into_iter()
        .zip(stats)
        .filter_map(|(name, e)| Some((name, e?)))
        .collect())
}

/// Writes the challenge's file to `out` and its answer ([`answer_text`]) beside it, to
/// `out` with the extension `ref.txt`: each through a temporary renamed into place
/// ([`crate::output`]), removed on an error. Returns the answer.
///
/// # Errors
/// A target that is not a regular file or absent ([`crate::output::check_target`]),
/// and whatever creating, writing or renaming the files fails with.
pub fn write_brc_files(config: &BrcConfig, out: &Path) -> io::Result<BrcAnswer> {
    let answer_path = out.with_extension("ref.txt");
    output::check_target(out)?;
    output::check_target(&answer_path).map_err(|e| output::of_reference(&answer_path, e))?;
    let (lines, file) = output::Temporary::create(out)?;
    let answer = write_brc(config, io::BufWriter::new(file))?;
    let (answer_file, mut file) = output::Temporary::create(&answer_path)?;
    file.write_all(answer_text(&answer).as_bytes())?;
    output::commit(vec![lines, answer_file])?;
    Ok(answer)
}

/// The challenge's output: `{name=min/mean/max, ...}` and a newline, sorted by name,
/// one decimal each; the mean is the exact mean rounded half up (towards +infinity),
/// as the challenge's `Math.round(x * 10.0) / 10.0`.
pub fn answer_text(answer: &BrcAnswer) -> String {
    let parts: Vec<String> = answer
        .iter()
        .map(|(name, e)| {
            let mean = round_half_up(i128::from(e.sum), i128::from(e.count));
            format!(
                "{name}={}/{}/{}",
                tenths(e.min),
                tenths(mean as i64),
                tenths(e.max)
            )
        })
        .collect();
    format!("{{{}}}\n", parts.join(", "))
}

/// `sum / count` rounded to the nearest integer, halves up: floor((2 sum + count) /
/// (2 count)).
pub fn round_half_up(sum: i128, count: i128) -> i128 {
    (2 * sum + count).div_euclid(2 * count)
}

/// Tenths as text with one decimal: `-123` is `-12.3`, `-4` is `-0.4`, `0` is `0.0`.
pub fn tenths(t: i64) -> String {
    let sign = if t < 0 { "-" } else { "" };
    format!("{sign}{}.{}", t.unsigned_abs() / 10, t.unsigned_abs() % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rules() {
        let names = station_names(10_000);
        assert_eq!(names.len(), 10_000);
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), 10_000);
        assert!(names.iter().all(|n| (1..=100).contains(&n.len())));
        assert_eq!((names[0].len(), names[1].len()), (1, 100));
        assert!(names.iter().all(|n| !n.contains([';', '"', '\r', '\n'])));
        assert!(
            names
                .iter()
                .flat_map(|n| n.chars())
                .all(|c| (c as u32) < 0x10000)
        );
        assert_eq!(station_names(413), names[..413]);
    }

    #[test]
    fn the_answer_rounds_as_the_challenge() {
        assert_eq!(
            (tenths(-123), tenths(-4), tenths(0), tenths(999)),
            ("-12.3".into(), "-0.4".into(), "0.0".into(), "99.9".into())
        );
        assert_eq!(round_half_up(5, 2), 3); // 2.5 -> 3
        assert_eq!(round_half_up(-5, 2), -2); // -2.5 -> -2 (towards +infinity)
        assert_eq!(round_half_up(-7, 3), -2); // -2.33 -> -2
        let mut out = Vec::new();
        let answer = write_brc(
            &BrcConfig {
                rows: 5000,
                stations: 50,
                seed: 3,
            },
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 5000);
        let summed: u64 = answer.values().map(|e| e.count).sum();
        assert_eq!(summed, 5000);
        let line = text.lines().next().unwrap();
        let (name, t) = line.split_once(';').unwrap();
        assert!(answer.contains_key(name) && t.contains('.'), "{line}");
        assert!(answer_text(&answer).starts_with('{') && answer_text(&answer).ends_with("}\n"));
    }
}
