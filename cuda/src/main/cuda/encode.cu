// Penstock's CUDA kernels: the quantum state encodings of docs/definitions.md and the transfer
// benchmark's read kernel. Rows are validated on the host (dev.penstock.quantum.Rules) before
// they are copied; these kernels are the arithmetic only. Qubit k = bit k of the index.
//
// Layout: input rows x[row * stride + k] (f64 or f32); output rows out[row * N + i] as
// interleaved complex (double2 for complex128, float2 for complex64); N = 2^n.
//
// Built into PTX by scripts/build-kernels.sh (nvcc -ptx -arch=compute_90) and shipped in
// cuda/src/main/resources/dev/penstock/cuda/encode.ptx: the driver JIT-compiles it, so a machine
// with the NVIDIA driver and no CUDA toolkit can load it.

#include <cuda_runtime.h>

template <typename T> struct Complex;
template <> struct Complex<double> { typedef double2 type; };
template <> struct Complex<float> { typedef float2 type; };

template <typename T>
__device__ __forceinline__ typename Complex<T>::type make(double re, double im) {
    typename Complex<T>::type c;
    c.x = (T) re;
    c.y = (T) im;
    return c;
}

// amplitude: one block per row; out_i = x_i / ||x|| for i < len, 0 up to N. One pass reads the
// row for max |x_i| and sum x_i^2 together (one tree reduction of both, in 2 * blockDim.x
// doubles of shared memory); when max |x_i| lies in [1e-140, 1e140] that sum can neither
// overflow nor lose its leading terms to underflow, so ||x|| = sqrt(sum) and the row is read
// once more, to write. Otherwise (rare) a second pass sums (x_i / s)^2 with s = max |x_i|, as
// the CPU encoder always does, and writes (x_i / s) / ||x / s|| (exact for subnormal rows too). blockDim.x must be a power of two.
template <typename In, typename Out>
__device__ void amplitude(const In* x, long stride, int len, int n, typename Complex<Out>::type* out) {
    extern __shared__ double red[];
    double* sums = red + blockDim.x;
    const long row = blockIdx.x;
    const In* xr = x + row * stride;
    typename Complex<Out>::type* o = out + row * (1L << n);
    double m = 0, q = 0;
    for (int i = threadIdx.x; i < len; i += blockDim.x) {
        const double v = fabs((double) xr[i]);
        m = fmax(m, v);
        q += v * v;
    }
    red[threadIdx.x] = m;
    sums[threadIdx.x] = q;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + s]);
            sums[threadIdx.x] += sums[threadIdx.x + s];
        }
        __syncthreads();
    }
    const double scale = red[0];
    double r;  // 1 / ||x||, or 1 / ||x / scale|| for a scaled row
    const bool scaled = !(scale >= 1e-140 && scale <= 1e140);
    if (!scaled) {
        r = 1.0 / sqrt(sums[0]);
    } else {
        __syncthreads();
        double sum = 0;
        for (int i = threadIdx.x; i < len; i += blockDim.x) {
            const double t = (double) xr[i] / scale;
            sum += t * t;
        }
        sums[threadIdx.x] = sum;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) {
                sums[threadIdx.x] += sums[threadIdx.x + s];
            }
            __syncthreads();
        }
        r = 1.0 / sqrt(sums[0]);
    }
    // the rare rows write (x_i / s) * r: 1 / (s * ||x / s||) overflows for a subnormal s
    const double s = scaled ? scale : 1.0;
    const long size = 1L << n;
    for (long i = threadIdx.x; i < size; i += blockDim.x) {
        o[i] = make<Out>(i < len ? (double) xr[i] / s * r : 0.0, 0.0);
    }
}

