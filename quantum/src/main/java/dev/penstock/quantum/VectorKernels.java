package dev.penstock.quantum;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/// The same arithmetic as `ScalarKernels`, L doubles at a time (L = the machine's preferred
/// vector length; 8 with AVX-512). Loops over fewer than L elements (the first doubling steps,
/// the first Walsh–Hadamard strides) fall back to the scalar code, which computes the same
/// values. Output interleaving:
///
/// ```
///   re: r0 r1 r2 r3 …     lo = re.rearrange(0,0,1,1,…) blended on odd lanes with
///   im: i0 i1 i2 i3 …          im.rearrange(0,0,1,1,…)  →  r0 i0 r1 i1 …
/// ```
final class VectorKernels implements Kernels {
    static final VectorKernels INSTANCE = new VectorKernels();
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final int L = D.length();
    private static final VectorSpecies<Float> F = VectorSpecies.of(float.class, VectorShape.forBitSize(32 * L));
    private static final VectorShuffle<Double> ZIP_LO;
    private static final VectorShuffle<Double> ZIP_HI;
    private static final VectorMask<Double> ODD;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    static {
        int[] lo = new int[L];
        int[] hi = new int[L];
        boolean[] odd = new boolean[L];
        for (int i = 0; i < L; i++) {
            lo[i] = i / 2;
            hi[i] = L / 2 + i / 2;
            odd[i] = (i & 1) == 1;
        }
        ZIP_LO = VectorShuffle.fromArray(D, lo, 0);
        ZIP_HI = VectorShuffle.fromArray(D, hi, 0);
        ODD = VectorMask.fromArray(D, odd, 0);
    }

    private static final VectorMask<Double> EVEN = ODD.not();
    private static final VectorSpecies<Float> F_IN = F;

    private final ScalarKernels scalar = ScalarKernels.INSTANCE;

