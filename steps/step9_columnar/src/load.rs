//! The load: CSV in, splayed table out, on every core, the same bytes on any number
//! of threads.
//!
//! ```text
//! header = the first record; the plan = step 8's chunks (of at most LOAD_CHUNK)
//! guess:  each column's type from the records of the first SAMPLE_BYTES
//! pass 1, per chunk in parallel: check each record's width, and what each
//!         column's fields could be, their bytes, their distinct values
//!         (infer::Seen), for the columns with no guessed type; merge: each
//!         column's type
//! files:  each column's files in a temporary directory, at their final size,
//!         mapped (crate::mapped); each chunk gets its window of each
//! pass 2, per chunk in parallel: each field written into its column's window,
//!         strings into the chunk's dictionary, text as it is (encode::ChunkColumns)
//! intern: the chunks' dictionaries into the table's symbols (symbols::intern),
//!         then each chunk's local ids rewritten as symbol ids, in place
//! write:  the maps unmapped and the files synced, one task per column, the
//!         symbols beside them; the manifest last; then one rename makes the
//!         table appear, complete
//! a field that breaks a guessed type (pass 2): the whole load again, no guess
//! ```
//!
//! The CSV is parsed twice: a column's type is known only after its last field, and
//! the second parse (step 8's, over a file now in the page cache) costs less than
//! keeping every field's position between the passes would. The guess spares pass 1
//! the type tests of the columns whose type the sample makes plain; pass 2 tests
//! their fields anyway, as it stores them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use harness::ParseError;
use harness::query::{Place, QueryError, find_column, key_text};
use harness::spec::dialect::Dialect;
use hashbrown::DefaultHashBuilder;

use crate::chunks::{Plan, map_chunks};
use crate::distinct::{Distinct, spread_hash};
use crate::encode::{BadField, Bits, ChunkColumns, Windows};
use crate::error::TableError;
use crate::hash_index::{self, HashIndex};
use crate::infer::{ColumnType, Seen, null_as_empty, storage_type};
use crate::layout::{self, MANIFEST};
use crate::manifest::{Column, Manifest};
use crate::mapped::{MappedFile, windows};
use crate::query::Split;
use crate::symbols;
use crate::{Field, Parser, Tier};

/// How to load: the threads and chunks, and the types given for some columns.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Threads and chunk size (step 8's).
    pub split: Option<Split>,
    /// `(column name, type)` pairs that override the inference.
    pub schema: Vec<(String, ColumnType)>,
    /// The column to build a hash index on, by name (or position).
    pub index: Option<String>,
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
    text.split(',')
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
        .collect()
}

