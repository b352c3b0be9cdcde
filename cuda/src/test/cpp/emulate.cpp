// Runs the kernels of cuda/src/main/cuda/encode.cu on the CPU, to check their arithmetic and
// indexing without a GPU: every block runs its threads as std::threads that meet at a
// std::barrier for __syncthreads (host_cuda.h). Used by KernelEmulationTest:
//   emulate ENCODING N ROWS LEN PRECISION IN.f64 OUT   (PRECISION: c128 or c64)
// reads ROWS x LEN float64 rows and writes ROWS x 2^N complex values (interleaved).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "host_cuda.h"
#include "../../main/cuda/encode.cu"

static void launch(unsigned gx, unsigned gy, unsigned bx, const std::function<void()>& kernel) {
    launch_grid(gx, gy, bx, true, kernel);  // as a GPU would: a block's threads run together
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
