package dev.penstock.atoms.potential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.atoms.integrate.NveReference;
import dev.penstock.atoms.io.Elements;
import dev.penstock.atoms.io.LammpsLog;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.atoms.system.Lattices;
import dev.penstock.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// EAM and Stillinger–Weber energies, forces and virials of perturbed structures against LAMMPS
/// `run 0` with the same potential file from Debian's `lammps-data`: funcfl, setfl and
/// Finnis–Sinclair EAM files and `*.sw` files; periodic bulk, triclinic cells, a surface slab and
/// free clusters; one and two elements. Energy to 1e-13 (relative), every force component to 2e-11
/// eV/Å, the virial to 1e-13 of its largest component, 100 NVE steps' total energy to 1e-13
/// (relative) — the figures README quotes. Measured on the project's machine (2026-12-04): at
/// most 2.5e-14, 3.7e-12 eV/Å (4,096-atom SiC), 2e-14 and 8.3e-15; the margins are 4-12x.
class MaterialsVersusLammpsTest {
    private static final Path LMP = Path.of("/usr/bin/lmp");
    private static final Path POTENTIALS = Path.of("/usr/share/lammps/potentials");

    @TempDir
    Path dir;

    /// A structure: positions, species per atom, cell (LAMMPS's lower-triangular a, b, c), pbc.
    private record Structure(String name, double[] r, int[] z, double[] cell, boolean[] pbc) {
        AtomicSystem system() {
            double[] m = new double[z.length];
            for (int i = 0; i < z.length; i++) {
                m[i] = Elements.mass(z[i]);
            }
            return new AtomicSystem(1, r, m, z, pbc[0] || pbc[1] || pbc[2] ? Cell.of(cell, pbc) : Cell.free());
        }
    }

    private static Structure fcc(String name, int k, double a, double tiltXy, boolean periodicZ, int[] species, double mix, long seed) {
        return structure(name, Lattices.fcc(1, k, a, tiltXy, periodicZ, species, mix, seed));
    }

    private static Structure cluster(String name, int n, double nearest, int[] species, double mix, long seed) {
        return structure(name, Lattices.cluster(1, n, nearest, species, mix, seed));
    }

    private static Structure structure(String name, AtomicSystem s) {
        return new Structure(name, s.positions(), s.numbers(), s.cell().vectors(), s.cell().pbc());
    }

    @Test
    void funcflCopperBulkMatchesLammps() throws Exception {
        check("Cu_u3.eam", "eam", fcc("Cu bulk", 4, 3.615, 0, true, new int[] {29, 29}, 0, 3), new int[] {29});
    }

    @Test
    void setflCopperNickelTriclinicAlloyMatchesLammps() throws Exception {
        check("CuNi.eam.alloy", "eam/alloy", fcc("CuNi triclinic", 3, 3.56, 1.3, true, new int[] {29, 28}, 0.4, 5), new int[] {29, 28});
    }

    /// ZBL (`pair_style zbl`), two elements, on a compressed triclinic Cu–Ni crystal (nearest
    /// neighbours ~2.1 Å: inside, across and beyond the switching range) and a free cluster.
    @Test
    void zblMatchesLammps() throws Exception {
        assumeTrue(Files.isExecutable(LMP) || Ci.required(), "LAMMPS (lammps) is not installed");
        String pair = "pair_style zbl 1.9 2.6\npair_coeff 1 1 29 29\npair_coeff 2 2 28 28\npair_coeff 1 2 29 28";
        checkPair(new Zbl(1.9, 2.6), "zbl", pair, fcc("CuNi compressed", 3, 3.0, 0.7, true, new int[] {29, 28}, 0.4, 11), new int[] {29, 28});
        checkPair(new Zbl(1.9, 2.6), "zbl", pair, cluster("CuNi cluster", 55, 2.05, new int[] {29, 28}, 0.5, 13), new int[] {29, 28});
    }

