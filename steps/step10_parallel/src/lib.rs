//! # Step 10 — every core: chunks, quote-state transition functions, and a scan
//!
//! **The idea.** Step 9 answers with any number of groups, on one core. This step
//! splits the input into chunks (more chunks than threads) and parses them on every
//! core. A chunk that starts in the middle of the file does not know its parser's
//! state there: inside a quoted field or not, at a field's start or in its middle. So
//! each chunk first computes its *transition function* ([`chunks`]): for each of the
//! five states it might start in, the state it would end in and where its first
//! record would start; where the five machines meet (soon, where quotes are many),
//! the chunk's first record start after that byte is the same for all, and the
//! function stops there. An exclusive scan over the chunks, in order, composes them
//! into every chunk's first record start; then each thread parses its
//! chunks' records with step 7's block walk into its own aggregator, step 9's (a
//! table, and the rows it sets aside by partition); at the end the threads' tables
//! and rows are merged partition by partition, each partition by one worker, on every
//! core ([`merge`]). Step 8's sums, MIN and MAX are exact, so the answer is the same
//! whichever thread adds first, on any number of threads.
//!
//! **What changed since the previous step.** [`chunks`] (transition functions, the
//! scan, the threads) and [`parallel`] (the query on every core) are new; the parser
//! resumes at a record start and stops at the first record start past a bound
//! ([`Parser::records_between`]); the query reads the header first, then the chunks
//! in parallel, each chunk on step 7's projected walk ([`project`],
//! [`Parser::walk_projected`]) into a fork of the first aggregator
//! ([`query::Aggregator::fork`]); [`merge`] merges every thread's partitions, on every
//! core, and with few groups merges the threads' tables whole ([`table::GroupBy::merge`]);
//! the partitions are cut for the threads too ([`scatter::bits`]).
//!
//! **Assumptions and policy.** The dialect of the `harness` crate, exactly; the
//! query's rules and exact sums are step 8's, and so is the answer, bit for bit, on
//! any number of threads and any chunks.
//!
//! **Read more.** Elias Stehle and Hans-Arno Jacobsen, "ParPaRaw: Massively Parallel
//! Parsing of Delimiter-Separated Raw Data" (VLDB 2020), the transition functions and
//! their scan; the cuDF CSV reader's speculative tiles; Hannes Mühleisen and Mark
//! Raasveldt, "Parallel Grouped Aggregation in DuckDB" (2022), the partitioned merge.

use std::fs::File;
use std::marker::PhantomData;
use std::path::Path;

use harness::dialect::Dialect;
use harness::{Error, Fingerprint, ParseError, Record as OwnedRecord, Step};
use memmap2::Mmap;

pub mod machine;
pub mod record;

pub use machine::Parser;
pub use record::{Field, Record, Span};

pub mod acc;
pub mod blocks;
pub mod chunks;
pub mod cli;
pub mod digits;
pub mod exact;
pub mod extremes;
pub mod key_words;
pub mod lanes16;
pub mod merge;
pub mod parallel;
pub mod pool;
pub mod project;
pub mod query;
pub mod ratio;
pub mod scatter;
pub mod step1_query;
pub mod structural;
pub mod table;
pub mod value;
pub mod wide;

pub use blocks::Tier;
pub use machine::Stats;
pub use parallel::run;

/// Step 10 on the harness's [`Step`] interface, as the gate runs it: chunks of 64
/// bytes on 2 threads, so that the gate's small inputs cross chunk boundaries
/// (`tests/chunks.rs` runs it at other sizes). [`Step::pass`] uses the default
/// chunks and every core.
pub type Step10 = Chunked<64, 2>;

/// Which tier a [`With`] parses with.
pub trait ChooseTier {
    /// The tier.
    fn tier() -> Tier;
}

/// One type per tier, so that the gate can run on each (`tests/tiers.rs`).
pub mod force {
    use super::{ChooseTier, Tier};
    macro_rules! force {
        ($($name:ident => $tier:expr),*) => {$(
            #[doc = concat!("Chooses `", stringify!($tier), "`.")]
            pub struct $name;
            impl ChooseTier for $name {
                fn tier() -> Tier {
                    $tier
                }
            }
        )*};
    }
    force!(Chosen => Tier::chosen(), Scalar => Tier::Scalar, Portable => Tier::Portable,
        Sse2 => Tier::Sse2, Avx2 => Tier::Avx2, Avx512 => Tier::Avx512, Neon => Tier::Neon);
}

