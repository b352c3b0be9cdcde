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

    /// `--timeline`: a lane per stage worker, each with steps drawn (the step colour in both
    /// lanes' rows), named in the output; the results are those of a run without it.
    @Test
    void theTimelineDrawsALanePerStageWorker() throws Exception {
        Path png = dir.resolve("where.png");
        Path with = dir.resolve("with.xyz");
        Path without = dir.resolve("without.xyz");
        String out = MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", with.toString(),
                "--max-atoms", "500", "--timeline", png.toString());
        MainTest.run(0, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", without.toString(), "--max-atoms", "500");
        assertThat(java.nio.file.Files.readString(with)).isEqualTo(java.nio.file.Files.readString(without));
        assertThat(out).contains("timeline: " + png);
        java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(png.toFile());
        for (int lane = 0; lane < 2; lane++) {
            boolean stepDrawn = false;
            for (int x = 245; x < 1370 && !stepDrawn; x++) {
                for (int y = 50 + 26 * lane; y < 50 + 26 * (lane + 1) && !stepDrawn; y++) {
                    stepDrawn = (img.getRGB(x, y) & 0xFFFFFF) == 0x54A24B;
                }
            }
            assertThat(stepDrawn).as("lane %d has steps", lane).isTrue();
        }
        assertThat(MainTest.run(2, "simulate", EXAMPLE, "--pipeline", PIPELINE, "--potential", LJ, "--out", dir.resolve("x.xyz").toString(),
                "--timeline", dir.resolve("where.txt").toString())).contains("option '--timeline'").contains(".png");
    }

    /// One argon crystal of 4,000 atoms (computed in parts, `RowParts`, that the stage's threads
    /// share): the same bytes on 1, 2 and 3 threads.
    @Test
    void aLargeCrystalSharedOverTheThreadsGivesTheSameBytes() throws Exception {
        int cells = 10;
        double a = 5.26;
        StringBuilder xyz = new StringBuilder().append(4 * cells * cells * cells).append('\n');
        double side = a * cells;
        xyz.append(String.format(java.util.Locale.ROOT, "Lattice=\"%.2f 0 0 0 %.2f 0 0 0 %.2f\" Properties=species:S:1:pos:R:3 pbc=\"T T T\"%n",
                side, side, side));
        double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
        for (int x = 0; x < cells; x++) {
            for (int y = 0; y < cells; y++) {
                for (int z = 0; z < cells; z++) {
                    for (double[] b : basis) {
                        xyz.append(String.format(java.util.Locale.ROOT, "Ar %.6f %.6f %.6f%n", a * (x + b[0]) + rnd.nextDouble(-0.1, 0.1),
                                a * (y + b[1]) + rnd.nextDouble(-0.1, 0.1), a * (z + b[2]) + rnd.nextDouble(-0.1, 0.1)));
                    }
                }
            }
        }
        Path crystal = dir.resolve("crystal.xyz");
        java.nio.file.Files.writeString(crystal, xyz);
        String pipeline = "fire(steps=8) | nve(dt=5, steps=8)";
        String one = null;
        for (int threads = 1; threads <= 3; threads++) {
            Path out = dir.resolve("crystal-" + threads + ".xyz");
            MainTest.run(0, "simulate", crystal.toString(), "--pipeline", pipeline, "--potential", LJ, "--out", out.toString(),
                    "--max-atoms", "5000", "--threads", Integer.toString(threads));
            String got = java.nio.file.Files.readString(out);
            one = one == null ? got : one;
            assertThat(got).as("%d threads", threads).isEqualTo(one);
        }
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

    /// Every field of the XYZ output, the input's own info keys and per-atom arrays included, is
    /// in the Zarr output (v2 read by zarr-python 2.13, v3 by zarrita), in the input's order.
    @Test
    void aZarrOutputHoldsEveryFieldOfTheXyzOutput() throws Exception {
        assumeTrue(Python.required() || (Python.has("ase") && Python.has("zarr")), "ASE and zarr-python are not installed");
        Path input = dir.resolve("tagged.xyz");
        Python.Result made = Python.run("""
                import sys
                import numpy as np
                from ase.io import read, write
                from ase.build import bulk
                from ase.cluster import Icosahedron, Octahedron
                rng = np.random.default_rng(7)
                frames = [bulk('Cu', 'fcc', a=3.61, cubic=True).repeat(2), Icosahedron('Cu', 2), Octahedron('Cu', 3)]
                frames += [Icosahedron('Cu', 2) for _ in range(5)]
                for k, a in enumerate(frames):
                    a.positions += rng.normal(0, 0.05, a.positions.shape)
                    a.set_tags(np.arange(len(a)) % 3 + k)
                    a.set_initial_charges(np.linspace(-1, 1, len(a)))
                    a.new_array('label', np.array(['surface' if i % 4 == 0 else 'core' for i in range(len(a))]))
                    a.info['config_type'] = 'cluster-%d' % k
                    a.info['id'] = k
                    if k % 3 == 0:
                        a.new_array('fixed', np.array([i % 2 == 0 for i in range(len(a))]))
                write(sys.argv[2], frames, format='extxyz')
                print('written')
                """, "unused", input.toString());
        assertThat(made.output()).contains("written");
        String eam = "eam(file=/usr/share/lammps/potentials/Cu_u3.eam)";
        assumeTrue(Python.required() || java.nio.file.Files.exists(Path.of("/usr/share/lammps/potentials/Cu_u3.eam")), "lammps-data");
        Path xyz = dir.resolve("out.xyz");
        Path zarr = dir.resolve("out.zarr");
        Path zarr3 = dir.resolve("out3.zarr");
        String pipeline = "fire(fmax=0.05) | nve(dt=2, steps=20)";
        MainTest.run(0, "simulate", input.toString(), "--pipeline", pipeline, "--potential", eam, "--out", xyz.toString(), "--max-atoms", "700");
        MainTest.run(0, "simulate", input.toString(), "--pipeline", pipeline, "--potential", eam, "--out", zarr.toString(), "--max-atoms", "150",
                "--mode", "async-receive");
        MainTest.run(0, "simulate", input.toString(), "--pipeline", pipeline, "--potential", eam, "--out", zarr3.toString(), "--max-atoms", "150",
                "--zarr-format", "3", "--device", "cpu");
        Python.Result r = Python.run("""
                import sys, json
                import numpy as np
                import zarr
                from ase.io import read
                frames = read(sys.argv[1], index=':')
                g = zarr.open_group(sys.argv[2], mode='r')
                assert g.attrs['format'] == 'penstock-systems' and g.attrs['order'] == 'input', dict(g.attrs)
                assert g.attrs['units']['positions'] == '\u00c5', g.attrs['units']
                ids = g['id'][:, 0]
                assert list(ids) == [a.info['id'] for a in frames] == list(range(8)), ids
                stressed = 0
                for k, a in enumerate(frames):
                    s, n = g['atom_start'][k, 0], g['atom_count'][k, 0]
                    assert n == len(a)
                    rows = slice(s, s + n)
                    assert np.array_equal(g['positions'][rows], a.positions), k
                    assert np.array_equal(g['numbers'][rows, 0], a.numbers), k
                    assert np.array_equal(g['masses'][rows, 0], a.get_masses()), k
                    assert np.array_equal(g['momenta'][rows], a.get_momenta()), k
                    assert np.array_equal(g['forces'][rows], a.get_forces()), k
                    assert g['energy'][k, 0] == a.get_potential_energy(), k
                    assert np.array_equal(g['cell'][k].reshape(3, 3), a.cell[:]), k
                    assert list(g['pbc'][k] == 1) == list(a.pbc), k
                    st = g['stress'][k].reshape(3, 3)
                    if 'stress' in a.calc.results:
                        assert np.array_equal(st, a.get_stress(voigt=False)), k
                        stressed += 1
                    else:
                        assert np.isnan(st).all(), k
                    for key in ('stages', 'config_type'):
                        assert g['info/' + key][k, 0] == a.info[key], (k, key, g['info/' + key][k, 0], a.info[key])
                    assert np.array_equal(g['arrays/tags'][rows, 0], a.get_tags()), k
                    assert np.array_equal(g['arrays/initial_charges'][rows, 0], a.get_initial_charges()), k
                    assert list(g['arrays/label'][rows, 0]) == list(a.arrays['label']), k
                    fixed = g['arrays/fixed'][rows, 0]
                    assert list(fixed == 1) == list(a.arrays['fixed']) if 'fixed' in a.arrays else not fixed.any(), k
                assert g['arrays/fixed'].attrs['kind'] == 'bool'
                assert stressed == 1, stressed
                print('same', len(ids))
                """, xyz.toString(), zarr.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("same 8");
        assumeTrue(dev.penstock.testing.NodeJs.available("zarrita") || Python.required(), "zarrita (npm) is not installed");
        Python.Result v3 = dev.penstock.testing.NodeJs.run("""
                import * as zarr from "zarrita";
                import FileSystemStore from "@zarrita/storage/fs";
                const open = (dir) => zarr.root(new FileSystemStore(dir));
                const [v2root, v3root] = [open(process.argv[2]), open(process.argv[3])];
                const v3g = await zarr.open.v3(v3root, { kind: "group" });
                if (v3g.attrs.format !== "penstock-systems") { console.log("FAIL attrs"); process.exit(1); }
                for (const name of ["positions", "momenta", "forces", "masses", "numbers", "id", "energy", "stress", "atom_start",
                                    "atom_count", "cell", "pbc", "info/stages", "info/config_type", "arrays/tags", "arrays/label",
                                    "arrays/initial_charges", "arrays/fixed"]) {
                  const a = await zarr.get(await zarr.open.v2(v2root.resolve(name), { kind: "array" }));
                  const b = await zarr.get(await zarr.open.v3(v3root.resolve(name), { kind: "array" }));
                  const same = a.shape.join() === b.shape.join() && a.data.length === b.data.length
                      && Array.from(a.data).every((x, i) => Object.is(x, b.data[i]));
                  if (!same) { console.log("FAIL " + name); process.exit(1); }
                }
                console.log("v3 equals v2");
                """, zarr.toString(), zarr3.toString());
        assertThat(v3.output()).contains("v3 equals v2");
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
        assertThat(java.nio.file.Files.readString(flink)).as("the same file: input order (the default) on both runners")
                .isEqualTo(java.nio.file.Files.readString(local));
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
                "--max-atoms", "100")).contains("larger than a stage").contains("stage 0 holds systems 256, atoms 100").contains("(atoms 147)");
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
