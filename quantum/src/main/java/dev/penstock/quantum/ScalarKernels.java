package dev.penstock.quantum;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/// The reference arithmetic: plain loops, written for clarity.
///
/// Amplitude: ‖x‖ = s·sqrt(Σ (x_i/s)²) with s = max|x_i|, so rows near 1e±200 neither overflow
/// nor underflow. Angle and phase are built by doubling: adding qubit k maps the first 2^k
/// amplitudes to the next 2^k (angle: × sin x_k, the old ones × cos x_k; phase: × e^{i x_k}).
/// IQP builds θ(x) by the same doubling, takes exp(iθ) and applies a fast Walsh–Hadamard
/// transform, O(n·2^n).
final class ScalarKernels implements Kernels {
    static final ScalarKernels INSTANCE = new ScalarKernels();

    @Override
    public void amplitude(double[] x, int len, int size, double[] re, double[] im) {
        double scale = 0;
        for (int i = 0; i < len; i++) {
            scale = Math.max(scale, Math.abs(x[i]));
        }
        double sum = 0;
        for (int i = 0; i < len; i++) {
            double t = x[i] / scale;
            sum += t * t;
        }
        double r = 1 / Math.sqrt(sum);
        for (int i = 0; i < len; i++) {
            re[i] = x[i] / scale * r;
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
            angleDoubling(re, half, c, s);
        }
        Arrays.fill(im, 0, 1 << n, 0);
    }

    /// Angle doubling step: `re[j + half] = re[j]·s`, `re[j] ·= c` for j < half.
    static void angleDoubling(double[] re, int half, double c, double s) {
        for (int j = 0; j < half; j++) {
            re[j + half] = re[j] * s;
            re[j] *= c;
        }
    }

    @Override
    public void basis(long j, int size, double[] re, double[] im) {
        Arrays.fill(re, 0, size, 0);
        Arrays.fill(im, 0, size, 0);
        re[(int) j] = 1;
    }

    @Override
    public void phase(double[] x, int n, double[] re, double[] im) {
        re[0] = Math.pow(2, -n / 2.0);
        im[0] = 0;
        for (int k = 0; k < n; k++) {
            int half = 1 << k;
            double c = Math.cos(x[k]);
            double s = Math.sin(x[k]);
            phaseDoubling(re, im, half, c, s);
        }
    }

    /// Phase doubling step: amplitudes [half, 2·half) = amplitudes [0, half) · (c + i·s).
    static void phaseDoubling(double[] re, double[] im, int half, double c, double s) {
        for (int j = 0; j < half; j++) {
            re[j + half] = re[j] * c - im[j] * s;
            im[j + half] = re[j] * s + im[j] * c;
        }
    }

    @Override
    public void iqp(double[] x, int n, boolean pairs, double[] re, double[] im) {
        int size = 1 << n;
        double[] theta = re;
        double[] coupling = im; // scratch: c_k(y) = Σ_{i<k, y_i = 1} d_p(i,k) for y < 2^k
        theta[0] = 0;
        for (int k = 0; k < n; k++) {
            int half = 1 << k;
            coupling[0] = 0;
            if (pairs) {
                for (int i = 0; i < k; i++) {
                    int h = 1 << i;
                    addShifted(coupling, h, x[Rules.pairIndex(n, i, k)]);
                }
            } else {
                Arrays.fill(coupling, 0, half, 0);
            }
            for (int y = 0; y < half; y++) {
                theta[y + half] = theta[y] + x[k] + coupling[y];
            }
        }
        PortableTrig.sinCos(theta, 0, size, im, re); // the vector kernels' bits: one definition of sin and cos
        walshHadamard(re, im, size);
        double norm = 1.0 / size;
        for (int y = 0; y < size; y++) {
            re[y] *= norm;
            im[y] *= norm;
        }
    }

    /// `a[y + h] = a[y] + d` for y < h.
    static void addShifted(double[] a, int h, double d) {
        for (int y = 0; y < h; y++) {
            a[y + h] = a[y] + d;
        }
    }

    /// Unnormalised in-place Walsh–Hadamard transform of a complex vector.
    static void walshHadamard(double[] re, double[] im, int size) {
        for (int h = 1; h < size; h <<= 1) {
            butterflies(re, im, size, h);
        }
    }

    /// One Walsh–Hadamard stage: (a, b) → (a + b, a − b) for every pair h apart.
    static void butterflies(double[] re, double[] im, int size, int h) {
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
    }

    @Override
    public void write(double[] re, double[] im, int size, MemorySegment out, long offset, boolean singlePrecision) {
        write(re, im, 0, size, out, offset, singlePrecision);
    }

    /// Writes amplitudes [from, size) interleaved at `offset` (amplitude i at offset + i·elem).
    static void write(double[] re, double[] im, int from, int size, MemorySegment out, long offset, boolean singlePrecision) {
        if (singlePrecision) {
            for (int i = from; i < size; i++) {
                out.set(ValueLayout.JAVA_FLOAT, offset + 8L * i, (float) re[i]);
                out.set(ValueLayout.JAVA_FLOAT, offset + 8L * i + 4, (float) im[i]);
            }
        } else {
            for (int i = from; i < size; i++) {
                out.set(ValueLayout.JAVA_DOUBLE, offset + 16L * i, re[i]);
                out.set(ValueLayout.JAVA_DOUBLE, offset + 16L * i + 8, im[i]);
            }
        }
    }
}
