package dev.penstock.atoms.integrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.io.LammpsData;
import dev.penstock.atoms.io.LammpsLjBench;
import dev.penstock.atoms.io.LammpsLog;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// NVE from LAMMPS's own start (its `write_data` file) against LAMMPS's thermo output, with exact
/// neighbour rebuilds on both sides: the total energy per atom agrees at every step 0…100.
/// LAMMPS from Debian (`lammps`), which `.ci/run` installs.
class MdVersusLammpsTest {
    @TempDir
    Path dir;

    @Test
    void totalEnergyMatchesLammpsAtEveryStep() throws Exception {
        boolean have = Files.isExecutable(Path.of("/usr/bin/lmp"));
        assumeTrue(have || Ci.required(), "LAMMPS (lammps) is not installed");
        Files.writeString(dir.resolve("in.lj"), LammpsLjBench.input(6)); // 864 atoms
        Process p = new ProcessBuilder("/usr/bin/lmp", "-in", "in.lj", "-log", "log.lammps", "-screen", "none")
                .directory(dir.toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).isZero();
        double[] lammps = LammpsLog.read(dir.resolve("log.lammps")).column("TotEng");
        assertThat(lammps).hasSize(101);
        AtomicSystem s = LammpsData.read(dir.resolve("start.data"), 1, 0); // LJ units: mass 1, no element
        assertThat(s.atoms()).isEqualTo(864);
        LennardJones lj = new LennardJones(1, 1, 2.5, false);
        NveReference vv = new NveReference(0.005);
        lj.compute(s);
        // LAMMPS's own sum is not exact: at step 0 its potential energy is 9e-14 (relative) from the
        // exactly rounded sum of its pairs (BigDecimal, below), Penstock's 1.3e-14 (measured
        // 2026-12-05); the two codes add the same pairs in other orders
        double exact = exactPairSum(s, 2.5);
        assertThat(Math.abs(s.energy() - exact) / Math.abs(exact)).as("potential energy against the exact sum").isLessThan(5e-14);
        double worst = 0;
        for (int step = 0; step <= 100; step++) {
            if (step > 0) {
                vv.step(s, lj);
            }
            double e = (s.energy() + NveReference.kineticEnergy(s)) / s.atoms();
            double rel = Math.abs(e - lammps[step]) / Math.abs(lammps[step]);
            worst = Math.max(worst, rel);
            assertThat(rel).as("step %d (measured 1.5e-13 at worst: LAMMPS's rounding at step 0, above)", step).isLessThan(4e-13);
        }
        System.out.printf(java.util.Locale.ROOT, "LJ NVE, 864 atoms, 100 steps: largest relative difference in total energy %.2e%n", worst);
    }

    /// Σ 4(r⁻¹² − r⁻⁶) over the nearest-image pairs of an orthorhombic box closer than `cutoff`
    /// (ε = σ = 1), each term as a double, added exactly and rounded once.
    private static double exactPairSum(AtomicSystem s, double cutoff) {
        double[] r = s.positions();
        int n = s.atoms();
        double[] side = {s.cell().vector(0, 0), s.cell().vector(1, 1), s.cell().vector(2, 2)};
        java.math.BigDecimal sum = java.math.BigDecimal.ZERO;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                double r2 = 0;
                for (int d = 0; d < 3; d++) {
                    double x = r[3 * j + d] - r[3 * i + d];
                    x -= side[d] * Math.rint(x / side[d]);
                    r2 += x * x;
                }
                if (r2 < cutoff * cutoff) {
                    double s6 = 1 / (r2 * r2 * r2);
                    sum = sum.add(new java.math.BigDecimal(4 * (s6 * s6 - s6)));
                }
            }
        }
        return sum.doubleValue();
    }
}