    /// Amplitude fast path, straight from the input segment (no copy into an array), pass 1:
    /// `{max |x_i|, Σ x_i²}` of a row of `len` values (f32 or f64) at `offset`. A NaN or an
    /// infinity shows as a non-finite max.
    static void amplitudeStats(MemorySegment in, long offset, int len, boolean f32, double[] stats) {
        DoubleVector maxV = DoubleVector.zero(D);
        DoubleVector sumV = DoubleVector.zero(D);
        int bound = D.loopBound(len);
        int i = 0;
        for (; i < bound; i += L) {
            DoubleVector v = load(in, offset, i, f32);
            maxV = maxV.max(v.abs());
            sumV = v.fma(v, sumV);
        }
        double max = maxV.reduceLanes(VectorOperators.MAX);
        double sum = sumV.reduceLanes(VectorOperators.ADD);
        for (; i < len; i++) {
            double v = f32 ? in.get(java.lang.foreign.ValueLayout.JAVA_FLOAT, offset + 4L * i)
                    : in.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, offset + 8L * i);
            max = Double.isNaN(v) ? v : Math.max(max, Math.abs(v));
            sum += v * v;
        }
        stats[0] = max;
        stats[1] = sum;
    }

    /// Σ (x_i · inv)² of a row: the overflow- and underflow-safe second pass, for rows whose
    /// largest value is outside [1e-150, 1e150].
    static double amplitudeScaledSum(MemorySegment in, long offset, int len, boolean f32, double inv) {
        DoubleVector sumV = DoubleVector.zero(D);
        int bound = D.loopBound(len);
        int i = 0;
        for (; i < bound; i += L) {
            DoubleVector t = load(in, offset, i, f32).mul(inv);
            sumV = t.fma(t, sumV);
        }
        double sum = sumV.reduceLanes(VectorOperators.ADD);
        for (; i < len; i++) {
            double t = (f32 ? in.get(java.lang.foreign.ValueLayout.JAVA_FLOAT, offset + 4L * i)
                    : in.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, offset + 8L * i)) * inv;
            sum += t * t;
        }
        return sum;
    }

    /// Pass 2: writes `x_i · a · b` as complex (imaginary 0), zero-padded to `size`, interleaved.
    static void amplitudeWrite(MemorySegment in, long offset, int len, boolean f32, double a, double b, int size,
                               MemorySegment out, long outOffset, boolean c64) {
        int elem = c64 ? 8 : 16;
        int bound = D.loopBound(len);
        int i = 0;
        for (; i < bound; i += L) {
            DoubleVector v = load(in, offset, i, f32).mul(a).mul(b);
            DoubleVector lo = v.rearrange(ZIP_LO, EVEN);
            DoubleVector hi = v.rearrange(ZIP_HI, EVEN);
            long at = outOffset + (long) elem * i;
            if (c64) {
                ((FloatVector) lo.convertShape(VectorOperators.D2F, F, 0)).intoMemorySegment(out, at, LE);
                ((FloatVector) hi.convertShape(VectorOperators.D2F, F, 0)).intoMemorySegment(out, at + 4L * L, LE);
            } else {
                lo.intoMemorySegment(out, at, LE);
                hi.intoMemorySegment(out, at + 8L * L, LE);
            }
        }
        for (; i < len; i++) {
            double v = (f32 ? in.get(java.lang.foreign.ValueLayout.JAVA_FLOAT, offset + 4L * i)
                    : in.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, offset + 8L * i)) * a * b;
            long at = outOffset + (long) elem * i;
            if (c64) {
                out.set(java.lang.foreign.ValueLayout.JAVA_FLOAT, at, (float) v);
                out.set(java.lang.foreign.ValueLayout.JAVA_FLOAT, at + 4, 0f);
            } else {
                out.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, at, v);
                out.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, at + 8, 0d);
            }
        }
        if (len < size) {
            out.asSlice(outOffset + (long) elem * len, (long) elem * (size - len)).fill((byte) 0);
        }
    }

    /// Pass 2 of one row fused with pass 1 of the next (software pipelining): while row r's
    /// scaled values are written out, row r+1's values stream in and its {max, Σx²} accumulate,
    /// so DRAM reads of the next row overlap the writes of this one. Same results as
    /// `amplitudeWrite` followed by `amplitudeStats`.
    static void amplitudeWriteThenStats(MemorySegment in, long offset, int len, boolean f32, double a, double b, int size,
                                        MemorySegment out, long outOffset, boolean c64, long nextOffset, double[] nextStats) {
        int elem = c64 ? 8 : 16;
        int bound = D.loopBound(len);
        DoubleVector maxV = DoubleVector.zero(D);
        DoubleVector sumV = DoubleVector.zero(D);
        int i = 0;
        for (; i < bound; i += L) {
            DoubleVector nx = load(in, nextOffset, i, f32);
            maxV = maxV.max(nx.abs());
            sumV = nx.fma(nx, sumV);
            DoubleVector v = load(in, offset, i, f32).mul(a).mul(b);
            DoubleVector lo = v.rearrange(ZIP_LO, EVEN);
            DoubleVector hi = v.rearrange(ZIP_HI, EVEN);
            long at = outOffset + (long) elem * i;
            if (c64) {
                ((FloatVector) lo.convertShape(VectorOperators.D2F, F, 0)).intoMemorySegment(out, at, LE);
                ((FloatVector) hi.convertShape(VectorOperators.D2F, F, 0)).intoMemorySegment(out, at + 4L * L, LE);
            } else {
                lo.intoMemorySegment(out, at, LE);
                hi.intoMemorySegment(out, at + 8L * L, LE);
            }
        }
        double max = maxV.reduceLanes(VectorOperators.MAX);
        double sum = sumV.reduceLanes(VectorOperators.ADD);
        for (int t = i; t < len; t++) {
            double nv = f32 ? in.get(java.lang.foreign.ValueLayout.JAVA_FLOAT, nextOffset + 4L * t)
                    : in.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, nextOffset + 8L * t);
            max = Double.isNaN(nv) ? nv : Math.max(max, Math.abs(nv));
            sum += nv * nv;
        }
        nextStats[0] = max;
        nextStats[1] = sum;
        // the scalar tail and the zero padding of row r, exactly as amplitudeWrite does them
        if (i < len || len < size) {
            amplitudeWriteTail(in, offset, i, len, f32, a, b, size, out, outOffset, c64);
        }
    }

    private static void amplitudeWriteTail(MemorySegment in, long offset, int from, int len, boolean f32, double a, double b,
                                           int size, MemorySegment out, long outOffset, boolean c64) {
        int elem = c64 ? 8 : 16;
        for (int i = from; i < len; i++) {
            double v = (f32 ? in.get(java.lang.foreign.ValueLayout.JAVA_FLOAT, offset + 4L * i)
                    : in.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, offset + 8L * i)) * a * b;
            long at = outOffset + (long) elem * i;
            if (c64) {
                out.set(java.lang.foreign.ValueLayout.JAVA_FLOAT, at, (float) v);
                out.set(java.lang.foreign.ValueLayout.JAVA_FLOAT, at + 4, 0f);
            } else {
                out.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, at, v);
                out.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, at + 8, 0d);
            }
        }
        if (len < size) {
            out.asSlice(outOffset + (long) elem * len, (long) elem * (size - len)).fill((byte) 0);
        }
    }

    private static DoubleVector load(MemorySegment in, long offset, int i, boolean f32) {
        if (f32) {
            return (DoubleVector) FloatVector.fromMemorySegment(F_IN, in, offset + 4L * i, LE).convertShape(VectorOperators.F2D, D, 0);
        }
        return DoubleVector.fromMemorySegment(D, in, offset + 8L * i, LE);
    }

    @Override
    public void amplitude(double[] x, int len, int size, double[] re, double[] im) {
        int bound = D.loopBound(len);
        DoubleVector maxV = DoubleVector.zero(D);
        int i = 0;
        for (; i < bound; i += L) {
            maxV = maxV.max(DoubleVector.fromArray(D, x, i).abs());
        }
        double scale = maxV.reduceLanes(VectorOperators.MAX);
        for (; i < len; i++) {
            scale = Math.max(scale, Math.abs(x[i]));
        }
        double inv = 1 / scale;
        DoubleVector sumV = DoubleVector.zero(D);
        for (i = 0; i < bound; i += L) {
            DoubleVector t = DoubleVector.fromArray(D, x, i).mul(inv);
            sumV = t.fma(t, sumV);
        }
        double sum = sumV.reduceLanes(VectorOperators.ADD);
        for (; i < len; i++) {
            double t = x[i] * inv;
            sum += t * t;
        }
        double r = 1 / Math.sqrt(sum);
        // x_i / scale · r, as the scalar path: (x·inv)·r differs from (x/scale)·r by at most an ulp
        for (i = 0; i < bound; i += L) {
            DoubleVector.fromArray(D, x, i).mul(inv).mul(r).intoArray(re, i);
        }
        for (; i < len; i++) {
            re[i] = x[i] * inv * r;
        }
        Arrays.fill(re, len, size, 0);
        Arrays.fill(im, 0, size, 0);
    }

    @Override
    public void angle(double[] x, int n, double[] re, double[] im) {
        re[0] = 1;
        for (int k = 0; k < n; k++) {
            int half = 1 << k;
            double c = Math.cos(x[k]);
            double s = Math.sin(x[k]);
            if (half < L) {
                for (int j = 0; j < half; j++) {
                    re[j + half] = re[j] * s;
                    re[j] *= c;
                }
                continue;
            }
            for (int j = 0; j < half; j += L) {
                DoubleVector v = DoubleVector.fromArray(D, re, j);
                v.mul(s).intoArray(re, j + half);
                v.mul(c).intoArray(re, j);
            }
        }
        Arrays.fill(im, 0, 1 << n, 0);
    }

    @Override
    public void basis(long j, int size, double[] re, double[] im) {
        scalar.basis(j, size, re, im);
    }

    @Override
    public void phase(double[] x, int n, double[] re, double[] im) {
        re[0] = Math.pow(2, -n / 2.0);
        im[0] = 0;
        for (int k = 0; k < n; k++) {
            int half = 1 << k;
            double c = Math.cos(x[k]);
            double s = Math.sin(x[k]);
            if (half < L) {
                for (int j = 0; j < half; j++) {
                    re[j + half] = re[j] * c - im[j] * s;
                    im[j + half] = re[j] * s + im[j] * c;
                }
                continue;
            }
            for (int j = 0; j < half; j += L) {
                DoubleVector a = DoubleVector.fromArray(D, re, j);
                DoubleVector b = DoubleVector.fromArray(D, im, j);
                a.mul(c).sub(b.mul(s)).intoArray(re, j + half);
                a.mul(s).add(b.mul(c)).intoArray(im, j + half);
            }
        }
    }

    @Override
    public void iqp(double[] x, int n, boolean pairs, double[] re, double[] im) {
        int size = 1 << n;
        double[] theta = re;
        double[] coupling = im;
        theta[0] = 0;
        for (int k = 0; k < n; k++) {
            int half = 1 << k;
            coupling[0] = 0;
            if (pairs) {
                for (int i = 0; i < k; i++) {
                    int h = 1 << i;
                    double d = x[Rules.pairIndex(n, i, k)];
                    addShifted(coupling, coupling, h, d);
                }
            } else {
                Arrays.fill(coupling, 0, half, 0);
            }
            double xk = x[k];
            if (half < L) {
                for (int y = 0; y < half; y++) {
                    theta[y + half] = theta[y] + xk + coupling[y];
                }
            } else {
                for (int y = 0; y < half; y += L) {
                    DoubleVector.fromArray(D, theta, y).add(xk).add(DoubleVector.fromArray(D, coupling, y)).intoArray(theta, y + half);
                }
            }
        }
        int y = 0;
        for (; y < D.loopBound(size); y += L) {
            DoubleVector t = DoubleVector.fromArray(D, theta, y);
            t.lanewise(VectorOperators.SIN).intoArray(im, y);
            t.lanewise(VectorOperators.COS).intoArray(re, y);
        }
        for (; y < size; y++) {
            double t = theta[y];
            im[y] = Math.sin(t);
            re[y] = Math.cos(t);
        }
        walshHadamard(re, im, size);
        double norm = 1.0 / size;
        for (y = 0; y < D.loopBound(size); y += L) {
            DoubleVector.fromArray(D, re, y).mul(norm).intoArray(re, y);
            DoubleVector.fromArray(D, im, y).mul(norm).intoArray(im, y);
        }
        for (; y < size; y++) {
            re[y] *= norm;
            im[y] *= norm;
        }
    }

    /// `dst[y + h] = src[y] + d` for y < h.
    private static void addShifted(double[] src, double[] dst, int h, double d) {
        if (h < L) {
            for (int y = 0; y < h; y++) {
                dst[y + h] = src[y] + d;
            }
            return;
        }
        for (int y = 0; y < h; y += L) {
            DoubleVector.fromArray(D, src, y).add(d).intoArray(dst, y + h);
        }
    }

    private static void walshHadamard(double[] re, double[] im, int size) {
        for (int h = 1; h < size; h <<= 1) {
            if (h < L) {
                for (int i = 0; i < size; i += h << 1) {
                    for (int j = i; j < i + h; j++) {
                        double ar = re[j];
                        double ai = im[j];
                        double br = re[j + h];
                        double bi = im[j + h];
                        re[j] = ar + br;
                        im[j] = ai + bi;
                        re[j + h] = ar - br;
                        im[j + h] = ai - bi;
                    }
                }
                continue;
            }
            for (int i = 0; i < size; i += h << 1) {
                for (int j = i; j < i + h; j += L) {
                    DoubleVector ar = DoubleVector.fromArray(D, re, j);
                    DoubleVector br = DoubleVector.fromArray(D, re, j + h);
                    DoubleVector ai = DoubleVector.fromArray(D, im, j);
                    DoubleVector bi = DoubleVector.fromArray(D, im, j + h);
                    ar.add(br).intoArray(re, j);
                    ar.sub(br).intoArray(re, j + h);
                    ai.add(bi).intoArray(im, j);
                    ai.sub(bi).intoArray(im, j + h);
                }
            }
        }
    }

    @Override
    public void write(double[] re, double[] im, int size, MemorySegment out, long offset, boolean singlePrecision) {
        int bound = D.loopBound(size);
        int i = 0;
        int elem = singlePrecision ? 8 : 16;
        for (; i < bound; i += L) {
            DoubleVector a = DoubleVector.fromArray(D, re, i);
            DoubleVector b = DoubleVector.fromArray(D, im, i);
            DoubleVector lo = a.rearrange(ZIP_LO).blend(b.rearrange(ZIP_LO), ODD);
            DoubleVector hi = a.rearrange(ZIP_HI).blend(b.rearrange(ZIP_HI), ODD);
            long at = offset + (long) elem * i;
            if (singlePrecision) {
                ((FloatVector) lo.convertShape(VectorOperators.D2F, F, 0)).intoMemorySegment(out, at, LE);
                ((FloatVector) hi.convertShape(VectorOperators.D2F, F, 0)).intoMemorySegment(out, at + 4L * L, LE);
            } else {
                lo.intoMemorySegment(out, at, LE);
                hi.intoMemorySegment(out, at + 8L * L, LE);
            }
        }
        if (i < size) {
            scalarTail(re, im, i, size, out, offset, singlePrecision);
        }
    }

    private void scalarTail(double[] re, double[] im, int from, int size, MemorySegment out, long offset, boolean single) {
        int elem = single ? 8 : 16;
        for (int i = from; i < size; i++) {
            long at = offset + (long) elem * i;
            if (single) {
                out.set(java.lang.foreign.ValueLayout.JAVA_FLOAT, at, (float) re[i]);
                out.set(java.lang.foreign.ValueLayout.JAVA_FLOAT, at + 4, (float) im[i]);
            } else {
                out.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, at, re[i]);
                out.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, at + 8, im[i]);
            }
        }
    }
}
