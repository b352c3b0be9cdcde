package dev.penstock.atoms.neighbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.potential.Morse;
import dev.penstock.atoms.potential.StillingerWeber;
import dev.penstock.atoms.potential.Tersoff;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.atoms.system.Lattices;
import dev.penstock.testing.Ci;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/// A cell changed in place (`AtomicSystem.cell(Cell)`, what a barostat does every step) under a
/// model that keeps the system's neighbour list: the numbers are those of the same atoms in a
/// system made with the new cell, whether the list was kept (its image shifts remade for the
/// new cell) or rebuilt (the strain too large for its skin); a checkpoint taken after the change
/// restores the list the system had.
class CellChangeTest {
    private static final Path POTENTIALS = Path.of("/usr/share/lammps/potentials");

    /// `s`'s cell deformed by (I + strain) (rows: r' = r·(I + strain)), its atoms with it, then
    /// each moved by up to ±`jiggle` Å.
    private static void deform(AtomicSystem s, double[] strain, double jiggle, long seed) {
        double[] m = {1 + strain[0], strain[1], strain[2], strain[3], 1 + strain[4], strain[5], strain[6], strain[7], 1 + strain[8]};
        double[] h = s.cell().vectors();
        double[] out = new double[9];
        for (int d = 0; d < 3; d++) {
            for (int e = 0; e < 3; e++) {
                out[3 * d + e] = h[3 * d] * m[e] + h[3 * d + 1] * m[3 + e] + h[3 * d + 2] * m[6 + e];
            }
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] r = s.positions();
        for (int i = 0; i < s.atoms(); i++) {
            double x = r[3 * i];
            double y = r[3 * i + 1];
            double z = r[3 * i + 2];
            for (int e = 0; e < 3; e++) {
                r[3 * i + e] = x * m[e] + y * m[3 + e] + z * m[6 + e] + (jiggle > 0 ? rnd.nextDouble(-jiggle, jiggle) : 0);
            }
        }
        s.cell(Cell.of(out, s.cell().pbc()));
    }

    /// A copy of `s` made afresh: a system that never had another cell.
    private static AtomicSystem fresh(AtomicSystem s) {
        return new AtomicSystem(s.id() + 1000, s.positions(), s.masses(), s.numbers(), s.cell());
    }

    private static void same(AtomicSystem kept, AtomicSystem made, String what) {
        double scale = Math.abs(made.energy());
        assertThat(Math.abs(kept.energy() - made.energy())).as("%s: energy %s vs %s", what, kept.energy(), made.energy())
                .isLessThan(1e-11 * scale);
        double fmax = made.maxForce();
        for (int q = 0; q < 3 * made.atoms(); q++) {
            assertThat(Math.abs(kept.forces()[q] - made.forces()[q])).as("%s: force %d", what, q).isLessThan(1e-10 * Math.max(fmax, 1));
        }
        assertThat(kept.virial() == null).as("%s: a virial both or neither", what).isEqualTo(made.virial() == null);
        if (made.virial() != null) {
            for (int x = 0; x < 9; x++) {
                assertThat(Math.abs(kept.virial()[x] - made.virial()[x])).as("%s: virial %d", what, x).isLessThan(1e-10 * scale);
            }
        }
    }