// ANCHOR: load
/// Loads the CSV `input` into a new table at `dir` and returns its manifest.
///
/// # Errors
/// [`TableError::Exists`] when `dir` exists; step 8's [`QueryError`]s for an input
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
    /// The hash index (`--index`), if asked for.
    pub index: f64,
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
    let mut clock = std::time::Instant::now();
    let mut lap = |phase: &mut f64| {
        *phase = clock.elapsed().as_secs_f64();
        clock = std::time::Instant::now();
    };
    if dir.exists() {
        return Err(TableError::Exists(dir.to_path_buf()));
    }
    let split = options.split.unwrap_or_else(Split::all_cores);
    let delimiter = options.dialect.delimiter;
    let (names, header_end) = read_header(input, options.no_header, delimiter)?;
    let headers = u64::from(!options.no_header); // records before the first data record
    let requested = resolve_schema(&names, &options.schema)?;
    let plan = load_split(split, input.len()).plan(input, delimiter);
    lap(&mut phases.plan);
    let pass = Pass {
        input,
        plan: &plan,
        header_end,
        headers,
        nulls: &options.nulls,
        delimiter,
    };
    let guesses = match guess {
        true => guess_types(&pass, &requested),
        false => vec![Guess::Unsure; names.len()],
    };
    let (sizes, seen) = infer_pass(&pass, &guesses, split.threads)?;
    let types: Vec<ColumnType> = (0..names.len())
        .map(|k| match guesses[k] {
            Guess::Typed(ty) => ty,
            _ => storage_type(requested[k], &seen[k]),
        })
        .collect();
    let index_column = options
        .index
        .as_deref()
        .map(|name| index_column(&names, &types, name))
        .transpose()?;
    lap(&mut phases.infer);
    // From here on every file goes into the staging directory, removed on any error.
    let staging = Staging::create(dir)?;
    let rows: Vec<u64> = sizes.iter().map(|s| s.rows).collect();
    let mut files = create_column_files(&staging.tmp, &types, rows.iter().sum(), &seen)?;
    let hasher = DefaultHashBuilder::default();
    let slots: Vec<Mutex<ChunkColumns<'_, '_>>> = chunk_windows(&mut files, &types, &sizes)
        .into_iter()
        .zip(&rows)
        .map(|(windows, &n)| {
            Mutex::new(ChunkColumns::new(
                &types,
                &options.nulls,
                n as usize,
                windows,
            ))
        })
        .collect();
    let guessed = guesses.iter().any(|g| matches!(g, Guess::Typed(_)));
    // With a guess, any bad field means loading again: the chunks not begun are
    // skipped, so that a wrong guess costs less than a whole pass 2.
    let broken = AtomicBool::new(false);
    map_chunks(
        split.threads,
        plan.parts.len(),
        || (),
        |(), k| {
            if guessed && broken.load(Ordering::Relaxed) {
                return;
            }
            let mut columns = slots[k].lock().expect("one task per chunk");
            // Pass 1 reported any parse error: the same bytes parse the same way again.
            let _ = parse_part(&pass, k, |r| columns.push(&r, &hasher));
            if columns.bad.is_some() {
                broken.store(true, Ordering::Relaxed);
            }
        },
    );
    let mut chunks: Vec<ChunkColumns<'_, '_>> = slots
        .into_iter()
        .map(|m| m.into_inner().expect("no task panicked"))
        .collect();
    if guessed && broken.into_inner() {
        return Ok(None); // a guess was wrong, or the field is bad: the full load tells
    }
    first_bad_field(&pass, &names, &types, &chunks)?;
    lap(&mut phases.encode);
    let dicts: Vec<_> = chunks
        .iter_mut()
        .map(|c| std::mem::take(&mut c.dict))
        .collect();
    let (symbols, ids) = symbols::intern(&dicts, split.threads);
    drop(dicts);
    let id_bounds = to_symbol_ids(&mut chunks, &ids, &types, split.threads);
    lap(&mut phases.intern);
    let index = index_column.map(|k| {
        let keys = index_keys(&chunks, &types, k);
        let mut index = hash_index::build(&keys, split.threads);
        let key_of = |g: usize| &keys[index.first_row(g)];
        index.slots =
            hash_index::slots(index.groups(), |g| slot_hash(types[k], key_of(g), &symbols));
        (k, index)
    });
    let mut manifest = manifest(names, &types, &chunks, &id_bounds, symbols.len());
    manifest.index = index.as_ref().map(|(k, _)| *k);
    let valid = joined_valid(&chunks, &types);
    drop(chunks); // the windows into the mapped files
    for column in &mut files {
        column.values.unmap(); // before the sync: see MappedFile::sync
        column.extra.as_mut().map(MappedFile::unmap);
    }
    lap(&mut phases.index);
    let written = Written {
        files: &files,
        valid: &valid,
        symbols: &symbols,
        index: index.as_ref(),
        manifest: &manifest,
    };
    write_table(&staging.tmp, &written, split.threads).map_err(TableError::io_at(&staging.tmp))?;
    drop(files);
    staging.commit(dir)?;
    lap(&mut phases.write);
    Ok(Some((manifest, phases)))
}
// ANCHOR_END: load

// ANCHOR: guess
/// The bytes at the start of the data whose records the load reads first, to guess
/// each column's type (about 20,000 records of the bench file).
pub const SAMPLE_BYTES: usize = 1 << 20;

