//! The CPU twins of the index kernels (`kernels/tiles.cu`, `kernels/scan.cu`,
//! `kernels/offsets.cu`): the same names, inputs, outputs and granularity, written as
//! loops over tiles and slices where the device runs one block per tile and one
//! thread per slice.
//!
//! ```text
//! speculate_tiles   per tile (one block), assuming the byte before it decides its
//!                   start state (LF: StartRecord, delimiter: StartField, else
//!                   Unquoted; tile 0 starts exactly in StartRecord):
//!                   per slice (one thread): its transition function; a block scan
//!                   gives each slice its start state; its row-start bitmap (one bit
//!                   a byte) and count; the tile's transition function
//! scan_tile_states  exclusive scan of the tiles' functions (composition), applied to
//!                   StartRecord: every tile's exact start state, the final state,
//!                   and the tiles whose speculation was wrong
//! repair_tiles      those tiles again, from their exact start state (at most twice)
//! scan_tile_counts  exclusive scan of the row counts: each tile's first row, the total
//! bitmaps_to_offsets every set bit to its row's byte offset
//! ```
//!
//! Blank rows never get a bit ([`starts_row`]), so no pass removes them.

use harness::dialect::LF;

use crate::machine::{Compact, Packed, START_FIELD, START_RECORD, UNQUOTED, class, starts_row};

/// The device's geometry: 32-byte slices, 1024 slices (threads) a tile: 32 KiB tiles.
pub const GPU: Geometry = Geometry {
    slice: 32,
    slices: 1024,
};

/// How the input is cut: `slice` bytes a slice (1..=32: one bit each in a `u32`),
/// `slices` slices a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Bytes a slice, 1..=32.
    pub slice: usize,
    /// Slices a tile.
    pub slices: usize,
}

impl Geometry {
    /// Bytes a tile.
    pub fn tile(self) -> usize {
        self.slice * self.slices
    }

    /// Tiles over `len` bytes after `origin`.
    pub fn tiles(self, origin: usize, len: usize) -> usize {
        (len - origin).div_ceil(self.tile())
    }
}

/// What the speculative pass leaves for the scans: one entry per tile, and one
/// bitmap word per slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tiles {
    /// The input's first record start (after a BOM): tile 0 starts here.
    pub origin: usize,
    /// The geometry the tiles were cut with.
    pub geometry: Geometry,
    /// The delimiter the bytes were classed with.
    pub delimiter: u8,
    /// Row-start bitmaps, `geometry.slices` words a tile; bit `b` of word `j` of tile
    /// `k` is byte `origin + k * tile + j * slice + b`.
    pub bitmaps: Vec<u32>,
    /// Rows starting in each tile.
    pub counts: Vec<u32>,
    /// Each tile's transition function.
    pub functions: Vec<Packed>,
    /// The start state each tile's bitmap was built from.
    pub speculated: Vec<u8>,
}

/// The speculation: the state before byte `p` if it is outside quotes, read off the
/// byte before it. Exact for tile 0; wrong inside a quoted field (and, harmlessly,
/// after a CR LF's CR), which the scan finds and [`repair_tiles`] fixes.
pub fn speculate(input: &[u8], origin: usize, p: usize, delimiter: u8) -> u8 {
    if p == origin {
        return START_RECORD;
    }
    match input[p - 1] {
        LF => START_RECORD,
        b if b == delimiter => START_FIELD,
        _ => UNQUOTED,
    }
}

// ANCHOR: process_tile
// ANCHOR: exercise_process_tile
/// One tile from `state`: writes its slices' bitmaps into `bitmaps` (one word a
/// slice) and returns its row count and transition function. The device splits the
/// same work over a block: each thread finds its slice's function, a block scan gives
/// each its start state, then each writes its word.
fn process_tile(
    input: &[u8],
    tiles_start: usize,
    geometry: Geometry,
    state: u8,
    bitmaps: &mut [u32],
    delimiter: u8,
) -> (u32, Packed) {
    // The function from the tile's start to here, numbered compactly: what five lanes
    // of states hold on the device; its value at `state` is the state now.
    let tables = Compact::get();
    let (then, states) = (&tables.then[..], &tables.state[..]);
    let mut f = Compact::IDENTITY;
    let mut count = 0;
    let end = (tiles_start + geometry.tile()).min(input.len());
    for (j, word) in bitmaps.iter_mut().enumerate() {
        let from = tiles_start + j * geometry.slice;
        let mut bits = 0u32;
        for i in from..(from + geometry.slice).min(end) {
            let c = class(input, i, delimiter);
            let now = states[f as usize * 5 + state as usize];
            bits |= u32::from(starts_row(now, c)) << (i - from);
            f = then[f as usize * 5 + c];
        }
        *word = bits;
        count += bits.count_ones();
    }
    (count, tables.packed(f))
}
// ANCHOR_END: exercise_process_tile
// ANCHOR_END: process_tile