    /// Under models made by `models`: a small strain keeps the list (no build), a large one rebuilds
    /// it; both give the fresh system's numbers, and so does the list restored from a checkpoint.
    private static void followsTheCell(Supplier<Model> models, AtomicSystem s, String what) throws Exception {
        Model model = models.get();
        model.compute(s);
        long builds = builds(model, s);
        // a small strain with shear: the list kept, its shifts the new cell's
        deform(s, new double[] {0.002, 0.001, 0, -0.0005, -0.0015, 0.0007, 0, 0.0004, 0.001}, 0.01, 1);
        model.compute(s);
        assertThat(builds(model, s)).as("%s: a strain within the skin keeps the list", what).isEqualTo(builds);
        AtomicSystem made = fresh(s);
        models.get().compute(made);
        same(s, made, what + ", list kept");
        // a checkpoint now restores that list: the next step's numbers as uninterrupted
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        model.save(s.id(), new DataOutputStream(bytes));
        Model restored = models.get();
        AtomicSystem twin = s.withId(s.id());
        restored.restore(twin, new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        deform(s, new double[] {-0.001, 0, 0.0003, 0, 0.001, 0, 0.0002, 0, -0.0012}, 0.005, 2);
        deform(twin, new double[] {-0.001, 0, 0.0003, 0, 0.001, 0, 0.0002, 0, -0.0012}, 0.005, 2);
        model.compute(s);
        restored.compute(twin);
        assertThat(twin.energy()).as("%s: restored, the same bits", what).isEqualTo(s.energy());
        assertThat(twin.forces()).as("%s: restored, the same forces", what).isEqualTo(s.forces());
        // a large one rebuilds
        deform(s, new double[] {0.15, 0, 0, 0, 0.12, 0, 0, 0, 0.18}, 0.05, 3);
        model.compute(s);
        assertThat(builds(model, s)).as("%s: a strain beyond the skin rebuilds", what).isGreaterThan(builds);
        made = fresh(s);
        models.get().compute(made);
        same(s, made, what + ", rebuilt");
    }

    private static long builds(Model model, AtomicSystem s) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        model.save(s.id(), new DataOutputStream(bytes)); // a list: present, then its build count
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
        assertThat(in.readBoolean()).as("the model keeps a list").isTrue();
        return in.readLong();
    }

    @Test
    void pairPotentialsFollowTheCell() throws Exception {
        AtomicSystem lj = Lattices.fcc(1, 6, 5.26, 1.3, true, new int[] {18, 18}, 0, 11);
        followsTheCell(() -> new LennardJones(0.0104, 3.4, 8.5, true), lj, "Lennard-Jones (lane sums)");
        AtomicSystem morse = Lattices.fcc(2, 4, 3.615, 0.8, true, new int[] {29, 29}, 0, 12);
        followsTheCell(() -> new Morse(0.3429, 1.3588, 2.866, 6.0), morse, "Morse (half-list sums)");
    }

    /// A barostat dilates a box about its centre (LAMMPS's `dilate all`), which moves every atom
    /// by the same −ε·centre from where a dilation about the origin would take it: a 2% dilation
    /// of a 31.6 Å box moves each by 0.55 Å, beyond half the room the strain leaves (0.35 Å), yet
    /// no pair has changed more than the strain allows. The rule measures displacements from the
    /// first atom's too, so the list is kept — and gives a fresh system's numbers.
    @Test
    void aDilationAboutTheBoxCentreKeepsTheList() throws Exception {
        AtomicSystem s = Lattices.fcc(8, 6, 5.26, 0.5, true, new int[] {18, 18}, 0, 18);
        Model model = new LennardJones(0.0104, 3.4, 8.5, true);
        model.compute(s);
        long builds = builds(model, s);
        double e = 0.02;
        double[] h = s.cell().vectors();
        double[] centre = {(h[0] + h[3] + h[6]) / 2, (h[1] + h[4] + h[7]) / 2, (h[2] + h[5] + h[8]) / 2};
        double[] r = s.positions();
        SplittableRandom rnd = new SplittableRandom(5);
        for (int q = 0; q < r.length; q++) {
            r[q] = centre[q % 3] + (r[q] - centre[q % 3]) * (1 + e) + rnd.nextDouble(-0.01, 0.01);
        }
        double[] grown = h.clone();
        for (int q = 0; q < 9; q++) {
            grown[q] *= 1 + e;
        }
        s.cell(Cell.of(grown, s.cell().pbc()));
        model.compute(s);
        assertThat(builds(model, s)).as("a dilation about the centre within the skin keeps the list").isEqualTo(builds);
        AtomicSystem made = fresh(s);
        new LennardJones(0.0104, 3.4, 8.5, true).compute(made);
        same(s, made, "dilated about the centre");
    }

