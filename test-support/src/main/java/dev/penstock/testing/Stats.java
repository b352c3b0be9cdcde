package dev.penstock.testing;

/// Small statistics helpers for seeded statistical tests.
public final class Stats {
    private Stats() {
    }

    /// Pearson's chi-square statistic of `observed` counts against a uniform expectation.
    public static double chiSquareUniform(long[] observed) {
        long total = 0;
        for (long o : observed) {
            total += o;
        }
        double expected = (double) total / observed.length;
        double chi = 0;
        for (long o : observed) {
            double d = o - expected;
            chi += d * d / expected;
        }
        return chi;
    }

    /// Upper critical value of chi-square with `dof` degrees of freedom at significance
    /// `alpha` ∈ {0.001, 0.01}, by the Wilson–Hilferty approximation (good for dof ≥ 30).
    public static double chiSquareCritical(int dof, double alpha) {
        double z;
        if (alpha == 0.001) {
            z = 3.090232;
        } else if (alpha == 0.01) {
            z = 2.326348;
        } else {
            throw new IllegalArgumentException("alpha must be 0.001 or 0.01, got " + alpha);
        }
        double h = 2.0 / (9.0 * dof);
        double c = 1 - h + z * Math.sqrt(h);
        return dof * c * c * c;
    }
}
