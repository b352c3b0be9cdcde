package dev.penstock.atoms.neighbor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NeighborListTest {

    /// Every pair (with its image) closer than `rc`, by brute force over enough images of the
    /// cell (orthorhombic or triclinic) that none can be missed.
    static Set<String> bruteForce(AtomicSystem s, double rc) {
        Set<String> out = new HashSet<>();
        double[] r = s.positions();
        Cell cell = s.cell();
        int n = s.atoms();
        int[] range = new int[3];
        for (int d = 0; d < 3; d++) {
            double lo = Double.POSITIVE_INFINITY;
            double hi = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++) {
                double f = cell.fractional(d, r[3 * i], r[3 * i + 1], r[3 * i + 2]);
                lo = Math.min(lo, f);
                hi = Math.max(hi, f);
            }
            range[d] = s.periodic(d) ? (int) Math.ceil(rc / cell.faceDistance(d) + hi - lo) + 1 : 0;
        }
        for (int i = 0; i < n; i++) {
            for (int j = i; j < n; j++) {
                for (int a = -range[0]; a <= range[0]; a++) {
                    for (int b = -range[1]; b <= range[1]; b++) {
                        for (int c = -range[2]; c <= range[2]; c++) {
                            boolean positive = a > 0 || (a == 0 && (b > 0 || (b == 0 && c > 0)));
                            if (i == j && !positive) {
                                continue; // an atom and its own image: each ± pair once
                            }
                            double dx = r[3 * j] + cell.translation(a, b, c, 0) - r[3 * i];
                            double dy = r[3 * j + 1] + cell.translation(a, b, c, 1) - r[3 * i + 1];
                            double dz = r[3 * j + 2] + cell.translation(a, b, c, 2) - r[3 * i + 2];
                            if (dx * dx + dy * dy + dz * dz < rc * rc) {
                                out.add(i + "-" + j + "@" + Math.round(dx * 1e6) + "," + Math.round(dy * 1e6) + "," + Math.round(dz * 1e6));
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    private static Set<String> within(NeighborList l, AtomicSystem s, double rc) {
        Set<String> out = new HashSet<>();
        double[] r = s.positions();
        double[] shifts = l.shifts();
        for (int p = 0; p < l.pairCount(); p++) {
            int i = l.first()[p];
            int j = l.second()[p];
            double dx = r[3 * j] + shifts[3 * p] - r[3 * i];
            double dy = r[3 * j + 1] + shifts[3 * p + 1] - r[3 * i + 1];
            double dz = r[3 * j + 2] + shifts[3 * p + 2] - r[3 * i + 2];
            if (dx * dx + dy * dy + dz * dz < rc * rc) {
                if (i > j) { // a pair is listed under either atom: name it from the smaller one
                    int t = i;
                    i = j;
                    j = t;
                    dx = -dx;
                    dy = -dy;
                    dz = -dz;
                }
                out.add(i + "-" + j + "@" + Math.round(dx * 1e6) + "," + Math.round(dy * 1e6) + "," + Math.round(dz * 1e6));
            }
        }
        return out;
    }

    @Test
    void cellListsAndAllPairsFindExactlyThePairsOfBruteForceOnRandomSystems() {
        for (long seed = 1; seed <= 6; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int n = 50 + rnd.nextInt(250);
            double boxLen = 4 + rnd.nextDouble(8);
            boolean[] pbc = {rnd.nextBoolean(), rnd.nextBoolean(), seed % 2 == 0};
            double[] r = new double[3 * n];
            for (int i = 0; i < 3 * n; i++) {
                r[i] = rnd.nextDouble(boxLen);
            }
            double[] m = new double[n];
            java.util.Arrays.fill(m, 1);
            AtomicSystem s = new AtomicSystem(seed, r, m, new int[n], new double[] {boxLen, boxLen, boxLen}, pbc);
            double rc = 1.2;
            NeighborList l = new NeighborList(rc, 0.3);
            l.build(s);
            Set<String> truth = bruteForce(s, rc);
            assertThat(within(l, s, rc)).as("seed %d, n %d, box %.2f, pbc %s", seed, n, boxLen, java.util.Arrays.toString(pbc))
                    .isEqualTo(truth);
        }
    }

    /// A random triclinic cell: a along x, b in the xy plane, c anywhere, tilted by up to ~45°.
    static Cell randomTriclinic(SplittableRandom rnd, double size, boolean[] pbc) {
        double[] v = {
            size * rnd.nextDouble(0.9, 1.2), 0, 0,
            size * rnd.nextDouble(-0.5, 0.5), size * rnd.nextDouble(0.9, 1.2), 0,
            size * rnd.nextDouble(-0.5, 0.5), size * rnd.nextDouble(-0.5, 0.5), size * rnd.nextDouble(0.9, 1.2),
        };
        return Cell.of(v, pbc);
    }

    @Test
    void triclinicCellsFindExactlyThePairsOfBruteForce() {
        for (long seed = 1; seed <= 12; seed++) {
            SplittableRandom rnd = new SplittableRandom(100 + seed);
            boolean big = seed % 3 != 0; // big cells take the cell-list path, small ones all pairs
            int n = big ? 150 + rnd.nextInt(200) : 10 + rnd.nextInt(40);
            boolean[] pbc = {seed % 4 != 1, true, rnd.nextBoolean()};
            Cell cell = randomTriclinic(rnd, big ? 9 : 3, pbc);
            double[] r = new double[3 * n];
            for (int i = 0; i < n; i++) { // fractional coordinates, some atoms outside the primary cell
                double s0 = rnd.nextDouble(-0.3, 1.3);
                double s1 = rnd.nextDouble(-0.3, 1.3);
                double s2 = rnd.nextDouble(-0.3, 1.3);
                for (int e = 0; e < 3; e++) {
                    r[3 * i + e] = s0 * cell.vector(0, e) + s1 * cell.vector(1, e) + s2 * cell.vector(2, e);
                }
            }
            double[] m = new double[n];
            java.util.Arrays.fill(m, 1);
            AtomicSystem s = new AtomicSystem(seed, r, m, new int[n], cell);
            double rc = 1.4;
            NeighborList l = new NeighborList(rc, 0.2);
            l.build(s);
            assertThat(within(l, s, rc)).as("seed %d, n %d, %s", seed, n, cell).isEqualTo(bruteForce(s, rc));
        }
    }

    @Test
    void aBuildSplitOverThreadsFindsTheSamePairs() throws Exception {
        SplittableRandom rnd = new SplittableRandom(3);
        int n = 6000;
        double boxLen = 20;
        double[] r = new double[3 * n];
        for (int i = 0; i < 3 * n; i++) {
            r[i] = rnd.nextDouble(-5, boxLen + 5); // atoms outside the primary box too
        }
        double[] m = new double[n];
        java.util.Arrays.fill(m, 1);
        AtomicSystem s = new AtomicSystem(1, r, m, new int[n], new double[] {boxLen, boxLen, boxLen}, new boolean[] {true, true, false});
        NeighborList serial = new NeighborList(1.5, 0.3);
        serial.build(s);
        try (var crew = new dev.penstock.device.Crew("list", 3)) {
            NeighborList parallel = new NeighborList(1.5, 0.3);
            parallel.build(s, crew);
            assertThat(parallel.pairCount()).isEqualTo(serial.pairCount());
            assertThat(within(parallel, s, 1.8)).isEqualTo(within(serial, s, 1.8));
            for (int i = 0; i < n; i++) {
                for (int p = parallel.start()[i]; p < parallel.end()[i]; p++) {
                    assertThat(parallel.first()[p]).isEqualTo(i);
                }
            }
        }
    }

    @Test
    void theSkinRuleNeverMissesAPairWhileAtomsMove() {
        SplittableRandom rnd = new SplittableRandom(11);
        int n = 200;
        double boxLen = 8;
        double[] r = new double[3 * n];
        for (int i = 0; i < 3 * n; i++) {
            r[i] = rnd.nextDouble(boxLen);
        }
        double[] m = new double[n];
        java.util.Arrays.fill(m, 1);
        AtomicSystem s = new AtomicSystem(1, r, m, new int[n], new double[] {boxLen, boxLen, boxLen}, new boolean[] {true, true, true});
        double rc = 1.5;
        NeighborList l = new NeighborList(rc, 0.4);
        int rebuilds = 0;
        for (int step = 0; step < 200; step++) {
            double[] pos = s.positions();
            for (int i = 0; i < pos.length; i++) {
                pos[i] += rnd.nextDouble(-0.02, 0.02);
            }
            if (l.update(s)) {
                rebuilds++;
            }
            assertThat(within(l, s, rc)).as("step %d", step).isEqualTo(bruteForce(s, rc));
        }
        assertThat(rebuilds).as("the list is reused between rebuilds").isBetween(2, 150);
    }
}
