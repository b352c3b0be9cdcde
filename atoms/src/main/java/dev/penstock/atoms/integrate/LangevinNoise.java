package dev.penstock.atoms.integrate;

import dev.penstock.random.Seeds;

/// The normal draws ξ of Langevin's O step. Draw j of a system's step k — atom j / 3, axis
/// j mod 3 — is a function of (seed, system id, k, j) alone: `key(seed, id, k)` is
/// `Seeds.derive(seed, "penstock.langevin", id, k)`; draws 2p and 2p + 1 are the pair that
/// Marsaglia's polar method makes from pair p's own counter stream of uniforms,
/// u_c = mix(key + (c + 1)·GOLDEN) (the SplitMix64 finaliser) as a double in [−1, 1),
/// c = p·2^24, p·2^24 + 1, … So no pair depends on another (a GPU thread per atom makes its own),
/// and the arithmetic is IEEE additions, multiplications, divisions, square roots and bit
/// operations only (`log` is this class's own), so the CPU kernels and `relax.cu` draw the same
/// bits.
public final class LangevinNoise {
    private static final double SQRT2 = 1.4142135623730951;
    private static final double LN2_HI = 0.6931467056274414; // ln 2 with its low 32 significand bits cleared
    private static final double LN2_LO = 4.7493250390316726e-07; // ln 2 − LN2_HI
    private static final long TRIES = 1L << 24; // counter values per pair (the polar method needs ~1.27 tries)
    /// 1/21, 1/19, … 1/3: the atanh series' coefficients, Horner's order (`relax.cu` has the same literals).
    private static final double[] SERIES = {0.047619047619047616, 0.05263157894736842, 0.058823529411764705, 0.06666666666666667,
        0.07692307692307693, 0.09090909090909091, 0.1111111111111111, 0.14285714285714285, 0.2, 0.3333333333333333};

    private LangevinNoise() {
    }

    /// The key of system `id`'s step `step` under `seed`.
    public static long key(long seed, long id, long step) {
        return Seeds.derive(seed, Langevin.DOMAIN, id, step);
    }

    /// Draw `j` of the step keyed `key`, alone (what `relax.cu`'s thread per atom computes; `normals`
    /// makes a step's draws a pair at a time, the same numbers).
    static double normal(long key, long j) {
        double[] two = new double[2];
        pair(key, j >>> 1, two, 0);
        return two[(int) (j & 1)];
    }

    /// Draws `[0, count)` of the step keyed `key` into `out[0, count)`, a pair at a time (for an
    /// odd `count` the last pair's second draw goes to `out[count]`: `out` needs `count + 1` then).
    public static void normals(long key, double[] out, int count) {
        for (int j = 0; j < count; j += 2) {
            pair(key, j >>> 1, out, j);
        }
    }

    /// Pair `p`'s two normals into `out[at]`, `out[at + 1]`.
    private static void pair(long key, long p, double[] out, int at) {
        long c = p * TRIES;
        while (true) {
            double v1 = uniform(key, c++);
            double v2 = uniform(key, c++);
            double s = v1 * v1 + v2 * v2;
            if (s < 1 && s != 0) {
                double f = Math.sqrt(-2 * log(s) / s);
                out[at] = v1 * f;
                out[at + 1] = v2 * f;
                return;
            }
        }
    }

    /// Counter `c`'s uniform in [−1, 1) (53 random bits).
    static double uniform(long key, long c) {
        long z = Seeds.mix(key + (c + 1) * Seeds.GOLDEN);
        return (z >>> 11) * 0x1.0p-53 * 2 - 1;
    }

    /// ln x for a positive normal x: x = m·2^e with m in [√½, √2), ln m = 2·atanh(f / (2 + f)),
    /// f = m − 1, by its series to the 21st power (|f / (2 + f)| ≤ 0.172), e·ln 2 in two parts.
    static double log(double x) {
        long bits = Double.doubleToRawLongBits(x);
        int e = (int) ((bits >>> 52) & 0x7ff) - 1023;
        double m = Double.longBitsToDouble((bits & 0x000f_ffff_ffff_ffffL) | 0x3ff0_0000_0000_0000L);
        if (m > SQRT2) {
            m *= 0.5;
            e++;
        }
        double f = m - 1;
        double s = f / (2 + f);
        double w = s * s;
        double p = SERIES[0];
        for (int k = 1; k < SERIES.length; k++) {
            p = p * w + SERIES[k];
        }
        p = p * w + 1;
        return e * LN2_HI + (e * LN2_LO + 2 * s * p);
    }
}