    /// A sum — ZBL overlaid on EAM, LAMMPS's `pair_style hybrid/overlay zbl … eam/alloy` — as
    /// `PipelineSpec` parses it.
    @Test
    void zblOverlaidOnEamMatchesLammpsHybridOverlay() throws Exception {
        assumeTrue(Files.isExecutable(LMP) || Ci.required(), "LAMMPS (lammps) is not installed");
        Path alloy = POTENTIALS.resolve("CuNi.eam.alloy");
        Model sum = dev.penstock.atoms.stage.PipelineSpec.potential("zbl(inner=1.9, outer=2.6) + eam(file=" + alloy + ")").get();
        assertThat(sum).isInstanceOf(ModelSum.class);
        assertThat(sum.cutoff()).isEqualTo(Eam.read(alloy).cutoff());
        String pair = "pair_style hybrid/overlay zbl 1.9 2.6 eam/alloy\npair_coeff 1 1 zbl 29 29\npair_coeff 2 2 zbl 28 28\n"
                + "pair_coeff 1 2 zbl 29 28\npair_coeff * * eam/alloy " + alloy + " Cu Ni";
        checkPair(sum, "zbl + CuNi.eam.alloy", pair, fcc("CuNi compressed", 3, 3.1, 0.7, true, new int[] {29, 28}, 0.4, 17), new int[] {29, 28});
    }

    @Test
    void badSumsAndZblOptionsAreRefusedInOneLine() {
        assertThatThrownBy(() -> dev.penstock.atoms.stage.PipelineSpec.potential("zbl(inner=3, outer=2)"))
                .hasMessage("zbl: 'inner' and 'outer' must satisfy 0 < inner ≤ outer < ∞, got 3.0, 2.0");
        assertThatThrownBy(() -> dev.penstock.atoms.stage.PipelineSpec.potential("zbl(inner=1, outer=2) + "))
                .hasMessage("potential 'zbl(inner=1, outer=2) +': an empty term around '+'");
        assertThatThrownBy(() -> dev.penstock.atoms.stage.PipelineSpec.potential("zbl(inner=1, outer=2) + foo(file=x)"))
                .hasMessageStartingWith("unknown potential 'foo'");
        AtomicSystem noElement = new AtomicSystem(3, new double[] {0, 0, 0, 1.5, 0, 0}, new double[] {1, 1}, new int[] {29, 0},
                new double[] {10, 10, 10}, new boolean[3]);
        assertThat(new Zbl(1, 2).refusal(noElement)).isEqualTo("zbl: atom 1 has no element (atomic number 0); ZBL needs the nuclear charges");
        Model sum = dev.penstock.atoms.stage.PipelineSpec.potential("lj(epsilon=0.01, sigma=2) + zbl(inner=1, outer=2)").get();
        assertThat(sum.refusal(noElement)).startsWith("zbl: atom 1");
        assertThat(dev.penstock.atoms.stage.PipelineSpec.potential("zbl(inner=1, outer=2) + zbl(inner=1.5, outer=3)").get())
                .hasToString("zbl(inner=1.0, outer=2.0) + zbl(inner=1.5, outer=3.0)");
    }

    @Test
    void setflNickelSurfaceSlabMatchesLammps() throws Exception {
        check("CuNi.eam.alloy", "eam/alloy", fcc("Ni slab", 3, 3.52, 0, false, new int[] {28, 28}, 0, 7), new int[] {28});
    }

    @Test
    void finnisSinclairCopperZirconiumClusterMatchesLammps() throws Exception {
        check("CuZr_mm.eam.fs", "eam/fs", cluster("CuZr cluster", 147, 2.7, new int[] {29, 40}, 0.3, 9), new int[] {29, 40});
    }

