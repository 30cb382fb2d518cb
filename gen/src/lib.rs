//! The bench file: a deterministic CSV and the reference answer of the query.
//!
//! [`generate`] writes `rows` records under the header [`HEADER`]; the same
//! [`Config`] gives the same bytes on every machine, because the only source of
//! randomness is ChaCha8 (`rand_chacha`) seeded with [`Config::seed`] and `Cargo.lock`
//! pins the versions that turn its output into values.
//!
//! Shape of a record (mean field length about 7 bytes, about 52 bytes a record):
//! `id` (0, 1, 2, …), `category` (one of [`CATEGORIES`], Zipf-skewed: the first word is
//! the most common), `value` (a decimal with 1–6 fraction digits, about 20% negative),
//! `name` (3–10 letters; [`Config::quoted_pct`] percent of them quoted and holding a
//! delimiter, a doubled quote or a newline), `date` (`YYYY-MM-DD`), `qty` (1–999),
//! `flag` (`true`/`false`).
//!
//! [`Shape::quote_strings`] writes the same rows with every field that is not a number
//! quoted, the header's names included, as pandas' `QUOTE_NONNUMERIC`, R's
//! `write.csv` and many exporters write them: `"sport"`, `"2022-08-25"`, `"false"`;
//! `id`, `value` and `qty` stay bare.
//!
//! Alongside the CSV, [`Reference`] records the answer of
//! `SELECT category, COUNT(*), SUM(value) GROUP BY category`: the exact decimal sum
//! (values have at most 6 fraction digits, so an `i128` count of millionths is exact)
//! and the `f64` sum taken in row order, which a single-threaded step must reproduce
//! bit for bit.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub mod brc;
pub mod date;
mod fields;
mod keys;
pub mod output;
mod reference;

use fields::{Quotes, pick_weighted, random_value, write_header, write_rest};
use keys::KeyPicker;
pub use keys::{Keys, key_text};
pub use reference::{
    decimal_from_micros, reference_json, reference_json_keyed, reference_json_shaped,
    reference_path,
};

/// The header line of every generated file.
pub const HEADER: &str = "id,category,value,name,date,qty,flag";

/// The group keys. Index 0 is the most frequent (weight 1), index `i` has weight `1/(i+1)`.
pub const CATEGORIES: [&str; 32] = [
    "books", "games", "music", "tools", "garden", "food", "toys", "shoes", "sport", "home", "auto",
    "baby", "beauty", "office", "pets", "health", "movies", "phone", "camera", "watch", "bags",
    "bikes", "craft", "decor", "fish", "golf", "hats", "ink", "jewel", "kites", "lamps", "maps",
];

/// What to generate. `Config::default()` is the bench file: 1,000,000 rows, seed 42,
/// 1% quoted names, LF terminators.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Data records (the header is one more record).
    pub rows: u64,
    /// Seed of the ChaCha8 generator.
    pub seed: u64,
    /// Percentage (0–100) of `name` fields that are quoted and hold a delimiter, a
    /// doubled quote or a newline.
    pub quoted_pct: f64,
    /// End records with CR LF instead of LF.
    pub crlf: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            rows: 1_000_000,
            seed: 42,
            quoted_pct: 1.0,
            crlf: false,
        }
    }
}

/// What shapes a file besides its [`Config`]: its keys, and whether its strings are
/// quoted. `Shape::default()` is the bench file's: its 32 categories, strings bare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Another key column ([`Keys`]); `None` for the 32 [`CATEGORIES`].
    pub keys: Option<Keys>,
    /// Every field that is not a number quoted (`category`, `name`, `date`, `flag`
    /// and the header's names), as an exporter's "quote non-numeric" option writes
    /// them. The rows are the same as without it, drawn from the same seed; only
    /// the bytes around the strings differ, so the reference answer is the same.
    pub quote_strings: bool,
}

