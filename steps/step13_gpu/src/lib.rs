//! # Step 13 — the GPU pipeline: speculative tiles, repair, and GROUP BY on the device
//!
//! **The idea.** Step 10 cut the input into a few chunks, one per core. A GPU has
//! tens of thousands of threads, so this step cuts it into 32 KiB tiles (one block
//! each) of 32-byte slices (one thread each) and keeps every stage data-parallel:
//! each tile, assuming it starts outside quotes, builds the row-start bitmap of its
//! slices and its transition function ([`machine`], [`tiles`]); an exclusive scan of
//! the tiles' functions by composition gives every tile its exact start state; the
//! tiles whose guess was wrong are processed once more (the repair pass); a scan of
//! the row counts turns the bitmaps into row offsets; then one thread a row finds its
//! fields, parses the value and adds it to its group with integer atomics that do
//! not depend on the order ([`limbs`], [`groupby`]). Every kernel
//! (`kernels/*.cu`) has a CPU twin here with the same name, inputs and outputs, so
//! the whole pipeline is tested on machines without a GPU.
//!
//! **What changed since step 10.** The state machine is a table and a transition
//! function is a 15-bit word ([`machine`]); chunks became tiles and slices with
//! bitmaps ([`tiles`]); the parse of a row starts at its offset ([`record`]); the
//! exact sum is kept as 32-bit limbs in 64-bit accumulators ([`limbs`]); the CUDA
//! host code is new ([`device`]).
//!
//! **Assumptions and policy.** The dialect of the `harness` crate, exactly; the
//! query's rules and its exact sums are step 10's, so its `--json` is step 10's.
//!
//! **Read more.** Elias Stehle and Hans-Arno Jacobsen, "ParPaRaw: Massively Parallel
//! Parsing of Delimiter-Separated Raw Data" (VLDB 2020), the transition functions and
//! their scan; the cuDF CSV reader's speculative tiles and repair; Merrill and
//! Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (2016), for
//! where the single-block tile scan would go next.

use std::fs::File;
use std::path::Path;

use harness::dialect::Dialect;
use harness::{Error, Fingerprint, ParseError, Record as OwnedRecord, Step};
use memmap2::Mmap;

pub mod cli;
pub mod device;
pub mod exact;
pub mod extremes;
pub mod groupby;
pub mod limbs;
pub mod machine;
pub mod query;
pub mod ratio;
pub mod record;
pub mod tiles;
pub mod value;
pub mod wide;

use record::{Field, split_record};
use tiles::Geometry;

/// Step 13 on the harness's [`Step`] interface, as the gate runs it: 4-byte slices, 4
/// a tile, so that the gate's small inputs cross tile and slice edges everywhere
/// (`tests/tiles.rs` runs the gate at the device's 32 x 1024 and at other sizes).
/// [`Step::pass`] uses the device's geometry on the CPU twin.
pub type Step13 = Tiled<4, 4>;

/// Step 13's CPU twin with `SLICE`-byte slices, `SLICES` a tile.
pub struct Tiled<const SLICE: usize, const SLICES: usize>;

impl<const SLICE: usize, const SLICES: usize> Tiled<SLICE, SLICES> {
    const GEOMETRY: Geometry = Geometry {
        slice: SLICE,
        slices: SLICES,
    };
}

impl<const SLICE: usize, const SLICES: usize> Step for Tiled<SLICE, SLICES> {
    const NUMBER: u32 = 13;
    const NAME: &'static str = "step13";
    const IDEA: &'static str = "the GPU pipeline: speculative tiles, repair, bitmaps to offsets";

    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<OwnedRecord>, ParseError> {
        let mut records = Vec::new();
        for_each_record(input, Self::GEOMETRY, dialect, |fields| {
            records.push(fields.iter().map(|f| f.cooked().into_owned()).collect());
        })?;
        Ok(records)
    }

    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        fingerprint_in(input, Self::GEOMETRY, dialect)
    }

    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let input = map(path)?;
        Ok(fingerprint_in(&input, tiles::GPU, dialect)?)
    }
}

/// The fingerprint of `input` in `dialect` through the row index with `geometry`.
///
/// # Errors
/// [`ParseError`] on an unterminated quote.
pub fn fingerprint_in(
    input: &[u8],
    geometry: Geometry,
    dialect: Dialect,
) -> Result<Fingerprint, ParseError> {
    let mut fp = Fingerprint::default();
    for_each_record(input, geometry, dialect, |fields| {
        fp.add_record(fields.iter().map(Field::cooked_len));
    })?;
    Ok(fp)
}

/// Calls `on_record` with the fields of every record of `input`, found through the
/// row index (the CPU twins) and [`split_record`].
///
/// # Errors
/// [`ParseError`] on an unterminated quote, after every record before it.
pub fn for_each_record<'a>(
    input: &'a [u8],
    geometry: Geometry,
    dialect: Dialect,
    mut on_record: impl FnMut(&[Field<'a>]),
) -> Result<(), ParseError> {
    let d = dialect.delimiter;
    let index = tiles::index(input, geometry, d);
    let (mut spans, mut fields) = (Vec::new(), Vec::new());
    for &start in &index.offsets {
        if split_record(input, start as usize, &mut spans, d).is_err() {
            break; // the open last row: reported below
        }
        fields.clear();
        fields.extend(spans.iter().map(|&s| Field::new(input, s)));
        on_record(&fields);
    }
    match query::open_quote(input, query::Summary::of(&index), d) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Maps the file at `path` read-only (step 2's map; see its `// SAFETY:` argument).
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or mapped.
pub fn map(path: &Path) -> Result<Mmap, Error> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: the map is only as immutable as the file under it: another process
    // that writes or truncates the file while it is mapped changes the bytes under a
    // shared borrow, or raises SIGBUS on the next read (the harness turns that into
    // one line and exit status 135). This step maps its own input, which nothing else
    // writes; step 2's chapter weighs the alternatives.
    unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))
}
