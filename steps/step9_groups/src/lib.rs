//! # Step 9 — many groups: set the rows aside by partition, then add up each partition
//!
//! **The idea.** Step 8's table is fast while it fits in the core's cache: a row's
//! key repeats, its slot, key and accumulator are there, and the row costs a few
//! instructions. With a million distinct keys the table holds a million groups, far
//! past the cache, and every row misses three times, in random places. This step
//! keeps the table while it pays and, once it holds many groups and rows still bring
//! mostly new keys, stops adding rows to it: each row's key and value are written to
//! the end of one of a few hundred lists, its *partition*, chosen by bits of the key's
//! hash ([`scatter`]), which is writing in order, with no miss. At the end each
//! partition (the table's groups of that partition and its rows) is added up in a
//! table that holds only its groups and stays in the cache ([`merge`]). A review every
//! [`query::REVIEW`] rows decides, from what the last rows did, which way the next
//! rows go, so that few groups keep step 8's path, row for row.
//!
//! **What changed since the previous step.** [`scatter`] (the rows set aside, by
//! partition, and when to) and [`merge`] (each partition added up alone) are new;
//! the query reviews its table every [`query::REVIEW`] rows and sets rows aside
//! ([`query::Aggregator::add_row`]); the table gives its groups by partition and
//! resets to add up the next partition ([`table::GroupTable::partitions`],
//! [`table::GroupTable::reset`]); the answer is the partitions' groups as they are
//! ([`harness::query::GroupsBuilder::finish_parts`]).
//!
//! **Assumptions and policy.** The dialect of the `harness` crate, exactly; the
//! query's rules and exact sums are step 8's, and so is the answer, bit for bit,
//! whichever way each row went.
//!
//! **Read more.** Hannes Mühleisen and Mark Raasveldt, "Parallel Grouped Aggregation
//! in DuckDB" (2022), the table given up for radix-partitioned data; Ingo Müller,
//! Peter Sanders, Arnaud Lacurie, Wolfgang Lehner and Frank Färber, "Cache-Efficient
//! Aggregation: Hashing Is Sorting" (SIGMOD 2015); Stefan Manegold, Peter Boncz and
//! Martin Kersten, "Optimizing Main-Memory Join on Modern Hardware" (2002), radix
//! partitioning that keeps each partition in the cache.

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
pub mod cli;
pub mod digits;
pub mod exact;
pub mod extremes;
pub mod key_words;
pub mod lanes16;
pub mod merge;
pub mod project;
pub mod query;
pub mod ratio;
pub mod scatter;
pub mod serial;
pub mod step1_query;
pub mod structural;
pub mod table;
pub mod value;
pub mod wide;

pub use blocks::Tier;
pub use machine::Stats;
pub use serial::run;

/// Step 9 on the harness's [`Step`] interface, with the tier [`Tier::chosen`]
/// (`CSV_TIER`, else the fastest the CPU has).
pub type Step9 = With<force::Chosen>;

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
    const NUMBER: u32 = 9;
    const NAME: &'static str = "step9";
    const IDEA: &'static str =
        "many groups: rows set aside by partition, each partition added up alone";

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
        Step9::records(s)
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
        let e = Step9::records(b"\xEF\xBB\xBFa\n\nb,\"x\ny").unwrap_err();
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
