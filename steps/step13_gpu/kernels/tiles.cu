// tiles.cu: the speculative pass and the repair pass, one block per 32 KiB tile,
// one thread per 32-byte slice. Twins: speculate_tiles and repair_tiles in
// src/tiles.rs.
#include "layout.cuh"

// ANCHOR: process_tile
// One tile from `state`: each thread runs its slice from all five start states at
// once (its transition function), a block scan gives each thread its true start
// state, and a second run over the same 32 bytes writes its bitmap word. Bytes at
// or past n are never read.
__device__ void process_tile(const u8* in, u64 n, u64 tile_start, int state,
                             u32 tile, u32* bitmaps, u32* counts, u16* functions) {
    __shared__ u32 row_count;
    if (threadIdx.x == 0) row_count = 0;
    const u64 from = tile_start + (u64)threadIdx.x * SLICE_BYTES;
    const u64 to = from + SLICE_BYTES < n ? from + SLICE_BYTES : n;
    u8 lanes[5] = {0, 1, 2, 3, 4};
    for (u64 i = from; i < to; i++) {
        int c = byte_class(in, n, i);
#pragma unroll
        for (int s = 0; s < 5; s++) lanes[s] = NEXT[c][lanes[s]];
    }
    u32 f = 0;
#pragma unroll
    for (int s = 0; s < 5; s++) f |= (u32)lanes[s] << (3 * s);
    u32 total;
    u32 before = block_scan_functions(f, &total);
    int s = apply(before, state);
    u32 bits = 0;
    for (u64 i = from; i < to; i++) {
        int c = byte_class(in, n, i);
        if (starts_row(s, c)) bits |= 1u << (u32)(i - from);
        s = NEXT[c][s];
    }
    bitmaps[(u64)tile * TILE_SLICES + threadIdx.x] = bits;
    atomicAdd(&row_count, (u32)__popc(bits));
    __syncthreads();
    if (threadIdx.x == 0) {
        counts[tile] = row_count;
        functions[tile] = (u16)total;
    }
}
// ANCHOR_END: process_tile

// ANCHOR: speculate_tiles
// Grid: one block per tile, TILE_SLICES threads. Each tile guesses its start
// state from the byte before it, as if outside quotes.
extern "C" __global__ void speculate_tiles(const u8* in, u64 n, u64 origin, u32 tiles,
                                           u32* bitmaps, u32* counts, u16* functions,
                                           u8* speculated) {
    const u32 tile = blockIdx.x;
    if (tile >= tiles) return;
    const u64 start = origin + (u64)tile * TILE_BYTES;
    int state = START_RECORD;
    if (start != origin) {
        u8 b = in[start - 1];
        state = b == LF ? START_RECORD : b == DELIMITER ? START_FIELD : UNQUOTED;
    }
    process_tile(in, n, start, state, tile, bitmaps, counts, functions);
    if (threadIdx.x == 0) speculated[tile] = (u8)state;
}
// ANCHOR_END: speculate_tiles

// ANCHOR: repair_tiles
// Grid: one block per tile. Only the tiles whose exact start state differs from
// the speculated one do any work; the others exit at once. The function of a tile
// does not depend on its start state, so it is written again unchanged; the
// speculated states stay, so the host can count the repairs.
extern "C" __global__ void repair_tiles(const u8* in, u64 n, u64 origin, u32 tiles,
                                        const u8* exact, const u8* speculated,
                                        u32* bitmaps, u32* counts, u16* functions) {
    const u32 tile = blockIdx.x;
    if (tile >= tiles || exact[tile] == speculated[tile]) return;
    const u64 start = origin + (u64)tile * TILE_BYTES;
    process_tile(in, n, start, exact[tile], tile, bitmaps, counts, functions);
}
// ANCHOR_END: repair_tiles
