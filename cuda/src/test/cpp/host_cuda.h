// The few CUDA built-ins encode.cu and relax.cu use, for the host: include this, then encode.cu, to compile
// Penstock's kernels with g++ (emulate.cpp, hostcuda.cpp). Index variables are per thread, so
// launches on different threads do not disturb each other; a kernel that synchronises its block
// (__syncthreads) must run one launch at a time (its shared memory is one array), which
// `launch_grid` does.
#pragma once
#include <algorithm>
#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

struct double2 { double x, y; };
struct float2 { float x, y; };
struct Dim { unsigned x = 0, y = 0, z = 0; };
inline thread_local Dim threadIdx, blockIdx, blockDim, gridDim;
inline std::barrier<>* block_barrier = nullptr;
inline double shared_memory[4096];  // 32 KiB: the block's dynamic shared memory
inline std::mutex shared_memory_lock;

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
#define red shared_memory
inline void __syncthreads() { block_barrier->arrive_and_wait(); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return std::atomic_ref<unsigned long long>(*p).fetch_add(v);
}
inline int atomicAdd(int* p, int v) {
    return std::atomic_ref<int>(*p).fetch_add(v);
}
using std::sqrt; using std::fabs; using std::fmax; using std::exp2;
inline long long __double_as_longlong(double d) { return std::bit_cast<long long>(d); }
inline double __longlong_as_double(long long v) { return std::bit_cast<double>(v); }

// Block order is the one thing a GPU never promises, so the emulation takes it away too: every
// launch runs its blocks in an order shuffled by `block_order_seed` (set by the test's driver and
// printed by it) plus a per-launch counter, and a kernel without __syncthreads runs its blocks on
// up to four threads at once, so two blocks racing on the same memory, or a result that depends
// on which block ran first, shows in the tests instead of on a GPU.
inline std::atomic<unsigned long long> block_order_seed{20261204};
inline std::atomic<unsigned long long> block_order_launches{0};

// The blocks of a gx x gy grid, in a shuffled order (Fisher-Yates over splitmix64).
inline std::vector<Dim> shuffled_blocks(unsigned gx, unsigned gy) {
    std::vector<Dim> order;
    order.reserve((size_t) gx * gy);
    for (unsigned y = 0; y < gy; y++) {
        for (unsigned x = 0; x < gx; x++) order.push_back({x, y, 0});
    }
    unsigned long long z = block_order_seed.load() ^ (0x9e3779b97f4a7c15ULL * (block_order_launches.fetch_add(1) + 1));
    auto next = [&z] {
        z += 0x9e3779b97f4a7c15ULL;
        unsigned long long r = z;
        r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ULL;
        r = (r ^ (r >> 27)) * 0x94d049bb133111ebULL;
        return r ^ (r >> 31);
    };
    for (size_t i = order.size(); i > 1; i--) std::swap(order[i - 1], order[next() % i]);
    return order;
}

// Runs `kernel` on a gx x gy grid of bx-thread blocks, blocks in a shuffled order. Without
// `syncs`, up to four threads each take the next block of that order and run its bx threads in
// turn (blocks share nothing but atomics and global memory). With `syncs`, bx threads run each
// block together, meeting at a barrier for __syncthreads and once more between blocks (so no
// thread reads shared memory the next block is writing); such blocks run one at a time, because
// the block's shared memory is one array.
inline void launch_grid(unsigned gx, unsigned gy, unsigned bx, bool syncs, const std::function<void()>& kernel) {
    const std::vector<Dim> order = shuffled_blocks(gx, gy);
    if (!syncs) {
        std::atomic<size_t> taken{0};
        auto worker = [&] {
            blockDim = {bx, 1, 1};
            gridDim = {gx, gy, 1};
            for (size_t b; (b = taken.fetch_add(1)) < order.size();) {
                blockIdx = order[b];
                for (unsigned t = 0; t < bx; t++) {
                    threadIdx = {t, 0, 0};
                    kernel();
                }
            }
        };
        size_t workers = std::min<size_t>(4, order.size());
        std::vector<std::thread> threads;
        for (size_t w = 1; w < workers; w++) threads.emplace_back(worker);
        worker();  // the calling thread is one of them
        for (auto& th : threads) th.join();
        return;
    }
    std::lock_guard<std::mutex> one_at_a_time(shared_memory_lock);
    std::barrier<> sync(bx);
    block_barrier = &sync;
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < bx; t++) {
        threads.emplace_back([&, t] {
            blockDim = {bx, 1, 1};
            gridDim = {gx, gy, 1};
            threadIdx = {t, 0, 0};
            for (const Dim& b : order) {
                blockIdx = b;
                kernel();
                sync.arrive_and_wait();
            }
        });
    }
    for (auto& th : threads) th.join();
    block_barrier = nullptr;
}