    /// A large system computed in parts (`RowParts`: 4,000+ atoms, each part's rows scattering
    /// into its own arrays, summed in part order) on 1, 2 or 3 threads (`Eam.threads`,
    /// `Tersoff.threads`, `StillingerWeber.threads`) and on a crew lent to `compute(system, crew)`: LAMMPS's numbers still, to
    /// the same tolerances, and the same bits whatever the threads, run after run and with two
    /// callers at once. Fails if a part's densities or forces are dropped or counted twice, or if
    /// the sums depended on the threads or on which finished first.
    @Test
    void fileModelsInPartsMatchLammpsWithTheSameBitsOnAnyThreads() throws Exception {
        assumeTrue(Files.isExecutable(LMP) || Ci.required(), "LAMMPS (lammps) is not installed");
        record Case(String file, String style, Structure structure, int[] types) {
        }
        Structure block = fcc("CuZr", 10, 3.7, 0, false, new int[] {29, 40}, 0.3, 9);
        List<Case> cases = List.of(
                new Case("CuNi.eam.alloy", "eam/alloy", fcc("CuNi triclinic", 10, 3.56, 1.3, true, new int[] {29, 28}, 0.4, 5), new int[] {29, 28}),
                new Case("CuZr_mm.eam.fs", "eam/fs", new Structure("CuZr free block", block.r(), block.z(), new double[9], new boolean[3]),
                        new int[] {29, 40}),
                new Case("SiC.tersoff", "tersoff", diamond("SiC zincblende (Tersoff)", 8, 4.36, 0.6, new int[] {14, 6}, 41), new int[] {14, 6}),
                new Case("Si.sw", "sw", diamond("Si triclinic (Stillinger-Weber)", 8, 5.431, 1.7, new int[] {14, 14}, 43), new int[] {14}));
        java.util.Map<String, AtomicSystem> reference = new java.util.HashMap<>();
        for (int threads : new int[] {1, 2, 3}) {
            for (Case c : cases) {
                assertThat(RowParts.count(c.structure().z().length)).as(c.structure().name()).isGreaterThan(1);
                Path file = POTENTIALS.resolve(c.file());
                try (AutoCloseable model = switch (c.style()) {
                    case "tersoff" -> Tersoff.read(file).threads(threads);
                    case "sw" -> StillingerWeber.read(file).threads(threads);
                    default -> Eam.read(file).threads(threads);
                }) {
                    Model m = (Model) model;
                    if (threads == 1) {
                        check(m, c.file(), c.style(), c.structure(), c.types());
                    }
                    AtomicSystem once = c.structure().system();
                    m.compute(once);
                    AtomicSystem first = reference.computeIfAbsent(c.file(), k -> once);
                    assertThat(once.energy()).as("%s, %d threads against 1", c.structure().name(), threads).isEqualTo(first.energy());
                    assertThat(once.forces()).isEqualTo(first.forces());
                    assertThat(once.virial()).isEqualTo(first.virial());
                    try (dev.penstock.device.Crew lent = new dev.penstock.device.Crew("lent", threads + 1)) {
                        AtomicSystem crewed = c.structure().system();
                        m.forget(crewed.id());
                        m.compute(crewed, lent);
                        assertThat(crewed.energy()).as("%s, a lent crew of %d", c.structure().name(), threads + 1).isEqualTo(once.energy());
                        assertThat(crewed.forces()).isEqualTo(once.forces());
                    }
                    for (int run = 0; run < 2; run++) {
                        AtomicSystem again = c.structure().system();
                        m.forget(again.id());
                        m.compute(again);
                        assertThat(again.energy()).as("%s, %d threads, run %d", c.structure().name(), threads, run).isEqualTo(once.energy());
                        assertThat(again.forces()).isEqualTo(once.forces());
                        assertThat(again.virial()).isEqualTo(once.virial());
                    }
                    // two callers at once (systems of their own ids): each gets the numbers it gets alone
                    List<java.util.concurrent.Future<AtomicSystem>> both = new ArrayList<>();
                    try (var callers = java.util.concurrent.Executors.newFixedThreadPool(2)) {
                        for (int caller = 0; caller < 2; caller++) {
                            long id = 100 + caller;
                            both.add(callers.submit(() -> {
                                AtomicSystem last = null;
                                for (int run = 0; run < 3; run++) {
                                    Structure st = c.structure();
                                    AtomicSystem mine = new AtomicSystem(id, st.r().clone(), st.system().masses(), st.z().clone(), st.system().cell());
                                    m.forget(id);
                                    m.compute(mine);
                                    if (last != null && mine.energy() != last.energy()) {
                                        return mine;
                                    }
                                    last = mine;
                                }
                                return last;
                            }));
                        }
                        for (var done : both) {
                            AtomicSystem got = done.get();
                            assertThat(got.energy()).as("%s, %d threads, two callers", c.structure().name(), threads).isEqualTo(once.energy());
                            assertThat(got.forces()).isEqualTo(once.forces());
                        }
                    }
                }
            }
        }
    }

