// Runs the kernels of cuda/src/main/cuda/encode.cu on the CPU, to check their arithmetic and
// indexing without a GPU: every block runs its threads as std::threads that meet at a
// std::barrier for __syncthreads (blocks run one after another, so one array serves as the
// block's shared memory). Used by KernelEmulationTest:
//   emulate ENCODING N ROWS LEN PRECISION IN.f64 OUT   (PRECISION: c128 or c64)
// reads ROWS x LEN float64 rows and writes ROWS x 2^N complex values (interleaved).
#define _GNU_SOURCE 1
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

struct double2 { double x, y; };
struct float2 { float x, y; };
struct Dim { unsigned x = 0, y = 0, z = 0; };
thread_local Dim threadIdx, blockIdx;
Dim blockDim, gridDim;
static std::barrier<>* block_barrier = nullptr;
static double shared_memory[4096];

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
#define red shared_memory
inline void __syncthreads() { block_barrier->arrive_and_wait(); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return std::atomic_ref<unsigned long long>(*p).fetch_add(v);
}
using std::sqrt; using std::fabs; using std::fmax; using std::exp2;

#include "../../main/cuda/encode.cu"
#undef red

// Runs `kernel` on a gridX x gridY grid of blockX threads.
static void launch(unsigned gx, unsigned gy, unsigned bx, const std::function<void()>& kernel) {
    blockDim = {bx, 1, 1};
    gridDim = {gx, gy, 1};
    for (unsigned y = 0; y < gy; y++) {
        for (unsigned x = 0; x < gx; x++) {
            std::barrier<> sync(bx);
            block_barrier = &sync;
            std::vector<std::thread> threads;
            for (unsigned t = 0; t < bx; t++) {
                threads.emplace_back([&, t, x, y] {
                    threadIdx = {t, 0, 0};
                    blockIdx = {x, y, 0};
                    kernel();
                });
            }
            for (auto& th : threads) th.join();
        }
    }
}

template <typename C>
static void run(const std::string& e, int n, int rows, int len, const double* in, C* out, bool c128) {
    const unsigned threads = 64;  // a power of two, as the amplitude reduction needs
    const long size = 1L << n;
    const unsigned gx = (unsigned) ((size + threads - 1) / threads);
    if (e == "amplitude") {
        launch(rows, 1, threads, [&] {
            if (c128) amplitude_f64_c128(in, len, len, n, (double2*) out); else amplitude_f64_c64(in, len, len, n, (float2*) out);
        });
    } else if (e == "angle" || e == "basis" || e == "phase") {
        launch(gx, rows, threads, [&] {
            if (e == "angle") { if (c128) angle_f64_c128(in, len, n, (double2*) out); else angle_f64_c64(in, len, n, (float2*) out); }
            else if (e == "basis") { if (c128) basis_f64_c128(in, len, n, (double2*) out); else basis_f64_c64(in, len, n, (float2*) out); }
            else { if (c128) phase_f64_c128(in, len, n, (double2*) out); else phase_f64_c64(in, len, n, (float2*) out); }
        });
    } else {
        int pairs = e == "iqp" ? 1 : 0;
        launch(gx, rows, threads, [&] {
            if (c128) iqp_phases_f64_c128(in, len, n, pairs, (double2*) out); else iqp_phases_f64_c64(in, len, n, pairs, (float2*) out);
        });
        const unsigned half = (unsigned) ((size / 2 + threads - 1) / threads);
        for (long h = 1; h < size; h <<= 1) {
            launch(half > 0 ? half : 1, rows, threads, [&] {
                if (c128) butterfly_c128(n, h, (double2*) out); else butterfly_c64(n, h, (float2*) out);
            });
        }
    }
}

int main(int argc, char** argv) {
    if (argc != 8) { std::fprintf(stderr, "usage: emulate ENCODING N ROWS LEN c128|c64 IN OUT\n"); return 2; }
    std::string e = argv[1];
    int n = std::atoi(argv[2]), rows = std::atoi(argv[3]), len = std::atoi(argv[4]);
    bool c128 = std::string(argv[5]) == "c128";
    std::vector<double> in((size_t) rows * len);
    FILE* f = std::fopen(argv[6], "rb");
    if (!f || std::fread(in.data(), sizeof(double), in.size(), f) != in.size()) { std::fprintf(stderr, "cannot read %s\n", argv[6]); return 2; }
    std::fclose(f);
    size_t values = (size_t) rows * (1L << n) * 2;
    FILE* o = std::fopen(argv[7], "wb");
    if (c128) {
        std::vector<double> out(values);
        run(e, n, rows, len, in.data(), out.data(), true);
        std::fwrite(out.data(), sizeof(double), values, o);
    } else {
        std::vector<float> out(values);
        run(e, n, rows, len, in.data(), out.data(), false);
        std::fwrite(out.data(), sizeof(float), values, o);
    }
    std::fclose(o);
    return 0;
}
