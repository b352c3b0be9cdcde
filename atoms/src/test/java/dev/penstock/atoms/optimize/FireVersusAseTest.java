package dev.penstock.atoms.optimize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.testing.Python;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// FIRE in ASE-exact mode against ASE's own FIRE, from the same start: the same number of
/// steps and the same final energy (REFERENCE §3; ASE's LJ with rc = 100 shifts each pair by
/// u(rc), and so does the model here).
class FireVersusAseTest {
    @TempDir
    Path dir;

    private static AtomicSystem cluster(int n, long seed) {
        double[] r;
        SplittableRandom rnd = new SplittableRandom(seed);
        if (n == 13) {
            r = FireTest.icosahedron(1.1);
        } else {
            // the first n sites of an fcc lattice with nearest-neighbour distance 1.1, by distance
            double a = 1.1 * Math.sqrt(2);
            java.util.List<double[]> sites = new java.util.ArrayList<>();
            for (int x = -3; x <= 3; x++) {
                for (int y = -3; y <= 3; y++) {
                    for (int z = -3; z <= 3; z++) {
                        if (((x + y + z) & 1) == 0) {
                            sites.add(new double[] {x * a / 2, y * a / 2, z * a / 2});
                        }
                    }
                }
            }
            sites.sort(java.util.Comparator.comparingDouble(p -> p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + 1e-9 * p[0] + 1e-12 * p[1]));
            r = new double[3 * n];
            for (int i = 0; i < n; i++) {
                System.arraycopy(sites.get(i), 0, r, 3 * i, 3);
            }
        }
        for (int i = 0; i < r.length; i++) {
            r[i] += rnd.nextDouble(-0.05, 0.05);
        }
        return AtomicSystem.free(n, r);
    }

    @Test
    void takesExactlyAsesStepsToTheSameEnergy() throws Exception {
        assumeTrue(Python.required() || Python.has("ase"), "ASE (python3-ase) is not installed");
        for (int n : new int[] {13, 38, 55}) {
            for (double fmax : new double[] {0.05, 1e-4}) {
                AtomicSystem s = cluster(n, 7 + n);
                Path start = dir.resolve("lj" + n + ".extxyz");
                try (Writer w = Files.newBufferedWriter(start)) {
                    ExtXyz.write(w, List.of(s));
                }
                Python.Result r = Python.run("""
                        import sys
                        from ase.io import read
                        from ase.calculators.lj import LennardJones
                        from ase.optimize import FIRE
                        a = read(sys.argv[1], format='extxyz')
                        a.calc = LennardJones(sigma=1.0, epsilon=1.0, rc=100.0)
                        opt = FIRE(a, logfile=None)
                        opt.run(fmax=float(sys.argv[2]), steps=100000)
                        print('steps', opt.get_number_of_steps())
                        print('energy', repr(a.get_potential_energy()))
                        """, start.toString(), Double.toString(fmax));
                assertThat(r.exitCode()).as(r.output()).isZero();
                int aseSteps = Integer.parseInt(r.output().lines().filter(l -> l.startsWith("steps ")).findFirst().orElseThrow().substring(6).trim());
                double aseEnergy = Double.parseDouble(r.output().lines().filter(l -> l.startsWith("energy ")).findFirst().orElseThrow().substring(7).trim());
                Fire.Result mine = new Fire().relax(s, new LennardJones(1, 1, 100, true), fmax, 100_000);
                assertThat(mine.steps()).as("LJ%d to fmax %s: steps (ASE %d)", n, fmax, aseSteps).isEqualTo(aseSteps);
                assertThat(mine.energy()).as("LJ%d to fmax %s: energy", n, fmax).isCloseTo(aseEnergy, within(1e-8));
            }
        }
    }
}
