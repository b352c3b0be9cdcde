package dev.penstock.atoms.potential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.testing.Python;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Energies and forces in triclinic cells: the same crystal described by two bases of its
/// lattice gives the same numbers, and ASE's Lennard-Jones calculator agrees.
class TriclinicTest {
    @TempDir
    Path dir;

    /// `n` atoms at random fractional positions of `cell`, no two closer than `minDist`.
    private static AtomicSystem randomIn(Cell cell, int n, double minDist, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] r = new double[3 * n];
        int placed = 0;
        while (placed < n) {
            double[] p = new double[3];
            double s0 = rnd.nextDouble();
            double s1 = rnd.nextDouble();
            double s2 = rnd.nextDouble();
            for (int e = 0; e < 3; e++) {
                p[e] = s0 * cell.vector(0, e) + s1 * cell.vector(1, e) + s2 * cell.vector(2, e);
            }
            boolean ok = true;
            for (int j = 0; j < placed && ok; j++) {
                for (int a = -1; a <= 1 && ok; a++) {
                    for (int b = -1; b <= 1 && ok; b++) {
                        for (int c = -1; c <= 1 && ok; c++) {
                            double dx = p[0] - r[3 * j] - cell.translation(a, b, c, 0);
                            double dy = p[1] - r[3 * j + 1] - cell.translation(a, b, c, 1);
                            double dz = p[2] - r[3 * j + 2] - cell.translation(a, b, c, 2);
                            ok = dx * dx + dy * dy + dz * dz >= minDist * minDist;
                        }
                    }
                }
            }
            if (ok) {
                System.arraycopy(p, 0, r, 3 * placed, 3);
                placed++;
            }
        }
        double[] m = new double[n];
        Arrays.fill(m, 39.948);
        int[] z = new int[n];
        Arrays.fill(z, 18);
        return new AtomicSystem(seed, r, m, z, cell);
    }

    private static final double[] TILTED = {7.5, 0, 0, 2.1, 7.0, 0, -1.7, 1.3, 8.0};
    private static final boolean[] ALL = {true, true, true};

    @Test
    void anotherBasisOfTheSameLatticeGivesTheSameEnergyAndForces() {
        AtomicSystem s = randomIn(Cell.of(TILTED, ALL), 120, 0.95, 5);
        // a' = a, b' = b + a, c' = c − b: the same lattice, a more skewed basis
        double[] v = TILTED;
        double[] w = {v[0], v[1], v[2], v[3] + v[0], v[4] + v[1], v[5] + v[2], v[6] - v[3], v[7] - v[4], v[8] - v[5]};
        AtomicSystem t = new AtomicSystem(5, s.positions(), s.masses(), s.numbers(), Cell.of(w, ALL));
        LennardJones lj = new LennardJones(1, 1, 2.5, true);
        lj.compute(s);
        lj.compute(t);
        assertThat(t.energy()).isCloseTo(s.energy(), within(1e-10 * Math.abs(s.energy())));
        for (int i = 0; i < s.forces().length; i++) {
            assertThat(t.forces()[i]).as("force %d", i).isCloseTo(s.forces()[i], within(1e-9));
        }
    }

    @Test
    void aseAgreesOnEnergyAndForcesInATriclinicCell() throws Exception {
        assumeTrue(Python.required() || Python.has("ase"), "ASE (python3-ase) is not installed");
        for (boolean[] pbc : new boolean[][] {ALL, {true, true, false}}) {
            AtomicSystem s = randomIn(Cell.of(TILTED, pbc), 150, 0.95, 9);
            Path file = dir.resolve("tri.extxyz");
            try (Writer out = Files.newBufferedWriter(file)) {
                ExtXyz.write(out, List.of(s));
            }
            Python.Result r = Python.run("""
                    import sys
                    from ase.io import read
                    from ase.calculators.lj import LennardJones
                    a = read(sys.argv[1], format='extxyz')
                    a.calc = LennardJones(sigma=1.0, epsilon=1.0, rc=2.5)
                    print('energy', repr(a.get_potential_energy()))
                    for f in a.get_forces():
                        print('force', repr(f[0]), repr(f[1]), repr(f[2]))
                    """, file.toString());
            assertThat(r.exitCode()).as(r.output()).isZero();
            List<String> lines = r.output().lines().toList();
            double aseEnergy = Double.parseDouble(lines.stream().filter(l -> l.startsWith("energy ")).findFirst().orElseThrow().substring(7));
            double[] aseForces = lines.stream().filter(l -> l.startsWith("force ")).flatMap(l -> Arrays.stream(l.substring(6).split(" ")))
                    .mapToDouble(Double::parseDouble).toArray();
            LennardJones lj = new LennardJones(1, 1, 2.5, true);
            lj.compute(s);
            assertThat(s.energy()).as("pbc %s", Arrays.toString(pbc)).isCloseTo(aseEnergy, within(1e-9 * Math.abs(aseEnergy)));
            assertThat(aseForces).hasSize(s.forces().length);
            for (int i = 0; i < aseForces.length; i++) {
                assertThat(s.forces()[i]).as("force %d, pbc %s", i, Arrays.toString(pbc)).isCloseTo(aseForces[i], within(1e-9));
            }
        }
    }
}
