//! The load: CSV in, splayed table out, on every core, the same bytes on any number
//! of threads.
//!
//! ```text
//!                                                                            module
//! plan:    the header (the first record); step 10's chunks, at most LOAD_CHUNK  plan
//! guess:   each column's type from the records of the first SAMPLE_BYTES       pass1
//! pass 1:  per chunk, in parallel: each record's width checked, and what each
//!          column's fields could be (infer::Seen), their bytes, their distinct
//!          values, for the columns with no guessed type; merged: the types     pass1
//! files:   each column's files in a temporary directory, at their final size,
//!          mapped; each chunk gets its window of each                          files
//! pass 2:  per chunk, in parallel: each field written into its column's
//!          window, strings into the chunk's dictionary, text as it is          pass2
//! intern:  the chunks' dictionaries into the table's symbols, then each
//!          chunk's local ids rewritten as symbol ids, in place                 intern
//! write:   the maps unmapped and the files synced, one task per column, the
//!          symbols beside them; the manifest last; then one rename makes the
//!          table appear, complete (the staging directory is marked as the
//!          load's from its creation to the rename)                      write, marker
//! a field that breaks a guessed type (pass 2): the whole load again, no guess
//! ```
//!
//! The CSV is parsed twice: a column's type is known only after its last field, and
//! the second parse (step 10's, over a file now in the page cache) costs less than
//! keeping every field's position between the passes would. The guess spares pass 1
//! the type tests of the columns whose type the sample makes plain; pass 2 tests
//! their fields anyway, as it stores them.

use std::path::Path;
use std::time::Instant;

use harness::dialect::Dialect;

use crate::parallel::Split;
use crate::splayed::error::TableError;
use crate::splayed::manifest::Manifest;
use crate::splayed::mapped::MappedFile;
use crate::splayed::types::ColumnType;

mod files;
mod intern;
pub mod marker;
mod pass1;
mod pass2;
mod plan;
mod write;

pub use pass1::SAMPLE_BYTES;
pub use plan::LOAD_CHUNK;
pub use write::{
    file_checksum, keep_after, keep_on_interrupt, remove_on_interrupt, remove_staging_on_interrupt,
    temporary_dir,
};

use files::{chunk_windows, create_column_files, joined_valid};
use pass1::{Guess, column_types, guess_types, infer_pass};
use plan::{Pass, load_split, read_header, resolve_schema};
use write::{Staging, Written, check_target, manifest, write_table};

/// How to load: the threads and chunks, and the types given for some columns.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Threads and chunk size (step 10's).
    pub split: Option<Split>,
    /// `(column name, type)` pairs that override the inference.
    pub schema: Vec<(String, ColumnType)>,
    /// Texts read as an empty field, NULL (`--null`).
    pub nulls: Vec<String>,
    /// `--no-header`: the first record is data, and the columns are named `1`, `2`, ….
    pub no_header: bool,
    /// The delimiter (`--delimiter`).
    pub dialect: Dialect,
    /// Check every field's type in pass 1, without guessing from a sample first
    /// ([`SAMPLE_BYTES`]); the table is the same either way (the tests compare).
    pub no_guess: bool,
}

/// Parses a `--schema` value: `NAME=TYPE[,NAME=TYPE…]`, types as
/// [`ColumnType::name`] (`int64`, `float64`, `decimal(S)`, `date`, `bool`, `string`, `text`).
///
/// # Errors
/// [`TableError::Schema`] naming the part that does not parse.
pub fn parse_schema(text: &str) -> Result<Vec<(String, ColumnType)>, TableError> {
    let schema: Vec<(String, ColumnType)> = text
        .split(',')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (name, ty) = part
                .rsplit_once('=')
                .ok_or_else(|| TableError::Schema(format!("{part:?} is not NAME=TYPE")))?;
            let ty = ColumnType::parse(ty).ok_or_else(|| {
                TableError::Schema(format!(
                    "{ty:?} is not a type (int64, float64, decimal(S), date, bool, string, text)"
                ))
            })?;
            Ok((name.to_string(), ty))
        })
        .collect::<Result<_, TableError>>()?;
    // Two types for one column: which was meant cannot be told.
    for (i, (name, _)) in schema.iter().enumerate() {
        if schema[..i].iter().any(|(other, _)| other == name) {
            return Err(TableError::Schema(format!(
                "the column {name:?} is given a type twice"
            )));
        }
    }
    Ok(schema)
}

