// groupby.cu: decode and aggregate, one row per thread. Twin: decode_aggregate in
// src/groupby.rs (the table, the fallback rules and the limbs are the same).
#include "layout.cuh"

#define SLOTS 4096
#define PROBES 32
#define MAX_KEY ((1ull << 24) - 1)
#define LIMBS 5
// Per-block cache of the busiest slots, in shared memory.
#define CACHE 256

__constant__ u64 POW10[19] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull};

struct Span {
    u64 start, end;
    bool escaped;
};

// ANCHOR: view
// Where a block reads its rows: the input in global memory (lo = 0), or the copy
// of bytes lo.. in shared memory. Byte i is at p[i - lo] either way.
struct View {
    const u8* p;
    u64 lo;
    __device__ __forceinline__ u8 operator[](u64 i) const { return p[i - lo]; }
    // The 8 bytes at i, i a multiple of 8: aligned, since lo is a multiple of 16
    // and p is the device buffer or the staging buffer, both 16-aligned.
    __device__ __forceinline__ u64 word(u64 i) const { return *(const u64*)(p + (i - lo)); }
};

// Nonzero when a byte of w is c (SWAR, as step 4: a byte of w ^ c..c is zero).
__device__ __forceinline__ u64 has_byte(u64 w, u8 c) {
    const u64 x = w ^ (0x0101010101010101ull * c);
    return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}
// ANCHOR_END: view

__device__ __forceinline__ void close_field(u32 f, int state, u64 s, u64 e, bool escaped,
                                            u32 key_col, u32 value_col, Span* key,
                                            Span* value) {
    Span sp;
    if (state == QUOTE_IN_QUOTED && !escaped) {
        sp.start = s + 1; sp.end = e - 1; sp.escaped = false;  // "abc": its view is abc
    } else {
        sp.start = s; sp.end = e; sp.escaped = escaped;
    }
    if (f == key_col) *key = sp;
    if (f == value_col) *value = sp;
}

// ANCHOR: seek_fields
// The key and value fields of the row that starts at `start`, by src/record.rs's
// rules; returns the row's field count. Reads no byte at or past n, and loads a
// word only where all of it lies before `limit` (n, or the end of the staged bytes).
__device__ u32 seek_fields(View in, u64 n, u64 limit, u64 start, u32 key_col,
                           u32 value_col, Span* key, Span* value) {
    int state = START_RECORD;
    u64 field = start;
    bool escaped = false;
    u32 f = 0;
    u64 i = start;
    while (i < n) {
        // A word at a time where only one byte value can matter: a delimiter or an LF
        // inside an unquoted field, a quote inside a quoted one. Words without one
        // are skipped whole; the byte walk below takes the word that has one.
        if ((state == UNQUOTED || state == QUOTED) && (i & 7) == 0) {
            while (i + 8 <= limit) {
                const u64 w = in.word(i);
                const u64 hit = state == QUOTED ? has_byte(w, QUOTE)
                                                : has_byte(w, DELIMITER) | has_byte(w, LF);
                if (hit) break;
                i += 8;
            }
            if (i >= n) break;
        }
        const u8 b = in[i];
        const int next = NEXT[byte_class(in, n, i)][state];
        if (state == QUOTE_IN_QUOTED && b == QUOTE) {
            escaped = true;  // "": one literal quote
        } else if (state == QUOTED || b == QUOTE) {
        } else if (b == LF) {
            u64 end = (i > field && in[i - 1] == CR) ? i - 1 : i;
            close_field(f, state, field, end, escaped, key_col, value_col, key, value);
            return f + 1;
        } else if (b == DELIMITER) {
            close_field(f, state, field, i, escaped, key_col, value_col, key, value);
            f++;
            field = i + 1;
            escaped = false;
        } else if (state == QUOTE_IN_QUOTED && next != QUOTE_IN_QUOTED) {
            escaped = true;  // bytes after the closing quote
        }
        state = next;
        i++;
    }
    close_field(f, state, field, n, escaped, key_col, value_col, key, value);
    return f + 1;
}
// ANCHOR_END: seek_fields

