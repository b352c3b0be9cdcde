// The few CUDA built-ins encode.cu and relax.cu use, for the host: include this, then encode.cu, to compile
// Penstock's kernels with g++ (emulate.cpp, hostcuda.cpp). Index variables are per thread, so
// launches on different threads do not disturb each other; a kernel that synchronises its block
// (__syncthreads) must run one launch at a time (its shared memory is one array), which
// `launch_grid` does.
#pragma once
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

// Runs `kernel` on a gx x gy grid of bx-thread blocks. Without `syncs`, every thread of every
// block runs in turn on the calling thread (they share nothing but atomics). With `syncs`, bx
// threads run each block together, meeting at a barrier for __syncthreads and once more between
// blocks (so no thread reads shared memory the next block is writing).
inline void launch_grid(unsigned gx, unsigned gy, unsigned bx, bool syncs, const std::function<void()>& kernel) {
    if (!syncs) {
        blockDim = {bx, 1, 1};
        gridDim = {gx, gy, 1};
        for (unsigned y = 0; y < gy; y++) {
            for (unsigned x = 0; x < gx; x++) {
                blockIdx = {x, y, 0};
                for (unsigned t = 0; t < bx; t++) {
                    threadIdx = {t, 0, 0};
                    kernel();
                }
            }
        }
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
            for (unsigned y = 0; y < gy; y++) {
                for (unsigned x = 0; x < gx; x++) {
                    blockIdx = {x, y, 0};
                    kernel();
                    sync.arrive_and_wait();
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    block_barrier = nullptr;
}
