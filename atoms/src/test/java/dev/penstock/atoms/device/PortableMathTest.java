package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import jdk.incubator.vector.DoubleVector;
import org.junit.jupiter.api.Test;

/// `PortableMath.exp`: within 2 ulp of `Math.exp` where it is defined, its documented edges, and
/// every vector lane the same bits as the scalar.
class PortableMathTest {
    @Test
    void theExponentialIsWithinTwoUlpOfMathExpOverItsRange() {
        SplittableRandom rnd = new SplittableRandom(11);
        double worst = 0;
        for (int k = 0; k < 2_000_000; k++) {
            double x = k % 2 == 0 ? rnd.nextDouble(-708, 709) : rnd.nextDouble(-8, 8);
            double want = Math.exp(x);
            double got = PortableMath.exp(x);
            worst = Math.max(worst, Math.abs(got - want) / Math.ulp(want));
        }
        assertThat(worst).as("largest error in ulp of Math.exp").isLessThanOrEqualTo(2);
        assertThat(PortableMath.exp(0)).isEqualTo(1.0);
        assertThat(PortableMath.exp(-0.0)).isEqualTo(1.0);
        assertThat(PortableMath.exp(1)).isCloseTo(Math.E, org.assertj.core.data.Offset.offset(2 * Math.ulp(Math.E)));
        assertThat(PortableMath.exp(-709)).isZero();
        assertThat(PortableMath.exp(Double.NEGATIVE_INFINITY)).isZero();
        assertThat(PortableMath.exp(710)).isInfinite();
        assertThat(PortableMath.exp(Double.POSITIVE_INFINITY)).isInfinite();
        assertThat(PortableMath.exp(Double.NaN)).isNaN();
    }

    @Test
    void everyLaneOfTheVectorExponentialIsTheScalarBitForBit() {
        var species = DoubleVector.SPECIES_PREFERRED;
        SplittableRandom rnd = new SplittableRandom(5);
        double[] x = new double[species.length()];
        double[] out = new double[species.length()];
        double[] edges = {0, -0.0, -708, 709, -708.5, 709.5, Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, 1e-300, -1e-300};
        for (int k = 0; k < 200_000; k++) {
            for (int l = 0; l < x.length; l++) {
                x[l] = k < edges.length ? edges[(k + l) % edges.length] : rnd.nextDouble(-720, 720);
            }
            PortableMath.exp(DoubleVector.fromArray(species, x, 0)).intoArray(out, 0);
            for (int l = 0; l < x.length; l++) {
                assertThat(Double.doubleToRawLongBits(out[l])).as("exp(%s)", x[l]).isEqualTo(Double.doubleToRawLongBits(PortableMath.exp(x[l])));
            }
        }
    }
}