// ANCHOR: parse_fixed
// Step 10's plain decimal (at most 19 digits, at most 18 after the point) in units
// of 10^-18, as five 32-bit limbs of its 160-bit two's complement. Returns 0 for
// an empty field (NULL), 1 for a number, -1 when the host must decide.
__device__ int parse_fixed(View in, Span v, u32* limbs) {
    if (v.start == v.end) return 0;
    u64 i = v.start;
    bool negative = false;
    if (in[i] == '-') { negative = true; i++; }
    else if (in[i] == '+') { i++; }
    u64 m = 0;
    u32 digits = 0, scale = 0;
    bool point = false;
    for (; i < v.end; i++) {
        const u8 b = in[i];
        if (b >= '0' && b <= '9' && digits < 19) {
            m = m * 10 + (b - '0');
            digits++;
            scale += point;
        } else if (b == '.' && !point) {
            point = true;
        } else {
            return -1;
        }
    }
    if (digits == 0 || scale > 18) return -1;
    const u64 p = POW10[18 - scale];
    u64 lo = m * p, hi = __umul64hi(m, p);
    u32 sign = 0;
    if (negative && (lo | hi) != 0) {
        lo = ~lo + 1;
        hi = ~hi + (lo == 0 ? 1 : 0);
        sign = 0xffffffffu;
    }
    limbs[0] = (u32)lo; limbs[1] = (u32)(lo >> 32);
    limbs[2] = (u32)hi; limbs[3] = (u32)(hi >> 32);
    limbs[4] = sign;
    return 1;
}
// ANCHOR_END: parse_fixed

// ANCHOR: find_slot
// The key's slot in the global table, claimed with one compare-and-swap when new;
// -1 after PROBES slots of other keys. A key word is ((offset << 24) | len) + 1.
// The row's own key is read through `mine`; the keys of other rows, which may lie
// in another block's rows, from global memory.
__device__ int find_slot(const u8* in, View mine, u64* keys, u64 start, u64 len) {
    u32 h = 0x811c9dc5u;
    for (u64 i = 0; i < len; i++) h = (h ^ mine[start + i]) * 0x01000193u;
    const u64 word = ((start << 24) | len) + 1;
    for (int p = 0; p < PROBES; p++) {
        const int s = (int)((h + (u32)p) & (SLOTS - 1));
        u64 w = *(volatile u64*)&keys[s];
        if (w == 0) {
            w = atomicCAS(&keys[s], 0ull, word);
            if (w == 0) return s;
        }
        const u64 other = (w - 1) >> 24, other_len = (w - 1) & 0xFFFFFF;
        if (other_len != len) continue;
        bool same = true;
        for (u64 i = 0; i < len && same; i++) same = in[other + i] == mine[start + i];
        if (same) return s;
    }
    return -1;
}
// ANCHOR_END: find_slot

