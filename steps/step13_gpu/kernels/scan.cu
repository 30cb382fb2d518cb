// scan.cu: the two scans across tiles, each one block of 1024 threads; a thread
// takes a contiguous run of tiles, so any number of tiles fits one launch. Twins:
// scan_tile_states and scan_tile_counts in src/tiles.rs.
#include "layout.cuh"

// ANCHOR: scan_tile_states
// Exclusive scan of the tiles' transition functions by composition, applied to
// START_RECORD: every tile's exact start state, and the final state.
extern "C" __global__ void scan_tile_states(const u16* functions, u32 tiles, u8* exact,
                                            u8* final_state) {
    const u32 per = (tiles + blockDim.x - 1) / blockDim.x;
    const u32 from = threadIdx.x * per;
    const u32 to = from + per < tiles ? from + per : tiles;
    u32 run = IDENTITY;
    for (u32 k = from; k < to; k++) run = then(run, functions[k]);
    u32 total;
    u32 before = block_scan_functions(run, &total);
    int s = apply(before, START_RECORD);
    for (u32 k = from; k < to; k++) {
        exact[k] = (u8)s;
        s = apply(functions[k], s);
    }
    if (threadIdx.x == 0) *final_state = (u8)apply(total, START_RECORD);
}
// ANCHOR_END: scan_tile_states

// ANCHOR: scan_tile_counts
// Exclusive scan of the tiles' row counts: each tile's first row, and the total
// (the one number the host reads before it sizes the offsets).
extern "C" __global__ void scan_tile_counts(const u32* counts, u32 tiles, u64* first_rows,
                                            u64* total_rows) {
    const u32 per = (tiles + blockDim.x - 1) / blockDim.x;
    const u32 from = threadIdx.x * per;
    const u32 to = from + per < tiles ? from + per : tiles;
    u64 run = 0;
    for (u32 k = from; k < to; k++) run += counts[k];
    u64 total;
    u64 row = block_scan_sum(run, &total);
    for (u32 k = from; k < to; k++) {
        first_rows[k] = row;
        row += counts[k];
    }
    if (threadIdx.x == 0) *total_rows = total;
}
// ANCHOR_END: scan_tile_counts