/// Step 7's parser with the tier `C` chooses (a tier the CPU lacks runs as
/// [`Tier::Portable`]).
pub struct With<C>(PhantomData<C>);

impl<C: ChooseTier> Step for With<C> {
    const NUMBER: u32 = 10;
    const NAME: &'static str = "step10";
    const IDEA: &'static str = "step 7's parser, one chunk";

    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<OwnedRecord>, ParseError> {
        let mut records = Vec::new();
        Parser::new(dialect.delimiter).for_each_record_in(C::tier(), input, |record| {
            records.push(record.fields().map(|f| f.cooked().into_owned()).collect());
        })?;
        Ok(records)
    }

    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        fingerprint_in(C::tier(), input, dialect)
    }

    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let input = map(path)?;
        Ok(fingerprint_in(C::tier(), &input, dialect)?)
    }
}

/// Step 10 with chunks of `SIZE` bytes on `THREADS` threads, the tier [`Tier::chosen`].
pub struct Chunked<const SIZE: usize, const THREADS: usize>;

impl<const SIZE: usize, const THREADS: usize> Step for Chunked<SIZE, THREADS> {
    const NUMBER: u32 = 10;
    const NAME: &'static str = "step10";
    const IDEA: &'static str = "every core: chunks, quote-state transition functions, a scan";

    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<OwnedRecord>, ParseError> {
        let plan = chunks::plan(input, SIZE, THREADS, dialect.delimiter);
        let new = || Parser::new(dialect.delimiter);
        let parts = pool::map_chunks(THREADS, plan.parts.len(), new, |p, k| {
            let part = plan.parts[k];
            let mut records = Vec::new();
            let parsed = p.records_between(Tier::chosen(), input, part.from, part.stop, |r| {
                records.push(r.fields().map(|f| f.cooked().into_owned()).collect());
            });
            (records, parsed)
        });
        let mut all: Vec<OwnedRecord> = Vec::new();
        for (records, parsed) in parts.0 {
            let before = all.len() as u64;
            all.extend(records);
            parsed.map_err(|e| after(e, before))?;
        }
        Ok(all)
    }

    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        fingerprint_chunked(Tier::chosen(), input, SIZE, THREADS, dialect)
    }

    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let input = map(path)?;
        let threads = pool::available_threads();
        let size = chunks::default_size(input.len(), threads);
        Ok(fingerprint_chunked(
            Tier::chosen(),
            &input,
            size,
            threads,
            dialect,
        )?)
    }
}

/// The fingerprint of `input` parsed in chunks of `size` bytes on `threads` threads.
///
/// # Errors
/// [`ParseError`] on an unterminated quote.
pub fn fingerprint_chunked(
    tier: Tier,
    input: &[u8],
    size: usize,
    threads: usize,
    dialect: Dialect,
) -> Result<Fingerprint, ParseError> {
    let plan = chunks::plan(input, size, threads, dialect.delimiter);
    let new = || Parser::new(dialect.delimiter);
    let parts = pool::map_chunks(threads, plan.parts.len(), new, |p, k| {
        let part = plan.parts[k];
        let mut fp = Fingerprint::default();
        let parsed = p.records_between(tier, input, part.from, part.stop, |r| {
            fp.add_record(r.fields().map(|f| f.cooked_len()));
        });
        (fp, parsed)
    });
    let mut total = Fingerprint::default();
    for (fp, parsed) in parts.0 {
        let before = total.records;
        total.records += fp.records;
        total.fields += fp.fields;
        total.bytes += fp.bytes;
        parsed.map_err(|e| after(e, before))?;
    }
    Ok(total)
}

/// A chunk's error with its record counted from the input's first record.
fn after(mut e: ParseError, records_before: u64) -> ParseError {
    e.record += records_before;
    e
}

