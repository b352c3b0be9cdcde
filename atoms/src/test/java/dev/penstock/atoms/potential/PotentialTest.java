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

    /// A large system's list sum in parts (`RowParts`, 4,000+ atoms; `PartPlan`: each part
    /// clears and sums only the blocks it writes): the same bits on 1, 2 or 3 threads and on a lent
    /// crew, run on the force threads, and equal to a plain sum to rounding — for atoms stored in
    /// space order (a lattice: most blocks skipped per part, the periodic faces' neighbours far
    /// away in index) and for atoms in random order (every block touched).
    @Test
    void aLargeSystemInPartsHasTheSameForcesOnAnyThreads() {
        AtomicSystem lattice = dev.penstock.atoms.system.Lattices.fcc(1, 11, 1.6, 0.3, true, new int[] {18, 18}, 0, 8);
        int n = lattice.atoms();
        double box = 11 * 1.6;
        inPartsOnAnyThreads(lattice.positions(), n, new double[] {box, 0, 0, 0.3, box, 0, 0, 0, box});
        double side = Math.cbrt(4500 / 0.8);
        inPartsOnAnyThreads(randomPositions(4500, side, 0.8, 8), 4500, new double[] {side, 0, 0, 0, side, 0, 0, 0, side});
    }

    private static void inPartsOnAnyThreads(double[] r, int n, double[] cell) {
        assertThat(RowParts.count(n)).isGreaterThan(1);
        java.util.function.Supplier<AtomicSystem> copy = () -> new AtomicSystem(1, r.clone(), ones(n), new int[n],
                dev.penstock.atoms.system.Cell.of(cell, new boolean[] {true, true, true}));
        AtomicSystem[] got = new AtomicSystem[4];
        for (int t = 1; t <= 3; t++) {
            try (LennardJones lj = new LennardJones(1, 1, 2.5, false)) {
                lj.threads(t);
                got[t - 1] = copy.get();
                lj.compute(got[t - 1]);
                if (t > 1) {
                    assertThat(dev.penstock.testing.ThreadCensus.live("penstock-forces-")).isNotEmpty();
                }
            }
        }
        try (LennardJones lj = new LennardJones(1, 1, 2.5, false); var crew = new dev.penstock.device.Crew("lent", 2)) {
            got[3] = copy.get();
            lj.compute(got[3], crew);
        }
        for (int t = 1; t < 4; t++) {
            assertThat(got[t].energy()).isEqualTo(got[0].energy());
            assertThat(got[t].forces()).isEqualTo(got[0].forces());
        }
        // against one plain sum over all pairs in list order (no parts): equal to rounding
        AtomicSystem plain = copy.get();
        dev.penstock.atoms.neighbor.NeighborList list = new dev.penstock.atoms.neighbor.NeighborList(2.5, 0.3);
        list.build(plain);
        double e = 0;
        double[] f = new double[3 * n];
        int[] first = list.first();
        int[] second = list.second();
        double[] shifts = list.shifts();
        for (int p = 0; p < list.pairCount(); p++) {
            int i = first[p];
            int j = second[p];
            double dx = r[3 * j] + shifts[3 * p] - r[3 * i];
            double dy = r[3 * j + 1] + shifts[3 * p + 1] - r[3 * i + 1];
            double dz = r[3 * j + 2] + shifts[3 * p + 2] - r[3 * i + 2];
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= 6.25) {
                continue;
            }
            double s6 = 1 / (r2 * r2 * r2);
            e += 4 * (s6 * s6 - s6);
            double g = (24 * s6 - 48 * s6 * s6) / r2; // (du/dr)/r
            f[3 * i] += g * dx;
            f[3 * i + 1] += g * dy;
            f[3 * i + 2] += g * dz;
            f[3 * j] -= g * dx;
            f[3 * j + 1] -= g * dy;
            f[3 * j + 2] -= g * dz;
        }
        assertThat(got[0].energy()).isCloseTo(e, within(1e-9 * Math.abs(e)));
        assertThat(got[0].forces()).containsExactly(f, within(1e-8));
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
