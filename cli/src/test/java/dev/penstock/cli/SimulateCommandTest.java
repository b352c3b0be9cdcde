package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Python;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The README's `simulate` example, end to end, checked with ASE and zarr-python.
class SimulateCommandTest {
    private static final String EXAMPLE = "../examples/argon-clusters.xyz";
    private static final String PIPELINE = "fire(fmax=0.005) + langevin(T=40, dt=5, steps=300) | nve(dt=5, steps=200)";
    private static final String LJ = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";

    @TempDir
    Path dir;

    @Test
    void theExampleWritesEveryFinishedSystemWithItsEnergyAndStageHistory() throws Exception {
        Path xyz = dir.resolve("out.xyz");
        String out = MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", xyz.toString(),
                "--max-atoms", "500", "--mode", "fully-async", "--snapshots", dir.resolve("snaps").toString());
        assertThat(java.nio.file.Files.readString(dir.resolve("snaps/converged.xyz"))).contains("stage=\"nve\"").contains("steps=\"200\"");
        assertThat(out).contains("24 systems, 1,553 atoms").contains("fire+langevin").contains("24 of 24 systems finished")
                .contains("atom-steps/s");
        assumeTrue(Python.required() || Python.has("ase"), "ASE (python3-ase) is not installed");
        // ASE reads the file; its own Lennard-Jones gives the energy written for each system
        Python.Result r = Python.run("""
                import sys
                from ase.io import read
                from ase.calculators.lj import LennardJones
                frames = read(sys.argv[1], index=':')
                ids = sorted(a.info['id'] for a in frames)
                assert ids == list(range(24)), ids
                worst = 0.0
                for a in frames:
                    stages = a.info['stages'].split(',')
                    assert [s.split(':')[0] for s in stages] == ['fire', 'langevin', 'nve'], stages
                    assert stages[1:] == ['langevin:300', 'nve:200'], stages
                    written = a.info['energy']
                    a.calc = LennardJones(epsilon=0.0104, sigma=3.4, rc=8.5)
                    e = a.get_potential_energy()
                    worst = max(worst, abs(e - written) / abs(e))
                print('worst', worst)
                """, xyz.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        double worst = Double.parseDouble(r.output().lines().filter(l -> l.startsWith("worst")).findFirst().orElseThrow().substring(6));
        assertThat(worst).as("energy written vs ASE's on the written positions").isLessThan(1e-9);
    }