    /// W_ab = −∂E/∂ε_ab under the homogeneous strain r → r·(I + ε): the virial a barostat reads,
    /// for the pair models' three sums (lanes, a half list, a large system's parts), by central
    /// differences of fresh evaluations.
    @Test
    void thePairModelsVirialIsTheEnergysStrainDerivative() {
        AtomicSystem small = Lattices.fcc(6, 5, 5.26, 1.3, true, new int[] {18, 18}, 0, 16);
        AtomicSystem large = Lattices.fcc(7, 13, 5.26, 0.4, true, new int[] {18, 18}, 0, 17); // 8,788 atoms: in parts
        strainDerivative(() -> new LennardJones(0.0104, 3.4, 8.5, true).virial(true), small, "Lennard-Jones (lane sums)");
        strainDerivative(() -> new LennardJones(0.0104, 3.4, 8.5, true).threads(2).virial(true), large, "Lennard-Jones in parts");
        strainDerivative(() -> new Morse(0.0104, 1.6, 3.8, 8.5).virial(true), small, "Morse (half list)");
        strainDerivative(() -> new Morse(0.0104, 1.6, 3.8, 8.5).threads(2).virial(true), large, "Morse in parts");
        AtomicSystem asked = fresh(small);
        new LennardJones(0.0104, 3.4, 8.5, true).compute(asked, null, true);
        AtomicSystem always = fresh(small);
        new LennardJones(0.0104, 3.4, 8.5, true).virial(true).compute(always);
        assertThat(asked.virial()).as("asked for, the same virial").isEqualTo(always.virial());
        AtomicSystem not = fresh(small);
        new LennardJones(0.0104, 3.4, 8.5, true).compute(not);
        assertThat(not.virial()).as("not asked for: none").isNull();
        assertThat(not.forces()).as("the same forces either way").isEqualTo(always.forces());
    }

    private static void strainDerivative(Supplier<Model> models, AtomicSystem s, String what) {
        AtomicSystem at = fresh(s);
        models.get().compute(at);
        double[] w = at.virial();
        assertThat(w).as("%s computes a virial", what).isNotNull();
        double h = 1e-6; // (a pair crossing the cutoff puts a kink in E: small steps)
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                double[] e = new double[2];
                for (int side = 0; side < 2; side++) {
                    AtomicSystem x = fresh(s);
                    double[] strain = new double[9];
                    strain[3 * a + b] = side == 0 ? h : -h;
                    deform(x, strain, 0, 0);
                    models.get().compute(x);
                    e[side] = x.energy();
                }
                double dEde = (e[0] - e[1]) / (2 * h);
                assertThat(Math.abs(w[3 * a + b] + dEde)).as("%s: W_%d%d = %s, −dE/dε = %s", what, a, b, w[3 * a + b], -dEde)
                        .isLessThan(1e-5 * Math.abs(w[0]) + 1e-9);
            }
        }
    }

    @Test
    void manyBodyModelsFollowTheCell() throws Exception {
        assumeTrue(Files.isDirectory(POTENTIALS) || Ci.required(), "LAMMPS's potential files (lammps-data) are not installed");
        followsTheCell(() -> read(() -> Eam.read(POTENTIALS.resolve("Cu_u3.eam"))), Lattices.fcc(3, 5, 3.615, 0.9, true,
                new int[] {29, 29}, 0, 13), "EAM");
        followsTheCell(() -> read(() -> StillingerWeber.read(POTENTIALS.resolve("Si.sw"))), Lattices.diamond(4, 3, 5.431, 1.1,
                new int[] {14, 14}, 14), "Stillinger-Weber");
        followsTheCell(() -> read(() -> Tersoff.read(POTENTIALS.resolve("SiC.tersoff"))), Lattices.diamond(5, 3, 4.36, 0.6,
                new int[] {14, 6}, 15), "Tersoff");
    }

    private interface Reader {
        Model read() throws Exception;
    }

    private static Model read(Reader r) {
        try {
            return r.read();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