/// One group of the reference answer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GroupRef {
    /// COUNT(*).
    pub count: u64,
    /// SUM(value) in `f64`, added in row order starting from 0.0.
    pub sum_f64: f64,
    /// SUM(value), exactly, in millionths (10^-6).
    pub sum_micros: i128,
}

/// The reference answer of the query over a generated file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reference {
    /// Data records written (without the header).
    pub rows: u64,
    /// Size of the CSV in bytes.
    pub bytes: u64,
    /// Groups by category.
    pub groups: BTreeMap<String, GroupRef>,
}

/// Writes the CSV for `config` to `out` and returns the reference answer.
/// `progress` is advanced by one per row written.
///
/// # Errors
/// Whatever writing to `out` fails with.
pub fn generate(config: &Config, out: impl Write, progress: &ProgressBar) -> io::Result<Reference> {
    generate_keyed(config, None, out, progress)
}

/// [`generate`], with the `category` column's keys from `keys` when given (the
/// bench layout otherwise unchanged; the other columns are drawn as in the bench
/// file). The reference is built per key number and sorted once at the end, so that
/// ten million keys cost a vector, not a map lookup a row.
///
/// # Errors
/// Whatever writing to `out` fails with.
pub fn generate_keyed(
    config: &Config,
    keys: Option<Keys>,
    out: impl Write,
    progress: &ProgressBar,
) -> io::Result<Reference> {
    let shape = Shape {
        keys,
        ..Shape::default()
    };
    generate_shaped(config, shape, out, progress)
}

