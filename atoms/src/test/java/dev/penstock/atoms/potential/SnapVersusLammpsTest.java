package dev.penstock.atoms.potential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// SNAP against LAMMPS built with ML-SNAP (`scripts/build-lammps-ml.sh`; the numbers it printed,
/// by `scripts/snap-reference.py`, are the test data under `src/test/resources/snap`): every
/// shipped SNAP model — linear, quadratic, two elements, `chemflag` — on perturbed periodic,
/// triclinic and free structures of its elements. Energy within 1e-10 relative, every force
/// within 1e-8 eV/Å, the virial within 1e-10 of its largest component.
class SnapVersusLammpsTest {
    private static final List<Path> PLACES = List.of(Path.of("/usr/share/lammps/potentials"), Path.of("/usr/share/lammps/examples/snap"),
            Path.of("/usr/share/lammps/examples/mliap"));

    static Stream<String> cases() throws Exception {
        Path dir = Path.of(SnapVersusLammpsTest.class.getResource("/snap").toURI());
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(x -> x.toString().endsWith(".xyz")).sorted().toList()) {
                String pair = read(f).info().get("lammps_pair");
                if (pair.startsWith("pair_style snap |") || pair.startsWith("pair_style mliap ")) {
                    names.add(f.getFileName().toString());
                }
            }
        }
        return names.stream();
    }

    private static AtomicSystem read(Path f) throws Exception {
        try (BufferedReader in = Files.newBufferedReader(f)) {
            return ExtXyz.read(in, f).getFirst();
        }
    }

    private static Path find(String name) {
        for (Path d : PLACES) {
            if (Files.exists(d.resolve(name))) {
                return d.resolve(name);
            }
        }
        throw new AssertionError(name + " is not installed (Debian's lammps-data)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void matchesLammps(String name) throws Exception {
        Path f = Path.of(SnapVersusLammpsTest.class.getResource("/snap/" + name).toURI());
        AtomicSystem s = read(f);
        String[] lines = s.info().get("lammps_pair").split("\\|");
        Model snap;
        if (lines[0].startsWith("pair_style mliap")) { // pair_style mliap model KIND MODEL descriptor sna DESCRIPTOR
            String[] w = lines[0].trim().split("\\s+");
            snap = Mliap.read(w[3], find(w[4]), find(w[7]));
        } else {
            String[] coeff = lines[1].trim().split("\\s+"); // pair_coeff * * X.snapcoeff X.snapparam El…
            snap = Snap.read(find(coeff[3]), find(coeff[4]));
        }
        double lammpsEnergy = s.energy();
        double[] lammpsForces = s.forces().clone();
        snap.compute(s);
        double rel = Math.abs(s.energy() - lammpsEnergy) / Math.abs(lammpsEnergy);
        double worst = 0;
        for (int q = 0; q < lammpsForces.length; q++) {
            worst = Math.max(worst, Math.abs(s.forces()[q] - lammpsForces[q]));
        }
        System.out.printf(Locale.ROOT, "%s: %d atoms, energy %.12f eV (relative difference %.2e), largest force difference %.2e eV/Å%n", name,
                s.atoms(), s.energy(), rel, worst);
        assertThat(rel).as("%s energy %s vs LAMMPS %s", name, s.energy(), lammpsEnergy).isLessThan(1e-10);
        assertThat(worst).as("%s largest force difference", name).isLessThan(1e-8);
        String virial = s.info().get("virial");
        if (virial != null) {
            String[] t = virial.trim().split("\\s+");
            double[] w = s.virial();
            double largest = 0;
            double diff = 0;
            for (int k = 0; k < 9; k++) {
                double v = Double.parseDouble(t[k]);
                largest = Math.max(largest, Math.abs(v));
                diff = Math.max(diff, Math.abs(w[k] - v));
            }
            assertThat(diff / largest).as("%s virial", name).isLessThan(1e-10);
        }
    }

    static Stream<String> definitions() throws Exception {
        Path dir = Path.of(SnapVersusLammpsTest.class.getResource("/snap").toURI());
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(x -> x.toString().endsWith(".xyz")).sorted().toList()) {
                if (read(f).info().get("lammps_pair").startsWith("include ")) {
                    names.add(f.getFileName().toString());
                }
            }
        }
        return names.stream();
    }

    /// Whole definitions — `*.snap` and `*.mliap`, ZBL overlaid on SNAP or ML-IAP (linear,
    /// quadratic, nn, chemflag) — on compressed crystals (neighbours inside ZBL's range), read by
    /// `snap(file=…)` and `mliap(file=…)` as LAMMPS's `include` reads them.
    @ParameterizedTest(name = "{0}")
    @MethodSource("definitions")
    void aWholeDefinitionMatchesLammps(String name) throws Exception {
        Path f = Path.of(SnapVersusLammpsTest.class.getResource("/snap/" + name).toURI());
        AtomicSystem s = read(f);
        String file = s.info().get("lammps_pair").substring("include ".length()).trim();
        double lammpsEnergy = s.energy();
        double[] lammpsForces = s.forces().clone();
        Model m = dev.penstock.atoms.stage.PipelineSpec.potential((file.endsWith(".snap") ? "snap" : "mliap") + "(file=" + find(file) + ")").get();
        assertThat(m).isInstanceOf(ModelSum.class);
        m.compute(s);
        double worst = 0;
        for (int q = 0; q < lammpsForces.length; q++) {
            worst = Math.max(worst, Math.abs(s.forces()[q] - lammpsForces[q]));
        }
        System.out.printf(Locale.ROOT, "%s (ZBL + %s): energy %.12f eV against %.12f, largest force difference %.2e eV/Å%n", name, file,
                s.energy(), lammpsEnergy, worst);
        assertThat(Math.abs(s.energy() - lammpsEnergy) / Math.abs(lammpsEnergy)).isLessThan(1e-10);
        assertThat(worst).isLessThan(1e-8);
    }

    @Test
    void everyShippedSnapDefinitionIsReadAndBadOnesAreRefusedInOneLine() throws Exception {
        for (Path d : PLACES) {
            try (Stream<Path> files = Files.list(d)) {
                for (Path f : files.filter(x -> x.toString().endsWith(".snap") || x.toString().endsWith(".mliap")).sorted().toList()) {
                    String n = f.getFileName().toString();
                    if (n.contains("_He_")) { // W–He: tabulated pair styles beside SNAP
                        assertThatThrownBy(() -> LammpsPairFile.read(f)).hasMessageContaining("pair style 'table' is not one Penstock runs");
                        continue;
                    }
                    if (n.contains("pytorch")) { // a Python model: not one Penstock runs
                        assertThatThrownBy(() -> LammpsPairFile.read(f)).hasMessageContaining("model 'mliappy' is not one Penstock runs");
                        continue;
                    }
                    assertThat(LammpsPairFile.read(f).get().cutoff()).as(f.toString()).isPositive();
                }
            }
        }
        Path bad = Files.createTempFile("bad", ".snap");
        Files.writeString(bad, "variable z equal 72\npair_style hybrid/overlay zbl 4 4.8 snap\npair_coeff 1 1 zbl ${z} ${z}\n"
                + "pair_coeff * * snap " + find("Ta06A.snapcoeff") + " " + find("Ta06A.snapparam") + " Ta\n");
        assertThatThrownBy(() -> LammpsPairFile.read(bad)).hasMessage(bad + ", line 3: ZBL's charge 72 for type 1 is not the atomic number of "
                + "its element (Ta)");
        Files.writeString(bad, "pair_style snap\npair_coeff * * " + find("Ta06A.snapcoeff") + " ${missing} Ta\n");
        assertThatThrownBy(() -> LammpsPairFile.read(bad)).hasMessage(bad + ", line 2: variable 'missing' is not defined");
        assertThatThrownBy(() -> dev.penstock.atoms.stage.PipelineSpec.potential("snap(coeff=" + find("Ta06A.snapcoeff") + ")"))
                .hasMessageStartingWith("'snap' needs either 'file'");
        Path coeff = Files.createTempFile("bad", ".snapcoeff");
        Files.writeString(coeff, "# a comment\n1 31\nTa x 1\n");
        assertThatThrownBy(() -> Snap.read(coeff, find("Ta06A.snapparam"))).hasMessage(coeff + ", line 3: expected 'element radius weight', got "
                + "'Ta x 1'");
        Files.delete(coeff);
        Files.delete(bad);
    }

    /// A system of 4,000 atoms or more is computed in parts (`RowParts`) shared by the threads:
    /// the same bits on 1, 2 and 3 threads and on a lent crew, and LAMMPS's numbers still (the
    /// per-part sums against one pass over the atoms: rounding).
    @Test
    void aLargeSystemInPartsGivesTheSameBitsOnAnyNumberOfThreads() throws Exception {
        AtomicSystem small = read(Path.of(SnapVersusLammpsTest.class.getResource("/snap/Ta06A_periodic.xyz").toURI()));
        // the 54-atom box repeated 5 × 5 × 4 (5,400 atoms): each copy's forces are the box's
        int reps = 100;
        int n0 = small.atoms();
        double[] r = new double[3 * n0 * reps];
        double side = small.cell().vector(0, 0);
        int at = 0;
        for (int a = 0; a < 5; a++) {
            for (int b = 0; b < 5; b++) {
                for (int c = 0; c < 4; c++) {
                    for (int i = 0; i < n0; i++) {
                        r[at++] = small.positions()[3 * i] + a * side;
                        r[at++] = small.positions()[3 * i + 1] + b * side;
                        r[at++] = small.positions()[3 * i + 2] + c * side;
                    }
                }
            }
        }
        int[] z = new int[n0 * reps];
        java.util.Arrays.fill(z, 73);
        double[] m = new double[z.length];
        java.util.Arrays.fill(m, 180.88);
        assertThat(RowParts.count(z.length)).isGreaterThan(1);
        double[] reference = null;
        double energy = 0;
        for (int threads : new int[] {1, 2, 3}) {
            AtomicSystem big = new AtomicSystem(1, r.clone(), m, z, new double[] {5 * side, 5 * side, 4 * side}, new boolean[] {true, true, true});
            try (DescriptorModel snap = Snap.read(find("Ta06A.snapcoeff"), find("Ta06A.snapparam")).threads(threads)) {
                snap.compute(big);
            }
            if (reference == null) {
                reference = big.forces().clone();
                energy = big.energy();
                assertThat(Math.abs(energy - reps * small.energy()) / Math.abs(energy)).isLessThan(1e-10);
                for (int q = 0; q < reference.length; q++) {
                    assertThat(Math.abs(reference[q] - small.forces()[q % (3 * n0)])).as("force %d", q).isLessThan(1e-8);
                }
            } else {
                assertThat(Double.doubleToRawLongBits(big.energy())).as("%d threads", threads).isEqualTo(Double.doubleToRawLongBits(energy));
                assertThat(big.forces()).as("%d threads", threads).isEqualTo(reference);
            }
        }
    }

    /// 100 NVE steps of hot tantalum (1,500 K) under `Ta06A.snap` from LAMMPS's own start (its
    /// `write_data`, velocities included): the total energy agrees with LAMMPS's thermo at every
    /// step (time in LAMMPS's metal conversion, as `MaterialsVersusLammpsTest`'s NVE).
    @Test
    void nveFromLammpsStartConservesTheSameTotalEnergyAtEveryStep() throws Exception {
        Path data = Path.of(SnapVersusLammpsTest.class.getResource("/snap/nve_Ta06A.data").toURI());
        List<String> etotal = Files.readAllLines(data.resolveSibling("nve_Ta06A.etotal"));
        assertThat(etotal).hasSize(101);
        AtomicSystem s = dev.penstock.atoms.io.LammpsData.read(data, 1);
        java.util.Arrays.fill(s.numbers(), 73);
        double tauPs = Math.sqrt(1.0364269e-4); // LAMMPS's metal time unit: ps per sqrt(amu Å² / eV)
        for (int i = 0; i < s.velocities().length; i++) {
            s.velocities()[i] *= tauPs;
        }
        Model model = dev.penstock.atoms.stage.PipelineSpec.potential("snap(file=" + find("Ta06A.snap") + ")").get();
        dev.penstock.atoms.integrate.NveReference vv = new dev.penstock.atoms.integrate.NveReference(0.001 / tauPs);
        model.compute(s);
        double worst = 0;
        for (int step = 0; step <= 100; step++) {
            if (step > 0) {
                vv.step(s, model);
            }
            double e = s.energy() + dev.penstock.atoms.integrate.NveReference.kineticEnergy(s);
            double lammps = Double.parseDouble(etotal.get(step));
            double rel = Math.abs(e - lammps) / Math.abs(lammps);
            worst = Math.max(worst, rel);
            assertThat(rel).as("step %d: %s vs LAMMPS %s", step, e, lammps).isLessThan(1e-12);
        }
        System.out.printf(Locale.ROOT, "NVE Ta06A.snap, 54 atoms, 100 steps: largest relative difference in total energy %.2e%n", worst);
    }
}
