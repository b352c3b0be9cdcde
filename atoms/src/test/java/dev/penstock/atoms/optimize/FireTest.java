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
        Relaxation.Result res = Relaxation.relax(new Fire(), s, new LennardJones(1, 1, Double.POSITIVE_INFINITY, false), 1e-6, 10_000);
        assertThat(res.converged()).as("seed %d", seed).isTrue();
        assertThat(res.energy()).as("seed %d", seed).isCloseTo(-44.326801, within(1e-6));
    }

    private static AtomicSystem perturbedLj13(double mass) {
        SplittableRandom rnd = new SplittableRandom(20261130L);
        double[] r = icosahedron(1.1);
        for (int i = 0; i < r.length; i++) {
            r[i] += rnd.nextDouble(-0.05, 0.05);
        }
        double[] m = new double[13];
        java.util.Arrays.fill(m, mass);
        return new AtomicSystem(13, r, m, new int[13], new double[3], new boolean[3]);
    }

    @Test
    void fire2AndMassWeightedFireReachTheSameMinimum() {
        var lj = new LennardJones(1, 1, Double.POSITIVE_INFINITY, false);
        Relaxation.Result f2 = Relaxation.relax(new Fire2(), perturbedLj13(1), lj, Convergence.of(1e-6, 10_000));
        assertThat(f2.converged()).isTrue();
        assertThat(f2.energy()).isCloseTo(-44.326801, within(1e-6));
        Relaxation.Result heavy = Relaxation.relax(Fire.massWeighted(), perturbedLj13(4), lj, Convergence.of(1e-6, 10_000));
        assertThat(heavy.converged()).isTrue();
        assertThat(heavy.energy()).isCloseTo(-44.326801, within(1e-6));
    }

    @Test
    void massWeightedFireWithUnitMassesIsTheAseExactMode() {
        var lj = new LennardJones(1, 1, Double.POSITIVE_INFINITY, false);
        AtomicSystem a = perturbedLj13(1);
        AtomicSystem b = perturbedLj13(1);
        Relaxation.Result ra = Relaxation.relax(new Fire(), a, lj, 1e-4, 10_000);
        Relaxation.Result rb = Relaxation.relax(Fire.massWeighted(), b, lj, 1e-4, 10_000);
        assertThat(rb.steps()).isEqualTo(ra.steps());
        assertThat(b.positions()).containsExactly(a.positions());
    }

    @Test
    void theStepBudgetAndTheEnergyRuleStopARelaxation() {
        var lj = new LennardJones(1, 1, Double.POSITIVE_INFINITY, false);
        Relaxation.Result budget = Relaxation.relax(new Fire(), perturbedLj13(1), lj, Convergence.of(1e-12, 7));
        assertThat(budget.converged()).isFalse();
        assertThat(budget.steps()).isEqualTo(7);
        // a loose force criterion plus a tight energy one takes longer than the force one alone
        Relaxation.Result loose = Relaxation.relax(new Fire(), perturbedLj13(1), lj, Convergence.of(0.5, 10_000));
        Relaxation.Result both = Relaxation.relax(new Fire(), perturbedLj13(1), lj, new Convergence(0.5, 1e-9, 10_000));
        assertThat(both.converged()).isTrue();
        assertThat(both.steps()).isGreaterThan(loose.steps());
    }

    @Test
    void theDimerRelaxesToTwoToTheSixthSigma() {
        AtomicSystem s = AtomicSystem.free(2, new double[] {0, 0, 0, 1.5, 0.1, -0.2});
        Relaxation.Result res = Relaxation.relax(new Fire(), s, new LennardJones(1, 1, Double.POSITIVE_INFINITY, false), 1e-8, 10_000);
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
            Relaxation.of(fire).step(s);
            double dr2 = 0;
            for (int i = 0; i < before.length; i++) {
                dr2 += Math.pow(s.positions()[i] - before[i], 2);
            }
            assertThat(Math.sqrt(dr2)).isLessThanOrEqualTo(Fire.MAXSTEP + 1e-12);
            lj.compute(s);
        }
    }
}