    /// `Eam.virial(false)`, `Tersoff.virial(false)` (an NVE run that reports no pressure, as
    /// LAMMPS's benchmarks): the same energy and forces, bit for bit, on one thread and split, and
    /// no virial.
    @Test
    void fileModelsWithoutTheVirialGiveTheSameEnergyAndForces() throws Exception {
        assumeTrue(Files.isReadable(POTENTIALS.resolve("CuNi.eam.alloy")) || Ci.required(), "LAMMPS's potential files are not installed");
        Structure alloy = fcc("CuNi triclinic", 3, 3.56, 1.3, true, new int[] {29, 28}, 0.4, 5);
        Structure sic = diamond("SiC zincblende (Tersoff)", 2, 4.36, 0.6, new int[] {14, 6}, 41);
        for (int threads : new int[] {1, 2}) {
            Path cuNi = POTENTIALS.resolve("CuNi.eam.alloy");
            Path siC = POTENTIALS.resolve("SiC.tersoff");
            try (Eam eam = Eam.read(cuNi).threads(threads); Eam eamBare = Eam.read(cuNi).threads(threads).virial(false);
                 Tersoff tersoff = Tersoff.read(siC).threads(threads); Tersoff tersoffBare = Tersoff.read(siC).threads(threads).virial(false)) {
                for (Model[] pair : new Model[][] {{eam, eamBare}, {tersoff, tersoffBare}}) {
                    Structure st = pair[0] == eam ? alloy : sic;
                    AtomicSystem a = st.system();
                    AtomicSystem b = st.system();
                    pair[0].compute(a);
                    pair[1].compute(b);
                    assertThat(a.virial()).as("%s, %d threads", st.name(), threads).isNotNull();
                    assertThat(b.virial()).isNull();
                    assertThat(b.energy()).isEqualTo(a.energy());
                    assertThat(b.forces()).isEqualTo(a.forces());
                }
            }
        }
    }

    /// Diamond-lattice structures (`Lattices.diamond`); triclinic with `tiltXy` ≠ 0.
    private static Structure diamond(String name, int k, double a, double tiltXy, int[] species, long seed) {
        return structure(name, Lattices.diamond(1, k, a, tiltXy, species, seed));
    }

    @Test
    void stillingerWeberSiliconBulkMatchesLammps() throws Exception {
        checkSw("Si.sw", diamond("Si bulk", 2, 5.431, 0, new int[] {14, 14}, 13), new int[] {14});
    }

    @Test
    void stillingerWeberTriclinicSiliconAndAFreeClusterMatchLammps() throws Exception {
        checkSw("Si.sw", diamond("Si triclinic", 2, 5.431, 1.7, new int[] {14, 14}, 17), new int[] {14});
        Structure bulk = diamond("Si", 2, 5.431, 0, new int[] {14, 14}, 19);
        checkSw("Si.sw", new Structure("Si free cluster", bulk.r(), bulk.z(), new double[9], new boolean[3]), new int[] {14});
    }

    @Test
    void stillingerWeberGalliumNitrideMatchesLammps() throws Exception {
        checkSw("GaN.sw", diamond("GaN zincblende", 2, 4.52, 0.9, new int[] {31, 7}, 23), new int[] {31, 7});
    }

    @Test
    void tersoffSiliconBulkTriclinicAndClusterMatchLammps() throws Exception {
        checkTersoff("Si.tersoff", diamond("Si bulk (Tersoff)", 2, 5.431, 0, new int[] {14, 14}, 29), new int[] {14});
        checkTersoff("Si.tersoff", diamond("Si triclinic (Tersoff)", 2, 5.431, 1.7, new int[] {14, 14}, 31), new int[] {14});
        Structure bulk = diamond("Si", 2, 5.431, 0, new int[] {14, 14}, 37);
        checkTersoff("Si.tersoff", new Structure("Si cluster (Tersoff)", bulk.r(), bulk.z(), new double[9], new boolean[3]), new int[] {14});
    }

    @Test
    void tersoffSiliconCarbideMatchesLammps() throws Exception {
        checkTersoff("SiC.tersoff", diamond("SiC zincblende (Tersoff)", 2, 4.36, 0.6, new int[] {14, 6}, 41), new int[] {14, 6});
    }

    private void checkTersoff(String file, Structure s, int[] types) throws Exception {
        assumeTrue(Files.isExecutable(LMP) || Ci.required(), "LAMMPS (lammps) is not installed");
        check(Tersoff.read(POTENTIALS.resolve(file)), file, "tersoff", s, types);
    }

    private void checkSw(String file, Structure s, int[] types) throws Exception {
        assumeTrue(Files.isExecutable(LMP) || Ci.required(), "LAMMPS (lammps) is not installed");
        check(StillingerWeber.read(POTENTIALS.resolve(file)), file, "sw", s, types);
    }

