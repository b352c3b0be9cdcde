package dev.penstock.atoms.integrate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.system.AtomicSystem;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IntegratorTest {

    /// An fcc LJ liquid as LAMMPS's bench/in.lj: `cells`³ unit cells at density 0.8442, velocities
    /// drawn at temperature `t` (seeded) with zero total momentum. Reduced units, mass 1.
    static AtomicSystem fccLiquid(long id, int cells, double t, long seed) {
        double a = Math.cbrt(4 / 0.8442);
        double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
        int n = 4 * cells * cells * cells;
        double[] r = new double[3 * n];
        int k = 0;
        for (int x = 0; x < cells; x++) {
            for (int y = 0; y < cells; y++) {
                for (int z = 0; z < cells; z++) {
                    for (double[] b : basis) {
                        r[3 * k] = (x + b[0]) * a;
                        r[3 * k + 1] = (y + b[1]) * a;
                        r[3 * k + 2] = (z + b[2]) * a;
                        k++;
                    }
                }
            }
        }
        double[] m = new double[n];
        Arrays.fill(m, 1);
        double box = cells * a;
        AtomicSystem s = new AtomicSystem(id, r, m, new int[n], new double[] {box, box, box}, new boolean[] {true, true, true});
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] v = s.velocities();
        double[] p = new double[3];
        for (int i = 0; i < v.length; i++) {
            v[i] = rnd.nextGaussian() * Math.sqrt(t);
            p[i % 3] += v[i];
        }
        for (int i = 0; i < v.length; i++) {
            v[i] -= p[i % 3] / n;
        }
        return s;
    }

    /// Max |E(t) − E(0)| per atom over a run of `time` (reduced units) with step `dt`.
    private static double maxEnergyError(double dt, double time) {
        AtomicSystem s = fccLiquid(1, 4, 1.44, 87287);
        Model lj = new LennardJones(1, 1, 2.5, true);
        lj.compute(s);
        double e0 = s.energy() + NveReference.kineticEnergy(s);
        NveReference vv = new NveReference(dt);
        double max = 0;
        int steps = (int) Math.round(time / dt);
        for (int i = 0; i < steps; i++) {
            vv.step(s, lj);
            max = Math.max(max, Math.abs(s.energy() + NveReference.kineticEnergy(s) - e0));
        }
        return max / s.atoms();
    }

    @Test
    void nveEnergyStaysBoundedAndItsErrorScalesWithTheSquareOfTheStep() {
        double coarse = maxEnergyError(0.005, 50); // 10,000 steps of the bench/in.lj liquid
        double fine = maxEnergyError(0.0025, 50);
        System.out.printf("NVE max |dE| per atom: dt 0.005 -> %.3e, dt 0.0025 -> %.3e, ratio %.2f%n", coarse, fine, coarse / fine);
        // Stated bound: 2e-3 ε per atom over 10,000 steps at dt 0.005 (measured 1.0e-3, most of it
        // in the first steps while the fcc start melts; 2.6e-4 at dt 0.0025).
        assertThat(coarse).isLessThan(2e-3);
        // Verlet's energy error is O(dt²): halving dt divides it by ~4 (3-5.5 allows the
        // cutoff's force jump and the finite run).
        assertThat(coarse / fine).isBetween(3.0, 5.5);
    }

    /// No forces at all: BAOAB's velocities are then an exact Ornstein-Uhlenbeck process.
    private static final Model FREE = s -> {
        Arrays.fill(s.forces(), 0);
        s.energy(0);
    };

    @Test
    void langevinSamplesTheTargetTemperatureAndKineticEnergyDistribution() {
        int n = 64;
        double kT = 1.5;
        double[] m = new double[n];
        Arrays.fill(m, 2.0);
        AtomicSystem s = new AtomicSystem(7, new double[3 * n], m, new int[n], new double[3], new boolean[3]);
        LangevinReference lg = new LangevinReference(0.01, kT, 1.0, 12345);
        FREE.compute(s);
        for (int i = 0; i < 1000; i++) {
            lg.step(s, FREE); // equilibrate: 10 friction times
        }
        int samples = 400;
        double[] ke = new double[samples];
        for (int k = 0; k < samples; k++) {
            for (int i = 0; i < 100; i++) { // 1 time unit apart: v² decorrelates in 1/(2γ) = 0.5
                lg.step(s, FREE);
            }
            ke[k] = NveReference.kineticEnergy(s);
        }
        double mean = Arrays.stream(ke).average().orElseThrow();
        double var = Arrays.stream(ke).map(x -> (x - mean) * (x - mean)).sum() / (samples - 1);
        // KE ~ Gamma(3N/2, kT): mean 3N/2·kT, variance 3N/2·kT².
        double wantMean = 1.5 * n * kT;
        double wantVar = 1.5 * n * kT * kT;
        double seMean = Math.sqrt(wantVar / samples);
        System.out.printf("Langevin: <KE> %.3f (want %.3f ± %.3f), var %.3f (want %.3f)%n", mean, wantMean, seMean, var, wantVar);
        assertThat(Math.abs(mean - wantMean)).as("mean KE within 4 standard errors (seed 12345)").isLessThan(4 * seMean);
        // the sample variance of a Gamma sample has relative SE ≈ √((2 + 6/k)/samples) ≈ 0.075 here
        assertThat(var / wantVar).as("KE variance (seed 12345)").isBetween(0.7, 1.3);
    }

    @Test
    void aSystemsLangevinTrajectoryDoesNotDependOnItsNeighbours() {
        Model lj = new LennardJones(1, 1, 2.5, true);
        AtomicSystem alone = fccLiquid(5, 3, 1.0, 1);
        LangevinReference la = new LangevinReference(0.005, 1.0, 0.5, 99);
        lj.compute(alone);
        for (int i = 0; i < 50; i++) {
            la.step(alone, lj);
        }
        // the same system stepped in turn with another one (as in a batch), same seed
        AtomicSystem again = fccLiquid(5, 3, 1.0, 1);
        AtomicSystem other = fccLiquid(6, 3, 2.0, 2);
        LangevinReference l1 = new LangevinReference(0.005, 1.0, 0.5, 99);
        LangevinReference l2 = new LangevinReference(0.005, 1.0, 0.5, 99);
        lj.compute(again);
        lj.compute(other);
        for (int i = 0; i < 50; i++) {
            l2.step(other, lj);
            l1.step(again, lj);
        }
        assertThat(again.positions()).containsExactly(alone.positions());
        assertThat(again.velocities()).containsExactly(alone.velocities());
        assertThat(other.positions()).isNotEqualTo(alone.positions());
    }
}
