//! Pass 2: each chunk's fields written into its windows of the column files, in
//! parallel ([`ChunkColumns`]); then the first field, in record order, that broke
//! its column's type.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use harness::query::{Place, key_text};
use hashbrown::DefaultHashBuilder;

use crate::Field;
use crate::pool::map_chunks;
use crate::splayed::encode::{BadField, ChunkColumns, Windows};
use crate::splayed::error::TableError;
use crate::splayed::load::plan::{Pass, parse_part};
use crate::splayed::types::ColumnType;

/// Each chunk's columns, written through `windows` (chunk by chunk, column by
/// column), `rows[c]` records in chunk `c`. With `guessed` types, the first bad
/// field means loading again: the chunks not begun are skipped, so that a wrong
/// guess costs less than a whole pass 2, and the answer is `None`.
pub(super) fn encode<'t, 'm>(
    pass: &Pass<'t>,
    types: &'t [ColumnType],
    windows: Vec<Vec<Windows<'m>>>,
    rows: &[u64],
    guessed: bool,
    threads: usize,
) -> Option<Vec<ChunkColumns<'t, 'm>>> {
    let hasher = DefaultHashBuilder::default();
    let slots: Vec<Mutex<ChunkColumns<'t, 'm>>> = windows
        .into_iter()
        .zip(rows)
        .map(|(windows, &n)| Mutex::new(ChunkColumns::new(types, pass.nulls, n as usize, windows)))
        .collect();
    let broken = AtomicBool::new(false);
    map_chunks(
        threads,
        pass.plan.parts.len(),
        || (),
        |(), k| {
            if guessed && broken.load(Ordering::Relaxed) {
                return;
            }
            let mut columns = slots[k].lock().expect("one task per chunk");
            // Pass 1 reported any parse error: the same bytes parse the same way again.
            let _ = parse_part(pass, k, |r| columns.push(&r, &hasher));
            if columns.bad.is_some() {
                broken.store(true, Ordering::Relaxed);
            }
        },
    );
    let chunks = slots
        .into_iter()
        .map(|m| m.into_inner().expect("no task panicked"))
        .collect();
    // A guess was wrong, or the field is bad: the full load tells.
    (!(guessed && broken.into_inner())).then_some(chunks)
}

/// The first field (in record order) that did not parse as its column's type.
pub(super) fn first_bad_field(
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
