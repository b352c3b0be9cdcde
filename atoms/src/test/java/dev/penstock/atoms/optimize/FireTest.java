package dev.penstock.atoms.optimize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FireTest {

    /// The 13-atom Mackay icosahedron: a centre and the 12 vertices (0, ±1, ±φ) and cyclic
    /// permutations, scaled to nearest-neighbour distance `d`.
    static double[] icosahedron(double d) {
        double phi = (1 + Math.sqrt(5)) / 2;
        double[][] v = new double[12][];
        int k = 0;
        for (int s1 : new int[] {-1, 1}) {
            for (int s2 : new int[] {-1, 1}) {
                v[k++] = new double[] {0, s1, s2 * phi};
                v[k++] = new double[] {s1, s2 * phi, 0};
                v[k++] = new double[] {s2 * phi, 0, s1};
            }
        }
        double edge = 2; // distance between adjacent vertices of this icosahedron
        double[] r = new double[39];
        for (int i = 0; i < 12; i++) {
            for (int c = 0; c < 3; c++) {
                r[3 + 3 * i + c] = v[i][c] * d / edge;
            }
        }
        return r;
    }

    @Test
    void aPerturbedLj13RelaxesToTheMackayIcosahedronMinimum() {
        long seed = 20261130L;
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] r = icosahedron(1.1);
        for (int i = 0; i < r.length; i++) {
            r[i] += rnd.nextDouble(-0.05, 0.05);
        }
        AtomicSystem s = AtomicSystem.free(13, r);
        Fire.Result res = new Fire().relax(s, new LennardJones(1, 1, Double.POSITIVE_INFINITY, false), 1e-6, 10_000);
        assertThat(res.converged()).as("seed %d", seed).isTrue();
        assertThat(res.energy()).as("seed %d", seed).isCloseTo(-44.326801, within(1e-6));
    }

    @Test
    void theDimerRelaxesToTwoToTheSixthSigma() {
        AtomicSystem s = AtomicSystem.free(2, new double[] {0, 0, 0, 1.5, 0.1, -0.2});
        Fire.Result res = new Fire().relax(s, new LennardJones(1, 1, Double.POSITIVE_INFINITY, false), 1e-8, 10_000);
        assertThat(res.converged()).isTrue();
        double[] p = s.positions();
        double d = Math.sqrt(Math.pow(p[3] - p[0], 2) + Math.pow(p[4] - p[1], 2) + Math.pow(p[5] - p[2], 2));
        assertThat(d).isCloseTo(Math.pow(2, 1.0 / 6), within(1e-8));
        assertThat(res.energy()).isCloseTo(-1, within(1e-12));
    }

    @Test
    void aStepNeverMovesTheSystemMoreThanMaxstep() {
        AtomicSystem s = AtomicSystem.free(3, new double[] {0, 0, 0, 0.95, 0, 0, 0, 0.95, 0});
        var lj = new LennardJones(1, 1, Double.POSITIVE_INFINITY, false);
        Fire fire = new Fire();
        lj.compute(s);
        for (int step = 0; step < 50; step++) {
            double[] before = s.positions().clone();
            fire.step(s);
            double dr2 = 0;
            for (int i = 0; i < before.length; i++) {
                dr2 += Math.pow(s.positions()[i] - before[i], 2);
            }
            assertThat(Math.sqrt(dr2)).isLessThanOrEqualTo(Fire.MAXSTEP + 1e-12);
            lj.compute(s);
        }
    }
}
