package dev.penstock.atoms.potential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.penstock.atoms.system.AtomicSystem;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PotentialTest {

    /// Random positions in a box with no two atoms closer than `minDist`.
    static double[] randomPositions(int n, double box, double minDist, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] r = new double[3 * n];
        int placed = 0;
        while (placed < n) {
            double x = rnd.nextDouble(box);
            double y = rnd.nextDouble(box);
            double z = rnd.nextDouble(box);
            boolean ok = true;
            for (int j = 0; j < placed && ok; j++) {
                double dx = x - r[3 * j];
                double dy = y - r[3 * j + 1];
                double dz = z - r[3 * j + 2];
                dx -= box * Math.rint(dx / box);
                dy -= box * Math.rint(dy / box);
                dz -= box * Math.rint(dz / box);
                ok = dx * dx + dy * dy + dz * dz >= minDist * minDist;
            }
            if (ok) {
                r[3 * placed] = x;
                r[3 * placed + 1] = y;
                r[3 * placed + 2] = z;
                placed++;
            }
        }
        return r;
    }

    private static void forcesMatchFiniteDifferences(Model m, AtomicSystem s, double tol) {
        m.compute(s);
        double[] f = s.forces().clone();
        double h = 1e-6;
        double[] r = s.positions();
        for (int k = 0; k < r.length; k++) {
            double x = r[k];
            r[k] = x + h;
            m.compute(s);
            double ep = s.energy();
            r[k] = x - h;
            m.compute(s);
            double em = s.energy();
            r[k] = x;
            assertThat(f[k]).as("force component %d", k).isCloseTo(-(ep - em) / (2 * h), within(tol));
        }
    }

    @Test
    void lennardJonesForcesAreMinusTheEnergyGradient() {
        AtomicSystem free = AtomicSystem.free(1, randomPositions(12, 3.0, 0.9, 5));
        forcesMatchFiniteDifferences(new LennardJones(1, 1, Double.POSITIVE_INFINITY, false), free, 1e-5);
        double[] r = randomPositions(40, 5.0, 0.9, 6);
        AtomicSystem periodic = new AtomicSystem(2, r, ones(40), new int[40], new double[] {5, 5, 5}, new boolean[] {true, true, true});
        forcesMatchFiniteDifferences(new LennardJones(1, 1, 2.5, true), periodic, 1e-5);
    }

    @Test
    void morseForcesAreMinusTheEnergyGradient() {
        double[] r = randomPositions(30, 6.0, 1.5, 7);
        AtomicSystem s = new AtomicSystem(3, r, ones(30), new int[30], new double[] {6, 6, 6}, new boolean[] {true, true, false});
        forcesMatchFiniteDifferences(new Morse(0.3, 1.5, 2.0, 2.9), s, 1e-5);
    }

    @Test
    void twoForceThreadsGiveTheSameForcesAsOne() {
        double[] r = randomPositions(400, 9.0, 0.8, 8);
        AtomicSystem a = new AtomicSystem(1, r, ones(400), new int[400], new double[] {9, 9, 9}, new boolean[] {true, true, true});
        AtomicSystem b = new AtomicSystem(1, r, ones(400), new int[400], new double[] {9, 9, 9}, new boolean[] {true, true, true});
        try (LennardJones one = new LennardJones(1, 1, 2.5, false); LennardJones two = new LennardJones(1, 1, 2.5, false)) {
            two.threads(2);
            one.compute(a);
            two.compute(b);
            assertThat(b.energy()).isCloseTo(a.energy(), within(1e-9 * Math.abs(a.energy())));
            assertThat(b.forces()).containsExactly(a.forces(), within(1e-9));
            assertThat(dev.penstock.testing.ThreadCensus.live("penstock-forces-")).isNotEmpty();
        }
    }

    @Test
    void theDimerMinimumIsAtTwoToTheSixthSigmaWithEnergyMinusEpsilon() {
        double rmin = Math.pow(2, 1.0 / 6);
        AtomicSystem s = AtomicSystem.free(1, new double[] {0, 0, 0, rmin, 0, 0});
        new LennardJones(1, 1, Double.POSITIVE_INFINITY, false).compute(s);
        assertThat(s.energy()).isCloseTo(-1, within(1e-14));
        assertThat(s.maxForce()).isLessThan(1e-12);
    }

    @Test
    void overlappingAtomsFailNamingTheSystemAndAtoms() {
        AtomicSystem s = AtomicSystem.free(42, new double[] {0, 0, 0, 1, 1, 1, 1, 1, 1});
        assertThatThrownBy(() -> new LennardJones(1, 1, Double.POSITIVE_INFINITY, false).compute(s))
                .hasMessageContaining("system 42").hasMessageContaining("atoms 1 and 2 overlap");
    }

    static double[] ones(int n) {
        double[] m = new double[n];
        java.util.Arrays.fill(m, 1);
        return m;
    }
}
