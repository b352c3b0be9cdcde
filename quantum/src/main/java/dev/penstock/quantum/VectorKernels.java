package dev.penstock.quantum;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.LongVector;
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
    static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    static final int L = D.length();
    static final VectorSpecies<Float> F = VectorSpecies.of(float.class, VectorShape.forBitSize(32 * L));
    static final VectorShuffle<Double> ZIP_LO;
    static final VectorShuffle<Double> ZIP_HI;
    static final VectorMask<Double> ODD;
    static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

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

    static final VectorMask<Double> EVEN = ODD.not();

    private final ScalarKernels scalar = ScalarKernels.INSTANCE;

    /// The lanes of `v` added in lane order, ((v0 + v1) + v2) + … — a fixed order, unlike
    /// `reduceLanes(ADD)`, whose order the Vector API leaves open: its compiled form adds the
    /// lanes as a tree, its interpreted form in lane order, so the same row gave a state an ulp
    /// apart depending on whether the JIT had compiled the loop yet (seen: 32 to 270 rows of
    /// 100,000 differing between two runs of the same `encode`).
    static double sum(DoubleVector v) {
        double s = v.lane(0);
        for (int k = 1; k < v.length(); k++) {
            s += v.lane(k);
        }
        return s;
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
        if (scale < Double.MIN_NORMAL) { // 1 / scale overflows: divide, as the scalar path (exact for subnormal rows)
            ScalarKernels.INSTANCE.amplitude(x, len, size, re, im);
            return;
        }
        double inv = 1 / scale;
        DoubleVector sumV = DoubleVector.zero(D);
        for (i = 0; i < bound; i += L) {
            DoubleVector t = DoubleVector.fromArray(D, x, i).mul(inv);
            sumV = t.fma(t, sumV);
        }
        double sum = sum(sumV);
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
                ScalarKernels.angleDoubling(re, half, c, s);
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
                ScalarKernels.phaseDoubling(re, im, half, c, s);
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
                    addShifted(coupling, 1 << i, x[Rules.pairIndex(n, i, k)]);
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
        for (; y < D.loopBound(size); y += L) { // in place: each lane's θ is read before its sin and cos are written
            sinCos(DoubleVector.fromArray(D, theta, y), im, re, y);
        }
        PortableTrig.sinCos(theta, y, size, im, re);
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

    /// `a[y + h] = a[y] + d` for y < h.
    private static void addShifted(double[] a, int h, double d) {
        if (h < L) {
            ScalarKernels.addShifted(a, h, d);
            return;
        }
        for (int y = 0; y < h; y += L) {
            DoubleVector.fromArray(D, a, y).add(d).intoArray(a, y + h);
        }
    }

    private static void walshHadamard(double[] re, double[] im, int size) {
        for (int h = 1; h < size; h <<= 1) {
            if (h < L) {
                ScalarKernels.butterflies(re, im, size, h);
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
            storeInterleaved(lo, hi, out, offset + (long) elem * i, singlePrecision);
        }
        if (i < size) {
            ScalarKernels.write(re, im, i, size, out, offset, singlePrecision);
        }
    }

    /// Stores 2·L interleaved values (`lo` then `hi`, each L doubles) at `at`, as complex64
    /// (narrowed to float) or complex128.
    static void storeInterleaved(DoubleVector lo, DoubleVector hi, MemorySegment out, long at, boolean c64) {
        if (c64) {
            ((FloatVector) lo.convertShape(VectorOperators.D2F, F, 0)).intoMemorySegment(out, at, LE);
            ((FloatVector) hi.convertShape(VectorOperators.D2F, F, 0)).intoMemorySegment(out, at + 4L * L, LE);
        } else {
            lo.intoMemorySegment(out, at, LE);
            hi.intoMemorySegment(out, at + 8L * L, LE);
        }
    }

    /// `PortableTrig.sinCos` on `v`'s lanes into `sin` and `cos` at `at`: the scalar form's
    /// operations in the same order, so the same bits lane by lane.
    static void sinCos(DoubleVector v, double[] sin, double[] cos, int at) {
        if (v.abs().compare(VectorOperators.GT, PortableTrig.LIMIT).or(v.test(VectorOperators.IS_NAN)).anyTrue()) {
            double[] t = v.toArray();
            double[] s = new double[t.length];
            double[] c = new double[t.length];
            PortableTrig.sinCos(t, 0, t.length, s, c);
            System.arraycopy(s, 0, sin, at, t.length);
            System.arraycopy(c, 0, cos, at, t.length);
            return;
        }
        DoubleVector shifted = v.mul(PortableTrig.TWO_OVER_PI).add(PortableTrig.SHIFTER);
        DoubleVector k = shifted.sub(PortableTrig.SHIFTER);
        DoubleVector r = v.sub(k.mul(PortableTrig.PIO2_1)).sub(k.mul(PortableTrig.PIO2_2)).sub(k.mul(PortableTrig.PIO2_3));
        DoubleVector r2 = r.mul(r);
        DoubleVector ps = DoubleVector.broadcast(v.species(), PortableTrig.S[0]);
        for (int j = 1; j < PortableTrig.S.length; j++) {
            ps = ps.mul(r2).add(PortableTrig.S[j]);
        }
        DoubleVector s = r.add(r.mul(r2.mul(ps)));
        DoubleVector pc = DoubleVector.broadcast(v.species(), PortableTrig.C[0]);
        for (int j = 1; j < PortableTrig.C.length; j++) {
            pc = pc.mul(r2).add(PortableTrig.C[j]);
        }
        DoubleVector c = r2.mul(pc).add(1);
        LongVector q = shifted.reinterpretAsLongs().sub(PortableTrig.SHIFTER_BITS);
        VectorMask<Double> odd = q.and(1L).compare(VectorOperators.NE, 0L).cast(v.species());
        VectorMask<Double> sinNegative = q.and(2L).compare(VectorOperators.NE, 0L).cast(v.species());
        VectorMask<Double> cosNegative = q.add(1L).and(2L).compare(VectorOperators.NE, 0L).cast(v.species());
        DoubleVector a = s.blend(c, odd);
        DoubleVector b = c.blend(s, odd);
        a.blend(a.neg(), sinNegative).intoArray(sin, at);
        b.blend(b.neg(), cosNegative).intoArray(cos, at);
    }
}