// ANCHOR: map
/// Maps the file at `path` read-only; the [`Mmap`] derefs to the file's bytes as one
/// `&[u8]`, valid until the `Mmap` is dropped (the borrow checker sees to that).
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or mapped.
pub fn map(path: &Path) -> Result<Mmap, Error> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: `Mmap::map` is unsafe because the `&[u8]` it gives is only as immutable
    // as the file under it, and no Rust type can promise that. If another process
    // writes to the file while it is mapped, the bytes change under a shared borrow.
    // If it truncates the file, every page past the new end is unmapped, and the next
    // read of one raises SIGBUS: the process dies at once ("Bus error" in a shell,
    // exit status 135 = 128 + 7), with no panic and no `Err` (step 2's
    // `tests/sigbus.rs` demonstrates it). What this step does about it: nothing at run time, by choice.
    // It maps a file that nothing else is writing: its own input. The defences all
    // cost something this ladder is removing: read the file instead (step 1's copy),
    // or catch SIGBUS in a handler and jump out of the parse (not expressible in safe
    // Rust). Advisory locks (`flock`) do not stop another process's `truncate`.
    unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))
}
// ANCHOR_END: map

/// The fingerprint (records, fields, cooked bytes) of `input` in `dialect`. Only fields that need
/// unescaping are walked to learn their cooked length; nothing is copied.
///
/// # Errors
/// [`ParseError`] on an unterminated quote.
pub fn fingerprint(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
    fingerprint_in(Tier::chosen(), input, dialect)
}

/// [`fingerprint`] with `tier`.
///
/// # Errors
/// As [`fingerprint`].
pub fn fingerprint_in(
    tier: Tier,
    input: &[u8],
    dialect: Dialect,
) -> Result<Fingerprint, ParseError> {
    let mut fp = Fingerprint::default();
    Parser::new(dialect.delimiter).for_each_record_in(tier, input, |record| {
        fp.add_record(record.fields().map(|f| f.cooked_len()));
    })?;
    Ok(fp)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    fn records(s: &[u8]) -> Vec<Vec<String>> {
        Step10::records(s)
            .unwrap()
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .map(|f| String::from_utf8(f).unwrap())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn splits_quoted_and_lenient_fields() {
        assert_eq!(
            records(br#"a,"b,c","d""e",f"g"#),
            [["a", "b,c", "d\"e", "f\"g"]]
        );
        assert_eq!(records(br#""ab"c,"a"b"c"#), [["abc", "ab\"c"]]);
        assert_eq!(records(b",,\n\"\""), [vec!["", "", ""], vec![""]]);
    }

    #[test]
    fn a_record_is_not_a_line() {
        assert_eq!(
            records(b"a,\"line one\nline two\"\nb\n"),
            [vec!["a", "line one\nline two"], vec!["b"]]
        );
    }

    #[test]
    fn a_cr_is_data_unless_an_lf_follows() {
        assert_eq!(records(b"a\r\r\nb\r"), [["a\r"], ["b\r"]]);
        assert_eq!(records(b"\r\n\n\"x\"\r\n\r\n"), [["x"]]);
        assert_eq!(records(b"\r"), [["\r"]]);
    }

    #[test]
    fn unterminated_quote_names_its_opening_quote() {
        let e = Step10::records(b"\xEF\xBB\xBFa\n\nb,\"x\ny").unwrap_err();
        assert_eq!((e.record, e.byte, e.line), (1, 8, 3));
    }

    #[test]
    fn fields_are_views_and_only_escaped_ones_are_copied() {
        let input = b"ab,\"c,d\",\"e\"\"f\",\"g\"h\r\n";
        let mut seen = Vec::new();
        Parser::default()
            .for_each_record(input, |record| {
                for f in record.fields() {
                    let borrowed = matches!(f.cooked(), Cow::Borrowed(_));
                    seen.push((f.raw(), f.needs_unescape(), borrowed, f.cooked_len()));
                }
            })
            .unwrap();
        let expected: [(&[u8], bool, bool, usize); 4] = [
            (b"ab", false, true, 2),
            (b"c,d", false, true, 3),
            (b"\"e\"\"f\"", true, false, 3),
            (b"\"g\"h", true, false, 2),
        ];
        assert_eq!(seen, expected);
        // A borrowed view points into the input itself: no copy was made.
        let (raw, ..) = seen[1];
        assert_eq!(raw.as_ptr(), input[4..].as_ptr());
    }
}
