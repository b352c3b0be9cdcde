package dev.penstock.atoms.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/// The binned build of `PairList` against a check of every pair: the same partners, in row
/// order, however the atoms lie — also with an atom gone non-finite (its system is flagged by
/// the evaluation; the build must still finish and miss nobody).
class PairListBuilderTest {
    private static final double RL = 2.8;

    private static double[] gas(int n, double side, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] r = new double[3 * n];
        for (int i = 0; i < r.length; i++) {
            r[i] = rnd.nextDouble(0, side);
        }
        return r;
    }

    /// Each atom's partners as the list holds them, and as a check of every pair finds them.
    private static void samePartnersAsEveryPair(double[] r, int n, double[] cell, boolean nearest, boolean full) {
        double[] x = new double[n];
        double[] y = new double[n];
        double[] z = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = r[3 * i];
            y[i] = r[3 * i + 1];
            z[i] = r[3 * i + 2];
        }
        PairList list = new PairList(0);
        new PairListBuilder().binned(list, r, x, y, z, n, cell, nearest, RL, full);
        for (int i = 0; i < n; i++) {
            List<Integer> expected = new ArrayList<>();
            for (int j = full ? 0 : i + 1; j < n; j++) {
                if (j == i) {
                    continue;
                }
                double[] d = {x[j] - x[i], y[j] - y[i], z[j] - z[i]};
                for (int a = 0; a < 3 && nearest; a++) {
                    double l = cell[4 * a];
                    d[a] = d[a] - l * Math.rint(d[a] / l);
                }
                if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < RL * RL) {
                    expected.add(j);
                }
            }
            List<Integer> listed = new ArrayList<>();
            for (int t = list.start[i]; t < list.start[i + 1]; t++) {
                listed.add(list.partner[t]);
            }
            assertThat(listed).as("atom %d", i).isEqualTo(expected);
        }
    }

    @Test
    void aFreeGasIsListedAsEveryPairFindsIt() {
        samePartnersAsEveryPair(gas(1500, 30, 1), 1500, new double[18], false, false);
        samePartnersAsEveryPair(gas(1500, 30, 2), 1500, new double[18], false, true);
    }

    @Test
    void aPeriodicBoxIsListedByTheNearestImageAcrossItsFaces() {
        double side = 20;
        double[] cell = new double[18];
        for (int d = 0; d < 3; d++) {
            cell[4 * d] = side;
            cell[9 + 4 * d] = 1 / side;
        }
        samePartnersAsEveryPair(gas(1200, side, 3), 1200, cell, true, false);
        samePartnersAsEveryPair(gas(1200, side, 4), 1200, cell, true, true);
    }

    @Test
    void anAtomGoneNonFiniteLeavesTheBuildCompleteForTheOthers() {
        double[] r = gas(1100, 25, 5);
        r[3 * 7] = Double.NaN;
        samePartnersAsEveryPair(r, 1100, new double[18], false, false);
        r[3 * 7] = Double.POSITIVE_INFINITY;
        samePartnersAsEveryPair(r, 1100, new double[18], false, true);
    }
}