// ANCHOR: speculate_tiles
/// Twin of the `speculate_tiles` kernel: every tile from its speculated start state.
pub fn speculate_tiles(input: &[u8], origin: usize, geometry: Geometry, delimiter: u8) -> Tiles {
    let n = geometry.tiles(origin, input.len());
    let mut tiles = Tiles {
        origin,
        geometry,
        delimiter,
        bitmaps: vec![0; n * geometry.slices],
        counts: vec![0; n],
        functions: vec![Packed::IDENTITY; n],
        speculated: vec![START_RECORD; n],
    };
    for k in 0..n {
        let start = origin + k * geometry.tile();
        let state = speculate(input, origin, start, delimiter);
        let words = &mut tiles.bitmaps[k * geometry.slices..(k + 1) * geometry.slices];
        (tiles.counts[k], tiles.functions[k]) =
            process_tile(input, start, geometry, state, words, delimiter);
        tiles.speculated[k] = state;
    }
    tiles
}
// ANCHOR_END: speculate_tiles

/// What the scan over the tiles' functions found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateScan {
    /// Every tile's exact start state.
    pub exact: Vec<u8>,
    /// The state after the input's last byte: `Quoted` means an unterminated quote.
    pub final_state: u8,
    /// The tiles whose speculated start state was wrong, in order.
    pub repair: Vec<u32>,
}

// ANCHOR: scan_tile_states
/// Twin of the `scan_tile_states` kernel: the exclusive scan of the tiles'
/// transition functions by composition, applied to `StartRecord`.
pub fn scan_tile_states(tiles: &Tiles) -> StateScan {
    let n = tiles.functions.len();
    let mut exact = Vec::with_capacity(n);
    let mut prefix = Packed::IDENTITY; // tiles 0..k composed
    for f in &tiles.functions {
        exact.push(prefix.apply(START_RECORD));
        prefix = prefix.then(*f);
    }
    let repair = (0..n as u32)
        .filter(|&k| exact[k as usize] != tiles.speculated[k as usize])
        .collect();
    StateScan {
        exact,
        final_state: prefix.apply(START_RECORD),
        repair,
    }
}
// ANCHOR_END: scan_tile_states

// ANCHOR: repair_tiles
/// Twin of the `repair_tiles` kernel: the tiles of `scan.repair` again, from their
/// exact start state. A tile's function does not depend on its start state, so only
/// its bitmaps and count change; no tile is processed a third time. The speculated
/// states stay, so the repairs can be counted.
pub fn repair_tiles(input: &[u8], tiles: &mut Tiles, scan: &StateScan) {
    let (g, d) = (tiles.geometry, tiles.delimiter);
    for &k in &scan.repair {
        let k = k as usize;
        let start = tiles.origin + k * g.tile();
        let words = &mut tiles.bitmaps[k * g.slices..(k + 1) * g.slices];
        (tiles.counts[k], _) = process_tile(input, start, g, scan.exact[k], words, d);
    }
}
// ANCHOR_END: repair_tiles

// ANCHOR: scan_tile_counts
/// Twin of the `scan_tile_counts` kernel: each tile's first row (the exclusive scan
/// of the counts) and the total, the one number the host must read to size the
/// offsets.
pub fn scan_tile_counts(counts: &[u32]) -> (Vec<u64>, u64) {
    let mut total = 0u64;
    let first = counts
        .iter()
        .map(|&c| {
            let first = total;
            total += u64::from(c);
            first
        })
        .collect();
    (first, total)
}
// ANCHOR_END: scan_tile_counts