    @Test
    void theThreadCountChangesNoByteOfTheOutput() throws Exception {
        Path one = dir.resolve("one.xyz");
        Path three = dir.resolve("three.xyz");
        MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", one.toString(), "--max-atoms", "500",
                "--threads", "1");
        MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", three.toString(), "--max-atoms", "500",
                "--threads", "3", "--mode", "async-receive");
        assertThat(frames(three)).hasSize(24).isEqualTo(frames(one)); // no frame may differ
        assertThat(java.nio.file.Files.readString(three)).as("input order: the same bytes whatever the threads and mode")
                .isEqualTo(java.nio.file.Files.readString(one));
        String ids = java.nio.file.Files.readAllLines(one).stream().filter(l -> l.contains(" id=")).map(l -> l.replaceAll(".* id=(\\d+).*", "$1"))
                .reduce((a, b) -> a + "," + b).orElse("");
        assertThat(ids).as("systems in the order of the input file").isEqualTo(java.util.stream.IntStream.range(0, 24)
                .mapToObj(Integer::toString).reduce((a, b) -> a + "," + b).orElse(""));
        Path completion = dir.resolve("completion.xyz");
        MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", completion.toString(), "--max-atoms", "500",
                "--order", "completion");
        assertThat(frames(completion)).isEqualTo(frames(one));
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", dir.resolve("x.xyz").toString(),
                "--threads", "0")).contains("option '--threads'").contains("0");
    }

    @Test
    void aZarrOutputHoldsTheSameSystemsAsTheXyzOutput() throws Exception {
        Path xyz = dir.resolve("out.xyz");
        Path zarr = dir.resolve("out.zarr");
        MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", xyz.toString(), "--max-atoms", "700");
        MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", zarr.toString(), "--max-atoms", "300",
                "--mode", "async-receive");
        assumeTrue(Python.required() || (Python.has("ase") && Python.has("zarr")), "ASE and zarr-python are not installed");
        Python.Result r = Python.run("""
                import sys
                import numpy as np
                import zarr
                from ase.io import read
                frames = {a.info['id']: a for a in read(sys.argv[1], index=':')}
                g = zarr.open(sys.argv[2], mode='r')
                ids = g['id'][:, 0]
                assert sorted(ids) == sorted(frames), ids
                for k, i in enumerate(ids):
                    s, n = g['atom_start'][k, 0], g['atom_count'][k, 0]
                    a = frames[i]
                    assert n == len(a)
                    assert np.array_equal(g['positions'][s:s + n], a.positions), i
                    assert np.array_equal(g['numbers'][s:s + n, 0], a.numbers), i
                    assert g['energy'][k, 0] == a.info['energy'], i
                print('same', len(ids))
                """, xyz.toString(), zarr.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("same 24");
    }

    private static java.util.Map<Long, String> positions(Path xyz) throws Exception {
        java.util.Map<Long, String> out = new java.util.TreeMap<>();
        try (var in = java.nio.file.Files.newBufferedReader(xyz)) {
            for (var s : dev.penstock.atoms.io.ExtXyz.read(in, xyz)) {
                out.put(s.id(), java.util.Arrays.toString(s.positions()) + " " + s.energy() + " " + s.info().get("stages"));
            }
        }
        return out;
    }

    /// Each frame's text (count, comment, atom lines) by system id.
    static java.util.Map<Long, String> frames(Path xyz) throws Exception {
        java.util.Map<Long, String> out = new java.util.TreeMap<>();
        java.util.List<String> lines = java.nio.file.Files.readAllLines(xyz);
        java.util.regex.Pattern id = java.util.regex.Pattern.compile("(?:^| )id=(\\d+)");
        for (int i = 0; i < lines.size(); ) {
            int n = Integer.parseInt(lines.get(i).trim());
            java.util.regex.Matcher m = id.matcher(lines.get(i + 1));
            assertThat(m.find()).as(lines.get(i + 1)).isTrue();
            out.put(Long.parseLong(m.group(1)), String.join("\n", lines.subList(i, i + 2 + n)));
            i += 2 + n;
        }
        return out;
    }

    @Test
    void theFlinkRunnerWritesWhatTheLocalRunnerWrites() throws Exception {
        Path local = dir.resolve("local.xyz");
        Path flink = dir.resolve("flink.xyz");
        MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", local.toString(), "--max-atoms", "500");
        String out = MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", flink.toString(),
                "--max-atoms", "500", "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "200");
        assertThat(out).contains("24 of 24 systems finished on Flink");
        assertThat(positions(flink)).hasSize(24).isEqualTo(positions(local));
        assertThat(frames(flink)).as("every field written, forces included, byte for byte").hasSize(24).isEqualTo(frames(local));
        assertThat(frames(flink).values()).allMatch(f -> f.lines().skip(2).anyMatch(l -> !l.endsWith(" 0.0 0.0 0.0")),
                "forces are written, not zeros");
        assertThat(dir.resolve("flink.xyz.parts")).as("the committed parts were joined and removed").doesNotExist();
    }

    @Test
    void aSystemThatCannotBeSimulatedIsQuarantinedAndKeptWithItsDiagnosis() throws Exception {
        Path in = dir.resolve("two.xyz");
        java.nio.file.Files.writeString(in, """
                2
                id=1 pbc="F F F"
                Ar 0 0 0
                Ar 3.8 0 0
                2
                id=2 pbc="F F F"
                Ar 0 0 0
                Ar 0 0 0
                """);
        Path out = dir.resolve("out.xyz");
        String printed = MainTest.run(4, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01) | nve(dt=5, steps=10)", "--potential", LJ,
                "--out", out.toString());
        assertThat(printed).contains("1 of 2 systems finished").contains("quarantined: system 2");
        assertThat(positions(out)).containsOnlyKeys(1L);
        String bad = java.nio.file.Files.readString(dir.resolve("out.xyz.quarantined.xyz"));
        assertThat(bad).contains("id=2").contains("quarantined=\"system 2").contains("overlap").contains("stages=\"fire:quarantined\"");
    }

    @Test
    void badPipelinesArePointedOutBeforeAnythingRuns() {
        Path xyz = dir.resolve("never.xyz");
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", "fire(fmax=0.01) | nve(dt=1)", "--potential", LJ, "--out", xyz.toString()))
                .contains("'nve' needs 'steps'");
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", "fire(fmax=0.01, tmax=3)", "--potential", LJ, "--out", xyz.toString()))
                .contains("'fire' has no argument 'tmax'");
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", "fire(fmax=0.01) ++ nve(dt=1, steps=3)", "--potential", LJ, "--out",
                xyz.toString())).contains("empty stage");
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", "nve(dt=1, steps=3)", "--potential", "buckingham(a=1)", "--out",
                xyz.toString())).contains("unknown potential 'buckingham'");
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", "nve(dt=1, steps=3)", "--potential", LJ, "--out", xyz.toString(),
                "--max-atoms", "100")).contains("larger than a stage").contains("(stage 0");
        assertThat(xyz).doesNotExist();
    }

    @Test
    void copperNanoparticlesRunUnderEamAndAnElementTheFileLacksIsRefusedBeforeAnythingRuns() throws Exception {
        Path cuEam = Path.of("/usr/share/lammps/potentials/Cu_u3.eam");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(cuEam) || dev.penstock.testing.Ci.required(),
                "LAMMPS's potential files (lammps) are not installed");
        String eam = "eam(file=" + cuEam + ")";
        Path out = dir.resolve("copper.xyz");
        assertThat(MainTest.run(0, "simulate", "../examples/copper-nanoparticles.xyz", "--pipeline", "fire(fmax=0.05, steps=300)",
                "--potential", eam, "--max-atoms", "1200", "--out", out.toString())).contains("16 of 16 systems finished");
        assertThat(positions(out)).hasSize(16);
        Path never = dir.resolve("never.xyz");
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", "fire(fmax=0.01)", "--potential", eam, "--out", never.toString()))
                .contains("atom 0 is Ar, which Cu_u3.eam does not describe (it has Cu)");
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--runner", "flink", "--pipeline", "fire(fmax=0.01)", "--potential", eam, "--out",
                never.toString())).contains("stage 0 ('fire'): system 0: atom 0 is Ar");
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", "fire(fmax=0.01)", "--potential", "eam(file=" + dir.resolve("no.eam")
                + ")", "--out", never.toString())).contains("no.eam: no such EAM potential file");
        assertThat(never).doesNotExist();
    }

    @Test
    void jsonPutsOneSummaryObjectOnStdoutThatPythonReads() throws Exception {
        Path out = dir.resolve("json.xyz");
        String json = MainTest.stdout(0, "simulate", EXAMPLE, "--pipeline", "fire(fmax=0.01) | nve(dt=5, steps=50)", "--potential", LJ,
                "--out", out.toString(), "--json");
        assertThat(json.strip()).startsWith("{").endsWith("}").doesNotContain("\n");
        Path file = dir.resolve("summary.json");
        java.nio.file.Files.writeString(file, json);
        Process p = new ProcessBuilder("/usr/bin/python3", "-c", "import json,sys; d=json.load(open(sys.argv[1])); "
                + "print(d['systems'], d['finished'], len(d['stages']), d['stages'][1]['name'], d['stages'][1]['graduated'][0], d['quarantined_out'])",
                file.toString()).redirectErrorStream(true).start();
        String read = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).as(read).isZero();
        assertThat(read).isEqualTo("24 24 2 nve 24 None");
    }
}