    /// 100 NVE steps of a hot copper crystal (EAM) and of hot silicon (Tersoff) from LAMMPS's own
    /// `write_data` start: the total energy agrees with LAMMPS's thermo at every step. (Time runs
    /// in LAMMPS's metal unit conversion, `mvv2e` = 1.0364269e-4 amu·Å²/ps² per eV, which differs
    /// from CODATA's in the 8th digit: the comparison is of the potential and the integrator, not
    /// of a unit constant.)
    @Test
    void nveFromLammpsStartConservesTheSameTotalEnergyAtEveryStep() throws Exception {
        assumeTrue(Files.isExecutable(LMP) || Ci.required(), "LAMMPS (lammps) is not installed");
        Path cu = POTENTIALS.resolve("Cu_u3.eam");
        nve(Eam.read(cu), 29, "eam", "pair_coeff 1 1 " + cu, "lattice fcc 3.615", "", 900);
        Path si = POTENTIALS.resolve("Si.tersoff");
        nve(Tersoff.read(si), 14, "tersoff", "pair_coeff * * " + si + " Si", "lattice diamond 5.431", "mass 1 28.0855", 1500);
    }

    private void nve(Model model, int z, String style, String coeff, String lattice, String mass, int kelvin) throws Exception {
        Files.writeString(dir.resolve("in.nve"), String.join("\n", "units metal", "atom_style atomic", lattice,
                "region box block 0 3 0 3 0 3", "create_box 1 box", "create_atoms 1 box", mass, "pair_style " + style, coeff,
                "velocity all create " + kelvin + ".0 4928459 loop geom", "neighbor 1.0 bin", "neigh_modify delay 0 every 1 check yes",
                "timestep 0.001", "fix 1 all nve", "write_data start.data", "thermo 1", "thermo_style custom step pe ke etotal",
                "thermo_modify format float %.17g", "run 100", ""));
        Process p = new ProcessBuilder(LMP.toString(), "-in", "in.nve", "-log", "log.lammps", "-screen", "none").directory(dir.toFile())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as("LAMMPS: %s", out).isZero();
        double[] lammps = LammpsLog.read(dir.resolve("log.lammps")).column("TotEng");
        assertThat(lammps).hasSize(101);
        AtomicSystem s = dev.penstock.atoms.io.LammpsData.read(dir.resolve("start.data"), 1);
        java.util.Arrays.fill(s.numbers(), z);
        double tauPs = Math.sqrt(1.0364269e-4); // LAMMPS's metal time unit: ps per sqrt(amu Å² / eV)
        for (int i = 0; i < s.velocities().length; i++) {
            s.velocities()[i] *= tauPs; // Å/ps → Å/τ
        }
        dev.penstock.atoms.integrate.NveReference vv = new dev.penstock.atoms.integrate.NveReference(0.001 / tauPs);
        model.compute(s);
        double worst = 0;
        for (int step = 0; step <= 100; step++) {
            if (step > 0) {
                vv.step(s, model);
            }
            double e = s.energy() + dev.penstock.atoms.integrate.NveReference.kineticEnergy(s);
            double rel = Math.abs(e - lammps[step]) / Math.abs(lammps[step]);
            worst = Math.max(worst, rel);
            assertThat(rel).as("%s step %d: %s vs LAMMPS %s", style, step, e, lammps[step]).isLessThan(1e-13);
        }
        System.out.printf(Locale.ROOT, "NVE %s, %d atoms, 100 steps: largest relative difference in total energy %.2e%n", style, s.atoms(),
                worst);
    }

