package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.testing.Python;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {

    /// Runs the command line; returns what it printed (stdout and stderr), whatever its exit code.
    static String runAnyCode(String... args) {
        return capture(new int[1], args);
    }

    static String run(int expectedCode, String... args) {
        int[] code = new int[1];
        String out = capture(code, args);
        assertThat(code[0]).as(out).isEqualTo(expectedCode);
        return out;
    }

    /// Runs the command line expecting `expectedCode`; returns what it printed on stdout alone.
    static String stdout(int expectedCode, String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        ByteArrayOutputStream rest = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(rest, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.execute(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        assertThat(code).as(rest.toString(StandardCharsets.UTF_8)).isEqualTo(expectedCode);
        return buf.toString(StandardCharsets.UTF_8);
    }

    private static String capture(int[] code, String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(buf, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        try {
            code[0] = Main.execute(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aSmallLoaderBenchmarkEndsWithItsFigures() {
        String out = run(0, "bench", "loader", "--workers", "2,4", "--samples", "96", "--repeat", "1", "--step-ms", "1");
        assertThat(out).contains("samples_per_s_platform_w2: ", "samples_per_s_virtual_w4: ", "best_workers: ", "ideal_ratio: ",
                "exposed_wait_fraction: ");
        String last = out.strip().lines().reduce((a, b) -> b).orElseThrow();
        assertThat(last).matches("ideal_ratio_max: [0-9.]+");
    }

    @Test
    void anInvalidWorkerCountIsRejectedNamingTheOption() {
        String out = run(2, "bench", "loader", "--workers", "0", "--samples", "32", "--repeat", "1");
        assertThat(out).contains("--workers").contains("0");
    }

    @Test
    void anUnknownThreadKindIsRejectedNamingTheOption() {
        String out = run(2, "bench", "loader", "--threads", "green", "--samples", "32", "--repeat", "1");
        assertThat(out).contains("--threads").contains("green");
    }

    @Test
    void aSmallTransferBenchmarkReportsItsRatioToMemcpy() {
        String out = run(0, "bench", "transfer", "--total-mib", "8", "--chunk-mib", "1,2", "--repeat", "1");
        assertThat(out).contains("memcpy_gb_per_s: ", "transfer_noop_1mib_gb_per_s: ", "transfer_read_2mib_ratio_vs_memcpy: ",
                "ratio_vs_memcpy: ");
    }

    @Test
    void encodeWritesStatesThatInspectDescribes(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        String in = dir.resolve("rows.npy").toString();
        String outFile = dir.resolve("states.npy").toString();
        String out = run(0, "encode", in, "--example", "300", "--encoding", "amplitude", "--qubits", "4", "--precision", "f32",
                "--out", outFile, "--rows-per-chunk", "64");
        assertThat(out).contains("encoded 300 of 300 rows").doesNotContain("bad rows").doesNotContain("rows_written"); // one summary, no machine lines
        assertThat(run(0, "inspect", outFile)).contains("<c8").contains("[300, 16]");
    }

    @Test
    void encodeDrawsItsTimeline(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path png = dir.resolve("t.png");
        String out = run(0, "encode", dir.resolve("rows.npy").toString(), "--example", "2000", "--encoding", "amplitude",
                "--qubits", "6", "--out", dir.resolve("s.npy").toString(), "--rows-per-chunk", "100", "--timeline", png.toString());
        assertThat(out).contains("timeline: " + png);
        java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(png.toFile());
        assertThat(img.getWidth()).isEqualTo(1400);
        // some pixel in the compute-stream lane has the kernel colour: the run was really drawn
        boolean kernelDrawn = false;
        for (int x = 150; x < 1370 && !kernelDrawn; x++) {
            for (int y = 50; y < img.getHeight() - 90 && !kernelDrawn; y++) {
                kernelDrawn = (img.getRGB(x, y) & 0xFFFFFF) == 0x54A24B;
            }
        }
        assertThat(kernelDrawn).isTrue();
    }

    @Test
    void encodeWritesAZarrStore(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String in = dir.resolve("rows.npy").toString();
        java.nio.file.Path store = dir.resolve("states.zarr");
        String out = run(0, "encode", in, "--example", "100", "--encoding", "phase", "--qubits", "3", "--out", store.toString(),
                "--rows-per-chunk", "32");
        assertThat(out).contains("encoded 100 of");
        assertThat(java.nio.file.Files.readString(store.resolve("states/.zarray"))).contains("\"shape\": [100, 8]").contains("<c16");
        assertThat(java.nio.file.Files.exists(store.resolve("states/3.0"))).isTrue();
    }

    @Test
    void encodeWritesAZarrV3StoreWithTheSameStates(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String in = dir.resolve("rows.npy").toString();
        java.nio.file.Path v2 = dir.resolve("v2.zarr");
        java.nio.file.Path v3 = dir.resolve("v3.zarr");
        run(0, "encode", in, "--example", "100", "--encoding", "phase", "--qubits", "3", "--out", v2.toString(), "--rows-per-chunk", "32");
        run(0, "encode", in, "--encoding", "phase", "--qubits", "3", "--out", v3.toString(), "--rows-per-chunk", "32", "--zarr-format", "3");
        assertThat(java.nio.file.Files.readString(v3.resolve("states/zarr.json"))).contains("\"shape\": [100, 8]").contains("complex128")
                .contains("\"gzip\"");
        assumeTrue(Python.required() || Python.has("zarr"), "zarr-python is not installed");
        // the v3 chunks (gzip) hold the bytes of the v2 chunks (zlib)
        Python.Result r = Python.run("""
                import sys, zlib, gzip, os
                v2, v3 = sys.argv[1], sys.argv[2]
                for k in range(4):
                    a = zlib.decompress(open(os.path.join(v2, 'states', '%d.0' % k), 'rb').read())
                    b = gzip.decompress(open(os.path.join(v3, 'states', 'c', str(k), '0'), 'rb').read())
                    assert a == b and len(a) == 32 * 8 * 16, k
                print('same chunks')
                """, v2.toString(), v3.toString());
        assertThat(r.output()).contains("same chunks");
        assertThat(run(2, "encode", in, "--encoding", "phase", "--qubits", "3", "--out", dir.resolve("x.zarr").toString(), "--zarr-format", "4"))
                .contains("option '--zarr-format'").contains("2 or 3");
    }

    @Test
    void encodeReadsParquetColumnsAndInspectShowsTheSchema(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path in = dev.penstock.testing.ParquetFiles.mixed(dir.resolve("rows.parquet"), 2000, 16 * 1024);
        String states = dir.resolve("s.npy").toString();
        String out = run(0, "encode", in.toString(), "--columns", "f0,f1,f2,f3", "--encoding", "amplitude", "--qubits", "2",
                "--out", states, "--rows-per-chunk", "100");
        assertThat(out).contains("encoded 2000 of").doesNotContain("bad rows");
        // f4 is null every 10th row: NaN, so those rows are bad; skip leaves 1800 (row 0 is all zeros but f4)
        String skip = run(0, "encode", in.toString(), "--columns", "f0,f1,f2,f3,f4", "--encoding", "angle", "--qubits", "5", "--out", states,
                "--on-bad-row", "skip");
        assertThat(skip).contains("skipped 200 bad rows").contains("row 10: value 4 is NaN");
        assertThat(run(0, "inspect", in.toString())).contains("2000 rows").contains("label BYTE_ARRAY").contains("f4 DOUBLE (nullable)")
                .contains("read by default: columns f0, f1, f4 (3 values per row; not read: f2, f3)");
        InspectJson.check(stdout(0, "inspect", in.toString(), "--json"), "j['format'] == 'parquet' and j['rows'] == 2000 "
                + "and {'name': 'f4', 'type': 'DOUBLE', 'nullable': True, 'repeated': False} in j['columns'] and j['row_groups'] >= 1 "
                + "and j['read_by_default'] == ['f0', 'f1', 'f4'] and j['not_read'] == ['f2', 'f3']");
        InspectJson.check(stdout(0, "inspect", states, "--json"), "j['format'] == 'npy' and j['dtype'] == '<c16' and j['shape'] == [1800, 32] "
                + "and j['data_bytes'] == 1800 * 32 * 16");
    }

    @Test
    void encodeRejectsUnknownEncodingsAndNonNpyOutputNamingTheOption(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        String in = dir.resolve("rows.npy").toString();
        assertThat(run(2, "encode", in, "--encoding", "dense", "--qubits", "4", "--out", "x.npy")).contains("'dense'");
        assertThat(run(2, "encode", in, "--example", "10", "--encoding", "angle", "--qubits", "4", "--out", "x.h5"))
                .contains("--out").contains("x.h5");
    }

    @Test
    void aSmallEncodeFileBenchmarkComparesThePipelineWithEachStageAlone(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        String out = run(0, "bench", "encode-file", "--rows", "600", "--repeat", "1", "--dir", dir.toString(), "--runner", "flink");
        assertThat(out).contains("read_alone_rows_per_s: ", "encode_alone_rows_per_s: ", "write_alone_rows_per_s: ",
                "slowest_stage: ", "ratio_vs_slowest_stage: ", "arrow_read_alone_rows_per_s: ", "arrow_ratio_vs_slowest_stage: ",
                "flink_rows_per_s: ", "flink_fixed_cost_s: ", "ratio_flink_vs_local: ");
        assertThat(out).as("the benchmark's file is plain: read in place").contains("parquet_reader: plain pages in place");
        // what the machine allows beside what the pipeline reaches: a bound in (0, 1], CPU times
        assertThat(out).containsPattern("ratio_bound_on_this_machine: (0\\.\\d{3}|1\\.000)\n")
                .containsPattern("arrow_ratio_bound_on_this_machine: (0\\.\\d{3}|1\\.000)\n")
                .containsPattern("cpu_s_read_encode_write_alone: \\d+\\.\\d{3} \\d+\\.\\d{3} \\d+\\.\\d{3}\n")
                .containsPattern("pipeline_cpu_s: \\d+\\.\\d{3}\n").containsPattern("cores: \\d+\n")
                .containsPattern("write_slowdown_beside_a_copying_core: \\d+\\.\\d{2}\n");
        assertThat(out).containsPattern("overlap_percent: \\d+\\.\\d").containsPattern("staging_waits: \\d+")
                .containsPattern("staging_wait_ms: \\d+\\.\\d");
        try (var left = java.nio.file.Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString()).toList()).as("only the kept inputs").allMatch(n -> n.endsWith(".parquet")
                    || n.endsWith(".arrow"));
        }
    }

    /// `bench relax --potential eam` on the README's first three copper nanoparticles: LAMMPS's
    /// `min_style fire` and Penstock's FIRE 2.0 reach the same minima (per atom, to the 1e-4 eV an
    /// fmax of 0.01 eV/Å allows) in step counts within a fifth of each other.
    @Test
    void theCopperRelaxBenchmarkReachesLammpsMinima(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/lmp"))
                || dev.penstock.testing.Ci.required(), "LAMMPS (lammps) is not installed");
        java.util.List<String> lines = java.nio.file.Files.readAllLines(java.nio.file.Path.of("../examples/copper-nanoparticles.xyz"));
        java.util.List<String> three = new java.util.ArrayList<>();
        for (int frame = 0, at = 0; frame < 3; frame++) {
            int atoms = Integer.parseInt(lines.get(at).trim());
            three.addAll(lines.subList(at, at + atoms + 2));
            at += atoms + 2;
        }
        java.nio.file.Path particles = dir.resolve("three.xyz");
        java.nio.file.Files.write(particles, three);
        String out = run(0, "bench", "relax", "--potential", "eam", "--particles", particles.toString(), "--dir", dir.toString());
        assertThat(out).contains("particles: 3", "ratio_vs_lammps: ", "ratio_per_step_vs_lammps: ");
        assertThat(figure(out, "max_energy_diff_per_atom_fire2_vs_lammps")).isLessThan(1e-4);
        assertThat(figure(out, "max_energy_diff_per_atom_fire_vs_lammps")).isLessThan(1e-4);
        double lammps = figure(out, "lammps_steps");
        assertThat(figure(out, "fire2_steps")).isBetween(0.8 * lammps, 1.2 * lammps);
        assertThat(run(2, "bench", "relax", "--potential", "tersoff")).contains("option '--potential'").contains("tersoff");
    }

    /// `bench md` runs `penstock simulate` itself (a JVM of its own, as users run it) from LAMMPS's
    /// own start, and its total energy follows LAMMPS's at every step of 100 to the unit
    /// constants' 1e-8; a round times both whole commands.
    @Test
    void theMdBenchmarkTimesSimulateAndFollowsLammps(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/lmp"))
                || dev.penstock.testing.Ci.required(), "LAMMPS (lammps) is not installed");
        String out = run(0, "bench", "md", "--atoms", "4000", "--steps", "20", "--rounds", "1", "--threads", "1", "--dir", dir.toString());
        assertThat(figure(out, "max_rel_energy_diff_vs_lammps")).isLessThan(1e-8);
        assertThat(figure(out, "check_atoms")).isEqualTo(4000);
        assertThat(figure(out, "simulate_s")).isPositive();
        assertThat(figure(out, "ratio_vs_lammps")).isPositive();
        assertThat(dir.resolve("md-lj/out-full.xyz")).exists(); // simulate's own output: the command ran whole
        assertThat(run(2, "bench", "md", "--potential", "tersoff", "--atoms", "4000")).contains("option '--atoms'").contains("8·k³");
    }

    private static double figure(String out, String name) {
        String line = out.lines().filter(l -> l.startsWith(name + ": ")).findFirst().orElseThrow(() -> new AssertionError(name + " in " + out));
        return Double.parseDouble(line.substring(name.length() + 2).trim());
    }

    @Test
    void aSmallInflightBenchmarkComparesRefillWithStaticBatches() {
        String out = run(0, "bench", "inflight", "--clusters", "12", "--max-atoms", "400");
        assertThat(out).contains("ratio_static_vs_inflight: ").contains("mean_occupancy: ").contains("batch_steps_static: ")
                .contains("max_energy_diff: 0.00");
    }

    @Test
    void theInflightBenchmarkRelaxesTantalumClustersUnderSnapEveryWayToTheSameEnergies() {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of(
                "/usr/share/lammps/potentials/Ta06A.snap")) || dev.penstock.testing.Ci.required(), "lammps-data is not installed");
        String out = run(0, "bench", "inflight", "--potential", "snap", "--clusters", "3", "--max-atoms", "60");
        assertThat(out).contains("potential: snap: /usr/share/lammps/potentials/Ta06A.snap, fmax 0.05 eV/Å", "clusters: 3", "max_atoms: 60",
                "ratio_static_vs_inflight: ", "max_energy_diff: 0.00");
        assertThat(run(2, "bench", "inflight", "--potential", "snap", "--runner", "flink")).contains("option '--runner'", "LJ workload only");
        assertThat(run(2, "bench", "inflight", "--potential", "tersoff")).contains("option '--potential'", "tersoff");
    }

    @Test
    void aSmallStagesBenchmarkComparesTheChainWithEachStageAloneAndReportsHandOffs() {
        String out = run(0, "bench", "stages", "--clusters", "16", "--max-atoms", "400", "--steps", "5", "--mode", "async-receive");
        assertThat(out).contains("ratio_vs_slowest_stage: ", "ratio_vs_sum_over_cores: ", "handoff_p99_us: ", "idle_handoff_p50_us: ",
                "handoffs: 32", "max_energy_diff: 0.00", "mode: async_receive");
        assertThat(run(2, "bench", "stages", "--mode", "eager")).contains("option '--mode'").contains("eager");
        String one = run(0, "bench", "stages", "--clusters", "16", "--max-atoms", "400", "--steps", "5", "--threads", "1");
        assertThat(one).contains("kernel_threads: 1", "handoffs: 32", "max_energy_diff: 0.00");
        assertThat(run(2, "bench", "stages", "--device", "cuda")).contains("option '--device'");
    }

    @Test
    void theInflightBenchmarkOnFlinkReportsItsRatioToTheLocalRunner() {
        String out = run(0, "bench", "inflight", "--runner", "flink", "--clusters", "8", "--max-atoms", "400");
        assertThat(out).contains("ratio_flink_vs_local: ").contains("flink_fixed_cost_s: ").contains("max_energy_diff: 0.00");
    }

    @Test
    void theGpuBenchmarkSaysWhyItCannotRunWithoutAGpu() {
        org.junit.jupiter.api.Assumptions.assumeFalse(dev.penstock.cuda.CudaDriver.probe().usable(), "a GPU is here");
        assertThat(run(2, "bench", "gpu")).contains("no usable GPU here").contains(dev.penstock.cuda.CudaDriver.probe().reason());
    }

    @Test
    void encodeOnAutoFallsBackToTheCpuSayingWhyAndCudaWithoutAGpuIsAClearError(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        org.junit.jupiter.api.Assumptions.assumeFalse(dev.penstock.cuda.CudaDriver.probe().usable(), "a GPU is here");
        String reason = dev.penstock.cuda.CudaDriver.probe().reason();
        String out = run(0, "encode", "--example", "100", "--encoding", "angle", "--qubits", "3", "--device", "auto",
                "--out", dir.resolve("s.npy").toString());
        assertThat(out).contains("device: auto: cpu (" + reason).contains("encoded 100 of");
        assertThat(run(2, "encode", "--example", "100", "--encoding", "angle", "--qubits", "3", "--device", "cuda",
                "--out", dir.resolve("t.npy").toString())).contains("option '--device': cuda is not available: " + reason);
    }

    @Test
    void helpListsTheBenchmarks() {
        String out = run(0, "bench", "--help");
        assertThat(out).contains("loader").contains("pump").contains("transfer").contains("inflight");
    }

    @Test
    void helpTopicsAndTheMethodListNeedNoRequiredOptions() {
        assertThat(run(0, "help")).contains("Usage: penstock").contains("simulate");
        assertThat(run(0, "help", "simulate")).contains("Usage: penstock simulate").doesNotContain("Missing required");
        assertThat(run(0, "simulate", "--list")).contains("langevin(T=K, dt=FS, steps=N, friction=0.01)").contains("1/fs")
                .contains("tersoff(file=PATH)").contains("eam(file=PATH)");
    }
}
