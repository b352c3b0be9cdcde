package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `simulate` (on `--device cpu`, the default): the stages' systems packed on the CPU device,
/// stepped by batch kernels, every model computed over each system's rows — byte for byte the
/// file the library's per-system stages give (`PerSystemReference`), whatever the thread count
/// or mode, and the same bits on Flink; what it cannot run is refused before anything runs,
/// naming it.
class SimulateDeviceTest {
    private static final String LJ = "lj(epsilon=1, sigma=1, cutoff=2.5)";
    private static final String PIPELINE = "fire(fmax=0.05) + fire(fmax=0.01, steps=3000) | nve(dt=0.05, steps=200)";

    @TempDir
    Path dir;

    private Path clusters() throws Exception {
        Path in = dir.resolve("clusters.xyz");
        List<AtomicSystem> systems = Clusters.inflight(30, 77);
        try (Writer w = Files.newBufferedWriter(in)) {
            ExtXyz.write(w, systems);
        }
        return in;
    }

    /// The systems of an extended XYZ file by id.
    static Map<Long, AtomicSystem> read(Path xyz) throws Exception {
        Map<Long, AtomicSystem> out = new TreeMap<>();
        try (var in = Files.newBufferedReader(xyz)) {
            for (AtomicSystem s : ExtXyz.read(in, xyz)) {
                out.put(s.id(), s);
            }
        }
        return out;
    }

    @Test
    void simulateWritesThePerSystemStagesBytesWhateverTheThreadsAndMode() throws Exception {
        Path in = clusters();
        Path cpu = dir.resolve("cpu.xyz");
        Path dev1 = dir.resolve("dev1.xyz");
        Path dev2 = dir.resolve("dev2.xyz");
        PerSystemReference.write(in, PIPELINE, LJ, 800, 0, cpu);
        String out = MainTest.run(0, "simulate", in.toString(), "--pipeline", PIPELINE, "--potential", LJ, "--max-atoms", "800", "--out",
                dev1.toString(), "--threads", "1");
        assertThat(out).contains("30 of 30 systems finished");
        MainTest.run(0, "simulate", in.toString(), "--pipeline", PIPELINE, "--potential", LJ, "--max-atoms", "800", "--out", dev2.toString(),
                "--device", "cpu", "--threads", "2", "--mode", "async-receive");
        assertThat(Files.readString(dev2)).as("the same bytes whatever the threads and mode").isEqualTo(Files.readString(dev1));
        assertThat(Files.readString(dev1)).as("the per-system stages' bytes").isEqualTo(Files.readString(cpu));
        assertThat(read(dev1)).hasSize(30);
    }

