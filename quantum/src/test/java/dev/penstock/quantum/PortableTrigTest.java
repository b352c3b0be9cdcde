package dev.penstock.quantum;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import jdk.incubator.vector.DoubleVector;
import org.junit.jupiter.api.Test;

/// `PortableTrig`: within 2 ulp of `StrictMath`, and the vector lanes the scalar form's bits.
class PortableTrigTest {
    private static double ulps(double got, double want) {
        return Math.abs(got - want) / Math.ulp(want == 0 ? Double.MIN_NORMAL : want);
    }

    @Test
    void withinTwoUlpOfFdlibmAcrossTheReducedRangeAndBeyond() {
        SplittableRandom rng = new SplittableRandom(11);
        int n = 200_000;
        double[] t = new double[n];
        for (int i = 0; i < n; i++) {
            double scale = switch (i % 5) {
                case 0 -> 1;
                case 1 -> 10;
                case 2 -> 1e3;
                case 3 -> 1e6; // past the limit: fdlibm itself
                default -> Math.PI / 2 * (i % 40); // near the quadrant edges
            };
            t[i] = i % 5 == 4 ? scale + rng.nextDouble(-1e-9, 1e-9) : rng.nextDouble(-scale, scale);
        }
        double[] s = new double[n];
        double[] c = new double[n];
        PortableTrig.sinCos(t, 0, n, s, c);
        double worst = 0;
        for (int i = 0; i < n; i++) {
            double ws = StrictMath.sin(t[i]);
            double wc = StrictMath.cos(t[i]);
            // near a zero of sin or cos the reduction's absolute error decides: held to 1e-16
            worst = Math.max(worst, Math.abs(ws) < 1e-3 ? Math.abs(s[i] - ws) / 1e-16 * 2 : ulps(s[i], ws));
            worst = Math.max(worst, Math.abs(wc) < 1e-3 ? Math.abs(c[i] - wc) / 1e-16 * 2 : ulps(c[i], wc));
        }
        assertThat(worst).as("worst error, ulp").isLessThanOrEqualTo(2);
        double[] special = {0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, 1e300, -Math.PI, Math.PI / 2};
        double[] ss = new double[special.length];
        double[] cc = new double[special.length];
        PortableTrig.sinCos(special, 0, special.length, ss, cc);
        assertThat(ss[0]).isEqualTo(0.0);
        assertThat(cc[0]).isEqualTo(1.0);
        assertThat(ss[2]).isNaN();
        assertThat(ss[3]).isNaN();
        assertThat(ss[4]).isEqualTo(StrictMath.sin(1e300));
        assertThat(Math.abs(ss[5])).isLessThan(1e-15);
        assertThat(ss[6]).isEqualTo(1.0);
    }

    @Test
    void vectorLanesGiveTheScalarFormsBitsInterpretedOrCompiled() {
        SplittableRandom rng = new SplittableRandom(3);
        int lanes = DoubleVector.SPECIES_PREFERRED.length();
        double[] t = new double[lanes * 4096];
        for (int i = 0; i < t.length; i++) {
            t[i] = rng.nextDouble(-50, 50);
        }
        t[5] = 3e6; // a vector with a lane past the limit takes the scalar form for all its lanes
        double[] s = new double[t.length];
        double[] c = new double[t.length];
        PortableTrig.sinCos(t, 0, t.length, s, c);
        for (int round = 0; round < 30; round++) { // the first rounds interpreted, the last compiled
            double[] vs = new double[t.length];
            double[] vc = new double[t.length];
            for (int i = 0; i < t.length; i += lanes) {
                VectorKernels.sinCos(DoubleVector.fromArray(DoubleVector.SPECIES_PREFERRED, t, i), vs, vc, i);
            }
            assertThat(vs).as("round %d", round).isEqualTo(s);
            assertThat(vc).as("round %d", round).isEqualTo(c);
        }
    }
}