/// [`generate`] in the [`Shape`] `shape`: its keys, and its strings quoted or not.
///
/// # Errors
/// Whatever writing to `out` fails with.
pub fn generate_shaped(
    config: &Config,
    shape: Shape,
    out: impl Write,
    progress: &ProgressBar,
) -> io::Result<Reference> {
    let q = Quotes::new(shape.quote_strings);
    let Some(keys) = shape.keys else {
        return generate_categories(config, q, out, progress);
    };
    let mut out = CountingWriter {
        inner: out,
        bytes: 0,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let eol = if config.crlf { "\r\n" } else { "\n" };
    let picker = KeyPicker::new(keys);
    let mut groups = vec![GroupRef::default(); picker.keys.distinct as usize];
    write_header(&mut out, q, eol)?;
    for id in 0..config.rows {
        let key = picker.pick(id, &mut rng);
        let (value_text, micros) = random_value(&mut rng);
        let group = &mut groups[key as usize];
        group.count += 1;
        group.sum_f64 += value_text
            .parse::<f64>()
            .expect("a generated value is a valid f64");
        group.sum_micros += micros;
        write!(out, "{id},{q}{}{q},{value_text},", key_text(key))?;
        write_rest(&mut out, &mut rng, config, q, eol)?;
        if id % 65_536 == 0 {
            progress.set_position(id);
        }
    }
    out.flush()?;
    progress.set_position(config.rows);
    let groups = groups
        .into_iter()
        .enumerate()
        .filter(|(_, g)| g.count > 0)
        .map(|(k, g)| (key_text(k as u64), g))
        .collect();
    Ok(Reference {
        rows: config.rows,
        bytes: out.bytes,
        groups,
    })
}

/// The bench file's own rows: `category` one of the 32 [`CATEGORIES`], Zipf-skewed.
fn generate_categories(
    config: &Config,
    q: Quotes,
    out: impl Write,
    progress: &ProgressBar,
) -> io::Result<Reference> {
    let mut out = CountingWriter {
        inner: out,
        bytes: 0,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let eol = if config.crlf { "\r\n" } else { "\n" };
    let weights: Vec<u64> = (0..CATEGORIES.len() as u64)
        .map(|i| 720_720 / (i + 1))
        .collect();
    let total_weight: u64 = weights.iter().sum();
    let mut reference = Reference {
        rows: config.rows,
        ..Reference::default()
    };
    write_header(&mut out, q, eol)?;
    for id in 0..config.rows {
        let category = pick_weighted(&mut rng, &weights, total_weight);
        let (value_text, micros) = random_value(&mut rng);
        let group = reference
            .groups
            .entry(CATEGORIES[category].to_string())
            .or_default();
        group.count += 1;
        group.sum_f64 += value_text
            .parse::<f64>()
            .expect("a generated value is a valid f64");
        group.sum_micros += micros;
        write!(out, "{id},{q}{}{q},{value_text},", CATEGORIES[category])?;
        write_rest(&mut out, &mut rng, config, q, eol)?;
        if id % 65_536 == 0 {
            progress.set_position(id);
        }
    }
    out.flush()?;
    progress.set_position(config.rows);
    reference.bytes = out.bytes;
    Ok(reference)
}

/// The CSV for `config` and its reference, in memory (for tests and benchmarks).
pub fn generate_in_memory(config: &Config) -> (Vec<u8>, Reference) {
    let mut csv = Vec::new();
    let reference =
        generate(config, &mut csv, &ProgressBar::hidden()).expect("writing to a Vec cannot fail");
    (csv, reference)
}

/// [`generate_in_memory`] in the [`Shape`] `shape`.
pub fn generate_in_memory_shaped(config: &Config, shape: Shape) -> (Vec<u8>, Reference) {
    let mut csv = Vec::new();
    let reference = generate_shaped(config, shape, &mut csv, &ProgressBar::hidden())
        .expect("writing to a Vec cannot fail");
    (csv, reference)
}

/// Writes the CSV to `csv_path` and the reference to [`reference_path`]`(csv_path)`,
/// with a progress bar on a terminal. Both are written to temporary files and renamed
/// into place, so an interrupted run never leaves a partial bench file behind; the
/// temporaries are removed on every error ([`output`]).
///
/// # Errors
/// A target that is not a regular file or absent ([`output::check_target`]), and
/// whatever creating, writing or renaming the files fails with.
pub fn write_files(config: &Config, csv_path: &Path) -> io::Result<Reference> {
    write_files_keyed(config, None, csv_path)
}

/// [`write_files`] with the keys of [`generate_keyed`].
///
/// # Errors
/// As [`write_files`].
pub fn write_files_keyed(
    config: &Config,
    keys: Option<Keys>,
    csv_path: &Path,
) -> io::Result<Reference> {
    let shape = Shape {
        keys,
        ..Shape::default()
    };
    write_files_shaped(config, shape, csv_path)
}

/// [`write_files`] in the [`Shape`] `shape`.
///
/// # Errors
/// As [`write_files`].
pub fn write_files_shaped(config: &Config, shape: Shape, csv_path: &Path) -> io::Result<Reference> {
    let ref_path = reference_path(csv_path);
    output::check_target(csv_path)?;
    output::check_target(&ref_path).map_err(|e| output::of_reference(&ref_path, e))?;
    if let Some(dir) = csv_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let progress = ProgressBar::new(config.rows).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} rows, {elapsed}")
            .expect("a valid progress template"),
    );
    // On any error below, the temporaries are dropped, so removed.
    let (csv, file) = output::Temporary::create(csv_path)?;
    let reference = generate_shaped(
        config,
        shape,
        BufWriter::with_capacity(1 << 20, file),
        &progress,
    );
    progress.finish_and_clear();
    let reference = reference?;
    let (reference_file, mut file) = output::Temporary::create(&ref_path)?;
    file.write_all(reference_json_shaped(config, shape, &reference).as_bytes())?;
    output::commit(vec![csv, reference_file])?;
    Ok(reference)
}

/// `data/bench.csv` of this workspace, wherever the command runs from: the default
/// input of every step and of `gen`.
pub fn default_bench_path() -> PathBuf {
    let gen_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    gen_dir
        .parent()
        .unwrap_or(gen_dir)
        .join("data")
        .join("bench.csv")
}

/// Counts the bytes written, so the reference can record the file size.
struct CountingWriter<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests;
