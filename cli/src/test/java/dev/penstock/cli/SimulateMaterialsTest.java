package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The file potentials `SimulateDeviceTest` does not run — Stillinger–Weber and the two
/// multi-element EAM formats (setfl `*.eam.alloy`, Finnis–Sinclair `*.eam.fs`) — through
/// `simulate` as a user runs it: byte for byte the per-system stages' output, the same bits on
/// Flink, each atom keeping its element; and an element the file lacks is one line naming it.
class SimulateMaterialsTest {
    private static final Path POTENTIALS = Path.of("/usr/share/lammps/potentials");
    private static final String PIPELINE = "fire(fmax=0.05, steps=200) + langevin(T=500, dt=1, steps=40) | fire(fmax=0.05, steps=200)";

    @TempDir
    Path dir;

    @BeforeEach
    void potentials() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(POTENTIALS.resolve("CuNi.eam.alloy")) || dev.penstock.testing.Ci.required(),
                "LAMMPS's potential files (lammps-data) are not installed");
    }

    /// The first `count` systems of the README's copper nanoparticles, every third atom of each
    /// made `other`: two-element clusters.
    private Path alloy(String other, int count) throws Exception {
        List<AtomicSystem> systems;
        Path copper = Path.of("../examples/copper-nanoparticles.xyz");
        try (var r = Files.newBufferedReader(copper)) {
            systems = new ArrayList<>(ExtXyz.read(r, copper).subList(0, count));
        }
        int z = dev.penstock.atoms.io.Elements.number(other);
        for (AtomicSystem s : systems) {
            for (int i = 2; i < s.atoms(); i += 3) {
                s.numbers()[i] = z;
            }
        }
        Path out = dir.resolve("Cu" + other + ".xyz");
        try (var w = Files.newBufferedWriter(out)) {
            ExtXyz.write(w, systems);
        }
        return out;
    }

    /// `simulate` of `in` under `potential` against the per-system stages (bytes) and on Flink
    /// (bits); returns the local output.
    private Map<Long, AtomicSystem> simulateThreeWays(Path in, String potential, int systems) throws Exception {
        Path perSystem = dir.resolve("per-system.xyz");
        Path local = dir.resolve("local.xyz");
        Path flink = dir.resolve("flink.xyz");
        PerSystemReference.write(in, PIPELINE, potential, 800, 7, perSystem);
        assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", PIPELINE, "--potential", potential, "--max-atoms", "800",
                "--seed", "7", "--out", local.toString())).contains(systems + " of " + systems + " systems finished");
        assertThat(Files.readString(local)).as("%s: the per-system stages' bytes", potential).isEqualTo(Files.readString(perSystem));
        assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", PIPELINE, "--potential", potential, "--max-atoms", "800",
                "--seed", "7", "--out", flink.toString(), "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "100"))
                .contains(systems + " of " + systems + " systems finished on Flink");
        Map<Long, AtomicSystem> a = SimulateDeviceTest.read(local);
        Map<Long, AtomicSystem> b = SimulateDeviceTest.read(flink);
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(systems);
        for (long id : a.keySet()) {
            assertThat(b.get(id).positions()).as("%s, system %d on Flink, bit for bit", potential, id).isEqualTo(a.get(id).positions());
            assertThat(b.get(id).energy()).as("%s, system %d on Flink", potential, id).isEqualTo(a.get(id).energy());
            assertThat(b.get(id).info().get("stages")).isEqualTo(a.get(id).info().get("stages"));
        }
        return a;
    }

    @Test
    void stillingerWeberSiliconRunsOnTheDeviceAsOnThePerSystemStagesAndOnFlink() throws Exception {
        Map<Long, AtomicSystem> out = simulateThreeWays(Path.of("../examples/silicon.xyz"), "sw(file=" + POTENTIALS.resolve("Si.sw") + ")", 8);
        for (AtomicSystem s : out.values()) {
            assertThat(Double.isFinite(s.energy())).isTrue();
            assertThat(s.energy() / s.atoms()).as("Si.sw's cohesive energy per atom, about −4.3 eV").isBetween(-4.5, -3.5);
        }
    }

    /// docs/atomistics.md's machine-learned potential: SNAP with its ZBL overlay (`Ta06A.snap`, read whole)
    /// over periodic tantalum boxes and free clusters.
    @Test
    void snapTantalumRunsOnTheDeviceAsOnThePerSystemStagesAndOnFlink() throws Exception {
        Map<Long, AtomicSystem> out = simulateThreeWays(Path.of("../examples/tantalum.xyz"), "snap(file=" + POTENTIALS.resolve("Ta06A.snap") + ")", 8);
        for (AtomicSystem s : out.values()) {
            assertThat(s.energy() / s.atoms()).as("Ta06A's cohesive energy per atom, about −11.7 eV in the bulk").isBetween(-12.5, -9.0);
        }
    }

    /// A crystal of 2 × 2 × 2 cubic cells of `basis` (lattice constant `a` Å, the atoms of basis
    /// site b element `z[b % z.length]`), each atom off its site by up to 0.05 Å; and the same
    /// stretched by 2% (the models are fitted to bulk structures: a free cluster is beyond some).
    private static List<AtomicSystem> crystalAndCluster(double[][] basis, double a, int... z) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
        int n = 8 * basis.length;
        double[] r = new double[3 * n];
        int[] numbers = new int[n];
        int p = 0;
        for (int x = 0; x < 2; x++) {
            for (int y = 0; y < 2; y++) {
                for (int w = 0; w < 2; w++) {
                    for (int b = 0; b < basis.length; b++) {
                        r[3 * p] = (x + basis[b][0]) * a + rnd.nextDouble(-0.05, 0.05);
                        r[3 * p + 1] = (y + basis[b][1]) * a + rnd.nextDouble(-0.05, 0.05);
                        r[3 * p + 2] = (w + basis[b][2]) * a + rnd.nextDouble(-0.05, 0.05);
                        numbers[p++] = z[b % z.length];
                    }
                }
            }
        }
        double[] m = new double[n];
        for (int i = 0; i < n; i++) {
            m[i] = dev.penstock.atoms.io.Elements.mass(numbers[i]);
        }
        AtomicSystem bulk = new AtomicSystem(0, r, m, numbers, dev.penstock.atoms.system.Cell.of(new double[] {2 * a, 0, 0, 0, 2 * a, 0, 0, 0, 2 * a},
                new boolean[] {true, true, true}));
        double[] stretched = r.clone();
        for (int q = 0; q < stretched.length; q++) {
            stretched[q] *= 1.02;
        }
        double b = 2.04 * a;
        AtomicSystem strained = new AtomicSystem(1, stretched, m.clone(), numbers.clone(), dev.penstock.atoms.system.Cell.of(
                new double[] {b, 0, 0, 0, b, 0, 0, 0, b}, new boolean[] {true, true, true}));
        return List.of(bulk, strained);
    }

    /// Every SNAP and ML-IAP model LAMMPS ships (Debian's lammps-data: the `*.snap` and `*.mliap`
    /// definitions, ZBL overlaid where they say so, and the Cu network through its two files)
    /// relaxes and runs MD through `simulate` over two crystals of its elements: both systems
    /// through both stages with finite energies (the models' agreement with LAMMPS is
    /// `SnapVersusLammpsTest`'s).
    @Test
    void everyShippedSnapAndMliapModelRelaxesAndRunsMdThroughSimulate() throws Exception {
        double[][] bcc = {{0, 0, 0}, {0.5, 0.5, 0.5}};
        double[][] fcc = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
        double[][] diamond = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}, {0.25, 0.25, 0.25}, {0.75, 0.75, 0.25},
            {0.75, 0.25, 0.75}, {0.25, 0.75, 0.75}};
        double[][] zincblende = {{0, 0, 0}, {0.25, 0.25, 0.25}, {0.5, 0.5, 0}, {0.75, 0.75, 0.25}, {0.5, 0, 0.5}, {0.75, 0.25, 0.75},
            {0, 0.5, 0.5}, {0.25, 0.75, 0.75}};
        Object[][] models = {
            {"snap(file=Ta06A.snap)", bcc, 3.316, new int[] {73}}, {"snap(file=W_2940_2017_2.snap)", bcc, 3.165, new int[] {74}},
            {"snap(file=Mo_Chen_PRM2017.snap)", bcc, 3.16, new int[] {42}}, {"snap(file=InP_JCPA2020.snap)", zincblende, 5.87, new int[] {49, 15}},
            {"snap(file=WBe_Wood_PRB2019.snap)", bcc, 3.165, new int[] {74, 74, 74, 4}},
            {"snap(file=Cu_Zuo_JPCA2020.snap)", fcc, 3.62, new int[] {29}}, {"snap(file=Cu_Zuo_JPCA2020.quadratic.snap)", fcc, 3.62, new int[] {29}},
            {"snap(file=Ni_Zuo_JPCA2020.snap)", fcc, 3.52, new int[] {28}}, {"snap(file=Ni_Zuo_JPCA2020.quadratic.snap)", fcc, 3.52, new int[] {28}},
            {"snap(file=Mo_Zuo_JPCA2020.snap)", bcc, 3.16, new int[] {42}}, {"snap(file=Mo_Zuo_JPCA2020.quadratic.snap)", bcc, 3.16, new int[] {42}},
            {"snap(file=Li_Zuo_JPCA2020.snap)", bcc, 3.44, new int[] {3}}, {"snap(file=Li_Zuo_JPCA2020.quadratic.snap)", bcc, 3.44, new int[] {3}},
            {"snap(file=Ge_Zuo_JPCA2020.snap)", diamond, 5.66, new int[] {32}}, {"snap(file=Ge_Zuo_JPCA2020.quadratic.snap)", diamond, 5.66, new int[] {32}},
            {"snap(file=Si_Zuo_JPCA2020.snap)", diamond, 5.43, new int[] {14}}, {"snap(file=Si_Zuo_JPCA2020.quadratic.snap)", diamond, 5.43, new int[] {14}},
            {"mliap(file=Ta06A.mliap)", bcc, 3.316, new int[] {73}}, {"mliap(file=Ta06A.nn.mliap)", bcc, 3.316, new int[] {73}},
            {"mliap(file=W.quadratic.mliap)", bcc, 3.165, new int[] {74}}, {"mliap(file=WBe_Wood_PRB2019.mliap)", bcc, 3.165, new int[] {74, 74, 74, 4}},
            {"mliap(file=InP_JCPA2020.mliap)", zincblende, 5.87, new int[] {49, 15}},
            {"mliap(model=Cu.nn.mliap.model, descriptor=Cu.snap.mliap.descriptor, kind=nn)", fcc, 3.62, new int[] {29}}};
        String pipeline = "fire(steps=40) | nve(dt=0.5, steps=20)"; // a relaxation budget alone: every system passes on
        for (Object[] m : models) {
            String potential = ((String) m[0]).replaceAll("(file|model|descriptor)=", "$1=" + POTENTIALS + "/");
            Path in = dir.resolve("in.xyz");
            try (var w = Files.newBufferedWriter(in)) {
                ExtXyz.write(w, crystalAndCluster((double[][]) m[1], (double) m[2], (int[]) m[3]));
            }
            Path out = dir.resolve("out.xyz");
            assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", potential, "--out", out.toString()))
                    .as(potential).contains("2 of 2 systems finished");
            Map<Long, AtomicSystem> done = SimulateDeviceTest.read(out);
            for (AtomicSystem s : done.values()) {
                assertThat(Double.isFinite(s.energy())).as("%s, system %d: energy %s", potential, s.id(), s.energy()).isTrue();
                assertThat(s.info().get("stages")).as("%s, system %d", potential, s.id()).asString().contains("fire:40").contains("nve:20");
            }
            assertThat(done.get(0L).energy()).as("%s: two crystals, two energies", potential).isNotEqualTo(done.get(1L).energy());
        }
    }

    /// ML-IAP's neural network on SNAP descriptors with its ZBL overlay (`Ta06A.nn.mliap`, read
    /// whole) through `simulate` locally, as the per-system stages do, and on Flink.
    @Test
    void anMliapNetworkRunsOnTheDeviceAsOnThePerSystemStagesAndOnFlink() throws Exception {
        Map<Long, AtomicSystem> out = simulateThreeWays(Path.of("../examples/tantalum.xyz"), "mliap(file=" + POTENTIALS.resolve("Ta06A.nn.mliap")
                + ")", 8);
        for (AtomicSystem s : out.values()) {
            assertThat(s.energy() / s.atoms()).as("Ta06A.nn's cohesive energy per atom, about −11.7 eV in the bulk").isBetween(-12.5, -9.0);
        }
    }

    @Test
    void setflAndFinnisSinclairAlloysKeepEachAtomsElementOnTheDeviceAndOnFlink() throws Exception {
        String[][] runs = {{"Ni", "CuNi.eam.alloy"}, {"Zr", "CuZr_mm.eam.fs"}};
        for (String[] r : runs) {
            Path in = alloy(r[0], 6);
            Map<Long, AtomicSystem> before = SimulateDeviceTest.read(in);
            Map<Long, AtomicSystem> out = simulateThreeWays(in, "eam(file=" + POTENTIALS.resolve(r[1]) + ")", 6);
            for (long id : before.keySet()) {
                assertThat(out.get(id).numbers()).as("%s, system %d: each atom's element", r[1], id).isEqualTo(before.get(id).numbers());
                assertThat(out.get(id).energy()).as("%s, system %d: bound", r[1], id).isNegative();
            }
        }
    }

    @Test
    void anElementTheFileLacksIsOneLineNamingItAndTheFile() throws Exception {
        Path in = alloy("Zr", 2);
        Path out = dir.resolve("never.xyz");
        String printed = MainTest.run(2, "simulate", in.toString(), "--pipeline", PIPELINE, "--potential",
                "eam(file=" + POTENTIALS.resolve("CuNi.eam.alloy") + ")", "--out", out.toString());
        assertThat(printed).contains("Zr").contains("CuNi.eam.alloy").doesNotContain("\tat ");
        assertThat(out).doesNotExist();
    }
}
