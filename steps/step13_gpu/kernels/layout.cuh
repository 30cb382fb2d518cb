// layout.cuh: what every step 13 kernel shares, the device side of
// src/machine.rs and src/tiles.rs. The host pastes this file in place of the
// `#include "layout.cuh"` line of each kernel before NVRTC compiles it, so the
// kernels need no include path and no CUDA headers.
#pragma once

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

// ANCHOR: geometry
// A tile is one block of TILE_SLICES threads; a slice is one thread's bytes, one
// bit each in a u32 row-start bitmap word.
#define SLICE_BYTES 32
#define TILE_SLICES 1024
#define TILE_BYTES (SLICE_BYTES * TILE_SLICES)
// ANCHOR_END: geometry

#define QUOTE 34
#define DELIMITER 44
#define LF 10
#define CR 13

// ANCHOR: states
#define START_RECORD 0
#define START_FIELD 1
#define UNQUOTED 2
#define QUOTED 3
#define QUOTE_IN_QUOTED 4

#define C_QUOTE 0
#define C_DELIMITER 1
#define C_LF 2
#define C_CR_LF 3
#define C_OTHER 4

// NEXT[class][state], as machine::NEXT.
__constant__ u8 NEXT[5][5] = {
    {QUOTED, QUOTED, UNQUOTED, QUOTE_IN_QUOTED, QUOTED},
    {START_FIELD, START_FIELD, START_FIELD, QUOTED, START_FIELD},
    {START_RECORD, START_RECORD, START_RECORD, QUOTED, START_RECORD},
    {START_RECORD, START_FIELD, UNQUOTED, QUOTED, QUOTE_IN_QUOTED},
    {UNQUOTED, UNQUOTED, UNQUOTED, QUOTED, UNQUOTED},
};

// The class of byte i of in[0..n); byte i+1 is read only when it lies inside. `in`
// is the bytes, or anything indexed like them (groupby.cu's View).
template <typename In>
__device__ __forceinline__ int byte_class(In in, u64 n, u64 i) {
    u8 b = in[i];
    if (b == QUOTE) return C_QUOTE;
    if (b == DELIMITER) return C_DELIMITER;
    if (b == LF) return C_LF;
    if (b == CR && i + 1 < n && in[i + 1] == LF) return C_CR_LF;
    return C_OTHER;
}

__device__ __forceinline__ bool starts_row(int state, int cls) {
    return state == START_RECORD && cls != C_LF && cls != C_CR_LF;
}
// ANCHOR_END: states

// ANCHOR: packed
// A transition function: end state for start state s in bits 3s..3s+3.
#define IDENTITY ((u32)(0 | 1 << 3 | 2 << 6 | 3 << 9 | 4 << 12))

__device__ __forceinline__ int apply(u32 f, int s) { return (f >> (3 * s)) & 7; }

// f, then g.
__device__ __forceinline__ u32 then(u32 f, u32 g) {
    u32 out = 0;
#pragma unroll
    for (int s = 0; s < 5; s++) out |= (u32)apply(g, apply(f, s)) << (3 * s);
    return out;
}
// ANCHOR_END: packed

// ANCHOR: block_scan
// Exclusive scan of one transition function per thread, in thread order, over a
// block of blockDim.x threads (a multiple of 32, at most 1024): warp shuffles,
// then the warps' totals through shared memory. `total` gets the whole block's
// function. Every thread of the block must call it.
__device__ u32 block_scan_functions(u32 f, u32* total) {
    __shared__ u32 warp_totals[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    u32 inclusive = f;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        u32 before = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive = then(before, inclusive);
    }
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        u32 w = lane < warps ? warp_totals[lane] : IDENTITY;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            u32 before = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w = then(before, w);
        }
        warp_totals[lane] = w;  // inclusive over warps
    }
    __syncthreads();
    u32 exclusive = __shfl_up_sync(0xffffffffu, inclusive, 1);
    if (lane == 0) exclusive = IDENTITY;
    if (warp > 0) exclusive = then(warp_totals[warp - 1], exclusive);
    *total = warp_totals[warps - 1];
    __syncthreads();  // warp_totals is reused by the next call
    return exclusive;
}

// Exclusive sum of one u64 per thread over the block; `total` gets the sum.
__device__ u64 block_scan_sum(u64 x, u64* total) {
    __shared__ u64 warp_sums[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    u64 inclusive = x;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        u64 before = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive += before;
    }
    if (lane == 31) warp_sums[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        u64 w = lane < warps ? warp_sums[lane] : 0;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            u64 before = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w += before;
        }
        warp_sums[lane] = w;
    }
    __syncthreads();
    u64 exclusive = inclusive - x + (warp > 0 ? warp_sums[warp - 1] : 0);
    *total = warp_sums[warps - 1];
    __syncthreads();
    return exclusive;
}
// ANCHOR_END: block_scan