// ANCHOR: load
/// Loads the CSV `input` into a new table at `dir` and returns its manifest.
///
/// # Errors
/// [`TableError::Exists`] when `dir` exists; step 10's [`QueryError`](harness::query::QueryError)s for an input
/// that breaks the dialect, has no header, or has a record of another width than the
/// header; [`TableError::Type`] for a field that is not of the type `--schema` gave
/// its column; [`TableError::Io`] when writing fails (nothing is left behind then).
pub fn load(input: &[u8], dir: &Path, options: &LoadOptions) -> Result<Manifest, TableError> {
    load_timed(input, dir, options).map(|(manifest, _)| manifest)
}

/// Where a load's time went, in seconds, phase by phase (`--verbose`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Phases {
    /// The header, the chunks' transition functions and scan.
    pub plan: f64,
    /// Pass 1: widths and type inference.
    pub infer: f64,
    /// Pass 2: the fields into the chunks' columns and dictionaries.
    pub encode: f64,
    /// The chunks' dictionaries into the table's symbols, and the ids rewritten.
    pub intern: f64,
    /// The files written and synced, and the rename.
    pub write: f64,
    /// The types guessed from the sample did not hold for some field, and the load
    /// ran again with every field's type checked in pass 1 (the times are that run's).
    pub guessed_wrong: bool,
}

/// [`load`], and where its time went.
///
/// # Errors
/// As [`load`].
pub fn load_timed(
    input: &[u8],
    dir: &Path,
    options: &LoadOptions,
) -> Result<(Manifest, Phases), TableError> {
    if !options.no_guess
        && let Some(loaded) = load_once(input, dir, options, true)?
    {
        return Ok(loaded);
    }
    let (manifest, phases) = load_once(input, dir, options, false)?.expect("nothing guessed");
    let guessed_wrong = !options.no_guess;
    Ok((
        manifest,
        Phases {
            guessed_wrong,
            ..phases
        },
    ))
}

/// One load, its column types guessed from a sample when `guess` is true: `None`
/// when a field then broke a guessed type (nothing is left behind).
fn load_once(
    input: &[u8],
    dir: &Path,
    options: &LoadOptions,
    guess: bool,
) -> Result<Option<(Manifest, Phases)>, TableError> {
    let mut phases = Phases::default();
    let mut clock = Instant::now();
    let mut lap = |phase: &mut f64| {
        *phase = clock.elapsed().as_secs_f64();
        clock = Instant::now();
    };
    check_target(dir)?;
    let split = options.split.unwrap_or_else(Split::all_cores);
    let delimiter = options.dialect.delimiter;
    let (names, header_end) = read_header(input, options.no_header, delimiter)?;
    let requested = resolve_schema(&names, &options.schema)?;
    let plan = load_split(split, input.len()).plan(input, delimiter);
    lap(&mut phases.plan);
    let pass = Pass {
        input,
        plan: &plan,
        header_end,
        headers: u64::from(!options.no_header), // records before the first data record
        nulls: &options.nulls,
        delimiter,
    };
    let guesses = match guess {
        true => guess_types(&pass, &requested),
        false => vec![Guess::Unsure; names.len()],
    };
    let (sizes, seen) = infer_pass(&pass, &guesses, split.threads)?;
    let types = column_types(&guesses, &requested, &seen);
    lap(&mut phases.infer);
    // From here on every file goes into the staging directory, removed on any error.
    let staging = Staging::create(dir)?;
    let rows: Vec<u64> = sizes.iter().map(|s| s.rows).collect();
    let mut files = create_column_files(&staging.tmp, &types, rows.iter().sum(), &seen)?;
    let windows = chunk_windows(&mut files, &types, &sizes);
    let guessed = guesses.iter().any(|g| matches!(g, Guess::Typed(_)));
    let Some(mut chunks) = pass2::encode(&pass, &types, windows, &rows, guessed, split.threads)
    else {
        return Ok(None);
    };
    pass2::first_bad_field(&pass, &names, &types, &chunks)?;
    lap(&mut phases.encode);
    let (symbols, id_bounds) = intern::intern(&mut chunks, &types, split.threads);
    lap(&mut phases.intern);
    let manifest = manifest(names, &types, &chunks, &id_bounds, symbols.len());
    let valid = joined_valid(&chunks, &types);
    drop(chunks); // the windows into the mapped files
    for column in &mut files {
        column.values.unmap(); // before the sync: see MappedFile::sync
        column.extra.as_mut().map(MappedFile::unmap);
    }
    let written = Written {
        files: &files,
        valid: &valid,
        symbols: &symbols,
        manifest: &manifest,
    };
    write_table(&staging.tmp, &written, split.threads)
        .map_err(TableError::io_write_at(&staging.tmp))?;
    drop(files);
    staging.commit(dir)?;
    lap(&mut phases.write);
    Ok(Some((manifest, phases)))
}
// ANCHOR_END: load