// ANCHOR: decode_aggregate
// Grid: one thread per row of row_begin..row_end, blocks of a multiple of 32
// threads; rows_total is every row of the index (the block's last row ends before
// the next row's offset). stage_bytes > 0: the dynamic shared memory the launch
// gave, where a block copies its rows' bytes with 16-byte loads when they fit.
// fallback gets (row, offset) pairs for the host.
extern "C" __global__ void decode_aggregate(const u8* in, u64 n, const u64* offsets,
                                            u64 rows_total, u64 row_begin, u64 row_end,
                                            u32 key_col, u32 value_col, u32 width,
                                            u32 stage_bytes, u64* keys, u64* counts,
                                            u64* values, u64* limbs, u64* fallback,
                                            u32* fallback_count) {
    extern __shared__ uint4 stage[];
    __shared__ int cache_slot[CACHE];
    __shared__ u64 cache_count[CACHE], cache_values[CACHE], cache_limbs[CACHE * LIMBS];
    __shared__ u64 lo, hi;
    for (int i = threadIdx.x; i < CACHE; i += blockDim.x) {
        cache_slot[i] = -1;
        cache_count[i] = 0;
        cache_values[i] = 0;
        for (int j = 0; j < LIMBS; j++) cache_limbs[i * LIMBS + j] = 0;
    }
    // The block's bytes: from its first row (rounded down to 16) to the next
    // block's first row, or the input's end.
    const u64 first = row_begin + (u64)blockIdx.x * blockDim.x;
    if (threadIdx.x == 0) {
        const u64 after = first + blockDim.x < row_end ? first + blockDim.x : row_end;
        lo = first < row_end ? offsets[first] & ~15ull : 0;
        hi = after < rows_total ? offsets[after] : n;
    }
    __syncthreads();
    View view = {in, 0};
    u64 limit = n;  // where whole words may be loaded through the view
    // ANCHOR: stage
    if (stage_bytes > 0 && first < row_end && hi - lo <= stage_bytes) {
        // Coalesced: thread t loads the 16-byte words t, t + blockDim.x, ...; a word
        // is loaded whole only when it lies inside the input (lo is 16-aligned, and
        // so is the device buffer), else byte by byte up to n.
        for (u64 a = lo + 16 * (u64)threadIdx.x; a < hi; a += 16 * (u64)blockDim.x) {
            if (a + 16 <= n) {
                stage[(a - lo) / 16] = *(const uint4*)(in + a);
            } else {
                u8* bytes = (u8*)stage;
                for (u64 i = a; i < n; i++) bytes[i - lo] = in[i];
            }
        }
        view.p = (const u8*)stage;
        view.lo = lo;
        limit = hi;
        __syncthreads();
    }
    // ANCHOR_END: stage
    const u64 row = row_begin + (u64)blockIdx.x * blockDim.x + threadIdx.x;
    int slot = -1, has_value = 0;
    u32 mine[LIMBS] = {0, 0, 0, 0, 0};
    if (row < row_end) {
        const u64 start = offsets[row];
        Span key = {0, 0, false}, value = {0, 0, false};
        const u32 fields = seek_fields(view, n, limit, start, key_col, value_col, &key, &value);
        const bool simple = fields == width && !key.escaped && !value.escaped &&
                            key.end - key.start <= MAX_KEY;
        const int parsed = simple ? parse_fixed(view, value, mine) : -1;
        if (parsed >= 0) {
            slot = find_slot(in, view, keys, key.start, key.end - key.start);
            has_value = parsed;
        }
        if (slot < 0) {
            const u32 at = atomicAdd(fallback_count, 1u);
            fallback[2 * (u64)at] = row;
            fallback[2 * (u64)at + 1] = start;
        }
    }
    // Warp-aggregated counts: the lanes of a warp with the same slot add once.
    const int lane = threadIdx.x & 31;
    const int id = slot >= 0 ? slot : -1 - lane;
    const u32 peers = __match_any_sync(0xffffffffu, id);
    const u32 with_value = __ballot_sync(0xffffffffu, has_value) & peers;
    if (slot >= 0) {
        const int c = slot & (CACHE - 1);
        const int owner = atomicCAS(&cache_slot[c], -1, slot);
        const bool cached = owner == -1 || owner == slot;
        u64* count = cached ? &cache_count[c] : &counts[slot];
        u64* nonnull = cached ? &cache_values[c] : &values[slot];
        u64* acc = cached ? &cache_limbs[c * LIMBS] : &limbs[(u64)slot * LIMBS];
        if (lane == __ffs(peers) - 1) {
            atomicAdd(count, (u64)__popc(peers));
            if (with_value) atomicAdd(nonnull, (u64)__popc(with_value));
        }
        if (has_value)
            for (int j = 0; j < LIMBS; j++)
                if (mine[j]) atomicAdd(&acc[j], (u64)mine[j]);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < CACHE; i += blockDim.x) {
        const int s = cache_slot[i];
        if (s < 0) continue;
        atomicAdd(&counts[s], cache_count[i]);
        atomicAdd(&values[s], cache_values[i]);
        for (int j = 0; j < LIMBS; j++)
            if (cache_limbs[i * LIMBS + j]) atomicAdd(&limbs[(u64)s * LIMBS + j], cache_limbs[i * LIMBS + j]);
    }
}
// ANCHOR_END: decode_aggregate
