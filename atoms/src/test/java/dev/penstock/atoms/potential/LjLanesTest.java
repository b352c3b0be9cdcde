package dev.penstock.atoms.potential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.neighbor.FullList;
import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.atoms.system.Lattices;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Lennard-Jones's lane sums over the full list of ghost atoms (`LjLanes`, `FullList`): the
/// numbers of every image pair summed directly, the same bits from the Vector API and from the
/// scalar lanes, on any number of threads, and an overlap refused naming its atoms.
class LjLanesTest {
    private static final int[] AR = {18, 18};

    private static LennardJones argon() {
        return new LennardJones(0.0104, 3.4, 8.5, false);
    }

    /// Energy and forces by every pair and periodic image within the cutoff, term by term.
    private static double bruteForce(AtomicSystem s, double eps, double sigma, double rc, double[] f) {
        return bruteForce(s, eps, sigma, rc, f, new double[9]);
    }

    /// As above, and the virial W = Σ_pairs −g·d⊗d (row-major) into `w`.
    private static double bruteForce(AtomicSystem s, double eps, double sigma, double rc, double[] f, double[] w) {
        double[] r = s.positions();
        Cell cell = s.cell();
        int[] reach = new int[3];
        for (int d = 0; d < 3; d++) {
            reach[d] = s.periodic(d) ? (int) Math.ceil(rc / cell.faceDistance(d)) + 1 : 0;
        }
        double e = 0;
        int n = s.atoms();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int a = -reach[0]; a <= reach[0]; a++) {
                    for (int b = -reach[1]; b <= reach[1]; b++) {
                        for (int c = -reach[2]; c <= reach[2]; c++) {
                            if (i == j && a == 0 && b == 0 && c == 0) {
                                continue;
                            }
                            double dx = r[3 * j] + cell.translation(a, b, c, 0) - r[3 * i];
                            double dy = r[3 * j + 1] + cell.translation(a, b, c, 1) - r[3 * i + 1];
                            double dz = r[3 * j + 2] + cell.translation(a, b, c, 2) - r[3 * i + 2];
                            double r2 = dx * dx + dy * dy + dz * dz;
                            if (r2 >= rc * rc) {
                                continue;
                            }
                            double s6 = Math.pow(sigma * sigma / r2, 3);
                            e += 0.5 * 4 * eps * (s6 * s6 - s6);
                            double g = 4 * eps * (-12 * s6 * s6 + 6 * s6) / r2;
                            f[3 * i] += g * dx;
                            f[3 * i + 1] += g * dy;
                            f[3 * i + 2] += g * dz;
                            double[] d = {dx, dy, dz};
                            for (int u = 0; u < 9; u++) {
                                w[u] -= 0.5 * g * d[u / 3] * d[u % 3];
                            }
                        }
                    }
                }
            }
        }
        return e;
    }

    @Test
    void everyImagePairIsCountedOnceInEachDirection() {
        List<AtomicSystem> systems = List.of(
                Lattices.fcc(1, 4, 5.26, 0, true, AR, 0, 1), // 256 atoms, a box longer than 2.5 list radii: cell lists
                Lattices.fcc(2, 3, 5.26, 1.7, true, AR, 0, 2), // triclinic, 15.8 Å: atoms meet their own images
                Lattices.fcc(3, 3, 5.26, 0, false, AR, 0, 3), // a slab, free along z
                Lattices.cluster(4, 147, 3.8, AR, 0, 4)); // free
        for (AtomicSystem s : systems) {
            LennardJones lj = argon();
            lj.compute(s);
            double[] f = new double[3 * s.atoms()];
            double e = bruteForce(s, 0.0104, 3.4, 8.5, f);
            assertThat(Math.abs(s.energy() - e)).as("system %d energy", s.id()).isLessThan(1e-12 * Math.abs(e));
            for (int q = 0; q < f.length; q++) {
                assertThat(Math.abs(s.forces()[q] - f[q])).as("system %d force %d", s.id(), q).isLessThan(1e-12);
            }
        }
    }

    /// The virial the lanes sum — Σ (F_i − F_i^ghosts) ⊗ r_i over the atoms plus the ghosts' pairs
    /// term by term — is every image pair's −g·d⊗d summed directly: a box of cell lists, a triclinic
    /// box whose atoms meet their own images, a slab and a free cluster (no ghosts: Σ F ⊗ r alone;
    /// a large box in parts: `CellChangeTest`'s strain derivative).
    @Test
    void theVirialIsEveryPairsSummedDirectly() {
        List<AtomicSystem> systems = List.of(
                Lattices.fcc(1, 4, 5.26, 0, true, AR, 0, 1),
                Lattices.fcc(2, 3, 5.26, 1.7, true, AR, 0, 2),
                Lattices.fcc(3, 3, 5.26, 0, false, AR, 0, 3),
                Lattices.cluster(4, 147, 3.8, AR, 0, 4));
        for (AtomicSystem s : systems) {
            new LennardJones(0.0104, 3.4, 8.5, false).virial(true).compute(s);
            double[] f = new double[3 * s.atoms()];
            double[] w = new double[9];
            bruteForce(s, 0.0104, 3.4, 8.5, f, w);
            double scale = 0;
            for (double x : w) {
                scale = Math.max(scale, Math.abs(x));
            }
            for (int u = 0; u < 9; u++) {
                assertThat(Math.abs(s.virial()[u] - w[u])).as("system %d, virial %d: %s against %s", s.id(), u, s.virial()[u], w[u])
                        .isLessThan(1e-12 * scale);
            }
        }
    }

    @Test
    void theVectorAndTheScalarLanesGiveTheSameBits() {
        AtomicSystem s = Lattices.fcc(1, 5, 5.26, 1.1, true, AR, 0, 7); // 500 atoms, triclinic, with ghosts
        NeighborList half = new NeighborList(8.5, 0.3 * 3.4);
        half.build(s);
        FullList full = half.full(s.atoms(), s.positions(), null);
        assertThat(full.ghosts()).isPositive();
        assertThat(full.start()[s.atoms()] % FullList.LANES).isZero();
        LjLanes.Terms t = new LjLanes.Terms(3.4 * 3.4, 4 * 0.0104, 0.01, 8.5 * 8.5, 1e-6);
        double[] fv = new double[3 * s.atoms()];
        double[] fs = new double[3 * s.atoms()];
        int[] ov = {-1};
        int[] os = {-1};
        double[] wv = new double[6];
        double[] ws = new double[6];
        double ev = LjLanesVector.sum(full, t, fv, 0, s.atoms(), ov, wv);
        double es = LjLanes.scalar(full, t, fs, 0, s.atoms(), os, ws);
        for (int c = 0; c < 6; c++) {
            assertThat(Double.doubleToRawLongBits(wv[c])).as("virial %d", c).isEqualTo(Double.doubleToRawLongBits(ws[c]));
        }
        assertThat(wv[0]).as("a virial").isNotZero();
        assertThat(ov[0]).isEqualTo(-1);
        assertThat(os[0]).isEqualTo(-1);
        assertThat(Double.doubleToRawLongBits(ev)).isEqualTo(Double.doubleToRawLongBits(es));
        for (int q = 0; q < fv.length; q++) {
            assertThat(Double.doubleToRawLongBits(fv[q])).as("force %d", q).isEqualTo(Double.doubleToRawLongBits(fs[q]));
        }
    }

    @Test
    void aLargeSystemInPartsGivesTheSameBitsOnAnyNumberOfThreads() {
        AtomicSystem one = Lattices.fcc(1, 13, 5.26, 0, true, AR, 0, 11); // 8,788 atoms: computed in parts
        AtomicSystem two = Lattices.fcc(1, 13, 5.26, 0, true, AR, 0, 11);
        assertThat(RowParts.count(one.atoms())).isGreaterThan(1);
        try (LennardJones a = argon(); PairPotential b = argon().threads(2)) {
            a.compute(one);
            b.compute(two);
        }
        assertThat(Double.doubleToRawLongBits(two.energy())).isEqualTo(Double.doubleToRawLongBits(one.energy()));
        assertThat(two.forces()).isEqualTo(one.forces());
    }

    @Test
    void anOverlapIsNamed() {
        AtomicSystem t = Lattices.fcc(6, 4, 5.26, 0, true, AR, 0, 5);
        System.arraycopy(t.positions(), 3 * 7, t.positions(), 3 * 3, 3); // atom 3 onto atom 7
        assertThatThrownBy(() -> argon().compute(t)).hasMessageStartingWith("system 6: atoms 3 and 7 overlap");
    }

    @Test
    void listsRebuiltEveryNStepsCountTheBuildsThatMayHaveMissedPairs() {
        AtomicSystem s = Lattices.fcc(8, 4, 5.26, 0, true, AR, 0, 8);
        LennardJones lj = argon();
        lj.rebuildEvery(5);
        lj.compute(s); // the first build
        for (int k = 1; k <= 12; k++) {
            lj.compute(s);
        }
        assertThat(lj.neighborList(8).builds()).isEqualTo(3); // at the first evaluation, then after 5 and 10 more
        assertThat(lj.dangerousBuilds()).isZero();
        java.util.logging.Logger engine = java.util.logging.Logger.getLogger("dev.penstock");
        List<String> said = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler catcher = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                said.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        engine.addHandler(catcher);
        try {
            for (int k = 0; k < 3; k++) { // atoms 0 and 1 move 0.6 Å a step, apart: 3.6 Å together by the next build (skin 1.02 Å)
                s.positions()[0] += 0.6;
                s.positions()[3] -= 0.6;
                lj.compute(s);
            }
        } finally {
            engine.removeHandler(catcher);
        }
        assertThat(lj.neighborList(8).builds()).isEqualTo(4);
        assertThat(lj.dangerousBuilds()).isEqualTo(1);
        assertThat(said).singleElement().asString().startsWith("WARNING system 8: its neighbour list, rebuilt every 5 steps unchecked")
                .contains("pairs may have been missed");
        LennardJones checked = argon();
        AtomicSystem t = Lattices.fcc(9, 4, 5.26, 0, true, AR, 0, 8);
        checked.compute(t);
        t.positions()[0] += 0.6;
        checked.compute(t);
        assertThat(checked.neighborList(9).builds()).isEqualTo(2); // the displacement rule rebuilds at once
        assertThatThrownBy(() -> argon().rebuildEvery(-1)).hasMessageContaining("'every' must be 0");
    }

    @Test
    void thePotentialSpecTakesEvery() {
        PairPotential lj = (PairPotential) dev.penstock.atoms.stage.PipelineSpec.potential("lj(epsilon=0.0104, sigma=3.4, every=20)").get();
        AtomicSystem s = Lattices.fcc(10, 4, 5.26, 0, true, AR, 0, 8);
        for (int k = 0; k < 21; k++) {
            lj.compute(s);
        }
        assertThat(lj.neighborList(10).builds()).isEqualTo(2);
        assertThat(lj.neighborList(10).sinceBuild()).isZero();
        assertThatThrownBy(() -> dev.penstock.atoms.stage.PipelineSpec.potential("lj(epsilon=1, sigma=1, every=-2)"))
                .hasMessage("'lj': 'every' must be a whole number of steps, 0 or more, got '-2'");
        assertThatThrownBy(() -> dev.penstock.atoms.stage.PipelineSpec.potential("morse(depth=1, a=1, r0=1, cutoff=3, every=x)"))
                .hasMessage("'morse': 'every' must be a whole number of steps, 0 or more, got 'x'");
    }

    /// NVE of `s` under `lj` for `steps` velocity-Verlet steps (dt 5 fs in ASE's units).
    private static void nve(AtomicSystem s, LennardJones lj, int steps) {
        double dt = 5 * 0.09822694788464063;
        int n = s.atoms();
        for (int k = 0; k < steps; k++) {
            dev.penstock.atoms.integrate.VelocityVerlet.halfKick(s.velocities(), s.forces(), s.masses(), n, dt);
            dev.penstock.atoms.integrate.VelocityVerlet.drift(s.positions(), s.velocities(), 3 * n, dt);
            lj.compute(s);
            dev.penstock.atoms.integrate.VelocityVerlet.halfKick(s.velocities(), s.forces(), s.masses(), n, dt);
        }
    }

    @Test
    void aRestoredScheduleRebuildsWhenTheUninterruptedOneDoes() throws Exception {
        AtomicSystem a = Lattices.fcc(12, 4, 5.26, 0, true, AR, 0, 12);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
        for (int q = 0; q < a.velocities().length; q++) {
            a.velocities()[q] = 0.01 * rnd.nextGaussian();
        }
        LennardJones one = argon();
        one.rebuildEvery(7);
        one.compute(a);
        nve(a, one, 10); // 3 updates since the build at step 7
        java.io.ByteArrayOutputStream saved = new java.io.ByteArrayOutputStream();
        one.save(12, new java.io.DataOutputStream(saved));
        AtomicSystem b = new AtomicSystem(12, a.positions().clone(), a.masses().clone(), a.numbers().clone(), a.cell());
        System.arraycopy(a.velocities(), 0, b.velocities(), 0, a.velocities().length);
        System.arraycopy(a.forces(), 0, b.forces(), 0, a.forces().length);
        LennardJones two = argon();
        two.rebuildEvery(7);
        two.restore(b, new java.io.DataInputStream(new java.io.ByteArrayInputStream(saved.toByteArray())));
        assertThat(two.neighborList(12).sinceBuild()).isEqualTo(3);
        nve(a, one, 20);
        nve(b, two, 20);
        assertThat(two.neighborList(12).builds()).isEqualTo(one.neighborList(12).builds());
        assertThat(b.positions()).isEqualTo(a.positions());
        assertThat(Double.doubleToRawLongBits(b.energy())).isEqualTo(Double.doubleToRawLongBits(a.energy()));
    }
}
