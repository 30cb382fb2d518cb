// Host emulation of the CUDA features step 13's kernels use, so that the kernels'
// source runs on a CPU (tests/kernels_on_host.rs): one block at a time, one
// std::thread per CUDA thread of the block; __syncthreads is a barrier of the block, and the warp
// intrinsics (__shfl_up_sync, __match_any_sync, __ballot_sync) exchange values
// through an array between two barriers of the warp. __shared__ variables are
// static, shared by the block's threads; atomics are sequentially consistent.
// What it cannot show: the device's memory model, its timing, its occupancy.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <barrier>
#include <thread>
#include <vector>
#include <memory>
#include <functional>
struct Dim { unsigned x = 0, y = 1, z = 1; };
thread_local Dim threadIdx;
Dim blockIdx, blockDim;
struct uint4 { unsigned x, y, z, w; };
#define __device__
#define __forceinline__ inline
#define __constant__
#define __global__
#define __shared__ static
#define __launch_bounds__(x)
std::barrier<>* block_bar;
std::vector<std::unique_ptr<std::barrier<>>> warp_bars;
static unsigned long long xchg[1024];
inline void __syncthreads() { block_bar->arrive_and_wait(); }
inline void warp_sync() { warp_bars[threadIdx.x >> 5]->arrive_and_wait(); }
template <class T> T __shfl_up_sync(unsigned, T v, int d) {
    unsigned t = threadIdx.x, lane = t & 31;
    xchg[t] = (unsigned long long)v;
    warp_sync();
    T r = lane >= (unsigned)d ? (T)xchg[t - d] : v;
    warp_sync();
    return r;
}
inline unsigned __match_any_sync(unsigned, int id) {
    unsigned t = threadIdx.x, w = t >> 5;
    xchg[t] = (unsigned long long)(long long)id;
    warp_sync();
    unsigned m = 0;
    for (unsigned l = 0; l < 32; l++) if (xchg[w * 32 + l] == (unsigned long long)(long long)id) m |= 1u << l;
    warp_sync();
    return m;
}
inline unsigned __ballot_sync(unsigned, int p) {
    unsigned t = threadIdx.x, w = t >> 5;
    xchg[t] = p != 0;
    warp_sync();
    unsigned m = 0;
    for (unsigned l = 0; l < 32; l++) if (xchg[w * 32 + l]) m |= 1u << l;
    warp_sync();
    return m;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(unsigned x) { return __builtin_ffs(x); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline int atomicCAS(int* p, int cmp, int v) { __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return cmp; }
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long cmp, unsigned long long v) { __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return cmp; }
alignas(16) static unsigned char dyn_shared[48 << 10];

// The blocks run one after the other on the same `block` threads: thread 0 sets the
// block's index, and a barrier before and after each block keeps every thread in the
// same block (a kernel that returned early still arrives at the barrier after it).
// Creating the threads once per launch instead of once per block is most of the
// emulation's speed.
inline void launch(unsigned grid, unsigned block, std::function<void()> body) {
    blockDim.x = block;
    std::barrier<> bar(block);
    block_bar = &bar;
    warp_bars.clear();
    for (unsigned w = 0; w < block / 32; w++) warp_bars.push_back(std::make_unique<std::barrier<>>(32));
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < block; t++) ts.emplace_back([t, grid, &body, &bar] {
        threadIdx.x = t;
        for (unsigned b = 0; b < grid; b++) {
            if (t == 0) blockIdx.x = b;
            bar.arrive_and_wait();
            body();
            bar.arrive_and_wait();
        }
    });
    for (auto& th : ts) th.join();
}
