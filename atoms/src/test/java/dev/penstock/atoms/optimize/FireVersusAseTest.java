package dev.penstock.atoms.optimize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.testing.Python;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// FIRE in ASE-exact mode against ASE's own FIRE, from the same start: the same number of
/// steps and the same final energy (docs/definitions.md; ASE's LJ with rc = 100 shifts each pair by
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
            r = Clusters.fccSites(n, 1.1); // the n fcc sites nearest the origin
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
                Relaxation.Result mine = Relaxation.relax(new Fire(), s, new LennardJones(1, 1, 100, true), fmax, 100_000);
                assertThat(mine.steps()).as("LJ%d to fmax %s: steps (ASE %d)", n, fmax, aseSteps).isEqualTo(aseSteps);
                assertThat(mine.energy()).as("LJ%d to fmax %s: energy", n, fmax).isCloseTo(aseEnergy, within(1e-8));
            }
        }
    }
}
