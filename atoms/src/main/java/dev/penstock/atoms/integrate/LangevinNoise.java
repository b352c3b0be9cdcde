package dev.penstock.atoms.integrate;

import dev.penstock.random.Seeds;

/// The normal draws ξ of Langevin's O step. Draw j of a system's step k — atom j / 3, axis
/// j mod 3 — is a function of (seed, system id, k, j) alone: `key(seed, id, k)` is
/// `Seeds.derive(seed, "penstock.langevin", id, k)`, and `normal(key, j)` runs Marsaglia's polar
/// method on its own counter stream of uniforms, u_c = mix(key + (c + 1)·GOLDEN) (the SplitMix64
/// finaliser) as a double in [−1, 1), c = j·2^24, j·2^24 + 1, … So no draw depends on another
/// (a GPU thread per atom draws its own), and the arithmetic is IEEE additions, multiplications,
/// divisions, square roots and bit operations only (`log` is this class's own), so the CPU
/// kernels and `relax.cu` draw the same bits.
public final class LangevinNoise {
    private static final double SQRT2 = 1.4142135623730951;
    private static final double LN2_HI = 0.6931467056274414; // ln 2 with its low 32 significand bits cleared
    private static final double LN2_LO = 4.7493250390316726e-07; // ln 2 − LN2_HI
    private static final long TRIES = 1L << 24; // counter values per draw (the polar method needs ~1.27 pairs)

    private LangevinNoise() {
    }

    /// The key of system `id`'s step `step` under `seed`.
    public static long key(long seed, long id, long step) {
        return Seeds.derive(seed, Langevin.DOMAIN, id, step);
    }

    /// Draw `j` of the step keyed `key`: a standard normal.
    public static double normal(long key, long j) {
        long c = j * TRIES;
        while (true) {
            double v1 = uniform(key, c++);
            double v2 = uniform(key, c++);
            double s = v1 * v1 + v2 * v2;
            if (s < 1 && s != 0) {
                return v1 * Math.sqrt(-2 * log(s) / s);
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
        double p = 1.0 / 21;
        for (int k = 19; k >= 3; k -= 2) {
            p = p * w + 1.0 / k;
        }
        p = p * w + 1;
        return e * LN2_HI + (e * LN2_LO + 2 * s * p);
    }
}