    @Test
    void aBadFileIsRefusedNamingTheFileAndLine() throws Exception {
        assertThatThrownBy(() -> Eam.read(dir.resolve("missing.eam"))).hasMessageContaining("missing.eam").hasMessageContaining("no such");
        assumeTrue(Files.isReadable(POTENTIALS.resolve("Cu_u3.eam")) || Ci.required(), "LAMMPS's potential files are not installed");
        List<String> lines = Files.readAllLines(POTENTIALS.resolve("Cu_u3.eam"));
        Path truncated = dir.resolve("truncated.eam");
        Files.write(truncated, lines.subList(0, 40));
        assertThatThrownBy(() -> Eam.read(truncated)).hasMessageContaining("truncated.eam").hasMessageContaining("ends at line 40")
                .hasMessageContaining("F(rho) of Cu");
        Path garbled = dir.resolve("garbled.eam");
        List<String> bad = new ArrayList<>(lines);
        bad.set(10, bad.get(10).replaceFirst("-?[0-9]", "x"));
        Files.write(garbled, bad);
        assertThatThrownBy(() -> Eam.read(garbled)).hasMessageContaining("garbled.eam line 11").hasMessageContaining("not a number");
        Eam cu = Eam.read(POTENTIALS.resolve("Cu_u3.eam"));
        AtomicSystem argon = AtomicSystem.free(3, new double[] {0, 0, 0, 2.5, 0, 0});
        argon.numbers()[0] = 18;
        assertThatThrownBy(() -> cu.compute(argon)).hasMessageContaining("atom 0 is Ar").hasMessageContaining("it has Cu");
    }

    /// Compares Penstock's EAM and LAMMPS on `s` with `file` (`style`), LAMMPS types numbered by `types`' order.
    private void check(String file, String style, Structure s, int[] types) throws Exception {
        assumeTrue(Files.isExecutable(LMP) || Ci.required(), "LAMMPS (lammps) is not installed");
        check(Eam.read(POTENTIALS.resolve(file)), file, style, s, types);
    }

    /// Compares `model` and LAMMPS's `style` with `file` on `s`.
    private void check(Model model, String file, String style, Structure s, int[] types) throws Exception {
        Path potential = POTENTIALS.resolve(file);
        StringBuilder elements = new StringBuilder();
        for (int z : types) {
            elements.append(' ').append(Elements.symbol(z));
        }
        String coeff = style.equals("eam") ? "pair_coeff 1 1 " + potential : "pair_coeff * * " + potential + elements;
        checkPair(model, file, "pair_style " + style + "\n" + coeff, s, types);
    }

    /// Compares `model` and LAMMPS under `pair` (its pair_style and pair_coeff lines) on `s`.
    private void checkPair(Model model, String file, String pair, Structure s, int[] types) throws Exception {
        AtomicSystem mine = s.system();
        model.compute(mine);

        writeData(dir.resolve("data.in"), s, types);
        String boundary = s.pbc()[0] ? "p p " + (s.pbc()[2] ? "p" : "s") : "s s s";
        Files.writeString(dir.resolve("in.eam"), String.join("\n", "units metal", "atom_style atomic", "atom_modify map array",
                "boundary " + boundary, "read_data data.in", pair, "neighbor 1.0 bin",
                "compute v all pressure NULL virial", "thermo_style custom step pe vol c_v[1] c_v[2] c_v[3] c_v[4] c_v[5] c_v[6]",
                "thermo_modify format float %.17g",
                "dump d all custom 1 forces.dump id fx fy fz", "dump_modify d format float %.17g sort id", "run 0", ""));
        Process p = new ProcessBuilder(LMP.toString(), "-in", "in.eam", "-log", "log.lammps", "-screen", "none").directory(dir.toFile())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as("LAMMPS: %s", out).isZero();
        LammpsLog log = LammpsLog.read(dir.resolve("log.lammps"));
        double lammpsEnergy = log.column("PotEng")[0];
        double[] lammpsForces = forces(dir.resolve("forces.dump"), s.z().length);

        assertThat(Math.abs(mine.energy() - lammpsEnergy) / Math.abs(lammpsEnergy)).as("%s: energy %s vs LAMMPS %s", s.name(),
                mine.energy(), lammpsEnergy).isLessThan(1e-13);
        double worst = 0;
        for (int i = 0; i < lammpsForces.length; i++) {
            worst = Math.max(worst, Math.abs(mine.forces()[i] - lammpsForces[i]));
        }
        System.out.printf(Locale.ROOT, "%s (%s, %d atoms): energy %.12f eV, relative difference %.2e; largest force difference %.2e eV/Å%n",
                s.name(), file, s.z().length, mine.energy(), Math.abs(mine.energy() - lammpsEnergy) / Math.abs(lammpsEnergy), worst);
        assertThat(worst).as("%s: largest force difference (eV/Å)", s.name()).isLessThan(2e-11);
        assertThat(max(lammpsForces)).as("%s: the structure is perturbed (forces are not ~0)", s.name()).isGreaterThan(0.05);
        if (s.pbc()[0] && s.pbc()[1] && s.pbc()[2]) {
            // LAMMPS's virial pressure (bar) back to the virial (eV): W = P·V / nktv2p (metal units)
            double volume = log.column("Volume")[0];
            double[] p6 = new double[6];
            for (int k = 0; k < 6; k++) {
                p6[k] = log.column("c_v[" + (k + 1) + "]")[0] * volume / 1.6021765e6;
            }
            double[] lw = {p6[0], p6[3], p6[4], p6[3], p6[1], p6[5], p6[4], p6[5], p6[2]};
            double[] w = mine.virial();
            double worstW = 0;
            double largestW = 1;
            for (int k = 0; k < 9; k++) {
                worstW = Math.max(worstW, Math.abs(w[k] - lw[k]));
                largestW = Math.max(largestW, Math.abs(lw[k]));
            }
            System.out.printf(Locale.ROOT, "%s: virial xx %.6f eV, largest difference from LAMMPS %.2e eV%n", s.name(), w[0], worstW);
            assertThat(volume).isCloseTo(mine.cell().volume(), org.assertj.core.data.Offset.offset(1e-9 * volume));
            assertThat(worstW / largestW).as("%s: largest virial difference over the largest component", s.name()).isLessThan(1e-13);
        }
    }

