package dev.penstock.quantum;

import static dev.penstock.quantum.VectorKernels.D;
import static dev.penstock.quantum.VectorKernels.EVEN;
import static dev.penstock.quantum.VectorKernels.F;
import static dev.penstock.quantum.VectorKernels.L;
import static dev.penstock.quantum.VectorKernels.LE;
import static dev.penstock.quantum.VectorKernels.ZIP_HI;
import static dev.penstock.quantum.VectorKernels.ZIP_LO;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

/// The amplitude encoding's batch fast path, straight from the input segment (no copy into
/// arrays): pass 1 takes {max |x|, Σ x²}, pass 2 scales and interleaves with a zero-masked
/// permute; row r's pass 2 is fused with row r+1's pass 1 (software pipelining). Used by
/// `Encoder.encodeBatch` on the SIMD path; tested against the scalar path on mixed rows.
final class AmplitudeFastPath {
    private AmplitudeFastPath() {
    }

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
        statsTail(in, offset, i, len, f32, maxV, sumV, stats);
    }

    /// Reduces the lane accumulators and adds the scalar tail [from, len) into `stats`.
    private static void statsTail(MemorySegment in, long offset, int from, int len, boolean f32,
                                  DoubleVector maxV, DoubleVector sumV, double[] stats) {
        double max = maxV.reduceLanes(VectorOperators.MAX);
        double sum = VectorKernels.sum(sumV);
        for (int i = from; i < len; i++) {
            double v = value(in, offset, i, f32);
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
        double sum = VectorKernels.sum(sumV);
        for (; i < len; i++) {
            double t = value(in, offset, i, f32) * inv;
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
            VectorKernels.storeInterleaved(lo, hi, out, outOffset + (long) elem * i, c64);
        }
        if (i < len || len < size) {
            amplitudeWriteTail(in, offset, i, len, f32, a, b, size, out, outOffset, c64);
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
        if (!f32 && !c64 && a == 1) { // the common case (f64 rows, complex128 states), one multiply
            for (; i < bound; i += L) {
                DoubleVector nx = DoubleVector.fromMemorySegment(D, in, nextOffset + 8L * i, LE);
                maxV = maxV.max(nx.abs());
                sumV = nx.fma(nx, sumV);
                DoubleVector v = DoubleVector.fromMemorySegment(D, in, offset + 8L * i, LE).mul(b);
                long at = outOffset + 16L * i;
                v.rearrange(ZIP_LO, EVEN).intoMemorySegment(out, at, LE);
                v.rearrange(ZIP_HI, EVEN).intoMemorySegment(out, at + 8L * L, LE);
            }
        }
        for (; i < bound; i += L) {
            DoubleVector nx = load(in, nextOffset, i, f32);
            maxV = maxV.max(nx.abs());
            sumV = nx.fma(nx, sumV);
            DoubleVector v = load(in, offset, i, f32).mul(a).mul(b);
            DoubleVector lo = v.rearrange(ZIP_LO, EVEN);
            DoubleVector hi = v.rearrange(ZIP_HI, EVEN);
            VectorKernels.storeInterleaved(lo, hi, out, outOffset + (long) elem * i, c64);
        }
        statsTail(in, nextOffset, i, len, f32, maxV, sumV, nextStats);
        // the scalar tail and the zero padding of row r, exactly as amplitudeWrite does them
        if (i < len || len < size) {
            amplitudeWriteTail(in, offset, i, len, f32, a, b, size, out, outOffset, c64);
        }
    }

    private static void amplitudeWriteTail(MemorySegment in, long offset, int from, int len, boolean f32, double a, double b,
                                           int size, MemorySegment out, long outOffset, boolean c64) {
        int elem = c64 ? 8 : 16;
        for (int i = from; i < len; i++) {
            double v = value(in, offset, i, f32) * a * b;
            long at = outOffset + (long) elem * i;
            if (c64) {
                out.set(ValueLayout.JAVA_FLOAT, at, (float) v);
                out.set(ValueLayout.JAVA_FLOAT, at + 4, 0f);
            } else {
                out.set(ValueLayout.JAVA_DOUBLE, at, v);
                out.set(ValueLayout.JAVA_DOUBLE, at + 8, 0d);
            }
        }
        if (len < size) {
            out.asSlice(outOffset + (long) elem * len, (long) elem * (size - len)).fill((byte) 0);
        }
    }

    private static double value(MemorySegment in, long offset, int i, boolean f32) {
        return f32 ? in.get(ValueLayout.JAVA_FLOAT, offset + 4L * i) : in.get(ValueLayout.JAVA_DOUBLE, offset + 8L * i);
    }

    private static DoubleVector load(MemorySegment in, long offset, int i, boolean f32) {
        if (f32) {
            return (DoubleVector) FloatVector.fromMemorySegment(F, in, offset + 4L * i, LE).convertShape(VectorOperators.F2D, D, 0);
        }
        return DoubleVector.fromMemorySegment(D, in, offset + 8L * i, LE);
    }
}
