//! The query, end to end, on the CPU twins: the row index ([`crate::tiles`]), the
//! header, decode and aggregate ([`crate::groupby`]), and the host's fallback rows.
//! The CUDA path ([`crate::device`]) runs the same stages on the device and ends in
//! the same [`finish`](crate::groupby::finish).

use harness::ParseError;
use harness::query::{Groups, QueryError};

use crate::groupby::{self, Columns, Query};
use crate::machine::QUOTED;
use crate::record::split_record;
use crate::tiles::{Geometry, RowIndex};

/// What the host needs of the row index to plan the query: the device copies back
/// these four numbers, not the offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Row starts found (the header and an open last row included).
    pub rows: u64,
    /// The state after the last byte.
    pub final_state: u8,
    /// The first row's offset (0 when there is no row).
    pub first: u64,
    /// The last row's offset (0 when there is no row).
    pub last: u64,
}

impl Summary {
    /// The summary of a CPU-built index.
    pub fn of(index: &RowIndex) -> Summary {
        Summary {
            rows: index.offsets.len() as u64,
            final_state: index.final_state,
            first: index.offsets.first().copied().unwrap_or(0),
            last: index.offsets.last().copied().unwrap_or(0),
        }
    }
}

/// The rows the query aggregates, once the index is known: the header's columns and
/// the data rows `1..end` (an open last row is not one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The header's columns.
    pub columns: Columns,
    /// One past the last data row.
    pub end: u64,
    /// With `--no-header`, row 0's offset: a data row that the device skips (it
    /// skips row 0 always) and the host aggregates.
    pub first_row_is_data: Option<u64>,
}

impl Plan {
    /// Hands row 0 to the host when it is data (`--no-header`): the device's kernels
    /// stay as they are, and the host takes the row in record order like any other.
    pub fn keep_first_row(&self, decoded: &mut groupby::Decoded) {
        if let Some(offset) = self.first_row_is_data {
            decoded.fallback.push((0, offset));
        }
    }
}

// ANCHOR: plan
/// Reads the header and sizes the rows from the index.
///
/// # Errors
/// The parse error when the header itself is an open quoted field;
/// [`QueryError::NoHeader`] when there is no row; as [`Query::columns`].
pub fn plan(input: &[u8], index: Summary, query: Query<'_>) -> Result<Plan, QueryError> {
    let rows = index.rows;
    let end = rows - u64::from(index.final_state == QUOTED && rows > 0);
    if end == 0 {
        return match open_quote(input, index, query.dialect.delimiter) {
            Some(e) => Err(QueryError::Parse(e)),
            None => Err(QueryError::NoHeader),
        };
    }
    let columns = groupby::columns(input, index.first as usize, query)?;
    Ok(Plan {
        columns,
        end,
        first_row_is_data: (!query.header).then_some(index.first),
    })
}
// ANCHOR_END: plan

/// The unterminated quote, when the final state says there is one: its record is the
/// last row, and its byte the open field's quote.
pub fn open_quote(input: &[u8], index: Summary, delimiter: u8) -> Option<ParseError> {
    if index.final_state != QUOTED {
        return None;
    }
    let record = index.rows.checked_sub(1)?;
    let byte = split_record(input, index.last as usize, &mut Vec::new(), delimiter).err()?;
    Some(ParseError::unterminated_quote(input, record, byte))
}

// ANCHOR: run
/// Runs `query` over `input` on the CPU twins with `geometry`.
///
/// # Errors
/// The first error in record order, as step 10 reports it: the header's, a row's, or
/// the unterminated quote at the end.
pub fn run(input: &[u8], query: Query<'_>, geometry: Geometry) -> Result<Groups, QueryError> {
    let index = crate::tiles::index(input, geometry, query.dialect.delimiter);
    let summary = Summary::of(&index);
    let plan = plan(input, summary, query)?;
    let mut decoded = if query.aggs.min_or_max() {
        groupby::all_to_host(&index.offsets, 1..plan.end)
    } else {
        groupby::decode_aggregate(input, &index.offsets, 1..plan.end, plan.columns)
    };
    plan.keep_first_row(&mut decoded);
    let groups = groupby::finish(input, &mut decoded, plan.columns, query)?;
    match open_quote(input, summary, query.dialect.delimiter) {
        Some(e) => Err(QueryError::Parse(e)),
        None => Ok(groups),
    }
}
// ANCHOR_END: run
