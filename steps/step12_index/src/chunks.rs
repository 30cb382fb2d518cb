//! Chunks and the plan: the input split into chunks, their transition functions
//! (in [`transition`](mod@transition)) found in parallel, and the scan that gives each its true start.
//!
//! ```text
//! split the input (after the BOM) into chunks of `size` bytes
//! in parallel, for each chunk but the first, run the machines of every start state
//! side by side from its first byte, until they meet or the chunk ends:
//!     met at byte m in state s: from there on they are one machine, so the chunk's
//!         records start at first = the first record start at or after m, whatever
//!         the chunk started in
//!     apart at the end: for each start state s, end[s] = the state after the chunk,
//!         first[s] = its first record start (or none)
//! sequentially (O(chunks)): for each chunk, from = first (met), or
//!     first[state at its start] (apart), that state being the end state of the chunk
//!     before (found by one machine from where that chunk's machines met, if need be)
//! in parallel: parse each chunk's records, from its `from` to the next chunk's
//! ```

use harness::dialect::bom_len;

use crate::machine::State;
use crate::pool::map_chunks;

pub mod transition;

use transition::{Transition, end_from, index, transition};

/// One chunk's part of the parse: the records that start in `from..stop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// The chunk's index.
    pub chunk: usize,
    /// Its first record start (a record start: the parse begins here).
    pub from: usize,
    /// The next chunk's first record start: the parse ends at the first record start
    /// at or after it.
    pub stop: usize,
}

/// What `--verbose` prints about the chunks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpanStats {
    /// Chunks the input was split into.
    pub chunks: usize,
    /// Chunks after the first whose start states' machines met ([`Transition::Met`]).
    pub met: usize,
    /// Bytes the transition functions read: up to the first record start where the
    /// machines met, the whole chunk where they did not, and the bytes read again by
    /// [`end_from`] for the scan.
    pub read: u64,
    /// End states the scan found by [`end_from`]: a chunk whose machines met, before
    /// one whose machines did not.
    pub ends_found: usize,
    /// Bytes parsed past a chunk's end to finish its last record (read once by that
    /// chunk's parse and once by the next chunk's transition function).
    pub past_end: u64,
}

/// The plan: which records each chunk parses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The chunks that own at least one record start, in input order.
    pub parts: Vec<Part>,
    /// What the scan found.
    pub stats: SpanStats,
}

// ANCHOR: plan
/// Splits `input` into chunks of `size` bytes, finds their transition functions on
/// `threads` threads (for fields separated by `delimiter`), and scans them into each
/// chunk's part of the parse.
pub fn plan(input: &[u8], size: usize, threads: usize, delimiter: u8) -> Plan {
    let origin = bom_len(input);
    let size = size.max(1);
    let n = (input.len() - origin).div_ceil(size).max(1);
    let bounds = |k: usize| {
        (
            origin + k * size,
            (origin + (k + 1) * size).min(input.len()),
        )
    };
    // The first chunk starts at the input's first record start, in `StartRecord`:
    // as if its machines had met there. With one chunk, no transition function runs.
    let transitions = map_chunks(
        threads,
        n,
        || (),
        |(), k| match k {
            0 => Transition::Met {
                at: origin,
                state: State::StartRecord,
                first: Some(origin),
            },
            _ => {
                let (from, to) = bounds(k);
                transition(input, origin, from, to, delimiter)
            }
        },
    )
    .0;
    // The exclusive scan: each chunk's true start state is its predecessor's end,
    // needed only where the machines did not meet.
    let mut stats = SpanStats {
        chunks: n,
        ..SpanStats::default()
    };
    let mut firsts = Vec::with_capacity(n);
    // The state at the previous chunk's end: known, or to be found from where its
    // machines met, by one machine (`end_from`).
    let mut state = Ok(State::StartRecord);
    for (k, t) in transitions.iter().enumerate() {
        let (from, to) = bounds(k);
        match *t {
            Transition::Met {
                at,
                state: s,
                first,
            } => {
                firsts.push(first);
                stats.met += usize::from(k > 0);
                stats.read += (first.unwrap_or(to) - from) as u64 * u64::from(k > 0);
                state = Err((at, s));
            }
            Transition::Apart { end, first } => {
                let entry = state.unwrap_or_else(|(at, s)| {
                    stats.ends_found += 1;
                    stats.read += (from - at) as u64;
                    end_from(input, origin, at, s, from, delimiter)
                });
                firsts.push(first[index(entry)]);
                stats.read += (to - from) as u64;
                state = Ok(end[index(entry)]);
            }
        }
    }
    // A chunk with no record start of its own hands its bytes to the one before.
    let mut parts = Vec::new();
    let mut stop = usize::MAX;
    for (k, first) in firsts.iter().enumerate().rev() {
        if let Some(from) = *first {
            if from < stop {
                parts.push(Part {
                    chunk: k,
                    from,
                    stop,
                });
                let end = bounds(k).1;
                stats.past_end += (stop.min(input.len()).max(end) - end) as u64;
            }
            stop = from;
        }
    }
    parts.reverse();
    Plan { parts, stats }
}
// ANCHOR_END: plan

/// The smallest chunk `--chunk` takes, in bytes (0 asks for [`default_size`]). Every
/// chunk has fixed costs, its transition functions, its entry in the plan, its
/// records' first lines and a task; in chunks much smaller than a page those costs
/// outweigh the bytes, and memory grows with the input many times over.
pub const MIN_CHUNK: u64 = 4096;

/// The default chunk size for `threads` threads. On one thread, the whole input: one
/// chunk needs no transition function (the first chunk's start is known), so the
/// query is the one-core step's single pass. On more, eight chunks a thread, for
/// balance; at least 256 KiB, so that a chunk's fixed costs stay small; and at most
/// [`MAX_DEFAULT_CHUNK`].
pub fn default_size(len: usize, threads: usize) -> usize {
    if threads <= 1 {
        return len.max(1);
    }
    (len / (8 * threads)).clamp(256 << 10, MAX_DEFAULT_CHUNK)
}

/// The largest default chunk, in bytes. A thread decides after each chunk whether
/// its GROUP BY table still pays or its rows are better set aside
/// ([`crate::scatter`]); an eighth of a thread's share of a 1 GB file with ten
/// million keys is a million rows, and its table would hold a million groups, past
/// the cache and most of the query's heap, before the thread could first decide.
pub const MAX_DEFAULT_CHUNK: usize = 8 << 20;

#[cfg(test)]
mod tests;
