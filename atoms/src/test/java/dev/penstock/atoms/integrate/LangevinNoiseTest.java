package dev.penstock.atoms.integrate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.random.Seeds;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/// `LangevinNoise`: standard normal draws (moments, tails), each a function of its key and
/// index alone, keyed as `Seeds.derive`; its own logarithm within a few ulp of `Math.log`.
class LangevinNoiseTest {
    @Test
    void theDrawsAreStandardNormal() {
        int n = 1_000_000;
        double sum = 0;
        double sum2 = 0;
        double sum4 = 0;
        int beyond3 = 0;
        for (int k = 0; k < n; k++) {
            double z = LangevinNoise.normal(LangevinNoise.key(42, k / 300, k % 7), k % 300);
            sum += z;
            sum2 += z * z;
            sum4 += z * z * z * z;
            beyond3 += Math.abs(z) > 3 ? 1 : 0;
        }
        double mean = sum / n;
        double var = sum2 / n - mean * mean;
        assertThat(Math.abs(mean)).as("mean").isLessThan(5 / Math.sqrt(n));
        assertThat(var).as("variance").isBetween(0.995, 1.005);
        assertThat(sum4 / n / (var * var)).as("kurtosis").isBetween(2.95, 3.05);
        assertThat(beyond3 / (double) n).as("P(|z| > 3) = 0.0027").isBetween(0.0023, 0.0031);
    }

    @Test
    void aDrawDependsOnItsKeyAndIndexAloneAndTheKeyIsSeedsDerive() {
        long key = LangevinNoise.key(7, 123, 45);
        assertThat(key).isEqualTo(Seeds.derive(7, Langevin.DOMAIN, 123, 45))
                .isEqualTo(Seeds.squeeze(Seeds.absorbed(7, Langevin.DOMAIN, 2), 123, 45));
        double forward = LangevinNoise.normal(key, 1000);
        for (int j = 999; j >= 0; j--) {
            LangevinNoise.normal(key, j); // drawing others first changes nothing
        }
        assertThat(LangevinNoise.normal(key, 1000)).isEqualTo(forward);
        assertThat(LangevinNoise.normal(key, 1001)).isNotEqualTo(forward);
        for (int count : new int[] {1, 2, 3, 39, 40}) { // a step's draws made a pair at a time are the draws one by one
            double[] out = new double[count + 1];
            LangevinNoise.normals(key, out, count);
            for (int j = 0; j < count; j++) {
                assertThat(out[j]).as("draw %d of %d", j, count).isEqualTo(LangevinNoise.normal(key, j));
            }
        }
        assertThat(LangevinNoise.normal(LangevinNoise.key(7, 123, 46), 1000)).isNotEqualTo(forward);
        assertThat(LangevinNoise.normal(LangevinNoise.key(8, 123, 45), 1000)).isNotEqualTo(forward);
    }

    @Test
    void itsLogarithmIsWithinFourUlpOfMathLog() {
        SplittableRandom rnd = new SplittableRandom(3);
        double worst = 0;
        for (int k = 0; k < 1_000_000; k++) {
            double x = k % 2 == 0 ? rnd.nextDouble() : Math.scalb(rnd.nextDouble(0.5, 1), -rnd.nextInt(1000));
            if (x == 0 || x == 1) {
                continue;
            }
            double want = Math.log(x);
            worst = Math.max(worst, Math.abs(LangevinNoise.log(x) - want) / Math.ulp(want));
        }
        assertThat(worst).as("largest error, ulp").isLessThanOrEqualTo(4);
    }
}
