// Runs the kernels of cuda/src/main/cuda/eam.cu on the CPU, to check their arithmetic and
// indexing without a GPU (host_cuda.h; no kernel here synchronises its block). Used by
// EamKernelEmulationTest:
//   emulate_eam IN OUT
// IN (little-endian): int32 n ne nr nrho nfrho nrhor nz2r m; float64 cutsq rdr rdrho rhomax;
//   x[3n]; int32 type[n] start[n+1] nbr[m]; float64 shift[3m]; int32 frho_of[ne] rhor_of[ne*ne]
//   z2r_of[ne*ne]; float64 frho[nfrho*(nrho+1)*7] rhor[nrhor*(nr+1)*7] z2r[nz2r*(nr+1)*7]
// OUT: float64 f[3n] energy[n] (per atom).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "host_cuda.h"
#include "../../main/cuda/eam.cu"

template <typename T> static std::vector<T> take(FILE* in, long count) {
    std::vector<T> v(count > 0 ? count : 1);
    if (count > 0 && std::fread(v.data(), sizeof(T), count, in) != (size_t) count) { std::fprintf(stderr, "short input\n"); std::exit(3); }
    return v;
}

int main(int argc, char** argv) {
    if (argc != 3) { std::fprintf(stderr, "usage: emulate_eam IN OUT\n"); return 2; }
    FILE* in = std::fopen(argv[1], "rb");
    if (!in) { std::perror(argv[1]); return 2; }
    auto h = take<int>(in, 8);
    int n = h[0], ne = h[1], nr = h[2], nrho = h[3], nfrho = h[4], nrhor = h[5], nz2r = h[6], m = h[7];
    auto g = take<double>(in, 4);
    auto x = take<double>(in, 3L * n);
    auto type = take<int>(in, n);
    auto start = take<int>(in, n + 1L);
    auto nbr = take<int>(in, m);
    auto shift = take<double>(in, 3L * m);
    auto frho_of = take<int>(in, ne);
    auto rhor_of = take<int>(in, (long) ne * ne);
    auto z2r_of = take<int>(in, (long) ne * ne);
    int frho_stride = (nrho + 1) * 7, r_stride = (nr + 1) * 7;
    auto frho = take<double>(in, (long) nfrho * frho_stride);
    auto rhor = take<double>(in, (long) nrhor * r_stride);
    auto z2r = take<double>(in, (long) nz2r * r_stride);
    std::fclose(in);
    std::vector<double> rho(n), fp(n), energy(n), f(3L * n), virial(6L * n);
    const unsigned threads = 64, blocks = (unsigned) ((n + threads - 1) / threads);
    launch_grid(blocks, 1, threads, false, [&] {
        eam_density(n, x.data(), type.data(), start.data(), nbr.data(), shift.data(), rhor.data(), r_stride, rhor_of.data(), ne, g[0], g[1],
                    nr, rho.data());
    });
    launch_grid(blocks, 1, threads, false, [&] {
        eam_embed(n, type.data(), rho.data(), frho.data(), frho_stride, frho_of.data(), g[2], nrho, g[3], fp.data(), energy.data());
    });
    launch_grid(blocks, 1, threads, false, [&] {
        eam_force(n, x.data(), type.data(), start.data(), nbr.data(), shift.data(), rhor.data(), r_stride, rhor_of.data(), z2r.data(),
                  r_stride, z2r_of.data(), ne, g[0], g[1], nr, fp.data(), f.data(), energy.data(), virial.data());
    });
    FILE* out = std::fopen(argv[2], "wb");
    if (!out) { std::perror(argv[2]); return 2; }
    std::fwrite(f.data(), sizeof(double), f.size(), out);
    std::fwrite(energy.data(), sizeof(double), energy.size(), out);
    std::fclose(out);
    return 0;
}