// ANCHOR: bitmaps_to_offsets
/// Twin of the `bitmaps_to_offsets` kernel: the byte offset of every row start, in
/// order. On the device a block takes a tile, a block scan of the slices' popcounts
/// gives each thread its first row, and each writes its bits' offsets.
pub fn bitmaps_to_offsets(tiles: &Tiles, first_rows: &[u64], total: u64) -> Vec<u64> {
    let g = tiles.geometry;
    let mut offsets = vec![0u64; total as usize];
    for (k, &first) in first_rows.iter().enumerate() {
        let mut row = first as usize;
        for (j, &word) in tiles.bitmaps[k * g.slices..(k + 1) * g.slices]
            .iter()
            .enumerate()
        {
            let base = (tiles.origin + k * g.tile() + j * g.slice) as u64;
            let mut bits = word;
            while bits != 0 {
                offsets[row] = base + u64::from(bits.trailing_zeros());
                row += 1;
                bits &= bits - 1;
            }
        }
    }
    offsets
}
// ANCHOR_END: bitmaps_to_offsets

/// What the index stage found, for `--verbose` and the chapter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Tiles.
    pub tiles: usize,
    /// Tiles whose speculation was wrong and were processed twice.
    pub repaired: usize,
}

/// The row index of `input`: every row start's offset and the final state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowIndex {
    /// Byte offset of every row's first byte, in order; blank rows have none.
    pub offsets: Vec<u64>,
    /// The state after the last byte (`Quoted`: an unterminated quote).
    pub final_state: u8,
    /// What the stages did.
    pub stats: IndexStats,
}

// ANCHOR: index
/// The whole index stage on the CPU twins: speculate, scan, repair, count, offsets.
pub fn index(input: &[u8], geometry: Geometry, delimiter: u8) -> RowIndex {
    let origin = harness::dialect::bom_len(input);
    let mut tiles = speculate_tiles(input, origin, geometry, delimiter);
    let scan = scan_tile_states(&tiles);
    repair_tiles(input, &mut tiles, &scan);
    let (first_rows, total) = scan_tile_counts(&tiles.counts);
    RowIndex {
        offsets: bitmaps_to_offsets(&tiles, &first_rows, total),
        final_state: scan.final_state,
        stats: IndexStats {
            tiles: tiles.counts.len(),
            repaired: scan.repair.len(),
        },
    }
}
// ANCHOR_END: index

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::{NEXT, QUOTED};

    /// The row starts the slow way: one state, one byte at a time.
    fn slow(input: &[u8]) -> (Vec<u64>, u8) {
        let origin = harness::dialect::bom_len(input);
        let (mut state, mut rows) = (START_RECORD, Vec::new());
        for i in origin..input.len() {
            let c = class(input, i, b',');
            if starts_row(state, c) {
                rows.push(i as u64);
            }
            state = NEXT[c][state as usize];
        }
        (rows, state)
    }

    #[test]
    fn every_geometry_gives_the_slow_row_starts() {
        let inputs: [&[u8]; 6] = [
            b"a,b\n\n\"c\nd\",e\r\n\r\nf\"g\"\n",
            b"\"\"\"\"\n\"\n\n\n\",x\n",
            b"\xEF\xBB\xBFh\n1\r\n",
            b"\"",
            b"",
            b"\r\n\r\n\n\rx",
        ];
        for input in inputs {
            let (rows, state) = slow(input);
            for slice in [1, 2, 3, 7, 32] {
                for slices in [1, 2, 5] {
                    let g = Geometry { slice, slices };
                    let got = index(input, g, b',');
                    assert_eq!(
                        (got.offsets, got.final_state),
                        (rows.clone(), state),
                        "{g:?} {input:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_tile_inside_quotes_is_repaired_once() {
        // Tiles of 4 bytes: tile 1 (`b\nc,`) starts inside the quoted field.
        let input = b"x,\"ab\nc,d\"\ny\n";
        let g = Geometry {
            slice: 2,
            slices: 2,
        };
        let mut tiles = speculate_tiles(input, 0, g, b',');
        assert_eq!(tiles.speculated[1], UNQUOTED);
        let scan = scan_tile_states(&tiles);
        assert_eq!(scan.exact[1], QUOTED);
        assert_eq!(scan.repair, [1, 2]); // tile 2 (`d"\ny`) starts inside too
        // Speculated, tile 1 sees a row start after its LF (byte 6); the truth has none.
        assert_eq!(tiles.bitmaps[3] & 1, 1);
        repair_tiles(input, &mut tiles, &scan);
        assert_eq!(tiles.bitmaps[3], 0);
        let (first, total) = scan_tile_counts(&tiles.counts);
        assert_eq!(bitmaps_to_offsets(&tiles, &first, total), [0, 11]);
    }
}