    @Test
    void aLangevinStageOnTheDeviceDrawsTheNoiseOfThePerSystemStageAndTheSeedKeysIt() throws Exception {
        Path in = clusters();
        String pipeline = "fire(fmax=0.05) | langevin(T=300, dt=0.05, steps=150, friction=0.05) | nve(dt=0.05, steps=50)";
        Path cpu = dir.resolve("cpu.xyz");
        Path dev = dir.resolve("dev.xyz");
        Path other = dir.resolve("other.xyz");
        PerSystemReference.write(in, pipeline, LJ, 800, 5, cpu);
        assertThat(MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", LJ, "--max-atoms", "800", "--seed", "5",
                "--out", dev.toString())).contains("30 of 30 systems finished");
        assertThat(Files.readString(dev)).as("the per-system stages' bytes").isEqualTo(Files.readString(cpu));
        MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", LJ, "--max-atoms", "800", "--seed", "6", "--out",
                other.toString(), "--device", "cpu");
        Map<Long, AtomicSystem> a = read(cpu);
        Map<Long, AtomicSystem> b = read(dev);
        Map<Long, AtomicSystem> c = read(other);
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(30);
        for (long id : a.keySet()) {
            double e = a.get(id).energy();
            assertThat(Math.abs(b.get(id).energy() - e) / Math.abs(e)).as("system %d", id).isLessThan(1e-8);
            assertThat(Math.abs(c.get(id).energy() - e) / Math.abs(e)).as("system %d, another seed", id).isGreaterThan(1e-7);
        }
    }

    @Test
    void theDeviceStagesOnFlinkWriteTheBytesTheyWriteLocally() throws Exception {
        Path in = clusters();
        String pipeline = "fire(fmax=0.05) + langevin(T=300, dt=0.05, steps=100, friction=0.05) | nve(dt=0.05, steps=60)";
        Path local = dir.resolve("local.xyz");
        Path flink = dir.resolve("flink.xyz");
        MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", LJ, "--max-atoms", "800", "--seed", "3", "--out",
                local.toString(), "--device", "cpu");
        String out = MainTest.run(0, "simulate", in.toString(), "--pipeline", pipeline, "--potential", LJ, "--max-atoms", "800", "--seed", "3",
                "--out", flink.toString(), "--device", "cpu", "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "100");
        assertThat(out).contains("30 of 30 systems finished on Flink");
        Map<Long, AtomicSystem> a = read(local);
        Map<Long, AtomicSystem> b = read(flink);
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(30);
        for (long id : a.keySet()) {
            assertThat(b.get(id).info().get("stages")).as("system %d", id).isEqualTo(a.get(id).info().get("stages"));
            assertThat(b.get(id).positions()).as("system %d, bit for bit", id).isEqualTo(a.get(id).positions());
            assertThat(b.get(id).energy()).as("system %d", id).isEqualTo(a.get(id).energy());
        }
    }

    @Test
    void aMorseStageOnTheDeviceWritesWhatThePerSystemStageWrites() throws Exception {
        Path in = clusters();
        String morse = "morse(depth=1, a=3, r0=1.1, cutoff=2.5)";
        String pipeline = "fire(fmax=0.01, steps=2000) | nve(dt=0.05, steps=100)";
        Path cpu = dir.resolve("cpu.xyz");
        Path dev = dir.resolve("dev.xyz");
        PerSystemReference.write(in, pipeline, morse, 800, 0, cpu);
        // one cluster spends its 2,000 FIRE steps first: written, marked, and said in the exit code (the
        // per-system reference marks it the same way: the bytes below match)
        assertThat(MainTest.run(ExitCodes.UNCONVERGED, "simulate", in.toString(), "--pipeline", pipeline, "--potential", morse, "--max-atoms",
                "800", "--out", dev.toString(), "--device", "cpu")).contains("30 of 30 systems finished")
                .contains("outcomes: 29 converged, 1 unconverged (a relaxation spent its step budget before its fmax: system 27;");
        assertThat(Files.readString(dev)).as("the per-system stages' bytes").isEqualTo(Files.readString(cpu));
        assertThat(read(dev)).hasSize(30);
    }

    @Test
    void theDocsThreadsExampleRunsAsShownAndWritesTheBytesOfOneThread() throws Exception {
        String readme = Files.readString(Path.of("../docs/atomistics.md"));
        int end = readme.indexOf("--threads 2 --out target/clusters.xyz");
        int start = readme.lastIndexOf("./penstock simulate ", end);
        assertThat(start).as("docs/atomistics.md's --threads example").isPositive();
        String command = readme.substring(start + "./penstock ".length(), end + "--threads 2".length()).replace("\\\n", " ");
        List<String> args = new java.util.ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"([^\"]*)\"|(\\S+)").matcher(command);
        while (m.find()) {
            args.add(m.group(1) != null ? m.group(1) : m.group(2).replace("examples/", "../examples/"));
        }
        Path out = dir.resolve("clusters.xyz");
        args.addAll(List.of("--out", out.toString()));
        assertThat(MainTest.run(0, args.toArray(String[]::new))).contains("20 of 20 systems finished");
        assertThat(read(out).values()).hasSize(20).allMatch(sys -> sys.info().get("stages").toString().matches("fire:\\d+,langevin:2000,nve:1000"));
        Path one = dir.resolve("one.xyz");
        args.set(args.indexOf("2"), "1");
        args.set(args.size() - 1, one.toString());
        MainTest.run(0, args.toArray(String[]::new));
        assertThat(Files.readString(one)).isEqualTo(Files.readString(out));
    }

    @Test
    void theReadmesPeriodicBoxesRelaxOnTheDeviceAsOnThePerSystemStagesByteForByte() throws Exception {
        // the README example's input: 20 free clusters and 4 periodic boxes of 15.8–16.2 Å, less
        // than twice the 8.5 Å cutoff, so the kernels scan the images (CellImages)
        String lj = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";
        Path cpu = dir.resolve("boxes-cpu.xyz");
        Path dev = dir.resolve("boxes-dev.xyz");
        PerSystemReference.write(Path.of("../examples/argon-clusters.xyz"), "fire(fmax=0.005) + nve(dt=5, steps=200)", lj, 600, 0, cpu);
        assertThat(MainTest.run(0, "simulate", "../examples/argon-clusters.xyz", "--pipeline", "fire(fmax=0.005) + nve(dt=5, steps=200)",
                "--potential", lj, "--max-atoms", "600", "--out", dev.toString())).contains("24 of 24 systems finished");
        assertThat(Files.readString(dev)).as("the per-system stages' bytes").isEqualTo(Files.readString(cpu));
        assertThat(read(dev).values().stream().filter(sys -> !sys.cell().isFree()).count()).as("periodic boxes").isEqualTo(4);
    }

    @Test
    void theReadmesPeriodicBoxesOnFlinkWriteTheBitsTheyWriteLocally() throws Exception {
        // each Flink task keeps its own Verlet lists (rebuilt after a restore): the same bits as one local batch
        String lj = "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)";
        String pipeline = "fire(fmax=0.005) + nve(dt=5, steps=100) | nve(dt=5, steps=100)";
        Path local = dir.resolve("boxes-local.xyz");
        Path flink = dir.resolve("boxes-flink.xyz");
        MainTest.run(0, "simulate", "../examples/argon-clusters.xyz", "--pipeline", pipeline, "--potential", lj, "--max-atoms", "600", "--out",
                local.toString(), "--device", "cpu");
        assertThat(MainTest.run(0, "simulate", "../examples/argon-clusters.xyz", "--pipeline", pipeline, "--potential", lj, "--max-atoms", "600",
                "--out", flink.toString(), "--device", "cpu", "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "100"))
                .contains("24 of 24 systems finished on Flink");
        Map<Long, AtomicSystem> a = read(local);
        Map<Long, AtomicSystem> b = read(flink);
        assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(24);
        for (long id : a.keySet()) {
            assertThat(b.get(id).positions()).as("system %d, bit for bit", id).isEqualTo(a.get(id).positions());
            assertThat(b.get(id).energy()).as("system %d", id).isEqualTo(a.get(id).energy());
        }
    }

    /// The README's copper nanoparticles (EAM) and silicon boxes (Tersoff) on the device stages:
    /// byte for byte the file the per-system stages write (energies, forces, virial stress and
    /// stage history included), and the same bits again on Flink (parallelism 2, checkpoints).
    @Test
    void theReadmesCopperAndSiliconOnTheDeviceWriteTheBytesOfThePerSystemStagesAndOnFlinkTheirBits() throws Exception {
        Path potentials = Path.of("/usr/share/lammps/potentials");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(potentials.resolve("Cu_u3.eam")) || dev.penstock.testing.Ci.required(),
                "LAMMPS's potential files (lammps-data) are not installed");
        String[][] runs = {
            {"../examples/copper-nanoparticles.xyz", "fire(fmax=0.01) + langevin(T=600, dt=2, steps=300) | fire(fmax=0.01)",
                "eam(file=" + potentials.resolve("Cu_u3.eam") + ")", "1200", "16"},
            {"../examples/silicon.xyz", "fire(fmax=0.01) + langevin(T=1000, dt=1, steps=200) | fire(fmax=0.01)",
                "tersoff(file=" + potentials.resolve("Si.tersoff") + ")", "600", "8"}};
        for (String[] r : runs) {
            Path perSystem = dir.resolve("per-system.xyz");
            Path device = dir.resolve("device.xyz");
            Path flink = dir.resolve("flink.xyz");
            PerSystemReference.write(Path.of(r[0]), r[1], r[2], Long.parseLong(r[3]), 0, perSystem);
            assertThat(MainTest.run(0, "simulate", r[0], "--pipeline", r[1], "--potential", r[2], "--max-atoms", r[3], "--out", device.toString()))
                    .contains(r[4] + " of " + r[4] + " systems finished");
            assertThat(Files.readString(device)).as(r[2]).isEqualTo(Files.readString(perSystem));
            if (r[0].contains("silicon")) { // periodic boxes: the virial stress came through the device columns
                assertThat(Files.readString(device)).contains("stress=");
            }
            assertThat(MainTest.run(0, "simulate", r[0], "--pipeline", r[1], "--potential", r[2], "--max-atoms", r[3], "--out", flink.toString(),
                    "--device", "cpu", "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "100"))
                    .contains(r[4] + " of " + r[4] + " systems finished on Flink");
            Map<Long, AtomicSystem> a = read(device);
            Map<Long, AtomicSystem> b = read(flink);
            assertThat(b.keySet()).isEqualTo(a.keySet()).hasSize(Integer.parseInt(r[4]));
            for (long id : a.keySet()) {
                assertThat(b.get(id).info().get("stages")).as("system %d", id).isEqualTo(a.get(id).info().get("stages"));
                assertThat(b.get(id).positions()).as("system %d, bit for bit", id).isEqualTo(a.get(id).positions());
                assertThat(b.get(id).energy()).as("system %d", id).isEqualTo(a.get(id).energy());
            }
        }
    }

    @Test
    void whatTheDeviceStagesCannotRunIsRefusedBeforeAnythingRuns() throws Exception {
        Path in = clusters();
        Path xyz = dir.resolve("never.xyz");
        Path cuEam = Path.of("/usr/share/lammps/potentials/Cu_u3.eam");
        if (Files.isReadable(cuEam) || dev.penstock.testing.Ci.required()) {
            // argon (atomic number 18 in the example; 0 here) is not an element of the copper file: refused up front on the device too
            assertThat(MainTest.run(2, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01)", "--potential", "eam(file=" + cuEam + ")",
                    "--out", xyz.toString(), "--device", "cpu")).contains("which Cu_u3.eam does not describe (it has Cu)");
        }
        assertThat(MainTest.run(2, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01)", "--potential", LJ, "--out", xyz.toString(),
                "--device", "tpu")).contains("option '--device': expected cpu or cuda[:N], got 'tpu'");
        assertThat(MainTest.run(2, "simulate", in.toString(), "--pipeline", "fire(fmax=0.01)", "--potential", LJ, "--out", xyz.toString(),
                "--device", "cuda", "--runner", "flink")).contains("--runner flink runs device stages on cpu only for now");
        assertThat(xyz).doesNotExist();
    }
}