/// What pass 1 does with a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guess {
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
/// the narrowest type of the list in [`crate::infer`] that holds the sample, so if it
/// holds every field of the column it is the type every field gives. `float64` is
/// not guessed: pass 2's number parse is not the same function as the inference's
/// test. A column given by `--schema`, or with no value in the sample, is `Unsure`.
fn guess_types(pass: &Pass<'_>, requested: &[Option<ColumnType>]) -> Vec<Guess> {
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

// ANCHOR: load_chunk
/// The load's default chunk: at most 4 MiB, so that a chunk's dictionary stays small
/// enough for the caches (about 80,000 records of the bench file). With step 8's
/// default, eight chunks a thread, a chunk of the 1 GB file holds about a million
/// distinct names, and every insert into its table misses the cache: pass 2 took
/// 3.1 s with 64 MB chunks, 2.4 s with 16 MB, 1.7 s with 4 MB; 2 MB and below
/// gained nothing more and cost the interning more partitions' work.
pub const LOAD_CHUNK: usize = 4 << 20;

/// `split`, its default chunk size ([`Split::chunk`] 0) capped at [`LOAD_CHUNK`].
fn load_split(split: Split, len: usize) -> Split {
    let chunk = match split.chunk {
        0 => crate::chunks::default_size(len, split.threads).min(LOAD_CHUNK),
        given => given,
    };
    Split { chunk, ..split }
}
// ANCHOR_END: load_chunk

/// The header's fields and where the first data record starts; with `no_header`,
/// the names `1`, `2`, … and where the first record starts (it is data).
fn read_header(
    input: &[u8],
    no_header: bool,
    delimiter: u8,
) -> Result<(Vec<Vec<u8>>, usize), TableError> {
    let mut from = harness::spec::dialect::bom_len(input);
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
struct Pass<'p> {
    input: &'p [u8],
    plan: &'p Plan,
    header_end: usize,
    headers: u64,
    nulls: &'p [String],
    delimiter: u8,
}

/// The type `--schema` gives each column, if any; a column is named as the query
/// names it (its name, or its position).
fn resolve_schema(
    names: &[Vec<u8>],
    schema: &[(String, ColumnType)],
) -> Result<Vec<Option<ColumnType>>, TableError> {
    let mut types = vec![None; names.len()];
    for (name, ty) in schema {
        types[column_named(names, name)?] = Some(*ty);
    }
    Ok(types)
}

/// The index of the column `name` (its name, or its position) among `names`.
fn column_named(names: &[Vec<u8>], name: &str) -> Result<usize, TableError> {
    let names: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
    Ok(find_column(name, &names, true)?)
}

/// The column `--index` names; not a `text` column, whose values hardly repeat:
/// an index of them would be a group per row.
fn index_column(names: &[Vec<u8>], types: &[ColumnType], name: &str) -> Result<usize, TableError> {
    let k = column_named(names, name)?;
    if types[k] == ColumnType::Text {
        return Err(TableError::Schema(format!(
            "column {name:?} is stored as text (nearly every value distinct), which has no \
             index; --schema {name}=string interns it, and then it can have one"
        )));
    }
    Ok(k)
}

/// Parses part `k` of `plan` (its records after the header), calling `on_record`.
fn parse_part<'a>(
    pass: &Pass<'a>,
    k: usize,
    on_record: impl FnMut(crate::Record<'_, 'a>),
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

/// What pass 1 found in one part: its records, and the bytes of each column's
/// fields as the load reads them (the part's share of a `text` column's file).
struct PartSize {
    rows: u64,
    bytes: Vec<u64>,
}

/// Pass 1: each part's size and what each column's fields could be; the first
/// error in record order (a record of another width, or an open quote).
fn infer_pass(
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
            let Place { line, byte } = Place::of(input, start, start);
            return Err(QueryError::FieldCount {
                record: before + record,
                line,
                byte,
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

/// The first field (in record order) that did not parse as its column's type.
fn first_bad_field(
    pass: &Pass<'_>,
    names: &[Vec<u8>],
    types: &[ColumnType],
    chunks: &[ChunkColumns<'_, '_>],
) -> Result<(), TableError> {
    let input = pass.input;
    let mut before = pass.headers;
    for chunk in chunks {
        if let Some(BadField {
            record,
            column,
            start,
            end,
            needs_unescape,
        }) = chunk.bad
        {
            let field = Field {
                raw: &input[start..end],
                needs_unescape,
            };
            // A quoted field's view starts after its opening quote: Place names the quote.
            let Place { line, byte } = Place::of(input, start, start);
            return Err(TableError::Type {
                record: before + record,
                line,
                byte,
                column: key_text(&names[column]),
                ty: types[column],
                text: field.cooked().into_owned(),
            });
        }
        before += chunk.rows;
    }
    Ok(())
}

// ANCHOR: to_symbol_ids
/// Rewrites each chunk's string columns from local ids to symbol ids, a chunk per
/// task; returns each column's largest symbol id + 1 (0 for other types).
fn to_symbol_ids(
    chunks: &mut [ChunkColumns<'_, '_>],
    ids: &[Vec<u32>],
    types: &[ColumnType],
    threads: usize,
) -> Vec<u32> {
    let per_thread = chunks.len().div_ceil(threads.max(1)).max(1);
    let bounds: Vec<Vec<u32>> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .chunks_mut(per_thread)
            .zip(ids.chunks(per_thread))
            .map(|(mine, my_ids)| {
                scope.spawn(move || {
                    let mut bound = vec![0u32; types.len()];
                    for (chunk, map) in mine.iter_mut().zip(my_ids) {
                        for (k, column) in chunk.columns.iter_mut().enumerate() {
                            if types[k] != ColumnType::String {
                                continue;
                            }
                            for id in column.values.filled_mut().chunks_exact_mut(4) {
                                let local = u32::from_le_bytes(id.try_into().expect("4 bytes"));
                                let symbol = map[local as usize];
                                bound[k] = bound[k].max(symbol + 1);
                                id.copy_from_slice(&symbol.to_le_bytes());
                            }
                        }
                    }
                    bound
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    (0..types.len())
        .map(|k| bounds.iter().map(|b| b[k]).max().unwrap_or(0))
        .collect()
}
// ANCHOR_END: to_symbol_ids

/// Column `k`'s key of each row for the hash index: its value's bytes, and a last
/// byte 1 for a value, 0 for NULL (whose bytes are zeros).
fn index_keys(chunks: &[ChunkColumns<'_, '_>], types: &[ColumnType], k: usize) -> Vec<[u8; 16]> {
    let mut keys = Vec::with_capacity(chunks.iter().map(|c| c.rows as usize).sum());
    let width = types[k].width();
    for chunk in chunks {
        let column = &chunk.columns[k];
        for (row, value) in column.values.filled().chunks_exact(width).enumerate() {
            let mut key = [0u8; 16];
            key[..width].copy_from_slice(value);
            let valid = column.valid.len == 0 || column.valid.get(row as u64);
            key[15] = u8::from(valid);
            keys.push(key);
        }
    }
    keys
}

/// The slots' hash of an index key ([`hash_index::hash_key`]): a string's bytes, or
/// the key's 16 bytes for any other type.
pub fn slot_hash(ty: ColumnType, key: &[u8; 16], symbols: &symbols::Symbols) -> u64 {
    match ty {
        ColumnType::String => {
            let id = u32::from_le_bytes(key[..4].try_into().expect("4"));
            hash_index::hash_key(symbols.get(id as usize))
        }
        _ => hash_index::hash_key(key),
    }
}

fn manifest(
    names: Vec<Vec<u8>>,
    types: &[ColumnType],
    chunks: &[ChunkColumns<'_, '_>],
    id_bounds: &[u32],
    symbols: usize,
) -> Manifest {
    let rows: u64 = chunks.iter().map(|c| c.rows).sum();
    let columns = names
        .into_iter()
        .enumerate()
        .map(|(k, name)| {
            let valid: u64 = chunks
                .iter()
                .flat_map(|c| &c.columns[k].valid.words)
                .map(|w| u64::from(w.count_ones()))
                .sum();
            Column {
                name,
                ty: types[k],
                nulls: if types[k].has_validity() {
                    rows - valid
                } else {
                    0
                },
                id_bound: id_bounds[k],
            }
        })
        .collect();
    Manifest {
        rows,
        symbols: symbols as u64,
        columns,
        index: None,
    }
}

// ANCHOR: write_table
/// What the load writes after pass 2: the column files (already filled through
/// their maps), the validity bits, the symbols, the index and the manifest.
struct Written<'w> {
    files: &'w [ColumnFiles],
    valid: &'w [Option<Bits>],
    symbols: &'w symbols::Symbols,
    index: Option<&'w (usize, HashIndex)>,
    manifest: &'w Manifest,
}

/// Writes what the maps do not hold into the staging directory `tmp`, and flushes
/// every file to the disk, one task per column; the manifest last.
fn write_table(tmp: &Path, w: &Written<'_>, threads: usize) -> std::io::Result<()> {
    // One task per column, and one more for the symbols, so that their write
    // overlaps the columns' flushes.
    let columns = map_chunks(
        threads,
        w.files.len() + 1,
        || (),
        |(), k| {
            if k == w.files.len() {
                return layout::write_symbols(tmp, w.symbols);
            }
            let files = &w.files[k];
            files.values.sync()?;
            files.extra.as_ref().map_or(Ok(()), MappedFile::sync)?;
            w.valid[k]
                .as_ref()
                .map_or(Ok(()), |valid| layout::write_valid(tmp, k, valid))
        },
    )
    .0;
    columns.into_iter().collect::<std::io::Result<()>>()?;
    if let Some((k, index)) = w.index {
        layout::write_index(tmp, *k, index)?;
    }
    let json = w.manifest.to_json().to_string();
    layout::write_file(&tmp.join(MANIFEST), [json.as_bytes()])?;
    std::fs::File::open(tmp)?.sync_all()
}
// ANCHOR_END: write_table

// ANCHOR: staging
/// The load's temporary directory beside the table's (`temporary_dir`): removed
/// when dropped (an error, a panic) unless [`Staging::commit`] renamed it into place.
/// A crash leaves it behind, and no query opens it: it has no table's name.
struct Staging {
    tmp: PathBuf,
    done: bool,
}

impl Staging {
    fn create(dir: &Path) -> Result<Staging, TableError> {
        let tmp = temporary_dir(dir);
        let _ = std::fs::remove_dir_all(&tmp); // a crashed load's leftovers, if any
        std::fs::create_dir_all(&tmp).map_err(TableError::io_at(&tmp))?;
        Ok(Staging { tmp, done: false })
    }

    /// Renames the complete table to `dir`: the one step that makes it appear.
    fn commit(mut self, dir: &Path) -> Result<(), TableError> {
        std::fs::rename(&self.tmp, dir).map_err(TableError::io_at(dir))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}
// ANCHOR_END: staging

/// One column's mapped files: its values, and its second file: the exact decimals
/// of a `float64` column, the bytes of a `text` column.
struct ColumnFiles {
    values: MappedFile,
    extra: Option<MappedFile>,
}

// ANCHOR: create_column_files
/// Each column's files in `tmp`, at their final size for `rows` rows (`seen` summed
/// a `text` column's bytes), mapped.
fn create_column_files(
    tmp: &Path,
    types: &[ColumnType],
    rows: u64,
    seen: &[Seen],
) -> Result<Vec<ColumnFiles>, TableError> {
    let create =
        |path: PathBuf, len: u64| MappedFile::create(&path, len).map_err(TableError::io_at(&path));
    let file = |k: usize, part: &str| layout::column_file(tmp, k, part);
    types
        .iter()
        .enumerate()
        .map(|(k, ty)| {
            Ok(ColumnFiles {
                values: create(
                    file(k, "values"),
                    rows * ty.values_width(seen[k].bytes) as u64,
                )?,
                extra: match ty {
                    ColumnType::Float64 => Some(create(file(k, "exact"), rows * 16)?),
                    ColumnType::Text => Some(create(file(k, "text"), seen[k].bytes)?),
                    _ => None,
                },
            })
        })
        .collect()
}

/// Each chunk's [`Windows`] of each column's files, chunk `c`'s after the chunks'
/// before it (their rows, and for `text` their bytes, as pass 1 counted them).
fn chunk_windows<'m>(
    files: &'m mut [ColumnFiles],
    types: &[ColumnType],
    sizes: &[PartSize],
) -> Vec<Vec<Windows<'m>>> {
    let mut per_chunk: Vec<Vec<Windows<'m>>> = sizes
        .iter()
        .map(|_| Vec::with_capacity(types.len()))
        .collect();
    for (k, (column, ty)) in files.iter_mut().zip(types).enumerate() {
        let rows = |width: usize| sizes.iter().map(move |s| s.rows as usize * width);
        let width = ty.values_width(sizes.iter().map(|s| s.bytes[k]).sum());
        let values = windows(column.values.bytes_mut(), rows(width));
        let extra = match (&mut column.extra, ty) {
            (Some(text), ColumnType::Text) => {
                windows(text.bytes_mut(), sizes.iter().map(|s| s.bytes[k] as usize))
            }
            (Some(exact), _) => windows(exact.bytes_mut(), rows(16)),
            (None, _) => sizes.iter().map(|_| <&mut [u8]>::default()).collect(),
        };
        let mut text_start = 0;
        for ((chunk, values), extra) in per_chunk.iter_mut().zip(values).zip(extra) {
            let len = extra.len() as u64;
            chunk.push(Windows {
                values,
                extra,
                text_start,
                offset_width: width,
            });
            text_start += len;
        }
    }
    per_chunk
}
// ANCHOR_END: create_column_files

/// Each column's validity bits, the chunks' joined (`None` for a string column).
fn joined_valid(chunks: &[ChunkColumns<'_, '_>], types: &[ColumnType]) -> Vec<Option<Bits>> {
    types
        .iter()
        .enumerate()
        .map(|(k, ty)| {
            ty.has_validity().then(|| {
                let mut valid = Bits::default();
                for chunk in chunks {
                    valid.extend(&chunk.columns[k].valid);
                }
                valid
            })
        })
        .collect()
}

/// `.NAME.loading-PID` beside `dir`: the same file system, so the rename is atomic.
pub fn temporary_dir(dir: &Path) -> PathBuf {
    let name = dir
        .file_name()
        .map_or("table".into(), |n| n.to_string_lossy().into_owned());
    dir.with_file_name(format!(".{name}.loading-{}", std::process::id()))
}
