package dev.penstock.atoms.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.atoms.system.Clusters;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/// A system's edges: the pairs a neighbour list within the list radius holds — counted pair by
/// pair for small free systems, by a list build otherwise, the same number either way.
class SystemsTest {
    private static long listed(AtomicSystem s, double radius) {
        NeighborList l = new NeighborList(radius, 0);
        l.build(s);
        return l.pairCount();
    }

    private static AtomicSystem free(long id, double[] r) {
        int n = r.length / 3;
        double[] m = new double[n];
        Arrays.fill(m, 1);
        return new AtomicSystem(id, r, m, new int[n], Cell.free());
    }

    @Test
    void freeSystemsCountTheEdgesTheirNeighbourListHolds() {
        SplittableRandom rnd = new SplittableRandom(7);
        long total = 0;
        // all-pairs lists (≤ 64 atoms), cell lists (more), and past the pairwise count (1,025)
        for (int n : new int[] {1, 2, 13, 64, 65, 147, 700, 1024, 1025}) {
            double side = Math.cbrt(n) * 1.1;
            double[] r = new double[3 * n];
            for (int i = 0; i < r.length; i++) {
                r[i] = rnd.nextDouble(-side, side);
            }
            AtomicSystem s = free(n, r);
            for (double radius : new double[] {0.5, 2.5, 4.0}) {
                long edges = Systems.withListRadius(radius).size(s, Systems.EDGES);
                assertThat(edges).as("%d atoms within %s", n, radius).isEqualTo(listed(s, radius));
                total += edges;
            }
        }
        assertThat(total).as("edges counted in all").isGreaterThan(10_000);
        AtomicSystem cluster = Clusters.perturbed(9, 147, 0.05, 3);
        assertThat(Systems.withListRadius(2.5).size(cluster, Systems.EDGES)).isEqualTo(listed(cluster, 2.5));
    }

    @Test
    void aPairAtExactlyTheRadiusIsNoEdgeEitherWay() {
        // 0.5 and 0.25 are exact: the pair at 0.5 lies on the radius, the one at 0.25 inside it
        // (the third pair, 0.56 apart, outside)
        AtomicSystem s = free(1, new double[] {0, 0, 0, 0.5, 0, 0, 0, 0.25, 0});
        assertThat(Systems.withListRadius(0.5).size(s, Systems.EDGES)).isEqualTo(listed(s, 0.5)).isEqualTo(1);
        assertThat(Systems.pairsWithin(s.positions(), 3, 0.5 * 0.5)).isEqualTo(1);
        assertThat(Systems.pairsWithin(s.positions(), 3, Math.nextUp(0.5 * 0.5))).isEqualTo(2);
    }

    @Test
    void aPeriodicSystemCountsItsImages() {
        // two atoms in a 3 Å box: within 4 Å each meets the other's images and its own
        AtomicSystem s = new AtomicSystem(2, new double[] {0.5, 0.5, 0.5, 2, 1.5, 1}, new double[] {1, 1}, new int[2],
                new double[] {3, 3, 3}, new boolean[] {true, true, true});
        long edges = Systems.withListRadius(4).size(s, Systems.EDGES);
        assertThat(edges).isEqualTo(listed(s, 4)).isGreaterThan(1);
    }
}
