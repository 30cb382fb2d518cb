// offsets.cu: row-start bitmaps to row offsets, one block per tile, one thread per
// slice. Twin: bitmaps_to_offsets in src/tiles.rs.
#include "layout.cuh"

// ANCHOR: bitmaps_to_offsets
extern "C" __global__ void bitmaps_to_offsets(const u32* bitmaps, const u64* first_rows,
                                              u64 origin, u32 tiles, u64* offsets) {
    const u32 tile = blockIdx.x;
    if (tile >= tiles) return;
    u32 bits = bitmaps[(u64)tile * TILE_SLICES + threadIdx.x];
    u64 tile_rows;
    u64 row = first_rows[tile] + block_scan_sum((u64)__popc(bits), &tile_rows);
    const u64 base = origin + (u64)tile * TILE_BYTES + (u64)threadIdx.x * SLICE_BYTES;
    while (bits != 0) {
        offsets[row++] = base + (u64)(__ffs(bits) - 1);
        bits &= bits - 1;
    }
}
// ANCHOR_END: bitmaps_to_offsets
