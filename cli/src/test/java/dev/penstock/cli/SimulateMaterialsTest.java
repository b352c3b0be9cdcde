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

    /// The README's machine-learned potential: SNAP with its ZBL overlay (`Ta06A.snap`, read whole)
    /// over periodic tantalum boxes and free clusters.
    @Test
    void snapTantalumRunsOnTheDeviceAsOnThePerSystemStagesAndOnFlink() throws Exception {
        Map<Long, AtomicSystem> out = simulateThreeWays(Path.of("../examples/tantalum.xyz"), "snap(file=" + POTENTIALS.resolve("Ta06A.snap") + ")", 8);
        for (AtomicSystem s : out.values()) {
            assertThat(s.energy() / s.atoms()).as("Ta06A's cohesive energy per atom, about −11.7 eV in the bulk").isBetween(-12.5, -9.0);
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
