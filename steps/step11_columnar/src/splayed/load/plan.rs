//! Before the passes: the header (the columns' names), the `--schema` types by
//! column, the chunks (step 10's plan, at most [`LOAD_CHUNK`] each), and how both
//! passes parse a chunk's records.

use harness::ParseError;
use harness::query::{QueryError, find_column};

use crate::chunks::Plan;
use crate::parallel::Split;
use crate::splayed::error::TableError;
use crate::splayed::types::ColumnType;
use crate::{Parser, Record, Tier};

// ANCHOR: load_chunk
/// The load's default chunk: at most 4 MiB, so that a chunk's dictionary stays small
/// enough for the caches (about 80,000 records of the bench file). Step 10's default
/// is eight chunks a thread of up to twice this; with eight chunks a thread and no
/// bound, a chunk of the 1 GB file held about a million distinct names, and every
/// insert into its table missed the cache. Pass 2 gets faster as the chunks shrink
/// to this size; smaller ones gain nothing more and give the interning more
/// partitions' work (the chapter has the figures).
pub const LOAD_CHUNK: usize = 4 << 20;

/// `split`, its default chunk size ([`Split::chunk`] 0) capped at [`LOAD_CHUNK`].
pub(super) fn load_split(split: Split, len: usize) -> Split {
    let chunk = match split.chunk {
        0 => crate::chunks::default_size(len, split.threads).min(LOAD_CHUNK),
        given => given,
    };
    Split { chunk, ..split }
}
// ANCHOR_END: load_chunk

/// The header's fields and where the first data record starts; with `no_header`,
/// the names `1`, `2`, … and where the first record starts (it is data).
pub(super) fn read_header(
    input: &[u8],
    no_header: bool,
    delimiter: u8,
) -> Result<(Vec<Vec<u8>>, usize), TableError> {
    let mut from = harness::dialect::bom_len(input);
    while from < input.len() {
        let mut names = None;
        let stopped =
            Parser::new(delimiter).records_between(Tier::chosen(), input, from, from + 1, |r| {
                names = Some(
                    r.fields()
                        .map(|f| f.cooked().into_owned())
                        .collect::<Vec<_>>(),
                );
            });
        let stopped = stopped.map_err(QueryError::Parse)?;
        if let Some(names) = names {
            if no_header {
                let positions = (1..=names.len()).map(|p| p.to_string().into_bytes());
                return Ok((positions.collect(), from));
            }
            return Ok((names, stopped));
        }
        from = stopped; // a blank line
    }
    Err(QueryError::NoHeader.into())
}

/// What both passes read: the input, its plan, where the data records start, how
/// many records come before them (the header: 1, or 0), and the `--null` texts.
pub(super) struct Pass<'p> {
    pub(super) input: &'p [u8],
    pub(super) plan: &'p Plan,
    pub(super) header_end: usize,
    pub(super) headers: u64,
    pub(super) nulls: &'p [String],
    pub(super) delimiter: u8,
}

/// The type `--schema` gives each column, if any; a column is named as the query
/// names it (its name, or its position).
pub(super) fn resolve_schema(
    names: &[Vec<u8>],
    schema: &[(String, ColumnType)],
) -> Result<Vec<Option<ColumnType>>, TableError> {
    let names: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
    let mut types = vec![None; names.len()];
    for (name, ty) in schema {
        types[find_column(name, &names, true)?] = Some(*ty);
    }
    Ok(types)
}

/// Parses part `k` of `plan` (its records after the header), calling `on_record`.
pub(super) fn parse_part<'a>(
    pass: &Pass<'a>,
    k: usize,
    on_record: impl FnMut(Record<'_, 'a>),
) -> (u64, Result<usize, ParseError>) {
    let part = pass.plan.parts[k];
    let from = part.from.max(pass.header_end);
    if from >= part.stop {
        return (0, Ok(from)); // the header's own chunk
    }
    let mut parser = Parser::new(pass.delimiter);
    let parsed = parser.records_between(Tier::chosen(), pass.input, from, part.stop, on_record);
    (parser.produced(), parsed)
}
