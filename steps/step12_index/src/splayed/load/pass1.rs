//! Pass 1: each chunk's records counted and their widths checked, and what each
//! column's fields could be ([`Seen`]), in parallel; merged, the columns' types.
//! A guess from the first [`SAMPLE_BYTES`] spares it the type tests of the columns
//! whose type the sample makes plain.

use harness::query::{Place, QueryError};

use crate::pool::map_chunks;
use crate::splayed::cooked::CookedIn;
use crate::splayed::distinct::{Distinct, spread_hash};
use crate::splayed::error::TableError;
use crate::splayed::infer::{Seen, null_as_empty, storage_type};
use crate::splayed::load::plan::{Pass, parse_part};
use crate::splayed::types::ColumnType;
use crate::{Parser, Tier};

// ANCHOR: guess
/// The bytes at the start of the data whose records the load reads first, to guess
/// each column's type (about 20,000 records of the bench file).
pub const SAMPLE_BYTES: usize = 1 << 20;

/// What pass 1 does with a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Guess {
    /// Checks every field's type, as with no guess.
    Unsure,
    /// Skips it: every field of the sample was of this type, and pass 2 checks the
    /// rest as it stores them.
    Typed(ColumnType),
    /// A field of the sample is of no type, so no type can hold the column: pass 1
    /// only counts its values, sums their bytes and sketches them (string or text).
    Strings,
}

/// Each column's [`Guess`], from the records that start in the first
/// [`SAMPLE_BYTES`] of the data (the same records on any number of threads).
///
/// A guess changes how fast the load is, never the table: a type the sample gives is
/// the narrowest type of the list in [`crate::splayed::infer`] that holds the sample, so if it
/// holds every field of the column it is the type every field gives. `float64` is
/// not guessed: pass 2's number parse is not the same function as the inference's
/// test. A column given by `--schema`, or with no value in the sample, is `Unsure`.
pub(super) fn guess_types(pass: &Pass<'_>, requested: &[Option<ColumnType>]) -> Vec<Guess> {
    let mut seen = vec![Seen::default(); requested.len()];
    let stop = pass.input.len().min(pass.header_end + SAMPLE_BYTES);
    let mut scratch = Vec::new();
    let mut parser = Parser::new(pass.delimiter);
    // An error here is pass 1's to report, in record order.
    let _ = parser.records_between(Tier::chosen(), pass.input, pass.header_end, stop, |r| {
        for (s, field) in seen.iter_mut().zip(r.fields()) {
            s.add(null_as_empty(pass.nulls, field.cooked_in(&mut scratch)));
        }
    });
    seen.iter()
        .zip(requested)
        .map(|(s, requested)| match (requested, s.values, s.typed()) {
            (Some(_), _, _) | (None, 0, _) => Guess::Unsure,
            (None, _, false) => Guess::Strings,
            (None, _, true) => match s.column_type() {
                ColumnType::Float64 => Guess::Unsure,
                ty => Guess::Typed(ty),
            },
        })
        .collect()
}
// ANCHOR_END: guess

/// Each column's type: the guessed one, or the one its fields give (the type
/// `--schema` asked for, if it holds them: [`storage_type`]).
pub(super) fn column_types(
    guesses: &[Guess],
    requested: &[Option<ColumnType>],
    seen: &[Seen],
) -> Vec<ColumnType> {
    (0..guesses.len())
        .map(|k| match guesses[k] {
            Guess::Typed(ty) => ty,
            _ => storage_type(requested[k], &seen[k]),
        })
        .collect()
}

/// fields as the load reads them (the part's share of a `text` column's file).
pub(super) struct PartSize {
    pub(super) rows: u64,
    pub(super) bytes: Vec<u64>,
}

/// Pass 1: each part's size and what each column's fields could be; the first
/// error in record order (a record of another width, or an open quote).
pub(super) fn infer_pass(
    pass: &Pass<'_>,
    guesses: &[Guess],
    threads: usize,
) -> Result<(Vec<PartSize>, Vec<Seen>), TableError> {
    let width = guesses.len();
    let start = |g: &Guess| match g {
        Guess::Strings => Seen::untyped(),
        _ => Seen::default(),
    };
    let looked: Vec<usize> = (0..width)
        .filter(|&k| !matches!(guesses[k], Guess::Typed(_)))
        .collect();
    let Pass {
        input,
        plan,
        headers,
        nulls,
        ..
    } = *pass;
    let parts = map_chunks(
        threads,
        plan.parts.len(),
        Vec::new,
        |scratch: &mut Vec<u8>, k| {
            let mut seen: Vec<Seen> = guesses.iter().map(start).collect();
            let (mut records, mut failure) = (0u64, None);
            let (produced, parsed) = parse_part(pass, k, |r| {
                if failure.is_none() && r.len() != width {
                    failure = Some((records, r.spans()[0].start, r.len()));
                }
                for &c in looked.iter().filter(|&&c| c < r.len()) {
                    seen[c].add(null_as_empty(nulls, r.field(c).cooked_in(scratch)));
                }
                records += 1;
            });
            (produced, seen, failure, parsed.err())
        },
    )
    .0;
    let mut before = headers;
    let (mut sizes, mut merged) = (Vec::new(), guesses.iter().map(start).collect::<Vec<_>>());
    let mut unsketched = Vec::new(); // per part, per column
    for (produced, seen, failure, parse_error) in parts {
        if let Some((record, start, found)) = failure {
            return Err(QueryError::FieldCount {
                record: before + record,
                place: Some(Place::of(input, start, start)),
                expected: width,
                found,
            }
            .into());
        }
        if let Some(mut e) = parse_error {
            e.record += before;
            return Err(QueryError::Parse(e).into());
        }
        for (m, s) in merged.iter_mut().zip(&seen) {
            m.merge(s);
        }
        sizes.push(PartSize {
            rows: produced,
            bytes: seen.iter().map(|s| s.bytes).collect(),
        });
        unsketched.push(seen.iter().map(|s| s.unsketched).collect::<Vec<_>>());
        before += produced;
    }
    sketch_again(pass, &mut merged, &unsketched, threads);
    Ok((sizes, merged))
}

// ANCHOR: sketch_again
/// Completes the sketch of each column that [`Seen::needs_sketch`]: a string column
/// whose values came partly while a type still held it. Parses again only the parts
/// where it did, and hashes only those columns; the types come out as if every value
/// had been sketched in pass 1. No column of the bench file needs it.
fn sketch_again(pass: &Pass<'_>, merged: &mut [Seen], unsketched: &[Vec<bool>], threads: usize) {
    let columns: Vec<usize> = (0..merged.len())
        .filter(|&k| merged[k].needs_sketch())
        .collect();
    if columns.is_empty() {
        return;
    }
    let sketches = map_chunks(
        threads,
        pass.plan.parts.len(),
        Vec::new,
        |scratch: &mut Vec<u8>, part| {
            let mut sketches = vec![Distinct::default(); columns.len()];
            if columns.iter().any(|&k| unsketched[part][k]) {
                let _ = parse_part(pass, part, |r| {
                    for (sketch, &k) in sketches.iter_mut().zip(&columns) {
                        let field = null_as_empty(pass.nulls, r.field(k).cooked_in(scratch));
                        if !field.is_empty() {
                            sketch.add(spread_hash(field));
                        }
                    }
                });
            }
            sketches
        },
    )
    .0;
    for (i, &k) in columns.iter().enumerate() {
        let mut again = Distinct::default();
        sketches.iter().for_each(|s| again.merge(&s[i]));
        merged[k].complete_sketch(&again);
    }
}
// ANCHOR_END: sketch_again