// angle: one thread per (row, index): prod_k (bit_k ? sin x_k : cos x_k). grid.y = rows.
template <typename In, typename Out>
__device__ void angle(const In* x, long stride, int n, typename Complex<Out>::type* out) {
    const long size = 1L << n;
    const long i = (long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    const In* xr = x + (long) blockIdx.y * stride;
    double p = 1;
    for (int k = 0; k < n; k++) {
        double s, c;
        sincos((double) xr[k], &s, &c);
        p *= ((i >> k) & 1) ? s : c;
    }
    out[(long) blockIdx.y * size + i] = make<Out>(p, 0.0);
}

// basis: e_j, j = x_0 (validated whole and in range on the host).
template <typename In, typename Out>
__device__ void basis(const In* x, long stride, int n, typename Complex<Out>::type* out) {
    const long size = 1L << n;
    const long i = (long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    const long j = (long) x[(long) blockIdx.y * stride];
    out[(long) blockIdx.y * size + i] = make<Out>(i == j ? 1.0 : 0.0, 0.0);
}

// phase: 2^(-n/2) exp(i sum_k x_k b_k).
template <typename In, typename Out>
__device__ void phase(const In* x, long stride, int n, typename Complex<Out>::type* out) {
    const long size = 1L << n;
    const long i = (long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    const In* xr = x + (long) blockIdx.y * stride;
    double t = 0;
    for (int k = 0; k < n; k++) {
        if ((i >> k) & 1) t += (double) xr[k];
    }
    double s, c;
    sincos(t, &s, &c);
    const double a = exp2(-0.5 * n);
    out[(long) blockIdx.y * size + i] = make<Out>(a * c, a * s);
}

// iqp, first pass: exp(i theta(b)) / 2^n into out, theta(b) = sum_i d_i b_i (+ pair terms
// d_p(i,j) b_i b_j with pairs after the first n values in the order (0,1),(0,2),…,(1,2),…).
template <typename In, typename Out>
__device__ void iqpPhases(const In* x, long stride, int n, int pairs, typename Complex<Out>::type* out) {
    const long size = 1L << n;
    const long b = (long) blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= size) return;
    const In* xr = x + (long) blockIdx.y * stride;
    double t = 0;
    int p = n;
    for (int i = 0; i < n; i++) {
        const int bi = (b >> i) & 1;
        if (bi) t += (double) xr[i];
        if (pairs) {
            for (int j = i + 1; j < n; j++, p++) {
                if (bi && ((b >> j) & 1)) t += (double) xr[p];
            }
        }
    }
    double s, c;
    sincos(t, &s, &c);
    const double a = exp2(-(double) n);
    out[(long) blockIdx.y * size + b] = make<Out>(a * c, a * s);
}

// iqp, then one Walsh–Hadamard stage per launch, h = 1, 2, …, N/2: (u, v) → (u + v, u − v)
// for every pair h apart; one thread per pair.
template <typename Out>
__device__ void butterfly(int n, long h, typename Complex<Out>::type* out) {
    const long size = 1L << n;
    const long t = (long) blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= size / 2) return;
    const long lo = (t / h) * 2 * h + (t % h);
    typename Complex<Out>::type* o = out + (long) blockIdx.y * size;
    const typename Complex<Out>::type u = o[lo];
    const typename Complex<Out>::type v = o[lo + h];
    o[lo] = make<Out>((double) u.x + v.x, (double) u.y + v.y);
    o[lo + h] = make<Out>((double) u.x - v.x, (double) u.y - v.y);
}

// The transfer benchmark's kernel: reads every byte (8 at a time) and adds them into sum[0],
// so the copy cannot be skipped.
__device__ void readAll(const unsigned long long* data, long words, unsigned long long* sum) {
    unsigned long long acc = 0;
    for (long i = (long) blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (long) gridDim.x * blockDim.x) {
        acc += data[i];
    }
    atomicAdd(sum, acc);
}

#define ENCODINGS(NAME, IN, OUT)                                                                          \
    extern "C" __global__ void amplitude_##NAME(const IN* x, long stride, int len, int n,               \
                                                 Complex<OUT>::type* out) {                               \
        amplitude<IN, OUT>(x, stride, len, n, out);                                                       \
    }                                                                                                     \
    extern "C" __global__ void angle_##NAME(const IN* x, long stride, int n, Complex<OUT>::type* out) {  \
        angle<IN, OUT>(x, stride, n, out);                                                                \
    }                                                                                                     \
    extern "C" __global__ void basis_##NAME(const IN* x, long stride, int n, Complex<OUT>::type* out) {  \
        basis<IN, OUT>(x, stride, n, out);                                                                \
    }                                                                                                     \
    extern "C" __global__ void phase_##NAME(const IN* x, long stride, int n, Complex<OUT>::type* out) {  \
        phase<IN, OUT>(x, stride, n, out);                                                                \
    }                                                                                                     \
    extern "C" __global__ void iqp_phases_##NAME(const IN* x, long stride, int n, int pairs,             \
                                                  Complex<OUT>::type* out) {                              \
        iqpPhases<IN, OUT>(x, stride, n, pairs, out);                                                     \
    }

ENCODINGS(f64_c128, double, double)
ENCODINGS(f32_c64, float, float)
ENCODINGS(f64_c64, double, float)

extern "C" __global__ void butterfly_c128(int n, long h, double2* out) { butterfly<double>(n, h, out); }
extern "C" __global__ void butterfly_c64(int n, long h, float2* out) { butterfly<float>(n, h, out); }
extern "C" __global__ void read_all(const unsigned long long* data, long words, unsigned long long* sum) { readAll(data, words, sum); }