    private static double max(double[] v) {
        double m = 0;
        for (double x : v) {
            m = Math.max(m, Math.abs(x));
        }
        return m;
    }

    private static void writeData(Path file, Structure s, int[] types) throws Exception {
        int n = s.z().length;
        StringBuilder b = new StringBuilder("LAMMPS data file (Penstock EAM test)\n\n");
        b.append(n).append(" atoms\n").append(types.length).append(" atom types\n\n");
        double[] lo = new double[3];
        double[] hi = new double[3];
        if (s.pbc()[0]) {
            hi[0] = s.cell()[0];
            hi[1] = s.cell()[4];
            if (s.pbc()[2]) {
                hi[2] = s.cell()[8];
            } else {
                bounds(s.r(), 2, lo, hi);
            }
        } else {
            for (int d = 0; d < 3; d++) {
                bounds(s.r(), d, lo, hi);
            }
        }
        String[] axis = {"x", "y", "z"};
        for (int d = 0; d < 3; d++) {
            b.append(String.format(Locale.ROOT, "%.17g %.17g %slo %shi%n", lo[d], hi[d], axis[d], axis[d]));
        }
        if (s.pbc()[0] && s.cell()[3] != 0) {
            b.append(String.format(Locale.ROOT, "%.17g 0 0 xy xz yz%n", s.cell()[3]));
        }
        b.append("\nMasses\n\n");
        for (int t = 0; t < types.length; t++) {
            b.append(t + 1).append(' ').append(String.format(Locale.ROOT, "%.17g", Elements.mass(types[t]))).append('\n');
        }
        b.append("\nAtoms # atomic\n\n");
        for (int i = 0; i < n; i++) {
            int type = 0;
            while (types[type] != s.z()[i]) {
                type++;
            }
            b.append(String.format(Locale.ROOT, "%d %d %.17g %.17g %.17g%n", i + 1, type + 1, s.r()[3 * i], s.r()[3 * i + 1], s.r()[3 * i + 2]));
        }
        Files.writeString(file, b);
    }

    private static void bounds(double[] r, int d, double[] lo, double[] hi) {
        lo[d] = Double.POSITIVE_INFINITY;
        hi[d] = Double.NEGATIVE_INFINITY;
        for (int i = d; i < r.length; i += 3) {
            lo[d] = Math.min(lo[d], r[i] - 1);
            hi[d] = Math.max(hi[d], r[i] + 1);
        }
    }

    private static double[] forces(Path dump, int n) throws Exception {
        List<String> lines = Files.readAllLines(dump);
        int at = lines.indexOf(lines.stream().filter(l -> l.startsWith("ITEM: ATOMS")).findFirst().orElseThrow());
        double[] f = new double[3 * n];
        for (int k = 0; k < n; k++) {
            String[] t = lines.get(at + 1 + k).trim().split("\\s+");
            int id = Integer.parseInt(t[0]) - 1;
            for (int d = 0; d < 3; d++) {
                f[3 * id + d] = Double.parseDouble(t[1 + d]);
            }
        }
        return f;
    }
}
